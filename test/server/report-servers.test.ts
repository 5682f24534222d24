/**
 * Both servers that serve reports/ follow one rule (cli/reports-dir.ts): the viewer's own
 * server (`npm run report -- --serve`) once followed a symlink inside reports/ to a file
 * outside it, which the main server refused. Here the viewer's server gets the probes the main
 * server's route is tested with (test/server/reports-route.test.ts), symlinks out included, and both
 * servers, on one tree, answer every path alike: the same files served, the same refused.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type PushlabServer } from '../../server/app.js';
import { loadOrCreateCert } from '../../server/cert.js';
import { serveReports } from '../../puppeteer/report/runs.js';
import { h1get, h2get } from '../helpers/h2-get.js';
import { makeProbeTree, PROBES, SECRET } from '../helpers/reports-probes.js';

let tmp: string;
let viewer: { url: string; close(): Promise<void> };
let viewerBase: string;
let app: PushlabServer;
let h2: http2.ClientHttp2Session;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pushlab-report-servers-'));
  const reports = await makeProbeTree(tmp);
  viewer = await serveReports(reports, 0);
  viewerBase = viewer.url.replace('/report.html', '');
  app = await buildServer({ tls: await loadOrCreateCert(path.join(tmp, 'cert')), webRoot: path.join(tmp, 'web'), reportsRoot: reports });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  h2 = http2.connect(`https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, { rejectUnauthorized: false });
});

afterAll(async () => {
  h2?.close();
  await viewer?.close();
  await app?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** GET on the viewer's server with the path exactly as given (Node's client does not normalise it). */
const getViewer = (p: string): Promise<{ status: number; body: string }> => h1get(viewerBase, p);

describe("the viewer's own server (npm run report -- --serve)", () => {
  it('does not follow a symlink out of reports/: not a run directory linked out, nor a file', async () => {
    for (const p of ['/reports/linked/report.json', '/reports/example/leak.json', '/reports/escape/secret.json', '/reports/escape/outside/report.json']) {
      const r = await getViewer(p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).not.toContain(SECRET);
    }
    // Nor list the run whose report.json is outside.
    expect(JSON.parse((await getViewer('/reports/')).body)).toEqual(['20261122-013000', 'example']);
  });

  it('refuses every probe out of reports/, in any encoding', async () => {
    for (const p of PROBES) {
      const { status, body } = await getViewer(p);
      // The viewer's server serves its page at / and /report.html; every other path must be refused.
      expect([400, 403, 404], `${p} → ${status} ${body.slice(0, 200)}`).toContain(status);
      expect(body, p).not.toContain(SECRET);
    }
  });

  it('answers every path as the main server does: the same files served, the same refused', async () => {
    const paths = [...PROBES, '/reports/example/report.json', '/reports/20261122-013000/report.json', '/reports/example/report.json?t=1'];
    for (const p of paths) {
      const fromViewer = await getViewer(p);
      const fromMain = await h2get(h2, p);
      // The main server serves its web root at / (the viewer's server has none): compare /reports/ alone.
      if (!p.startsWith('/reports/')) continue;
      expect(fromViewer.status === 200, `${p}: viewer ${fromViewer.status}, main ${fromMain.status}`).toBe(fromMain.status === 200);
      if (fromMain.status === 200) expect(fromViewer.body, p).toBe(fromMain.body);
    }
  });
});

describe("closing the viewer's own server", () => {
  it('does not wait for sockets a client holds open: idle, kept alive, or a request half sent', async () => {
    const server = await serveReports(await makeProbeTree(await mkdtemp(path.join(tmp, 'close-'))), 0);
    const { port } = new URL(server.url);
    const open = (first: string) =>
      new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect(Number(port), '127.0.0.1', () => resolve(s));
        s.once('error', reject);
        if (first) s.write(first);
      });
    // What Chrome leaves behind after a tab closes: a socket opened ahead and never used, one
    // kept alive after a whole answer, and (a slow client) one whose request never ends.
    const sockets = await Promise.all([
      open(''),
      open(`GET /report.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`),
      open(`GET /report.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`),
    ]);
    const closed = sockets.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
    // Not a speed goal: without closing its connections, close() waited for the client (Node's
    // headers timeout, a minute), so any bound in seconds tells the two apart.
    const outcome = await Promise.race([
      server.close().then(() => 'closed'),
      new Promise<string>((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000)),
    ]);
    expect(outcome).toBe('closed');
    await Promise.all(closed);
  });
});
