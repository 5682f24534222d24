/**
 * A refused parameter is echoed back cut to ECHO_MAX_CHARS, on every stream route: the docs
 * (docs/transports.md, "Wire format") promise it, and `client=` was once echoed uncut, twice (in `value` and in `message`), on
 * every route, 100,000 characters of it over gRPC-web. Each transport's own route, on its own
 * origin and HTTP version, with the real server and Node clients.
 */
import http2 from 'node:http2';
import https from 'node:https';
import { Code, createClient, type ConnectError } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { ECHO_MAX_CHARS, TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { h2get } from '../helpers/h2-get.js';
import { startServerSession, type ServerSession } from '../helpers/test-server.js';

let running: ServerSession;

beforeAll(async () => {
  running = await startServerSession();
});

afterAll(async () => {
  await running?.close();
});

/** Letters only, so `client` fails on its length alone; short enough for a request line (16 KB), long enough to show any uncut echo. */
const LONG_IN_URL = 'a'.repeat(5_000);
/** What the gRPC-web request carried in its body. */
const LONG_IN_BODY = 'a'.repeat(100_000);

interface Answer {
  status: number;
  body: string;
}

/** GET over HTTP/1.1, as sent (`origin` is the h1 origin or the main one). */
function getH1(origin: string, p: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https
      .get(new URL(p, origin), { rejectUnauthorized: false, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** The answer to a WebSocket upgrade over HTTP/1.1 that the server refuses. */
function wsRefusal(origin: string, p: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL(p, origin.replace('https:', 'wss:')), { rejectUnauthorized: false });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => reject(new Error(`${p} opened`)));
    ws.on('error', reject);
  });
}

/** The answer to an RFC 8441 extended CONNECT the server refuses. */
async function connectRefusal(origin: string, p: string): Promise<Answer> {
  const session = http2.connect(origin, { rejectUnauthorized: false });
  try {
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    const stream = session.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': p, 'sec-websocket-version': '13' });
    const status = await new Promise<number>((resolve) => stream.once('response', (h) => resolve(Number(h[':status']))));
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (body += d));
    await new Promise((resolve) => stream.once('close', resolve));
    return { status, body };
  } finally {
    session.close();
  }
}

/** The refusal of `client` on one transport's route, as its client would meet it. */
async function refusalOn(transport: Transport): Promise<Answer> {
  const { server, session, origins } = running;
  const main = `https://127.0.0.1:${server.port}`;
  const route = TRANSPORT_INFO[transport];
  const query = `${route.path}?batch=1&interval=1&client=${LONG_IN_URL}`;
  // By origin first, so a transport added there is asked the way its origin answers.
  if (route.origin === 'connect') return connectRefusal(origins.connect!, query);
  if (route.origin === 'h1') return getH1(origins.h1!, query);
  switch (transport) {
    // A WebSocketStream meets the refusal as a WebSocket does: the same upgrade.
    case 'ws':
    case 'ws-stream':
      return wsRefusal(main, query);
    case 'grpc-web': {
      const client = createClient(PushService, createGrpcWebTransport({ baseUrl: main, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } }));
      try {
        for await (const _ of client.stream({ batch: 1, intervalMs: 1, client: LONG_IN_BODY })) return { status: 200, body: 'streamed' };
      } catch (e) {
        const err = e as ConnectError;
        return { status: err.code === Code.InvalidArgument ? 400 : 500, body: err.rawMessage };
      }
      return { status: 200, body: '' };
    }
    default:
      // Every other route on the main origin is a GET over HTTP/2 (`sse`, `fetch`, `poll`).
      return h2get(session, query);
  }
}

describe('client= is echoed cut on every stream route', () => {
  it.each(TRANSPORTS)('%s', async (transport) => {
    const { status, body } = await refusalOn(transport);
    expect(status, body.slice(0, 200)).toBe(400);
    expect(body).toContain('client must be');
    // The value is cut to ECHO_MAX_CHARS and the full length is named, in `value` and in the message alike.
    expect(body).toContain(`${'a'.repeat(ECHO_MAX_CHARS)}… (${transport === 'grpc-web' ? '100000' : '5000'} characters)`);
    expect(body).not.toContain('a'.repeat(ECHO_MAX_CHARS + 1));
    expect(body.length).toBeLessThan(1000);
  });

  it('a parameter name the request made up is cut too (/poll?id=…&<name>=)', async () => {
    const r = await h2get(running.session, `/poll?id=1&${'b'.repeat(5_000)}=1`);
    expect(r.status).toBe(400);
    expect(r.body).not.toContain('b'.repeat(ECHO_MAX_CHARS + 1));
    expect(r.body.length).toBeLessThan(1000);
  });
});
