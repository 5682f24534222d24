/**
 * The fault suite, short versions (full length with figures: `npm run bench:faults`):
 * connect/abort cycles leave nothing open, and clients that stop reading cost bounded memory
 * while the readers beside them lose nothing. The server restart is in e2e-restart.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChurn } from '../../bench/churn.js';
import { runStall } from '../../bench/stall.js';
import type { PushlabServer } from '../../server/app.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SHED_LIMIT = 1024 * 1024;
let app: PushlabServer;
let base: string;
let server: TestServer;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  // A short heartbeat, so a connection only the heartbeat can find dead goes within the test.
  server = await startTestServer({ sendBufferLimitBytes: SHED_LIMIT, heartbeat: { everyMs: 250, deadlineMs: 1500 } });
  app = server.app;
  base = `https://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

describe('connect/abort cycles', () => {
  it('150 cycles, 10 in parallel, mixing WS, SSE over HTTP/2 and HTTP/1.1 and every way to go: nothing left open or behind', async () => {
    const r = await runChurn({ base, cycles: 150, parallel: 10, seed: 7 });
    expect(r.cycles).toBe(150);
    // Every kind of cycle ran, and most streamed before they were ended.
    expect(Object.keys(r.byKind).length).toBeGreaterThanOrEqual(10);
    expect(r.streamed).toBeGreaterThan(30);
    let stats = app.hub.stats();
    for (let waited = 0; waited < 10_000 && stats.connectionsOpen > 0; waited += 100) {
      await sleep(100);
      stats = app.hub.stats();
    }
    expect(stats.connections).toEqual([]);
    expect(stats).toMatchObject({ connectionsOpen: 0, batchesBehind: 0 });
  }, 60_000);
});

describe('clients that stop reading', () => {
  it('WS and SSE: memory bounded, shedding counted, and the readers beside them lose nothing', async () => {
    const r = await runStall(base, { seconds: 3, stalled: 3, readers: 2, stats: async () => app.hub.stats() });
    expect(r.shedStalled).toBeGreaterThan(0);
    // One batch (~55 KB) may overshoot the bound before shedding starts.
    expect(r.maxQueuedBytes).toBeLessThan(SHED_LIMIT + 64 * 1024);
    // Six stalled streams bounded at 1 MiB each, plus TLS and kernel buffers: far below what
    // 3 s of 400-row batches every 1 ms (≈ 1 GB) would take unbounded.
    expect(r.rssPeakBytes - r.rssBeforeBytes).toBeLessThan(200 * 2 ** 20);
    expect(r.shedReaders).toBe(0);
    for (const reader of r.readers) {
      expect(reader.batches, reader.transport).toBeGreaterThan(100);
      expect(reader.gaps, reader.transport).toBe(0);
    }
  }, 30_000);
});
