/**
 * `encoding: arrow` in real headless Chromium against the real server: the table shows exactly
 * the rows the JSON page shows (main thread and Workers), the JSON page never loads the Arrow
 * library, and every transport that carries Arrow delivers it end to end with 0 gaps through
 * `npm run sweep`'s entry point, each point read against its own encoding's ceiling and the
 * round's best JSON.parse ceiling.
 *
 * And event age end to end (issue 33) at batch 200, in the same sweep: at a 50 ms tick a batch's
 * oldest event waited ~50 ms before its batch was due, so event age p99 is at least ~49.5 ms
 * while transit (the server's write → the page's handler) stays far lower; a push transport
 * (ws) and poll keep one book (each event from its birth, protocol/age.ts), so their event ages
 * agree within what poll's own wait adds; and the drawing page reports display age beside it.
 * Tails are compared as a sweep states them, medians over 3 repeats: on a shared 2-core host one
 * window's p99 can be one stall.
 *
 * One sweep serves both (its first round measures every point, the next two the event age
 * points): a sweep's start (server, Chrome, the JSON.parse ceiling at batch 200) costs about 7 s.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageConfig, PageSnapshot } from '../../protocol/page-api.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { transportsCarrying, type Row, type Transport } from '../../protocol/wire.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { openLabPage, type LabApi } from '../../puppeteer/measure/page.js';
import { startServer, type ServerHandle } from '../../puppeteer/measure/server-process.js';
import { RowPool } from '../../server/rows.js';
import { median } from '../../results/stats.js';
import { formatRow } from '../../web/lab/row-format.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = (api: LabApi, c: PageConfig) => api.evaluate((p, cfg) => p.start(cfg).then(() => undefined), c);
const snapshot = (api: LabApi) => api.evaluate((p) => p.snapshot()) as Promise<PageSnapshot>;
const stop = (api: LabApi) => api.evaluate((p) => p.stop());

const BATCH = 20;

/** The event age points: their tick, batch, and poll's request interval (short, so its wait, part of transit and of event age alike, stays small beside the tick). */
const INTERVAL_MS = 50;
const AGE_BATCH = 200;
const POLL_MS = 10;
const REPEATS = 3;

/**
 * The table's lines for batch seq 0 as the JSON pool has its rows, newest first, in each of the
 * pool's speed epochs (the epoch depends on the second the batch was sent in).
 */
function expectedLines(): string[][] {
  // Built once: a RowPool takes about a second, and the three page tests below run at once.
  if (expectedCache) return expectedCache;
  const pool = new RowPool();
  return (expectedCache = Array.from({ length: pool.epochs }, (_, e) => {
    pool.useEpochAt(e * 1000);
    const rows = JSON.parse(`[${pool.rows(0, BATCH).toString('latin1')}]`) as Row[];
    return rows.reverse().map(formatRow);
  }));
}
let expectedCache: string[][] | undefined;

describe('the lab page streaming Arrow', () => {
  let server: ServerHandle;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = (await launchChrome({ headless: true })).browser;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** One batch (a stream sending every 30 s: the server's first Arrow stream waits 1–2 s for its encoding, and no second batch may come), then the table's lines and whether the Arrow library loaded. */
  async function firstBatchLines(config: Partial<PageConfig>): Promise<{ lines: string[]; arrowLoaded: boolean; snap: PageSnapshot }> {
    const page = await browser.newPage();
    try {
      const api = await openLabPage(page, server.url);
      await start(api, { transport: 'ws', batch: BATCH, intervalMs: 30_000, concurrency: 1, render: 'full', renderEveryMs: 50, ...config });
      let snap = await snapshot(api);
      // Up to 10 s: the three pages load at once, beside the server building its Arrow batches.
      for (let i = 0; i < 100 && snap.counters.batches < 1; i++) {
        await sleep(100);
        snap = await snapshot(api);
      }
      await sleep(300); // let the table (and a Worker's update) draw it
      await stop(api);
      await sleep(200);
      const lines = await page.$$eval('.stream-table-lines > div', (els) => els.map((el) => el.textContent ?? ''));
      const arrowLoaded = await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/assets\/arrow-decode-/.test(e.name)));
      return { lines, arrowLoaded, snap };
    } finally {
      await page.close();
    }
  }

  // The three pages at once, each in its own tab: nothing here is timed and each reads one batch
  // of its own stream (7–8 s together here, 9.5 s one after another).
  it.concurrent.for([
    ['json', 'main'],
    ['arrow', 'main'],
    ['arrow', 'worker'],
  ] as const)(
    '%s parsed on %s: the table shows batch 0 exactly as the JSON page formats the JSON pool rows',
    { timeout: 30_000 },
    async ([encoding, parse], { expect }) => {
      const { lines, arrowLoaded, snap } = await firstBatchLines({ encoding, parse, workers: 1 });
      expect(snap.counters.batches).toBe(1);
      expect(snap.counters.errors).toBe(0);
      expect(lines.filter((l) => l.trim() !== '')).toHaveLength(BATCH);
      const epochs = expectedLines();
      const match = epochs.findIndex((expected) => expected.every((line, i) => lines[i] === line));
      expect(match, `${lines[0]}\n${epochs[0][0]}`).toBeGreaterThanOrEqual(0);
      // The JSON page never fetches the Arrow library; the Arrow page does (in the Worker, for worker parsing).
      if (encoding === 'json') expect(arrowLoaded).toBe(false);
      if (parse === 'main') expect(arrowLoaded).toBe(encoding === 'arrow');
    },
  );
});

