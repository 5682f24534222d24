/**
 * The server side of the `fetch`, `poll`, `sse-h1`, `ws-h2` and `grpc-web` transports, with Node clients on
 * loopback: the message format, the negotiated protocol, exact sequences, and refusals.
 */
import http2 from 'node:http2';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStats } from '../../protocol/server-stats.js';
import { POLL_ID_HEADER, TRANSPORT_INFO, TRANSPORTS, type BatchMessage, type ServerOrigins } from '../../protocol/wire.js';
import { routePlugins, SERVER_TRANSPORTS } from '../../server/transports/index.js';
import { ClientFrames } from '../../server/transports/ws-h2.js';
import { Code, createClient, type ConnectError } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
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

async function stats(): Promise<ServerStats> {
  return JSON.parse((await h2get(session, '/stats')).body) as ServerStats;
}

function expectBatches(lines: string[], batch: number, firstSeq = 0): void {
  lines.forEach((line, k) => {
    const m = JSON.parse(line) as BatchMessage;
    expect(m.seq).toBe(firstSeq + k);
    expect(m.rows).toHaveLength(batch);
    expect(m.rows[0]).toHaveLength(12);
  });
}

describe('SERVER_TRANSPORTS', () => {
  it('serves a transport of the connect origin by an extended CONNECT handler, every other by routes of the main app', () => {
    for (const t of TRANSPORTS) expect([t, 'connect' in SERVER_TRANSPORTS[t]]).toEqual([t, TRANSPORT_INFO[t].origin === 'connect']);
  });

  it('registers a plugin two transports share once (`/sse` is sse and sse-h1)', () => {
    const sse = SERVER_TRANSPORTS.sse;
    expect('routes' in sse && routePlugins().filter((p) => p === sse.routes)).toHaveLength(1);
    expect(SERVER_TRANSPORTS['sse-h1']).toEqual(sse);
  });
});

describe('/origins', () => {
  it('names the h1 and connect origins, on other ports of the same address', () => {
    expect(origins.h1).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    expect(origins.connect).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    expect(new Set([origins.h1, origins.connect, `https://127.0.0.1:${server.port}/`]).size).toBe(3);
  });
});

describe('fetch: /ndjson', () => {
  it('streams one JSON document per line over HTTP/2, seq from 0, no gaps', async () => {
    const req = session.request({ ':path': '/ndjson?batch=3&interval=1&client=nd-test' });
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => req.once('response', resolve));
    expect(headers[':status']).toBe(200);
    expect(headers['content-type']).toBe('application/x-ndjson');
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    await sleep(300);
    const s = await stats();
    const conn = s.connections.find((c) => c.client === 'nd-test');
    expect(conn).toMatchObject({ transport: 'fetch', http: 'h2' });
    req.close();
    const lines = text.split('\n');
    const whole = lines.slice(0, -1);
    expect(whole.length).toBeGreaterThan(10);
    expectBatches(whole, 3);
  });

  it('refuses a bad parameter with a 400 naming it', async () => {
    const r = await h2get(session, '/ndjson?batch=0');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'bad-parameter', param: 'batch', value: '0' });
  });
});

