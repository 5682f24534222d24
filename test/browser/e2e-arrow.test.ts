/**
 * `encoding: arrow` in real headless Chromium against the real server: the table shows exactly
 * the rows the JSON page shows (main thread and Workers), the JSON page never loads the Arrow
 * library, and every transport that carries Arrow delivers it end to end with 0 gaps through
 * `npm run sweep`'s entry point, each point read against its own encoding's ceiling and the
 * round's best JSON.parse ceiling.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageConfig, PageSnapshot } from '../../protocol/page-api.js';
import type { Report } from '../../protocol/report.js';
import { transportsCarrying, type Row } from '../../protocol/wire.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { openLabPage, type LabApi } from '../../puppeteer/measure/page.js';
import { startServer, type ServerHandle } from '../../puppeteer/measure/server-process.js';
import { RowPool } from '../../server/rows.js';
import { formatRow } from '../../web/lab/row-format.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = (api: LabApi, c: PageConfig) => api.evaluate((p, cfg) => p.start(cfg).then(() => undefined), c);
const snapshot = (api: LabApi) => api.evaluate((p) => p.snapshot()) as Promise<PageSnapshot>;
const stop = (api: LabApi) => api.evaluate((p) => p.stop());

const BATCH = 20;

/**
 * The table's lines for batch seq 0 as the JSON pool has its rows, newest first, in each of the
 * pool's speed epochs (the epoch depends on the second the batch was sent in).
 */
function expectedLines(): string[][] {
  // Built once: a RowPool takes about a second, and the three page tests below run at once.
  if (expected) return expected;
  const pool = new RowPool();
  return (expected = Array.from({ length: pool.epochs }, (_, e) => {
    pool.useEpochAt(e * 1000);
    const rows = JSON.parse(`[${pool.rows(0, BATCH).toString('latin1')}]`) as Row[];
    return rows.reverse().map(formatRow);
  }));
}
let expected: string[][] | undefined;

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

describe('every transport that carries Arrow, headless Chromium, through the sweep', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;
  const ARROW = transportsCarrying('arrow');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-arrow-'));
    // A 1 s window holds about 200 batches per connection: enough for the delivered ratios held at 0.5.
    const base = { batch: 200, warmupSec: 1, measureSec: 1, repeats: 1, concurrency: 2, intervalMs: 5, render: 'full' };
    // The JSON points give sizes and ceiling ratios, not a rate any bound reads: no warm-up and
    // the shortest window (about 1.5 s less a point). The Arrow points keep theirs.
    const short = { ...base, warmupSec: 0, measureSec: 0.5 };
    const file = {
      scenarios: [
        { id: 'arrow', description: 'Arrow over every transport that carries it', transport: [...ARROW], encoding: 'arrow', ...base },
        { id: 'json', description: 'JSON over the same transports, for its sizes', transport: [...ARROW], encoding: 'json', ...short },
        { id: 'workers', description: 'Arrow in 2 Workers', transport: ['ws', 'fetch'], encoding: 'arrow', parse: 'worker', workers: 2, ...base },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'arrow,json,workers', '--json', '--retries', '0', '--out', dir],
      240_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

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
