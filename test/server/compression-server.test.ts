/**
 * The `compression` factor on the server, with Node clients on loopback: gzip on `/sse` (HTTP/2
 * and the HTTP/1.1 origin) and `/ndjson`, permessage-deflate on `/ws` and on the connect
 * origin's extended CONNECT. Each stream decodes to the exact batch sequence, `/stats` says it
 * was compressed and by how much, nothing is compressed unless asked for, and a kind a route
 * does not carry is refused naming the parameter.
 */
import http2 from 'node:http2';
import https from 'node:https';
import zlib from 'node:zlib';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConnectionStats, ServerStats } from '../../protocol/server-stats.js';
import type { BatchMessage, ServerOrigins } from '../../protocol/wire.js';
import { PERMESSAGE_DEFLATE_RESPONSE } from '../../server/transports/ws-h2.js';
import { h2get } from '../helpers/h2-get.js';
import { startServerSession, type ServerSession, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let session: http2.ClientHttp2Session;
let origins: ServerOrigins;

let running: ServerSession | undefined;

beforeAll(async () => {
  running = await startServerSession();
  ({ server, session, origins } = running);
});

afterAll(async () => {
  await running?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connection(client: string): Promise<ServerConnectionStats> {
  const s = JSON.parse((await h2get(session, '/stats')).body) as ServerStats;
  const c = s.connections.find((x) => x.client === client);
  if (!c) throw new Error(`no stream tagged ${client} in /stats`);
  return c;
}

/** The messages decode to batches seq 0, 1, 2… of `batch` rows each. */
function expectSequence(messages: string[], batch: number): void {
  expect(messages.length).toBeGreaterThan(10);
  messages.forEach((text, k) => {
    const m = JSON.parse(text) as BatchMessage;
    expect(m.seq).toBe(k);
    expect(m.rows).toHaveLength(batch);
  });
}

/** Compressed, asked for, and by a real margin: JSON rows from one pool compress well below half. */
function expectCompressed(c: ServerConnectionStats, kind: 'deflate' | 'gzip'): void {
  expect(c.compression?.kind).toBe(kind);
  expect(c.compression!.inputBytes).toBeGreaterThan(0);
  expect(c.compression!.outputBytes).toBeLessThan(0.5 * c.compression!.inputBytes);
  // What went on the wire is the compressed bytes (plus framing), not the JSON.
  expect(c.bytes).toBeLessThan(c.compression!.inputBytes);
}

/** Reads a gzip response body for `ms`, decoded as it arrives (the stream never ends). */
function gunzipFor(body: NodeJS.ReadableStream, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const gunzip = zlib.createGunzip();
    let text = '';
    gunzip.setEncoding('utf8');
    gunzip.on('data', (d: string) => (text += d));
    gunzip.on('error', reject);
    body.pipe(gunzip);
    setTimeout(() => resolve(text), ms);
  });
}

const sseData = (text: string) =>
  text
    .split('\n\n')
    .slice(0, -1)
    .map((event) => {
      const lines = event.split('\n');
      expect(lines[0]).toMatch(/^id: \d+$/);
      return lines[1].replace(/^data: /, '');
    });

describe('gzip: /sse and /ndjson', () => {
  it('/sse over HTTP/2: Content-Encoding gzip, every event decoded as it arrives, ids and seqs from 0', async () => {
    const req = session.request({ ':path': '/sse?batch=5&interval=1&compression=gzip&client=gz-sse', 'accept-encoding': 'gzip' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => req.once('response', resolve));
    expect(headers[':status']).toBe(200);
    expect(headers['content-type']).toBe('text/event-stream');
    expect(headers['content-encoding']).toBe('gzip');
    const text = await gunzipFor(req, 400);
    const c = await connection('gz-sse');
    req.close();
    expectSequence(sseData(text), 5);
    expect(c).toMatchObject({ transport: 'sse', http: 'h2' });
    expectCompressed(c, 'gzip');
  });

  it('/sse on the HTTP/1.1 origin (sse-h1): gzip too', async () => {
    const url = new URL('/sse?batch=5&interval=1&compression=gzip&client=gz-h1', origins.h1!);
    const { encoding, text } = await new Promise<{ encoding: string | undefined; text: string }>((resolve, reject) => {
      const req = https.get(url, { rejectUnauthorized: false }, (res) => {
        void gunzipFor(res, 400).then((t) => {
          resolve({ encoding: res.headers['content-encoding'], text: t });
          req.destroy();
        }, reject);
      });
      req.on('error', reject);
    });
    expect(encoding).toBe('gzip');
    expectSequence(sseData(text), 5);
  });

  it('/ndjson: gzip, NDJSON lines decoded as they arrive', async () => {
    const req = session.request({ ':path': '/ndjson?batch=5&interval=1&compression=gzip&client=gz-nd' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => req.once('response', resolve));
    expect(headers['content-encoding']).toBe('gzip');
    const text = await gunzipFor(req, 400);
    const c = await connection('gz-nd');
    req.close();
    expectSequence(text.split('\n').slice(0, -1), 5);
    expect(c.transport).toBe('fetch');
    expectCompressed(c, 'gzip');
  });

  it('leaves a stream that did not ask uncompressed', async () => {
    const req = session.request({ ':path': '/ndjson?batch=5&interval=1&client=plain-nd', 'accept-encoding': 'gzip' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => req.once('response', resolve));
    expect(headers['content-encoding']).toBeUndefined();
    await sleep(200);
    const c = await connection('plain-nd');
    req.close();
    expect(c.compression).toBeNull();
    expect(c.bytes).toBeGreaterThan(0);
  });
});

describe('permessage-deflate: /ws and the connect origin', () => {
  it('/ws?compression=deflate negotiates it (server_no_context_takeover) and sends compressed frames that decode to the batches', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${server.port}/ws?batch=5&interval=1&compression=deflate&client=dfl-ws`, {
      rejectUnauthorized: false,
      perMessageDeflate: true,
    });
    const texts: string[] = [];
    ws.on('message', (d, isBinary) => !isBinary && texts.push(d.toString()));
    const answered = new Promise<string | undefined>((resolve) => ws.once('upgrade', (res) => resolve(res.headers['sec-websocket-extensions'])));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(ws.extensions).toBe('permessage-deflate');
    expect(await answered).toMatch(/^permessage-deflate; server_no_context_takeover/);
    await sleep(400);
    const c = await connection('dfl-ws');
    ws.terminate();
    expectSequence(texts, 5);
    expect(c).toMatchObject({ transport: 'ws', http: 'h1' });
    expectCompressed(c, 'deflate');
  });

  it('/ws without it does not negotiate it, though the client offers it', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${server.port}/ws?batch=5&interval=1&client=plain-ws`, { rejectUnauthorized: false, perMessageDeflate: true });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(ws.extensions).toBe('');
    await sleep(100);
    const c = await connection('plain-ws');
    ws.terminate();
    expect(c.compression).toBeNull();
  });

  it('ws-h2: answers the offer and sends RSV1 frames that inflate to the batches', async () => {
    const connect = http2.connect(origins.connect!, { rejectUnauthorized: false });
    try {
      await new Promise((resolve) => connect.once('remoteSettings', resolve));
      const stream = connect.request({
        ':method': 'CONNECT',
        ':protocol': 'websocket',
        ':path': '/ws?batch=5&interval=1&compression=deflate&client=dfl-h2',
        'sec-websocket-version': '13',
        'sec-websocket-extensions': 'permessage-deflate; client_max_window_bits',
      });
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      expect(headers[':status']).toBe(200);
      expect(headers['sec-websocket-extensions']).toBe(PERMESSAGE_DEFLATE_RESPONSE);
      const texts: string[] = [];
      let buf = Buffer.alloc(0);
      stream.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2) {
          let len = buf[1] & 0x7f;
          let at = 2;
          if (len === 126) [len, at] = [buf.readUInt16BE(2), 4];
          if (buf.length < at + len) return;
          // FIN, RSV1 (compressed), text: every data frame.
          expect(buf[0]).toBe(0xc1);
          // RFC 7692 §7.2.2: append the sync flush's tail the sender dropped, then inflate.
          const data = Buffer.concat([buf.subarray(at, at + len), Buffer.from([0, 0, 0xff, 0xff])]);
          texts.push(zlib.inflateRawSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8'));
          buf = buf.subarray(at + len);
        }
      });
      await sleep(400);
      const c = await connection('dfl-h2');
      stream.close();
      expectSequence(texts, 5);
      expectCompressed(c, 'deflate');
    } finally {
      connect.close();
    }
  });
});

describe('refusals', () => {
  it('refuses a kind the route does not carry, or an unknown one, with a 400 naming compression', async () => {
    for (const [p, allowed] of [
      ['/sse?batch=1&compression=deflate', 'off or gzip on sse; deflate on ws, ws-h2, ws-stream'],
      ['/ndjson?batch=1&compression=deflate', 'off or gzip on fetch; deflate on ws, ws-h2, ws-stream'],
      ['/poll?batch=1&compression=gzip', 'off on poll; gzip on sse, sse-h1, fetch'],
      ['/sse?batch=1&compression=brotli', 'off, deflate, gzip'],
    ] as const) {
      const r = await h2get(session, p);
      expect(r.status, p).toBe(400);
      expect(JSON.parse(r.body), p).toMatchObject({ error: 'bad-parameter', param: 'compression', allowed });
    }
  });

  it('refuses gzip on a WebSocket before the upgrade', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${server.port}/ws?batch=1&compression=gzip`, { rejectUnauthorized: false });
    ws.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => {
      ws.once('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      ws.once('open', () => {
        resolve(101);
        ws.terminate();
      });
    });
    expect(status).toBe(400);
  });
});