describe('poll: /poll', () => {
  it('the first request names the stream; later ones take exactly the batches due since, in order', async () => {
    const first = await new Promise<{ id: string | undefined; body: string }>((resolve, reject) => {
      const req = session.request({ ':path': '/poll?batch=2&interval=5&client=poll-test' });
      let id: string | undefined;
      let body = '';
      req.on('response', (h) => (id = h[POLL_ID_HEADER] as string | undefined));
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => resolve({ id, body }));
      req.on('error', reject);
    });
    expect(first.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(first.body).toBe('');
    const lines: string[] = [];
    for (let i = 0; i < 4; i++) {
      await sleep(100);
      const r = await h2get(session, `/poll?id=${first.id}`);
      expect(r.status).toBe(200);
      lines.push(...r.body.split('\n').filter(Boolean));
    }
    // 400 ms at one batch per 5 ms, less the first tick's alignment and timer slack.
    expect(lines.length).toBeGreaterThan(40);
    expectBatches(lines, 2);
    const conn = (await stats()).connections.find((c) => c.client === 'poll-test');
    expect(conn).toMatchObject({ transport: 'poll', http: 'h2', shed: 0 });
    expect(conn!.socket).toBeGreaterThan(0);
  });

  it('DELETE ends a stream at once (the page does it when it stops), so it stops generating; then its id is gone', async () => {
    const id = await new Promise<string>((resolve, reject) => {
      const req = session.request({ ':path': '/poll?batch=2&interval=5&client=poll-delete' });
      req.on('response', (h) => resolve(String(h[POLL_ID_HEADER])));
      req.on('error', reject);
      req.resume();
    });
    expect((await stats()).connections.some((c) => c.client === 'poll-delete')).toBe(true);
    const del = (p: string) =>
      new Promise<number>((resolve, reject) => {
        const req = session.request({ ':method': 'DELETE', ':path': p });
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
        req.resume();
        req.end();
      });
    expect(await del(`/poll?id=${id}`)).toBe(204);
    // Gone from the hub now, not POLL_IDLE_MS later.
    expect((await stats()).connections.some((c) => c.client === 'poll-delete')).toBe(false);
    expect((await h2get(session, `/poll?id=${id}`)).status).toBe(404);
    expect(await del(`/poll?id=${id}`)).toBe(404);
    expect(await del('/poll?id=abc')).toBe(400);
  });

  it('answers an unknown id with 404, and refuses a malformed id or one mixed with stream parameters', async () => {
    const gone = await h2get(session, `/poll?id=${'A'.repeat(24)}`);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body)).toMatchObject({ error: 'poll-not-found' });
    for (const [q, param] of [
      ['id=1e3', 'id'],
      ['id=-1', 'id'],
      ['id=1', 'id'],
      [`id=${'A'.repeat(23)}.`, 'id'],
      [`id=${'A'.repeat(25)}`, 'id'],
      ['id=1&batch=3', 'batch'],
      ['id=1&id=2', 'id'],
    ] as const) {
      const r = await h2get(session, `/poll?${q}`);
      expect(r.status, q).toBe(400);
      expect(JSON.parse(r.body), q).toMatchObject({ error: 'bad-parameter', param });
    }
    expect((await h2get(session, '/poll?batch=1&batch=2')).status).toBe(400);
  });
});

describe('sse-h1: /sse on the h1 origin', () => {
  it('offers only HTTP/1.1 (ALPN), lets the page on the main origin read it, and streams events', async () => {
    const url = new URL('/sse?batch=2&interval=1&client=h1-test', origins.h1!);
    const { alpn, status, cors, text } = await new Promise<{ alpn: string | false | null; status: number; cors: unknown; text: string }>((resolve, reject) => {
      // Offer h2 first, as Chrome does: the origin must still pick HTTP/1.1.
      const options: https.RequestOptions & { ALPNProtocols: string[] } = {
        rejectUnauthorized: false,
        ALPNProtocols: ['h2', 'http/1.1'],
        headers: { origin: `https://127.0.0.1:${server.port}` },
      };
      const req = https.get(url, options, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        setTimeout(() => {
          const socket = res.socket as import('node:tls').TLSSocket;
          resolve({ alpn: socket.alpnProtocol, status: res.statusCode ?? 0, cors: res.headers['access-control-allow-origin'], text: body });
          req.destroy();
        }, 300);
      });
      req.on('error', reject);
    });
    expect(alpn).toBe('http/1.1');
    expect(status).toBe(200);
    expect(cors).toBe(`https://127.0.0.1:${server.port}`);
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6));
    expect(data.length).toBeGreaterThan(10);
    expectBatches(data, 2);
  });
});

describe('ws-h2: extended CONNECT on the connect origin', () => {
  it('the server advertises CONNECT, answers 200 and sends text frames; a Close ends the stream', async () => {
    const connect = http2.connect(origins.connect!, { rejectUnauthorized: false });
    try {
      const settings = await new Promise<http2.Settings>((resolve) => connect.once('remoteSettings', resolve));
      expect(settings.enableConnectProtocol).toBe(true);
      const stream = connect.request({
        ':method': 'CONNECT',
        ':protocol': 'websocket',
        ':path': '/ws?batch=2&interval=1&client=wsh2-test',
        'sec-websocket-version': '13',
      });
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      expect(headers[':status']).toBe(200);
      const texts: string[] = [];
      let closeCode = 0;
      // Server frames are unmasked: parse them with the same reader after masking nothing.
      const server = new ServerFrames((op, payload) =>
        op === 1 ? texts.push(payload.toString('utf8')) : op === 8 ? (closeCode = payload.readUInt16BE(0)) : 0,
      );
      stream.on('data', (d: Buffer) => server.push(d));
      await sleep(300);
      const conn = (await stats()).connections.find((c) => c.client === 'wsh2-test');
      expect(conn).toMatchObject({ transport: 'ws-h2', http: 'h2' });
      expect(texts.length).toBeGreaterThan(10);
      expectBatches(texts, 2);
      const ended = new Promise<void>((resolve) => stream.once('end', resolve));
      stream.write(maskedClose(1000));
      await ended;
      expect(closeCode).toBe(1000);
      await sleep(50);
      expect((await stats()).connections.find((c) => c.client === 'wsh2-test')).toBeUndefined();
    } finally {
      connect.close();
    }
  });

  it('refuses a bad parameter and a missing WebSocket version', async () => {
    const connect = http2.connect(origins.connect!, { rejectUnauthorized: false });
    try {
      await new Promise((resolve) => connect.once('remoteSettings', resolve));
      for (const [h, status] of [
        [{ ':path': '/ws?batch=0', 'sec-websocket-version': '13' }, 400],
        [{ ':path': '/ws?batch=1' }, 400],
        [{ ':path': '/nope?batch=1', 'sec-websocket-version': '13' }, 404],
      ] as const) {
        const stream = connect.request({ ':method': 'CONNECT', ':protocol': 'websocket', ...h });
        const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
        expect(headers[':status'], h[':path']).toBe(status);
        stream.close();
      }
    } finally {
      connect.close();
    }
  });

  it('the client-frame reader unmasks, waits for whole frames, and refuses unmasked or huge ones', () => {
    const got: [number, string][] = [];
    const r = new ClientFrames((op, p) => got.push([op, p.toString()]));
    const frame = masked(0x9, Buffer.from('hi'));
    expect(r.push(frame.subarray(0, 3))).toBe('ok');
    expect(got).toEqual([]);
    expect(r.push(frame.subarray(3))).toBe('ok');
    expect(got).toEqual([[0x9, 'hi']]);
    expect(new ClientFrames(() => undefined).push(Buffer.from([0x89, 0x00]))).toBe('unmasked');
    expect(new ClientFrames(() => undefined).push(Buffer.from([0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0]))).toBe('too-big');
  });
});

