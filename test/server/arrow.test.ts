/**
 * `encoding: arrow` on the server side: its bytes, read back with apache-arrow's Node reader,
 * are exactly the rows of the JSON pool, with each message's `seq` and `sentAt` in its head; the
 * real server sends them over `fetch` (a byte stream) and `grpc-web`, and refuses them on SSE and
 * poll with a coded 400 naming the encoding, and gRPC-web refuses msgpack.
 */
import { Code, createClient, type ConnectError } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import type http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARROW_HEAD_BYTES, ARROW_COLUMN_TYPES, arrowIpcBytes, arrowSentAt, arrowSeq, rowFromArrow } from '../../protocol/arrow.js';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { parseStreamParams, ROW_COLUMNS, type Row } from '../../protocol/wire.js';
import { arrowCache, ArrowStream } from '../../server/arrow.js';
import { RowPool } from '../../server/rows.js';
import { decodeFramed, deliverArrow, FrameReader } from '../../web/lab/arrow-batch.js';
import { createArrowStream } from '../../web/lab/arrow-decode.js';
import { h1get, h2get } from '../helpers/h2-get.js';
import { startServerSession, type ServerSession } from '../helpers/test-server.js';

const rowsOf = (rb: RecordBatch): Row[] => Array.from({ length: rb.numRows }, (_, i) => rowFromArrow((c) => rb.getChildAt(c)!.get(i)));

/** The JSON rows of batch `seq` as the JSON transports send them. */
const jsonRows = (pool: RowPool, seq: number, batch: number): Row[] => JSON.parse(`[${pool.rows(seq, batch).toString('latin1')}]`) as Row[];

/** A stream's messages, as the server writes them, for seq 0…count-1 in the epoch of `atMs`. */
function streamMessages(pool: RowPool, batch: number, count: number, atMs: number): Buffer[] {
  pool.useEpochAt(atMs);
  const stream = new ArrowStream();
  const out: Buffer[] = [];
  for (let seq = 0; seq < count; seq++)
    stream.write(
      seq,
      String(1_700_000_000_000 + seq + 0.125),
      String(1_700_000_000_000 + seq),
      pool,
      batch,
      (head, body) => (out.push(Buffer.concat([head, body])), head.length + body.length),
    );
  return out;
}

/** The IPC bytes of each message, one after the other: a whole IPC stream. */
function ipcOf(messages: Buffer[]): Buffer {
  return Buffer.concat(
    messages.map((m) => {
      const view = new DataView(m.buffer, m.byteOffset, m.byteLength);
      expect(arrowIpcBytes(view, 0)).toBe(m.byteLength - ARROW_HEAD_BYTES);
      return m.subarray(ARROW_HEAD_BYTES);
    }),
  );
}

describe('Arrow batches against the JSON pool', () => {
  // A small pool (1,000 rows, 3 epochs) so every batch of every epoch is read back.
  const pool = new RowPool(1000, undefined, 3);
  // A stream's batches are built before it opens (the hub's prepare): here, every size the tests send.
  beforeAll(async () => {
    for (const batch of [100, 250, 1000, 300]) await arrowCache(pool).load(batch);
  });

  it.each([
    [100, 10],
    [250, 4],
    [1000, 1],
  ])('batch %i: every batch of every epoch decodes to exactly the JSON rows, seq and sentAt in the head', (batch, perEpoch) => {
    for (let epoch = 0; epoch < pool.epochs; epoch++) {
      const messages = streamMessages(pool, batch, perEpoch + 1, epoch * 1000);
      const batches = [...RecordBatchReader.from(ipcOf(messages))];
      expect(batches).toHaveLength(messages.length);
      batches.forEach((rb, seq) => {
        expect(rowsOf(rb), `epoch ${epoch} seq ${seq}`).toEqual(jsonRows(pool, seq, batch));
        const view = new DataView(messages[seq].buffer, messages[seq].byteOffset, messages[seq].byteLength);
        expect([arrowSeq(view, 0), arrowSentAt(view, 0)]).toEqual([seq, 1_700_000_000_000 + seq + 0.125]);
      });
    }
  });

  it('a batch size that does not divide the pool sends whole batches of pool rows, wrapping at the last that fits', () => {
    const batch = 300;
    const messages = streamMessages(pool, batch, 4, 0);
    const rows = [...RecordBatchReader.from(ipcOf(messages))].map(rowsOf);
    const all = jsonRows(pool, 0, 1000);
    expect(rows.map((r) => r[0][0])).toEqual([0, 300, 600, 0]);
    rows.forEach((r, k) => expect(r).toEqual(all.slice((k % 3) * batch, (k % 3) * batch + batch)));
  });

  it('uses Arrow types: numbers as numbers, time as a timestamp, the repeated strings as dictionaries; the schema once per stream', () => {
    const messages = streamMessages(pool, 100, 3, 0);
    const reader = RecordBatchReader.from(ipcOf(messages));
    const first = reader.next().value as RecordBatch;
    const types = first.schema.fields.map((f) => String(f.type));
    expect(first.schema.fields.map((f) => f.name)).toEqual([...ROW_COLUMNS]);
    expect(types).toEqual([
      'Int32',
      'Timestamp<MILLISECOND>',
      'Int8',
      'Float64',
      'Float64',
      'Int16',
      'Utf8',
      'Int16',
      'Float32',
      'Dictionary<Int8, Utf8>',
      'Dictionary<Int8, Utf8>',
      'Dictionary<Int8, Utf8>',
    ]);
    expect(Object.keys(ARROW_COLUMN_TYPES)).toEqual([...ROW_COLUMNS]);
    // Later messages are a record batch alone: far smaller than the first, which carries the schema and dictionaries.
    const preamble = arrowCache(pool).get(100)!.preamble.byteLength;
    expect(preamble).toBeGreaterThan(100);
    expect(messages[0].byteLength - messages[1].byteLength).toBe(preamble);
    // About 50 bytes a row in Arrow against about 130 in JSON.
    expect(messages[1].byteLength / 100).toBeLessThan(60);
  });

  it('a message not sent (0 bytes written) keeps the preamble for the next', () => {
    pool.useEpochAt(0);
    const stream = new ArrowStream();
    const sent: Buffer[] = [];
    stream.write(0, '1', '1', pool, 100, () => 0);
    stream.write(1, '1', '1', pool, 100, (head, body) => (sent.push(Buffer.concat([head, body])), 1));
    expect([...RecordBatchReader.from(ipcOf(sent))].map(rowsOf)).toEqual([jsonRows(pool, 1, 100)]);
  });
});

