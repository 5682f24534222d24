/**
 * The largest batch the server sends (LIMITS.batch.max, 100,000 rows: about 13 MB of JSON), on
 * every route and every encoding it carries there, read by a Node client with the decoder the
 * page uses (JSON.parse, @msgpack/msgpack, apache-arrow, Connect): exactly that many rows, ids
 * cycling the 10,000-row pool, one message larger than the 1 MiB send bound sent whole on an empty
 * queue and counted once. `ws-stream` is the `ws` route (the same socket; only the page's API
 * differs). A minute's interval: the first batch is due at once and no second one is.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { decode, decodeMultiStream } from '@msgpack/msgpack';
import { RecordBatchReader } from 'apache-arrow';
import http2 from 'node:http2';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ARROW_HEAD_BYTES, arrowIpcBytes } from '../../protocol/arrow.js';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { LIMITS } from '../../protocol/limits.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { POLL_ID_HEADER, type BatchMessage } from '../../protocol/wire.js';
import { SERVER_DEFAULTS } from '../../server/defaults.js';
import { POOL_ROWS } from '../../server/rows.js';
import { h2get } from '../helpers/h2-get.js';
import { startServerSession, type ServerSession } from '../helpers/test-server.js';

const BATCH = LIMITS.batch.max;
const QUERY = `batch=${BATCH}&interval=${LIMITS.intervalMs.max}`;

/** What a client read of the first message: its rows' ids in order, and the bytes the server wrote for it where the client can count them. */
interface FirstMessage {
  ids: ArrayLike<number>;
  wireBytes?: number;
}

let running: ServerSession;
beforeAll(async () => {
  running = await startServerSession();
}, 60_000);
afterAll(async () => {
  await running?.close();
}, 60_000);

const main = () => `https://127.0.0.1:${running.server.port}`;
const stats = async (): Promise<ServerStats> => JSON.parse((await h2get(running.session, '/stats')).body) as ServerStats;

/**
 * Reads an HTTP/2 GET's body until `done` says it holds a whole message; cancels the stream then.
 * `done` sees each chunk as it comes and the bytes so far, so a 13 MB message is not joined again
 * at every chunk.
 */
function h2read<T>(session: http2.ClientHttp2Session, path: string, done: (chunks: Buffer[], bytes: number) => T | null): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('response', (h) => {
      if (h[':status'] !== 200) reject(new Error(`${path}: status ${h[':status']}`));
    });
    req.on('data', (d: Buffer) => {
      chunks.push(d);
      bytes += d.length;
      const got = done(chunks, bytes);
      if (got !== null) {
        req.close(http2.constants.NGHTTP2_CANCEL);
        resolve(got);
      }
    });
    req.on('error', reject);
  });
}

/** Whether the last chunk, with the end of the one before it, holds `mark`: a text message's end, found without joining every chunk. */
function endsIn(chunks: Buffer[], mark: string): boolean {
  const last = chunks[chunks.length - 1];
  const before = chunks.length > 1 ? chunks[chunks.length - 2].subarray(-mark.length) : Buffer.alloc(0);
  return Buffer.concat([before, last]).includes(mark);
}

const jsonIds = (text: string): FirstMessage['ids'] => (JSON.parse(text) as BatchMessage).rows.map((r) => r[0] as number);

/** The ids of an Arrow IPC stream's one record batch (the first message: schema, dictionaries, batch). */
function arrowIds(ipc: Uint8Array): ArrayLike<number> {
  const batches = [...RecordBatchReader.from(ipc)];
  expect(batches).toHaveLength(1);
  const id = batches[0].getChild('id')!;
  return Array.from({ length: batches[0].numRows }, (_, i) => id.get(i) as number);
}

/** The first line of an NDJSON stream. */
const fetchJson = (): Promise<FirstMessage> =>
  h2read(running.session, `/ndjson?${QUERY}&client=big-fetch-json`, (chunks) => {
    if (!endsIn(chunks, '\n')) return null;
    const text = Buffer.concat(chunks).toString('latin1');
    const nl = text.indexOf('\n');
    return { ids: jsonIds(text.slice(0, nl)), wireBytes: nl + 1 };
  });

