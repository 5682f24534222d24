/**
 * The server restarts mid-stream, on the same port, under a real headless Chromium: every
 * EventSource reconnects and resumes after its Last-Event-ID, every WebSocket reconnects with
 * backoff, and the page's counters say exactly that: one reconnect per connection, no
 * duplicate, and as gaps the batches that fell due while the server was away (issue 33: the
 * new streams are paced from when they open, so those batches were never sent; e2e-loss.test.ts
 * checks their count).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageSnapshot } from '../../protocol/page-api.js';
import type { Transport } from '../../protocol/wire.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { openLabPage, type LabApi } from '../../puppeteer/measure/page.js';
import { buildServer, type PushlabServer } from '../../server/app.js';
import { loadOrCreateCert, type TlsFiles } from '../../server/cert.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CONNECTIONS = 2;
let certDir: string;
let tls: TlsFiles;
let app: PushlabServer | undefined;
let browser: Browser;
let port = 0;

async function listen(): Promise<PushlabServer> {
  const s = await buildServer({ tls, webRoot: path.join(ROOT, 'dist/web') });
  await s.listen({ host: '127.0.0.1', port });
  const addr = s.server.address();
  port = typeof addr === 'object' && addr ? addr.port : port;
  return s;
}

beforeAll(async () => {
  certDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-cert-'));
  tls = await loadOrCreateCert(certDir);
  app = await listen();
  browser = (await launchChrome({ headless: true })).browser;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await rm(certDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const apis = new WeakMap<Page, LabApi>();
const snapshot = (page: Page) => apis.get(page)!.evaluate((p) => p.snapshot({ resetLatency: false })) as Promise<PageSnapshot>;

async function streamingPage(transport: Transport): Promise<Page> {
  const page = await browser.newPage();
  const api = await openLabPage(page, `https://127.0.0.1:${port}/`);
  apis.set(page, api);
  await api.evaluate(
    (p, t, n) => p.start({ transport: t, batch: 5, intervalMs: 2, concurrency: n, render: 'none' }).then(() => undefined),
    transport,
    CONNECTIONS,
  );
  return page;
}

/** Polls the page until `ok` holds for its snapshot, or fails after `ms`. */
async function until(page: Page, ok: (s: PageSnapshot) => boolean, ms: number, what: string): Promise<PageSnapshot> {
  const end = Date.now() + ms;
  for (;;) {
    const s = await snapshot(page);
    if (ok(s)) return s;
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms; page counters: ${JSON.stringify(s.counters)}`);
    await sleep(100);
  }
}

describe('the server restarts mid-stream', () => {
  it('SSE resumes from Last-Event-ID and WS reconnects; reconnects are counted exactly, the outage as gaps', async () => {
    const sse = await streamingPage('sse');
    const ws = await streamingPage('ws');
    try {
      await sleep(1000);
      const before = { sse: await snapshot(sse), ws: await snapshot(ws) };
      for (const s of Object.values(before)) expect(s.counters).toMatchObject({ reconnects: 0, gaps: 0, duplicates: 0 });

      await app!.close();
      app = undefined;
      await sleep(700); // long enough for the WS to fail at least one reconnect attempt
      app = await listen();

      // EventSource retries after better-sse's retry hint (2 s); the WS after its backoff.
      const after = {
        sse: await until(
          sse,
          (s) => s.counters.reconnects >= CONNECTIONS && s.counters.batches > before.sse.counters.batches + 100,
          15_000,
          'SSE did not reconnect',
        ),
        ws: await until(
          ws,
          (s) => s.counters.reconnects >= CONNECTIONS && s.counters.batches > before.ws.counters.batches + 100,
          15_000,
          'WS did not reconnect',
        ),
      };
      for (const [transport, s] of Object.entries(after)) {
        expect(s.counters, transport).toMatchObject({ reconnects: CONNECTIONS, duplicates: 0, errors: 0 });
        // At least the 700 ms away on each connection, at one batch every 2 ms.
        expect(s.counters.gaps, transport).toBeGreaterThan((CONNECTIONS * 0.8 * 700) / 2);
        expect(s.counters.closedMs!, transport).toBeGreaterThan(CONNECTIONS * 500);
      }
      // The new server's SSE streams began where the page's Last-Event-ID left off, not at 0.
      const streams = app.hub.stats().connections;
      const resumed = streams.filter((c) => c.transport === 'sse');
      expect(resumed).toHaveLength(CONNECTIONS);
      for (const c of resumed) expect(c.generated - c.sent - c.shed).toBeGreaterThan(100);
      for (const c of streams.filter((x) => x.transport === 'ws')) expect(c.generated - c.sent - c.shed).toBe(0);
    } finally {
      await sse.close();
      await ws.close();
    }
  }, 60_000);
});
