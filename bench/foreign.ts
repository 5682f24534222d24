/**
 * What a page on another origin gets from the server (issue 31): the CORS header on `/stats`,
 * the bytes a WebSocket it opens pulls in `seconds`, whether its `GET /poll` and its extended
 * CONNECT start a stream, and what another connection gets for someone's poll id (by counting,
 * as ids once were 1, 2, 3, …, and by the id itself). Node clients on loopback that send the
 * headers a foreign page's browser sends (`Origin: https://evil.example`). Used by
 * `npm run bench:faults -- --only foreign`; test/browser/foreign-origin.test.ts asserts the outcomes.
 */
import http2 from 'node:http2';
import WebSocket from 'ws';
import { type ServerOrigins, POLL_ID_HEADER } from '../protocol/wire.js';

const FOREIGN = 'https://evil.example';

export interface ForeignResult {
  corsStatus: number;
  corsAllowOrigin: string | null;
  wsStatus: number;
  wsBytes: number;
  wsSeconds: number;
  pollStartStatus: number;
  connectStatus: number;
  ownerPollId: string;
  /** Another connection's requests: ids 1–3, then the owner's id, GET and DELETE. */
  otherConnection: { id: string; method: string; status: number; bytes: number }[];
}

function request(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = session.request(headers);
    let status = 0;
    let head: http2.IncomingHttpHeaders = {};
    let bytes = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    req.on('response', (h) => {
      status = Number(h[':status']);
      head = h;
      // A stream (200 to a stream start or CONNECT) never ends by itself.
      if (status === 200) timer = setTimeout(() => req.close(http2.constants.NGHTTP2_CANCEL), 500);
    });
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('close', () => {
      clearTimeout(timer);
      resolve({ status, headers: head, bytes });
    });
    req.on('error', reject);
  });
}

/** A WebSocket opened as a foreign page opens it: its status, and the bytes it pulls in `seconds`. */
function foreignWs(url: string, seconds: number): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    let status = 0;
    const ws = new WebSocket(url, { rejectUnauthorized: false, origin: FOREIGN });
    const done = () => {
      clearTimeout(timer);
      ws.terminate();
      resolve({ status, bytes });
    };
    const timer = setTimeout(done, seconds * 1000);
    ws.on('upgrade', () => (status = 101));
    ws.on('message', (d: Buffer) => (bytes += d.length));
    ws.on('unexpected-response', (_req, res) => {
      status = res.statusCode ?? 0;
      done();
    });
    ws.on('error', done);
  });
}

export async function runForeign(serverUrl: string, seconds: number): Promise<ForeignResult> {
  const main = http2.connect(serverUrl, { rejectUnauthorized: false });
  const other = http2.connect(serverUrl, { rejectUnauthorized: false });
  try {
    const origins = JSON.parse(
      await new Promise<string>((resolve, reject) => {
        const req = main.request({ ':path': '/origins' });
        let body = '';
        req
          .setEncoding('utf8')
          .on('data', (d: string) => (body += d))
          .on('end', () => resolve(body))
          .on('error', reject);
      }),
    ) as ServerOrigins;
    const cors = await request(main, { ':path': '/stats', origin: FOREIGN });
    const ws = await foreignWs(new URL(`/ws?batch=2000&interval=1&client=foreign-ws`, serverUrl.replace('https:', 'wss:')).href, seconds);
    const pollStart = await request(main, { ':path': '/poll?batch=2&client=foreign-poll', origin: FOREIGN });
    let connectStatus = 0;
    if (origins.connect) {
      const connect = http2.connect(origins.connect, { rejectUnauthorized: false });
      try {
        await new Promise((resolve) => connect.once('remoteSettings', resolve));
        connectStatus = (
          await request(connect, {
            ':method': 'CONNECT',
            ':protocol': 'websocket',
            ':path': '/ws?batch=2&interval=1',
            'sec-websocket-version': '13',
            origin: FOREIGN,
          })
        ).status;
      } finally {
        connect.close();
      }
    }
    // Someone's poll (no Origin: a Node client), then another connection asking for it.
    const opened = await request(main, { ':path': '/poll?batch=2&interval=5&client=owner' });
    const ownerPollId = String(opened.headers[POLL_ID_HEADER]);
    await new Promise((r) => setTimeout(r, 200));
    const otherConnection: ForeignResult['otherConnection'] = [];
    for (const id of ['1', '2', '3', ownerPollId]) {
      const r = await request(other, { ':path': `/poll?id=${encodeURIComponent(id)}` });
      otherConnection.push({ id, method: 'GET', status: r.status, bytes: r.bytes });
    }
    const del = await request(other, { ':method': 'DELETE', ':path': `/poll?id=${encodeURIComponent(ownerPollId)}` });
    otherConnection.push({ id: ownerPollId, method: 'DELETE', status: del.status, bytes: del.bytes });
    await request(main, { ':method': 'DELETE', ':path': `/poll?id=${encodeURIComponent(ownerPollId)}` });
    return {
      corsStatus: cors.status,
      corsAllowOrigin: (cors.headers['access-control-allow-origin'] as string | undefined) ?? null,
      wsStatus: ws.status,
      wsBytes: ws.bytes,
      wsSeconds: seconds,
      pollStartStatus: pollStart.status,
      connectStatus,
      ownerPollId,
      otherConnection,
    };
  } finally {
    main.close();
    other.close();
  }
}

export function describeForeign(r: ForeignResult): string {
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return [
    `foreign: a page on ${FOREIGN} (its Origin, from Node clients on loopback)`,
    `  GET /stats: ${r.corsStatus}, access-control-allow-origin ${r.corsAllowOrigin ?? 'none'}`,
    `  WebSocket /ws?batch=2000&interval=1: ${r.wsStatus === 101 ? 'opened' : `refused ${r.wsStatus}`}, ${mb(r.wsBytes)} MB pulled in ${r.wsSeconds} s`,
    `  GET /poll?batch=2 (a stream start): ${r.pollStartStatus}; extended CONNECT ws-h2: ${r.connectStatus}`,
    `  someone's poll ${r.ownerPollId}, asked for by another connection: ${r.otherConnection.map((o) => `${o.method} ${o.id === r.ownerPollId ? "the owner's id" : `id=${o.id}`} ${o.status} (${o.bytes} bytes)`).join(', ')}`,
  ].join('\n');
}