/** The first headed Arrow message of a byte stream. */
function fetchArrow(): Promise<FirstMessage> {
  let total = 0;
  return h2read(running.session, `/ndjson?${QUERY}&encoding=arrow&client=big-fetch-arrow`, (chunks, bytes) => {
    if (total === 0 && bytes >= ARROW_HEAD_BYTES) {
      const head = Buffer.concat(chunks).subarray(0, ARROW_HEAD_BYTES);
      total = ARROW_HEAD_BYTES + arrowIpcBytes(new DataView(head.buffer, head.byteOffset, ARROW_HEAD_BYTES), 0);
    }
    if (total === 0 || bytes < total) return null;
    return { ids: arrowIds(Buffer.concat(chunks).subarray(ARROW_HEAD_BYTES, total)), wireBytes: total };
  });
}

/** The first MessagePack document of a byte stream, decoded as it arrives. */
async function fetchMsgpack(): Promise<FirstMessage> {
  const req = running.session.request({ ':path': `/ndjson?${QUERY}&encoding=msgpack&client=big-fetch-msgpack` });
  try {
    for await (const m of decodeMultiStream(req as AsyncIterable<Uint8Array>)) return { ids: (m as { rows: number[][] }).rows.map((r) => r[0]) };
    throw new Error('the msgpack stream ended before a message');
  } finally {
    req.close(http2.constants.NGHTTP2_CANCEL);
  }
}

/** A message's rows, by the encoding it is in, from a WebSocket's payload. */
function wsIds(encoding: string, payload: Buffer): FirstMessage['ids'] {
  if (encoding === 'json') return jsonIds(payload.toString('latin1'));
  if (encoding === 'msgpack') return (decode(payload) as { rows: number[][] }).rows.map((r) => r[0]);
  return arrowIds(payload.subarray(ARROW_HEAD_BYTES));
}

/** Bytes of an unmasked frame's header for a payload of `n` bytes (RFC 6455 §5.2). */
const frameHeader = (n: number) => (n < 126 ? 2 : n < 65536 ? 4 : 10);

function wsFirst(encoding: string): Promise<FirstMessage> {
  const enc = encoding === 'json' ? '' : `&encoding=${encoding}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${main().replace('https:', 'wss:')}/ws?${QUERY}${enc}&client=big-ws-${encoding}`, { rejectUnauthorized: false });
    ws.once('message', (data: Buffer) => {
      ws.close();
      resolve({ ids: wsIds(encoding, data), wireBytes: frameHeader(data.length) + data.length });
    });
    ws.once('error', reject);
  });
}

/** The first server frame of an RFC 8441 WebSocket (unmasked, unfragmented), its chunks kept until whole. */
async function wsH2First(encoding: string): Promise<FirstMessage> {
  const enc = encoding === 'json' ? '' : `&encoding=${encoding}`;
  const connect = http2.connect(running.origins.connect!, { rejectUnauthorized: false });
  try {
    await new Promise((resolve) => connect.once('remoteSettings', resolve));
    const stream = connect.request({
      ':method': 'CONNECT',
      ':protocol': 'websocket',
      ':path': `/ws?${QUERY}${enc}&client=big-wsh2-${encoding}`,
      'sec-websocket-version': '13',
    });
    const payload = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let frame: { at: number; len: number } | null = null;
      stream.on('data', (d: Buffer) => {
        chunks.push(d);
        bytes += d.length;
        if (!frame && bytes >= 10) {
          const head = Buffer.concat(chunks).subarray(0, 10);
          const len7 = head[1] & 0x7f;
          frame = len7 === 127 ? { at: 10, len: head.readUInt32BE(6) } : len7 === 126 ? { at: 4, len: head.readUInt16BE(2) } : { at: 2, len: len7 };
        }
        if (frame && bytes >= frame.at + frame.len) resolve(Buffer.concat(chunks).subarray(frame.at, frame.at + frame.len));
      });
      stream.on('error', reject);
    });
    stream.close();
    return { ids: wsIds(encoding, payload), wireBytes: frameHeader(payload.length) + payload.length };
  } finally {
    connect.close();
  }
}

/** The `data:` of an SSE stream's first event that has one (better-sse sends its retry hint first), or null before it is whole. */
function sseData(text: string): string | null {
  const blocks = text.split('\n\n');
  // The last block is not whole yet.
  for (const block of blocks.slice(0, -1)) {
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (data) return data.slice(6);
  }
  return null;
}

const sseFirst = (): Promise<FirstMessage> =>
  h2read(running.session, `/sse?${QUERY}&client=big-sse`, (chunks) => {
    const data = endsIn(chunks, '\n\n') ? sseData(Buffer.concat(chunks).toString('latin1')) : null;
    return data === null ? null : { ids: jsonIds(data) };
  });