/** A masked client frame (mask key 1,2,3,4). */
function masked(opcode: number, payload: Buffer): Buffer {
  const key = Buffer.from([1, 2, 3, 4]);
  const body = Buffer.from(payload.map((b, i) => b ^ key[i & 3]));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), key, body]);
}

function maskedClose(code: number): Buffer {
  const p = Buffer.alloc(2);
  p.writeUInt16BE(code);
  return masked(0x8, p);
}

/** Reads the server's unmasked frames (7-, 16- or 64-bit lengths). */
class ServerFrames {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (opcode: number, payload: Buffer) => void) {}
  push(chunk: Buffer): void {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      if (this.buf.length < 2) return;
      let len = this.buf[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = this.buf.readUInt32BE(6);
        at = 10;
      }
      if (this.buf.length < at + len) return;
      this.onFrame(this.buf[0] & 0x0f, this.buf.subarray(at, at + len));
      this.buf = this.buf.subarray(at + len);
    }
  }
}

describe('grpc-web: PushService/Stream', () => {
  it('streams the batches as protobuf over HTTP/2, seq from 0, rows decoded to the same 12 columns', async () => {
    const transport = createGrpcWebTransport({ baseUrl: `https://127.0.0.1:${server.port}`, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } });
    const client = createClient(PushService, transport);
    const abort = new AbortController();
    const got: { seq: number; rows: number; first: unknown[] }[] = [];
    const reading = (async () => {
      for await (const b of client.stream({ batch: 3, intervalMs: 1, client: 'grpc-test' }, { signal: abort.signal })) {
        const r = b.rows[0];
        got.push({
          seq: b.seq,
          rows: b.rows.length,
          first: [r.id, r.time, r.lane, r.lon, r.lat, r.gas, r.device, r.speed, r.temperature, r.since, r.note, r.extra],
        });
        if (got.length === 50) break;
      }
    })();
    await reading;
    abort.abort();
    expect(got.map((g) => g.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(new Set(got.map((g) => g.rows))).toEqual(new Set([3]));
    // The first row of batch 0 is pool row 0 in the current second's speeds: compare with the JSON transport's.
    const json = await new Promise<BatchMessage>((resolve) => {
      const req = session.request({ ':path': '/ndjson?batch=3&interval=1' });
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => {
        text += d;
        const nl = text.indexOf('\n');
        if (nl !== -1) {
          resolve(JSON.parse(text.slice(0, nl)) as BatchMessage);
          req.close();
        }
      });
    });
    // Every column but speed (which walks each second) is the same value.
    const strip = (row: unknown[]) => row.filter((_, i) => i !== 7);
    expect(strip(got[0].first)).toEqual(strip(json.rows[0]));
  });

  it('refuses a bad batch with InvalidArgument naming it', async () => {
    const transport = createGrpcWebTransport({ baseUrl: `https://127.0.0.1:${server.port}`, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } });
    const client = createClient(PushService, transport);
    const err = await (async () => {
      try {
        for await (const _ of client.stream({ batch: 0 })) return null;
      } catch (e) {
        return e as ConnectError;
      }
      return null;
    })();
    expect(err?.code).toBe(Code.InvalidArgument);
    expect(err?.rawMessage).toMatch(/batch must be an integer from 1 to 100000; got '0'/);
  });
});