const ARROW = transportsCarrying('arrow');

describe('one sweep at batch 200, headless Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-arrow-'));
    const base = { batch: 200, warmupSec: 1, measureSec: 2, repeats: 1, concurrency: 2, intervalMs: 5, render: 'full' };
    // The JSON points give sizes and ceiling ratios, not a rate any bound reads: no warm-up and
    // the shortest window (about 2.5 s less a point). The Arrow points keep theirs.
    const short = { ...base, warmupSec: 0, measureSec: 0.5 };
    const file = {
      scenarios: [
        { id: 'arrow', description: 'Arrow over every transport that carries it', transport: [...ARROW], encoding: 'arrow', ...base },
        { id: 'json', description: 'JSON over the same transports, for its sizes', transport: [...ARROW], encoding: 'json', ...short },
        { id: 'workers', description: 'Arrow in 2 Workers', transport: ['ws', 'fetch'], encoding: 'arrow', parse: 'worker', workers: 2, ...base },
        {
          id: 'age',
          description: 'event age against transit at a 50 ms tick',
          transport: ['ws', 'poll'],
          batch: AGE_BATCH,
          intervalMs: INTERVAL_MS,
          concurrency: 1,
          pollMs: POLL_MS,
          render: 'full',
          warmupSec: 1,
          // 120 batches a window: p99 is not just the window's one slowest batch.
          measureSec: 6,
          // The tails are judged as a sweep states them: the median over repeats.
          repeats: REPEATS,
        },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'arrow,json,workers,age', '--json', '--retries', '0', '--out', dir],
      300_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 360_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('every transport that carries Arrow, headless Chromium, through the sweep', () => {
    it('measures every point', () => {
      expect(code, stderr).toBe(0);
      expect(report.points.map((p) => p.point.id).filter((id) => id.endsWith('-ar'))).toHaveLength(ARROW.length + 2);
    });

    it.each(ARROW.map((t) => [t]))('%s: Arrow delivered with 0 gaps, in fewer bytes per event than JSON', (t) => {
      const arrow = report.points.find((x) => x.point.scenario === 'arrow' && x.point.transport === t && x.point.encoding === 'arrow')!;
      const json = firstMeasured(report.points.find((x) => x.point.scenario === 'json' && x.point.transport === t && x.point.encoding === undefined)!);
      const r = firstMeasured(arrow);
      expect(r.page.gaps, arrow.point.id).toBe(0);
      expect(r.page.errors, arrow.point.id).toBe(0);
      expect(r.page.duplicates, arrow.point.id).toBe(0);
      expect(r.eventsPerSec / arrow.point.offeredEventsPerSec, arrow.point.id).toBeGreaterThan(0.5);
      // Sizes, not timings: about 50 bytes a row in Arrow, 130 in JSON.
      expect(r.page.bytes / r.page.events, arrow.point.id).toBeLessThan(0.6 * (json.page.bytes / json.page.events));
      // The summary carries it rounded to 0.1 byte.
      expect(Math.abs(arrow.summary!.bytesPerEvent!.median - r.page.bytes / r.page.events)).toBeLessThanOrEqual(0.05);
    });

    it.each([['ws'], ['fetch']])('%s: Arrow parsed in 2 Workers, each opening and decoding its own connections, with 0 gaps', (t) => {
      const p = report.points.find((x) => x.point.scenario === 'workers' && x.point.transport === t)!;
      const r = firstMeasured(p);
      expect(r.page.gaps, p.point.id).toBe(0);
      expect(r.page.errors, p.point.id).toBe(0);
      expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    });

    it("reads each point against its own encoding's ceiling and the round's best JSON.parse ceiling", () => {
      const ceilings = report.rounds[0].parseCeilings;
      expect(ceilings.map((c) => `${c.encoding ?? 'json'}/${c.batch}`)).toEqual(['json/200', 'arrow/200']);
      const json = ceilings[0].eventsPerSec;
      const arrow = ceilings[1].eventsPerSec;
      for (const p of report.points) {
        const r = firstMeasured(p);
        expect(r.ceilingEventsPerSec, p.point.id).toBe(p.point.encoding === 'arrow' ? arrow : json);
        expect(r.ceilingRatio).toBeCloseTo(r.eventsPerSec / r.ceilingEventsPerSec!, 3);
        expect(r.jsonCeilingEventsPerSec).toBe(json);
        expect(r.jsonCeilingRatio).toBeCloseTo(r.eventsPerSec / json, 3);
      }
    });
  });

  describe('event age at a 50 ms tick, ws and poll, Chromium', () => {
    const pointOf = (t: Transport) => report.points.find((p) => p.point.scenario === 'age' && p.point.transport === t)!;
    const repeatsOf = (t: Transport) => pointOf(t).repeats.filter((r): r is MeasuredRepeat => r.status === 'ok');
    /** The median over the point's repeats: as a sweep states a figure, one window on a shared host being one noisy sample. */
    const med = (t: Transport, f: (r: MeasuredRepeat) => number) => median(repeatsOf(t).map(f));
    /** The figures an assertion is about, in its message: on a shared host a tail can be anything. */
    const figures = (t: Transport) =>
      repeatsOf(t)
        .map((r) => `${t}: event age ${JSON.stringify(r.latency)}, transit ${JSON.stringify(r.transit)}, display ${JSON.stringify(r.displayAge)}`)
        .join('\n');

    it('measures both points, every batch delivered', () => {
      expect(code, stderr).toBe(0);
      for (const t of ['ws', 'poll'] as const) {
        expect(repeatsOf(t), t).toHaveLength(REPEATS);
        for (const r of repeatsOf(t)) {
          expect(r.page.gaps, t).toBe(0);
          expect(r.server.batchesShed, t).toBe(0);
          expect(r.deliveredRatio, t).toBeGreaterThan(0.9);
        }
      }
    });

    it.each([['ws'], ['poll']] as const)('%s: event age p99 ≥ 49 ms (the wait to fill the batch) while transit p99 is far lower', (t) => {
      for (const r of repeatsOf(t)) {
        // Every window: the oldest event of each batch waited ~50 ms, whatever the wire did.
        expect(r.latency.p99Ms, figures(t)).toBeGreaterThanOrEqual(49);
        // Events are born evenly over the tick: the median waited about half of it.
        expect(r.latency.p50Ms!, figures(t)).toBeGreaterThanOrEqual(20);
        const transit = r.transit!;
        expect(transit.count, t).toBeGreaterThan(0);
        expect(transit.p999Ms!).toBeGreaterThanOrEqual(transit.p99Ms!);
        expect(transit.maxMs!).toBeGreaterThanOrEqual(transit.p999Ms!);
      }
      expect(
        med(t, (r) => r.transit!.p99Ms!),
        figures(t),
      ).toBeLessThan(med(t, (r) => r.latency.p99Ms!) / 2);
      // The table's p99 column is event age, and the summary carries transit beside it.
      const summary = pointOf(t).summary!;
      expect(summary.latencyP99Ms!.median).toBe(med(t, (r) => r.latency.p99Ms!));
      expect(summary.transitP99Ms!.median).toBe(med(t, (r) => r.transit!.p99Ms!));
    });

    it('push and poll keep one book: their event ages agree within what poll’s own wait adds', () => {
      const both = `${figures('ws')}\n${figures('poll')}`;
      const p99 = (t: Transport) => med(t, (r) => r.latency.p99Ms!);
      // poll holds a batch up to POLL_MS for the next request, on top of what ws's transit is.
      expect(Math.abs(p99('poll') - p99('ws')), both).toBeLessThanOrEqual(POLL_MS + 15);
      // What each adds to its own transit is the wait to fill its batch (about half a tick at the
      // median), whatever the transport: one birth for both, as one book says.
      const batching = (t: Transport) => med(t, (r) => r.latency.p50Ms! - r.transit!.p50Ms!);
      expect(Math.abs(batching('poll') - batching('ws')), both).toBeLessThanOrEqual(10);
      for (const t of ['ws', 'poll'] as const) expect(batching(t), both).toBeGreaterThan(INTERVAL_MS / 2 - 10);
    });

    it('reports display age beside event age: the newest event on screen at each draw', () => {
      for (const t of ['ws', 'poll'] as const) {
        for (const r of repeatsOf(t)) {
          const d = r.displayAge!;
          expect(d, t).not.toBeNull();
          expect(d.count, t).toBeGreaterThan(0);
          expect(d.p50Ms!, t).toBeGreaterThanOrEqual(0);
          expect(d.p99Ms!, t).toBeGreaterThanOrEqual(d.p50Ms!);
        }
        // A page that keeps up shows a batch's newest event within about a tick, a draw's wait and transit.
        expect(
          med(t, (r) => r.displayAge!.p50Ms!),
          figures(t),
        ).toBeLessThan(INTERVAL_MS + 100);
        expect(pointOf(t).summary!.displayAgeP99Ms!.median).toBe(med(t, (r) => r.displayAge!.p99Ms!));
      }
    });
  });
});
