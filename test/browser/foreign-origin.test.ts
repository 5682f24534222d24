/**
 * Local servers answer only the local page (issue 31, class 1). A page on another origin, or
 * one reached through DNS rebinding, must not read or drive pushlab's servers:
 * - the report viewer (`npm run report -- --serve`) answers only loopback Host names (421) and
 *   refuses a foreign page's requests (403);
 * - the main server grants CORS to its own origins only (main, h1, connect, replicas), echoed,
 *   and refuses a foreign Origin (403) before any stream, WebSocket upgrade or CONNECT opens;
 * - a poll id cannot be guessed, and another connection cannot read or end someone's poll.
 * With the real servers on loopback, Node clients for the exact headers, and headless Chromium
 * (a name mapped to 127.0.0.1 by --host-resolver-rules, as a rebinding would) for what a
 * browser really sends. The four groups run at once (describe.concurrent), each with servers of
 * its own; within a group the cases run in order (it.sequential), since they share a server
 * whose connections some of them count.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import NodeWebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerStats } from '../../protocol/server-stats.js';
import { POLL_ID_HEADER, type ServerOrigins } from '../../protocol/wire.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { serveReports } from '../../puppeteer/report/runs.js';
import { h2get } from '../helpers/h2-get.js';
import { startServerSession, startTestServer, type ServerSession } from '../helpers/test-server.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FOREIGN = 'https://evil.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A served stream never ends: its head and what came in this long (a batch every 1 ms) tell it was served. */
const STREAM_CUT_MS = 300;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP/1.1 request to 127.0.0.1:`port` with exactly these headers (Host included). */
function h1(scheme: 'http' | 'https', port: number, p: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = (scheme === 'https' ? https : http).request(
      { host: '127.0.0.1', port, path: p, method, headers, rejectUnauthorized: false, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d.length < 4096 ? d : ''));
        // A stream never ends: what came in 300 ms is enough to tell. A refusal is read whole.
        const timer = res.statusCode === 200 ? setTimeout(() => res.destroy(), STREAM_CUT_MS) : undefined;
        res.on('close', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One HTTP/2 request on `session` with these headers; a stream (a 200) is cut STREAM_CUT_MS after its head, a refusal read whole. */
function h2(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request(headers, { endStream: body === undefined });
    let out: Answer = { status: 0, headers: {}, body: '' };
    let timer: ReturnType<typeof setTimeout> | undefined;
    req.setEncoding('utf8');
    req.on('response', (h) => {
      out = { status: Number(h[':status']), headers: h as Answer['headers'], body: '' };
      if (out.status === 200) timer = setTimeout(() => req.close(http2.constants.NGHTTP2_CANCEL), STREAM_CUT_MS);
    });
    req.on('data', (d: string) => (out.body += out.body.length < 4096 ? d : ''));
    req.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
  });
}

/** A WebSocket to `url` with this Origin (or none): opened, or refused with its status. */
function openWs(url: string, origin: string | undefined): Promise<{ opened: boolean; status: number; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const ws = new NodeWebSocket(url, { rejectUnauthorized: false, ...(origin ? { origin } : {}) });
    const done = (r: { opened: boolean; status: number }) => {
      ws.terminate();
      resolve({ ...r, bytes });
    };
    ws.on('message', (d: Buffer) => (bytes += d.length));
    ws.on('open', () => setTimeout(() => done({ opened: true, status: 101 }), 300));
    ws.on('unexpected-response', (_req, res) => done({ opened: false, status: res.statusCode ?? 0 }));
    ws.on('error', () => done({ opened: false, status: 0 }));
  });
}