describe("the page's decoder (web/lab/arrow-decode.ts, arrow-batch.ts)", () => {
  const pool = new RowPool(1000, undefined, 2);
  beforeAll(() => arrowCache(pool).load(100));
  /** Messages as a browser gets them: each its own 8-byte-aligned buffer. */
  const own = (m: Buffer) => new Uint8Array(m).slice();

  it('reads a stream one message at a time: count, seq, sentAt, the speed max and the rows, as the JSON pool has them', () => {
    const messages = streamMessages(pool, 100, 25, 1000).map(own);
    const decoder = createArrowStream();
    messages.forEach((m, seq) => {
      const b = decodeFramed(decoder, m);
      const rows = jsonRows(pool, seq, 100);
      expect([b.seq, b.sentAt, b.numRows]).toEqual([seq, 1_700_000_000_000 + seq + 0.125, 100]);
      expect(b.chartMax('speed', -Infinity)).toBe(Math.max(...rows.map((r) => r[7])));
      expect([b.row(0), b.row(99)]).toEqual([rows[0], rows[99]]);
    });
  });

  it('cuts a byte stream into messages wherever its chunks end', () => {
    const stream = Buffer.concat(streamMessages(pool, 100, 12, 0));
    for (const chunk of [1, 7, 333, 4096, stream.length]) {
      const decoder = createArrowStream();
      const seqs: number[] = [];
      const frames = new FrameReader((m) => seqs.push(decodeFramed(decoder, m).seq));
      for (let at = 0; at < stream.length; at += chunk) frames.push(new Uint8Array(stream.subarray(at, at + chunk)));
      expect(seqs, `chunks of ${chunk}`).toEqual(Array.from({ length: 12 }, (_, k) => k));
    }
  });

  it('a message cut short is an error, not a stream that silently ends', () => {
    const [first, second] = streamMessages(pool, 100, 2, 0).map(own);
    const decoder = createArrowStream();
    decodeFramed(decoder, first);
    const cut = second.slice(0, second.length - 64);
    new DataView(cut.buffer).setUint32(0, cut.length - ARROW_HEAD_BYTES, true);
    expect(() => decodeFramed(decoder, cut)).toThrow();
    // The page counts it as an error and carries on, as it does a message JSON.parse refuses.
    const got = { batches: 0, errors: 0 };
    deliverArrow(
      () => decodeFramed(createArrowStream(), cut),
      () => got.batches++,
      () => got.errors++,
    );
    deliverArrow(
      () => decodeFramed(createArrowStream(), first),
      () => got.batches++,
      () => got.errors++,
    );
    expect(got).toEqual({ batches: 1, errors: 1 });
  });
});

