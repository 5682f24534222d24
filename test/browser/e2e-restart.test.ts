/**
 * The server restarts mid-stream, on the same port, under a real headless Chromium: every
 * EventSource reconnects and resumes after its Last-Event-ID, every WebSocket reconnects with
 * backoff, and the page's counters say exactly that: one reconnect per connection, no
 * duplicate, and as gaps the batches that fell due while the server was away (issue 33: the
 * new streams are paced from when they open, so those batches were never sent; e2e-loss.test.ts
 * checks their count).
 */
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { restartableLab } from '../helpers/restartable-lab.js';
import type { PageSnapshot } from '../../protocol/page-api.js';
import type { Transport } from '../../protocol/wire.js';
import { openLabPage, type LabApi } from '../../puppeteer/measure/page.js';

const CONNECTIONS = 2;
const lab = restartableLab();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const apis = new WeakMap<Page, LabApi>();
const snapshot = (page: Page) => apis.get(page)!.evaluate((p) => p.snapshot({ resetLatency: false })) as Promise<PageSnapshot>;

async function streamingPage(transport: Transport): Promise<Page> {
  const page = await lab.browser.newPage();
  const api = await openLabPage(page, lab.url);
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

      await lab.restart(700); // long enough for the WS to fail at least one reconnect attempt

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
      const streams = lab.server.hub.stats().connections;
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