describe.concurrent('the report viewer answers only loopback Host names and its own page', () => {
  let tmp: string;
  let viewer: { url: string; close(): Promise<void> };
  let port: number;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pushlab-foreign-viewer-'));
    await mkdir(path.join(tmp, 'example'));
    await writeFile(path.join(tmp, 'example', 'report.json'), '{"secret":"chrome path and launch arguments"}');
    viewer = await serveReports(tmp, 0);
    port = Number(new URL(viewer.url).port);
  });
  afterAll(async () => {
    await viewer?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it.sequential('a foreign Host (a rebound name) gets 421 and nothing of the reports; loopback names get the reports', async () => {
    for (const host of [
      'evil.example',
      'rebind.127.0.0.1.nip.io',
      '127.0.0.1.evil.example',
      'localhost.evil.example',
      '10.0.0.5',
      '0.0.0.0',
      '[::2]',
      'localhost@evil.example',
      'evil.example/x',
    ]) {
      for (const p of ['/reports/', '/reports/example/report.json', '/report.html']) {
        const r = await h1('http', port, p, { host: `${host}:${port}` });
        expect([host, p, r.status]).toEqual([host, p, 421]);
        expect(r.body).not.toContain('secret');
        expect(r.body.length).toBeLessThan(300);
      }
    }
    for (const host of ['127.0.0.1', 'localhost', '127.1.2.3', '[::1]', 'LOCALHOST']) {
      const r = await h1('http', port, '/reports/example/report.json', { host: `${host}:${port}` });
      expect([host, r.status]).toEqual([host, 200]);
      expect(r.body).toContain('secret');
    }
  });

  it.sequential(
    "a foreign page's request gets 403 (foreign Origin, or cross-site and not a navigation); its own page and a followed link are served",
    async () => {
      const own = `http://127.0.0.1:${port}`;
      const cases: [Record<string, string>, number][] = [
        [{ origin: 'http://evil.example' }, 403],
        [{ origin: `http://localhost:${port + 1}` }, 403],
        [{ origin: `https://127.0.0.1:${port}` }, 403],
        [{ origin: 'null' }, 403],
        [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' }, 403],
        [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' }, 403],
        [{ origin: own }, 200],
        [{ origin: `http://localhost:${port}` }, 200],
        [{ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }, 200],
        [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, 200],
        [{}, 200],
      ];
      for (const [headers, status] of cases) {
        const r = await h1('http', port, '/reports/example/report.json', { host: `127.0.0.1:${port}`, ...headers });
        expect([headers, r.status]).toEqual([headers, status]);
        if (status === 403) expect(r.body).not.toContain('secret');
      }
    },
  );
});

describe.concurrent('the main server: CORS, WebSockets, CONNECT and stream starts for its own pages only', () => {
  let running: ServerSession;
  let session: http2.ClientHttp2Session;
  let origins: ServerOrigins;
  let main: string;

  beforeAll(async () => {
    running = await startServerSession();
    ({ session, origins } = running);
    main = `https://127.0.0.1:${running.server.port}`;
  });
  afterAll(async () => running?.close());

  const stats = async () => JSON.parse((await h2get(session, '/stats')).body) as ServerStats;
  const replica = (k: number) => new URL(origins.replicas[k]);
  const on = (url: string | URL) => http2.connect(url, { rejectUnauthorized: false });

  it.sequential('a foreign Origin gets no CORS grant (403, no access-control-allow-origin) on every route, main origin and replicas', async () => {
    const foreigns = [
      FOREIGN,
      'null',
      `http://127.0.0.1:${running.server.port}`,
      `https://127.0.0.1:1`,
      `https://evil.example:${running.server.port}`,
      `https://localhost.evil.example:${running.server.port}`,
    ];
    const replicaSession = on(replica(0));
    try {
      for (const s of [session, replicaSession]) {
        for (const p of ['/stats', '/origins', '/reports/', '/report.html', '/clock', '/']) {
          for (const origin of foreigns) {
            const r = await h2(s, { ':path': p, origin });
            expect([p, origin, r.status, r.headers['access-control-allow-origin']]).toEqual([p, origin, 403, undefined]);
            expect(JSON.parse(r.body)).toMatchObject({ error: 'foreign-origin' });
          }
        }
      }
      // A foreign preflight is refused too: no grant for gRPC-web's POST or poll's DELETE.
      const pre = await h2(session, { ':method': 'OPTIONS', ':path': '/poll', origin: FOREIGN, 'access-control-request-method': 'DELETE' });
      expect([pre.status, pre.headers['access-control-allow-origin'], pre.headers['access-control-allow-methods']]).toEqual([403, undefined, undefined]);
    } finally {
      replicaSession.close();
    }
  });

  it.sequential(
    'own origins (main, h1, connect, each replica; loopback names alike) get theirs echoed with vary: origin; no Origin is served as before',
    async () => {
      const ports = [running.server.port, ...[origins.h1!, origins.connect!, ...origins.replicas].map((u) => Number(new URL(u).port))];
      expect(origins.replicas.length).toBeGreaterThan(0);
      const replicaSession = on(replica(origins.replicas.length - 1));
      try {
        for (const s of [session, replicaSession]) {
          for (const port of ports) {
            for (const origin of [`https://127.0.0.1:${port}`, `https://localhost:${port}`]) {
              const r = await h2(s, { ':path': '/stats', origin });
              expect([origin, r.status, r.headers['access-control-allow-origin'], r.headers.vary]).toEqual([origin, 200, origin, 'origin']);
            }
          }
        }
        const pre = await h2(replicaSession, { ':method': 'OPTIONS', ':path': '/poll', origin: main, 'access-control-request-method': 'DELETE' });
        expect([pre.status, pre.headers['access-control-allow-origin']]).toEqual([204, main]);
        const plain = await h2(session, { ':path': '/stats' });
        expect(plain.status).toBe(200);
        expect(plain.headers['access-control-allow-origin']).toBeUndefined();
        expect(JSON.parse(plain.body)).toHaveProperty('connections');
      } finally {
        replicaSession.close();
      }
      // The h1 origin, over HTTP/1.1.
      const h1Port = Number(new URL(origins.h1!).port);
      const own = await h1('https', h1Port, '/stats', { origin: main });
      expect([own.status, own.headers['access-control-allow-origin']]).toEqual([200, main]);
      const foreign = await h1('https', h1Port, '/stats', { origin: FOREIGN });
      expect([foreign.status, foreign.headers['access-control-allow-origin']]).toEqual([403, undefined]);
    },
  );

  it.sequential(
    'a WebSocket upgrade from a foreign Origin is refused (403), on the main origin and handed over from a replica; own and none open',
    async () => {
      const q = '/ws?batch=200&interval=1&client=foreign-ws';
      for (const base of [main, origins.replicas[0]]) {
        const url = new URL(q, base.replace('https:', 'wss:')).href;
        for (const origin of [FOREIGN, 'null', 'https://127.0.0.1:1']) {
          const r = await openWs(url, origin);
          expect([base, origin, r]).toEqual([base, origin, { opened: false, status: 403, bytes: 0 }]);
        }
        for (const origin of [main, undefined]) {
          const r = await openWs(url, origin);
          expect([base, origin, r.opened]).toEqual([base, origin, true]);
          expect(r.bytes).toBeGreaterThan(0);
        }
      }
    },
  );

  it.sequential(
    'an extended CONNECT (ws-h2) and the warm-up fetch from a foreign Origin are refused (403) on the connect origin; own and none are served',
    async () => {
      const connect = on(origins.connect!);
      try {
        await new Promise((resolve) => connect.once('remoteSettings', resolve));
        const ws = (origin?: string) =>
          h2(connect, {
            ':method': 'CONNECT',
            ':protocol': 'websocket',
            ':path': '/ws?batch=2&interval=1&client=foreign-wsh2',
            'sec-websocket-version': '13',
            ...(origin ? { origin } : {}),
          });
        for (const origin of [FOREIGN, 'null', `http://127.0.0.1:${running.server.port}`]) {
          const r = await ws(origin);
          expect([origin, r.status]).toEqual([origin, 403]);
          expect(JSON.parse(r.body)).toMatchObject({ error: 'foreign-origin' });
          const warm = await h2(connect, { ':path': '/', origin });
          expect([warm.status, warm.headers['access-control-allow-origin']]).toEqual([403, undefined]);
        }
        expect((await stats()).connections.some((c) => c.client === 'foreign-wsh2')).toBe(false);
        expect((await ws(main)).status).toBe(200);
        expect((await ws()).status).toBe(200);
        const warm = await h2(connect, { ':path': '/', origin: main });
        expect([warm.status, warm.headers['access-control-allow-origin'], warm.headers['access-control-allow-credentials']]).toEqual([204, main, 'true']);
      } finally {
        connect.close();
      }
    },
  );

  it.sequential('a stream start from a foreign page (/poll, /sse, /ndjson, gRPC-web) is refused (403) before the hub opens anything', async () => {
    const before = (await stats()).connections.length;
    const refusals = [
      { ':path': '/poll?batch=2&client=foreign-poll', origin: FOREIGN },
      { ':path': '/sse?batch=2&interval=1&client=foreign-sse', origin: FOREIGN },
      { ':path': '/ndjson?batch=2&interval=1&client=foreign-fetch', origin: FOREIGN },
      // An <img> or <iframe> a foreign page points here: no Origin, but the browser says cross-site.
      { ':path': '/sse?batch=2&interval=1&client=foreign-img', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    ];
    for (const headers of refusals) {
      const r = await h2(session, headers);
      expect([headers[':path'], r.status, r.headers[POLL_ID_HEADER]]).toEqual([headers[':path'], 403, undefined]);
    }
    // gRPC-web's POST, as a browser sends it (a 5-byte frame of an empty request).
    const grpc = await h2(
      session,
      { ':method': 'POST', ':path': '/pushlab.v1.PushService/Stream', 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', origin: FOREIGN },
      Buffer.from([0, 0, 0, 0, 0]),
    );
    expect(grpc.status).toBe(403);
    const after = await stats();
    expect(after.connections.filter((c) => (c.client ?? '').startsWith('foreign-'))).toEqual([]);
    expect(after.connections.length).toBe(before);
    // The same starts from the page itself stream.
    const own = await h2(session, { ':path': '/sse?batch=2&interval=1&client=own-sse', origin: main });
    expect(own.status).toBe(200);
    expect(own.body).toContain('data: ');
  });
});

describe.concurrent('poll ids: unguessable, and only the connection that opened one uses it', () => {
  let running: ServerSession;
  beforeAll(async () => {
    running = await startServerSession();
  });
  afterAll(async () => running?.close());

  const openPoll = (s: http2.ClientHttp2Session, client: string) =>
    new Promise<string>((resolve, reject) => {
      const req = s.request({ ':path': `/poll?batch=2&interval=5&client=${client}` });
      req.on('response', (h) => resolve(String(h[POLL_ID_HEADER])));
      req.on('error', reject);
      req.resume();
    });
  const del = (s: http2.ClientHttp2Session, id: string) => h2(s, { ':method': 'DELETE', ':path': `/poll?id=${id}` });

  it.sequential('ids are 24 base64url characters (144 random bits), none repeated, nothing to count', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => openPoll(running.session, `many-${i}`)));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect((await del(running.session, id)).status).toBe(204);
  });

  it.sequential("another connection can neither read nor end someone's poll: the same 404 as an id never given", async () => {
    const owner = running.session;
    const id = await openPoll(owner, 'owned');
    await sleep(100);
    const other = http2.connect(`https://127.0.0.1:${running.server.port}`, { rejectUnauthorized: false });
    try {
      const never = await h2(other, { ':path': `/poll?id=${'Q'.repeat(24)}` });
      const read = await h2(other, { ':path': `/poll?id=${id}` });
      const ended = await del(other, id);
      expect(never.status).toBe(404);
      expect([read.status, JSON.parse(read.body).error]).toEqual([404, JSON.parse(never.body).error]);
      expect(read.body.replace(id, 'ID')).toBe(never.body.replace('Q'.repeat(24), 'ID'));
      expect(ended.status).toBe(404);
      // Over HTTP/1.1 too, and the old counting ids are not ids at all.
      const h1Read = await h1('https', running.server.port, `/poll?id=${id}`, {});
      expect(h1Read.status).toBe(404);
      for (const guess of ['1', '2', '3']) {
        const r = await h2(other, { ':path': `/poll?id=${guess}` });
        expect(r.status).toBe(400);
        expect(JSON.parse(r.body)).toMatchObject({ error: 'bad-parameter', param: 'id', value: guess });
        expect(JSON.parse(r.body).message).toContain('24 characters of A-Z, a-z, 0-9, - and _');
      }
      // The owner's stream was neither read nor ended: its batches are all there, from seq 0.
      const mine = await h2(owner, { ':path': `/poll?id=${id}` });
      expect(mine.status).toBe(200);
      expect(JSON.parse(mine.body.split('\n')[0]).seq).toBe(0);
      expect((await del(owner, id)).status).toBe(204);
    } finally {
      other.close();
    }
  });

  it.sequential("a poll follows its client to a new connection once its own is closing (the server's GOAWAY after its stream cap)", async () => {
    const capped = await startTestServer({ maxStreamsPerSession: 5 });
    const first = http2.connect(`https://127.0.0.1:${capped.port}`, { rejectUnauthorized: false });
    const goaway = new Promise<void>((resolve) => first.once('goaway', () => resolve()));
    try {
      const id = await openPoll(first, 'moving');
      // Streams 2…5: the fifth makes the server close the session gracefully.
      for (let i = 0; i < 4; i++) expect((await h2(first, { ':path': `/poll?id=${id}` })).status).toBe(200);
      await goaway;
      const second = http2.connect(`https://127.0.0.1:${capped.port}`, { rejectUnauthorized: false });
      try {
        await sleep(50);
        const r = await h2(second, { ':path': `/poll?id=${id}` });
        expect(r.status).toBe(200);
        expect(r.body).toContain('"seq"');
        expect((await del(second, id)).status).toBe(204);
      } finally {
        second.close();
      }
    } finally {
      first.destroy();
      await capped.close();
    }
  });
});

describe.concurrent('in headless Chromium: a foreign page gets nothing, the own page everything', () => {
  let browser: Browser;
  let running: ServerSession;
  let foreignSite: http.Server;
  let foreignPort: number;
  let tmp: string;
  let viewer: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    running = await startServerSession({ webRoot: path.join(ROOT, 'dist/web') });
    // The attacker's page: any HTML on a name the browser resolves to this machine.
    foreignSite = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((resolve) => foreignSite.listen(0, '127.0.0.1', resolve));
    foreignPort = (foreignSite.address() as AddressInfo).port;
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pushlab-foreign-chromium-'));
    await mkdir(path.join(tmp, 'example'));
    await writeFile(path.join(tmp, 'example', 'report.json'), '{"secret":"chrome path"}');
    viewer = await serveReports(tmp, 0);
    // evil.test resolves to 127.0.0.1, as a rebound name would.
    browser = (await launchChrome({ headless: true, extraArgs: ['--host-resolver-rules=MAP evil.test 127.0.0.1'] })).browser;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
    await new Promise<void>((resolve) => (foreignSite ? foreignSite.close(() => resolve()) : resolve()));
    await running?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it.sequential('the viewer under a rebound name answers 421; under 127.0.0.1 it serves its page and the runs', async () => {
    const viewerPort = new URL(viewer.url).port;
    const page = await browser.newPage();
    try {
      // pushlab's Chrome runs without the Network domain, so goto() gives no status: the page says it.
      await page.goto(`http://evil.test:${viewerPort}/report.html`);
      expect(await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText)).toMatch(
        /^misdirected: .*got host 'evil\.test:\d+'/,
      );
      const read = await page.evaluate(async () => {
        const r = await fetch('/reports/example/report.json');
        return { status: r.status, text: await r.text() };
      });
      expect(read.status).toBe(421);
      expect(read.text).not.toContain('secret');
      await page.goto(viewer.url);
      expect(await page.evaluate(async () => (await fetch('/reports/example/report.json')).text())).toContain('secret');
    } finally {
      await page.close();
    }
  });

  it.sequential('a foreign page reads nothing and starts no stream; the own page reads a replica and opens its WebSocket', async () => {
    const main = `https://127.0.0.1:${running.server.port}`;
    const page = await browser.newPage();
    try {
      await page.goto(`http://evil.test:${foreignPort}/`);
      const tried = await page.evaluate(
        async (base: string, replica: string) => {
          const g = globalThis as unknown as { document: { body: { appendChild(e: unknown): void }; createElement(t: string): { src: string } } };
          const read = async (url: string) => {
            try {
              return `read ${(await (await fetch(url)).text()).length} bytes`;
            } catch {
              return 'refused';
            }
          };
          const ws = (url: string) =>
            new Promise<string>((resolve) => {
              const s = new WebSocket(url);
              let n = 0;
              s.onmessage = () => n++;
              s.onopen = () => setTimeout(() => (resolve(`opened, ${n} messages`), s.close()), 500);
              s.onerror = () => resolve('refused');
            });
          const es = new EventSource(`${base}/sse?batch=2&interval=1&client=foreign-es`);
          let events = 0;
          es.onmessage = () => events++;
          // No-cors subresources: the page cannot read them, but they must not start a stream either.
          const img = g.document.createElement('img');
          img.src = `${base}/sse?batch=2&interval=1&client=foreign-img`;
          g.document.body.appendChild(img);
          const out = {
            stats: await read(`${base}/stats`),
            reports: await read(`${base}/reports/`),
            replicaStats: await read(`${replica}stats`),
            poll: await read(`${base}/poll?batch=2&client=foreign-poll`),
            ws: await ws(`${base.replace('https:', 'wss:')}/ws?batch=2&interval=1&client=foreign-ws`),
            wsReplica: await ws(`${replica.replace('https:', 'wss:')}ws?batch=2&interval=1&client=foreign-ws-replica`),
            events: 0,
          };
          await new Promise((r) => setTimeout(r, 300));
          out.events = events;
          es.close();
          return out;
        },
        main,
        running.origins.replicas[0],
      );
      expect(tried).toEqual({ stats: 'refused', reports: 'refused', replicaStats: 'refused', poll: 'refused', ws: 'refused', wsReplica: 'refused', events: 0 });
      const connections = (JSON.parse((await h2get(running.session, '/stats')).body) as ServerStats).connections;
      expect(connections.filter((c) => (c.client ?? '').startsWith('foreign-'))).toEqual([]);

      await page.goto(`${main}/`);
      const own = await page.evaluate(async (replica: string) => {
        const r = await fetch(`${replica}stats`);
        const ws = await new Promise<string>((resolve) => {
          const s = new WebSocket(`${replica.replace('https:', 'wss:')}ws?batch=2&interval=1&client=own-ws`);
          s.onmessage = () => (resolve('message'), s.close());
          s.onerror = () => resolve('refused');
        });
        return { status: r.status, hasConnections: 'connections' in ((await r.json()) as object), ws };
      }, running.origins.replicas[0]);
      expect(own).toEqual({ status: 200, hasConnections: true, ws: 'message' });
    } finally {
      await page.close();
    }
  });
});