describe('the server', () => {
  let running: ServerSession;
  let session: http2.ClientHttp2Session;
  let port: number;

  beforeAll(async () => {
    running = await startServerSession();
    session = running.session;
    port = running.server.port;
  });

  afterAll(async () => {
    await running?.close();
  });

  it('fetch: /ndjson?encoding=arrow is a byte stream of headed IPC messages, rows as the JSON stream sends them', async () => {
    const req = session.request({ ':path': '/ndjson?batch=40&interval=1&encoding=arrow' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => req.once('response', resolve));
    expect(headers[':status']).toBe(200);
    expect(headers['content-type']).toBe('application/vnd.pushlab.arrow-frames');
    const chunks: Buffer[] = [];
    let bytes = 0;
    await new Promise<void>((resolve) => {
      req.on('data', (d: Buffer) => {
        chunks.push(d);
        bytes += d.length;
        if (bytes > 64 * 1024) resolve();
      });
    });
    req.close();
    const all = Buffer.concat(chunks);
    const messages: Buffer[] = [];
    for (let at = 0; at + ARROW_HEAD_BYTES <= all.length;) {
      const end = at + ARROW_HEAD_BYTES + all.readUInt32LE(at);
      if (end > all.length) break;
      messages.push(all.subarray(at, end));
      at = end;
    }
    expect(messages.length).toBeGreaterThan(5);
    const batches = [...RecordBatchReader.from(ipcOf(messages))];
    expect(messages.map((m) => m.readUInt32LE(4))).toEqual(messages.map((_, k) => k));
    // Every column but speed (which walks each second) as the JSON pool has it: rows 40·seq….
    const pool = new RowPool();
    const strip = (rows: Row[]) => rows.map((r) => r.filter((_, i) => i !== 7));
    batches.forEach((rb, seq) => expect(strip(rowsOf(rb))).toEqual(strip(jsonRows(pool, seq, 40))));
  });

  it('grpc-web: encoding "arrow" carries the IPC messages in `arrow`, seq and sentAt in their fields', async () => {
    const transport = createGrpcWebTransport({ baseUrl: `https://127.0.0.1:${port}`, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } });
    const client = createClient(PushService, transport);
    const got: { seq: number; rows: number; arrow: Uint8Array }[] = [];
    for await (const b of client.stream({ batch: 25, intervalMs: 1, encoding: 'arrow' })) {
      got.push({ seq: b.seq, rows: b.rows.length, arrow: b.arrow });
      if (got.length === 20) break;
    }
    expect(got.map((g) => g.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(got.map((g) => g.rows))).toEqual(new Set([0]));
    const batches = [...RecordBatchReader.from(Buffer.concat(got.map((g) => g.arrow)))];
    expect(batches.map((b) => b.numRows)).toEqual(got.map(() => 25));
    expect(rowsOf(batches[3]).map((r) => r[0])).toEqual(Array.from({ length: 25 }, (_, i) => 75 + i));
  });

  it('grpc-web refuses msgpack with InvalidArgument naming where it works', async () => {
    const transport = createGrpcWebTransport({ baseUrl: `https://127.0.0.1:${port}`, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } });
    const client = createClient(PushService, transport);
    const err = await (async () => {
      try {
        for await (const _ of client.stream({ batch: 5, encoding: 'msgpack' })) return null;
      } catch (e) {
        return e as ConnectError;
      }
      return null;
    })();
    expect(err?.code).toBe(Code.InvalidArgument);
    expect(err?.rawMessage).toBe('encoding must be json or arrow here; msgpack on ws, ws-h2, ws-stream, fetch; arrow on ws, ws-h2, ws-stream, fetch, grpc-web');
  });

  it.each([['/sse?batch=5&encoding=arrow'], ['/poll?batch=5&encoding=arrow']])(
    '%s: refused with a coded 400 naming the encoding and where it works',
    async (p) => {
      const r = await h2get(session, p);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({
        error: 'bad-parameter',
        param: 'encoding',
        value: 'arrow',
        allowed: 'json here; msgpack on ws, ws-h2, ws-stream, fetch; arrow on ws, ws-h2, ws-stream, fetch, grpc-web',
        message: 'encoding must be json here; msgpack on ws, ws-h2, ws-stream, fetch; arrow on ws, ws-h2, ws-stream, fetch, grpc-web',
      });
    },
  );

  it('sse-h1 refuses arrow the same way over HTTP/1.1', async () => {
    const r = await h1get(running.origins.h1!, '/sse?batch=5&encoding=arrow');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'bad-parameter', param: 'encoding', value: 'arrow' });
  });
});

describe('the stream query', () => {
  it('takes encoding arrow, and names every encoding when refusing another', () => {
    expect(parseStreamParams({ batch: '5', encoding: 'arrow' })).toEqual({ ok: true, value: { batch: 5, interval: 1, encoding: 'arrow' } });
    const bad = parseStreamParams({ batch: '5', encoding: 'avro' });
    expect(bad.ok ? null : bad.error).toEqual({
      param: 'encoding',
      value: 'avro',
      allowed: 'json or msgpack or arrow',
      message: "encoding must be json or msgpack or arrow; got 'avro'",
    });
  });
});
