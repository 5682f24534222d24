/**
 * Loss that counts (issue 33), under a real headless Chromium: the server goes away for a
 * moment mid-stream and comes back on the same port. A WebSocket that reconnects gets a new
 * stream that counts its seq from 0 and is paced from the moment it opens, so the batches that
 * fell due while it was down were never generated; the page carries its numbering on and counts
 * them as gaps (web/lab/counters.ts), with the time the connection was closed. The sustains rule
 * then fails the window and says what was lost and how. And `npm run soak`'s forced reconnect
 * (the server drops every stream, puppeteer/soak/): the page comes back and the loss is counted
 * by sequence number into the report.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restartableLab } from '../helpers/restartable-lab.js';
import type { PageSnapshot } from '../../protocol/page-api.js';
import { openLabPage, type LabApi } from '../../puppeteer/measure/page.js';
import { sustains } from '../../results/sustains.js';
import { parseReportText } from '../../protocol/report-check.js';
import { nodeArgs } from '../helpers/node-command.js';

const INTERVAL_MS = 10;
/**
 * `npm run soak` for 20 s at a light load (1,000 events/s), started before anything else in the
 * file: it mostly waits, so the forced-reconnect test runs within its 20 s instead of before
 * them. It has its own server and Chrome: nothing it counts is shared with the test beside it.
 */
let soakDir = '';
let soakRan: Promise<string>;
beforeAll(async () => {
  soakDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-soak-'));
  const file = path.join(soakDir, 'confirm.json');
  const scenario = { id: 'advised', transport: 'ws', batch: 5, concurrency: 2, intervalMs: INTERVAL_MS, render: 'none', warmupSec: 1 };
  await writeFile(file, JSON.stringify({ scenarios: [scenario] }));
  soakRan = promisify(execFile)(process.execPath, [...nodeArgs('puppeteer/soak/main.ts'), '--file', file, '--duration', '20s', '--out', soakDir], {
    timeout: 90_000,
  }).then(
    (r) => r.stdout,
    (err: { stdout?: string; code?: number }) => {
      // Exit 1 is a soak that did not hold or could not be judged whole: 20 s seldom can be.
      if (err.code === 1 && err.stdout) return err.stdout;
      throw err;
    },
  );
  // Awaited by its test; a failure before then is not unhandled.
  soakRan.catch(() => undefined);
});
afterAll(async () => {
  await Promise.allSettled([soakRan]);
  if (soakDir) await rm(soakDir, { recursive: true, force: true });
});

const lab = restartableLab();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a forced reconnect', () => {
  it('counts the batches due while the WebSocket was down as gaps, and the rule fails the window naming them', async () => {
    const page: Page = await lab.browser.newPage();
    const api: LabApi = await openLabPage(page, lab.url);
    const snapshot = () => api.evaluate((p) => p.snapshot({ resetLatency: false })) as Promise<PageSnapshot>;
    try {
      await api.evaluate((p, i) => p.start({ transport: 'ws', batch: 5, intervalMs: i, concurrency: 1, render: 'none' }).then(() => undefined), INTERVAL_MS);
      await sleep(1000);
      const before = await snapshot();
      expect(before.counters).toMatchObject({ reconnects: 0, gaps: 0, duplicates: 0, closedMs: 0 });

      await lab.restart(700); // long enough for the WS to fail at least one reconnect attempt

      // Bounded: the WS backoff retries within a few seconds of the server coming back.
      let after = await snapshot();
      for (let waited = 0; waited < 15_000 && !(after.counters.reconnects >= 1 && after.counters.batches > before.counters.batches + 50); waited += 100) {
        await sleep(100);
        after = await snapshot();
      }
      const c = after.counters;
      expect(c.reconnects).toBe(1);
      expect(c.duplicates).toBe(0);
      // Down for at least the 700 ms the server was away (the page saw the close a moment after it).
      expect(c.closedMs!).toBeGreaterThanOrEqual(500);
      // Every batch due between the last before the drop and the first after is a gap: at least
      // the closed time's worth, and no more than it plus the reconnect's own round trips.
      expect(c.gaps).toBeGreaterThanOrEqual(Math.floor((0.8 * c.closedMs!) / INTERVAL_MS));
      expect(c.gaps).toBeLessThanOrEqual(Math.ceil((c.closedMs! + 1000) / INTERVAL_MS));

      // The window holding the drop does not sustain, whatever it delivered, and says what was lost.
      const delta = (k: 'batches' | 'gaps' | 'reconnects' | 'closedMs' | 'stalledMs') => (after.counters[k] ?? 0) - (before.counters[k] ?? 0);
      const judged = sustains(
        [
          {
            deliveredRatio: 1,
            shed: 0,
            p99Ms: after.latency.p99Ms,
            notOpen: 0,
            streams: 1,
            cap: null,
            batches: delta('batches'),
            gaps: delta('gaps'),
            reconnects: delta('reconnects'),
            closedMs: delta('closedMs'),
            stalledMs: delta('stalledMs'),
          },
        ],
        { p99BoundMs: 10_000 },
      );
      expect(judged.sustains).toBe(false);
      expect(judged.reasons.join('; ')).toMatch(new RegExp(`^lost: ${c.gaps} batches missing \\(gaps\\), 1 reconnect, connections closed for [\\d.]+ (ms|s)`));
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe("npm run soak's forced reconnect", () => {
  it('streams for 20 s, samples every 2 s, drops every stream half-way and counts what came back and what was lost', async () => {
    const reportFile = (await soakRan).trim();
    const report = parseReportText(await readFile(reportFile, 'utf8'), reportFile);
    const soak = report.soak!;
    expect(soak.stopped).toBeNull();
    expect(soak.sampleSec).toBe(2);
    expect(soak.samples.length).toBeGreaterThanOrEqual(9);
    const r = soak.reconnect!;
    // Half-way, right after a sample; both streams dropped and both back within the bound.
    expect(r.atSec).toBeGreaterThanOrEqual(10);
    expect(r.dropped).toBe(2);
    expect(r.reconnects).toBe(2);
    expect(r.recoverySec).not.toBeNull();
    expect(r.recoverySec!).toBeLessThan(10);
    // Lost: what fell due while they were down, counted in whole batches of 5 rows.
    expect(r.lostEvents).toBe(r.lostBatches * 5);
    expect(r.closedMs).toBeGreaterThan(0);
    expect(r.lostBatches).toBeGreaterThan(0);
    // The interval holding the reconnect counted it; the others none.
    expect(soak.samples.reduce((a, s) => a + s.reconnects, 0)).toBe(2);
    expect(soak.samples.every((s) => s.eventsPerSec > 0 && s.heapUsedMb !== null)).toBe(true);
  }, 120_000);
});