function sseH1First(): Promise<FirstMessage> {
  return new Promise((resolve, reject) => {
    const req = https.get(new URL(`/sse?${QUERY}&client=big-sse-h1`, running.origins.h1!), { rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        chunks.push(d);
        const data = endsIn(chunks, '\n\n') ? sseData(Buffer.concat(chunks).toString('latin1')) : null;
        if (data !== null) {
          req.destroy();
          resolve({ ids: jsonIds(data) });
        }
      });
    });
    req.on('error', reject);
  });
}

/** Names a poll stream, then takes what fell due: the one batch. */
async function pollFirst(): Promise<FirstMessage> {
  const id = await new Promise<string>((resolve, reject) => {
    const req = running.session.request({ ':path': `/poll?${QUERY}&client=big-poll` });
    req.on('response', (h) => resolve(h[POLL_ID_HEADER] as string));
    req.resume();
    req.on('error', reject);
  });
  for (let waited = 0; waited < 30_000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const lines = (await h2get(running.session, `/poll?id=${id}`)).body.split('\n').filter(Boolean);
    if (lines.length) {
      expect(lines).toHaveLength(1);
      return { ids: jsonIds(lines[0]) };
    }
  }
  throw new Error('poll: no batch within 30 s');
}

async function grpcFirst(encoding: 'json' | 'arrow'): Promise<FirstMessage> {
  const transport = createGrpcWebTransport({ baseUrl: main(), httpVersion: '2', nodeOptions: { rejectUnauthorized: false } });
  const abort = new AbortController();
  try {
    const request = { batch: BATCH, intervalMs: LIMITS.intervalMs.max, client: `big-grpc-${encoding}`, encoding: encoding === 'json' ? '' : encoding };
    for await (const b of createClient(PushService, transport).stream(request, { signal: abort.signal })) {
      return { ids: encoding === 'json' ? b.rows.map((r) => r.id) : arrowIds(b.arrow) };
    }
    throw new Error('grpc-web: the stream ended before a message');
  } finally {
    abort.abort();
  }
}

const CASES: [string, string, () => Promise<FirstMessage>][] = [
  ['fetch', 'json', fetchJson],
  ['fetch', 'msgpack', fetchMsgpack],
  ['fetch', 'arrow', fetchArrow],
  ['ws', 'json', () => wsFirst('json')],
  ['ws', 'msgpack', () => wsFirst('msgpack')],
  ['ws', 'arrow', () => wsFirst('arrow')],
  ['ws-h2', 'json', () => wsH2First('json')],
  ['ws-h2', 'msgpack', () => wsH2First('msgpack')],
  ['ws-h2', 'arrow', () => wsH2First('arrow')],
  ['sse', 'json', sseFirst],
  ['sse-h1', 'json', sseH1First],
  ['poll', 'json', pollFirst],
  ['grpc-web', 'json', () => grpcFirst('json')],
  ['grpc-web', 'arrow', () => grpcFirst('arrow')],
];

describe(`a batch of ${BATCH} rows`, () => {
  it.each(CASES)(
    '%s, %s: one message of exactly that many rows, ids cycling the pool, sent whole past the send bound and counted once',
    async (transport, encoding, read) => {
      const before = await stats();
      const got = await read();
      expect(got.ids.length).toBe(BATCH);
      // Batch 0 starts at the pool's row 0 in every encoding; 100,000 rows run 10 times through the 10,000-row pool.
      const wrong: number[] = [];
      for (let k = 0; k < BATCH; k++) if (got.ids[k] !== k % POOL_ROWS) wrong.push(k);
      expect(wrong.slice(0, 5)).toEqual([]);
      const after = await stats();
      expect(after.eventsSent - before.eventsSent).toBe(BATCH);
      expect(after.batchesSent - before.batchesSent).toBe(1);
      expect(after.batchesShed - before.batchesShed).toBe(0);
      const mine = after.connections.filter((c) => c.batch === BATCH && c.transport === transport && (c.client ?? '').startsWith('big-'));
      for (const c of mine) expect(c).toMatchObject({ sent: 1, shed: 0 });
      if (got.wireBytes !== undefined) {
        // A message this size is well past the per-stream send bound: sent because the queue was empty.
        expect(got.wireBytes).toBeGreaterThan(SERVER_DEFAULTS.sendBufferLimitBytes);
        expect(after.bytesSent - before.bytesSent, `${transport} ${encoding}`).toBe(got.wireBytes);
      }
    },
    120_000,
  );
});
