/**
 * The tabs, display and compression factors end to end in Chromium, through `npm run sweep`'s
 * entry point: several tabs of one browser measured in one window, each tab's figures exact and
 * summing to the point's; a headful Chrome (under an Xvfb the sweep starts when there is no
 * DISPLAY) beside the headless one, each repeat recording which; and every compressible
 * transport compressed for real, as the server counted it, with the page still getting every batch.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PointResult, Report } from '../../protocol/report.js';
import { compressionOf, TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const TABS = 2;
const CONCURRENCY = 2;
const COMPRESSIBLE = TRANSPORTS.filter((t) => compressionOf(t) !== null);

describe('tabs, display and compression, smoke load, Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-factors-'));
    const base = { batch: 20, warmupSec: 1, measureSec: 2, repeats: 1 };
    const file = {
      scenarios: [
        { id: 'tabs', description: 'two tabs at once', transport: ['sse', 'ws'], concurrency: CONCURRENCY, tabs: TABS, ...base },
        { id: 'display', description: 'headless vs headful', transport: 'sse', concurrency: CONCURRENCY, display: ['headless', 'headful'], ...base },
        {
          id: 'compressed',
          description: 'every compressible transport, compressed',
          transport: [...COMPRESSIBLE],
          concurrency: 4,
          compression: ['deflate', 'gzip'],
          ...base,
        },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'tabs,display,compressed', '--json', '--retries', '0', '--out', dir],
      240_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const measured = firstMeasured;
  const pointOf = (scenario: string, transport: Transport, extra: (p: PointResult) => boolean = () => true) =>
    report.points.find((p) => p.point.scenario === scenario && p.point.transport === transport && extra(p))!;

  it('measures every point', () => {
    expect(code, stderr).toBe(0);
    expect(report.points.map((p) => p.point.id)).toEqual([
      `tabs/sse-b20-c${CONCURRENCY}-i1-full-t${TABS}`,
      `tabs/ws-b20-c${CONCURRENCY}-i1-full-t${TABS}`,
      `display/sse-b20-c${CONCURRENCY}-i1-full`,
      `display/sse-b20-c${CONCURRENCY}-i1-full-hf`,
      ...COMPRESSIBLE.map((t) => `compressed/${t}-b20-c4-i1-full-${compressionOf(t)}`),
    ]);
  });

  it.each([['sse'], ['ws']] as const)('%s in 2 tabs: each tab measured in the same window, the totals exactly their sums, 0 gaps', (t) => {
    const p = pointOf('tabs', t);
    const r = measured(p);
    expect(p.point.offeredEventsPerSec).toBe(TABS * CONCURRENCY * 20 * 1000);
    const tabs = r.tabs!;
    expect(tabs).toHaveLength(TABS);
    // Each tab tags its own streams: distinct tags, and each finds exactly its own in /stats.
    expect(new Set(tabs.map((x) => x.client)).size).toBe(TABS);
    const http = TRANSPORT_INFO[t].http;
    for (const tab of tabs) {
      expect(tab.wire!.http, p.point.id).toEqual({ h1: http === 'h1' ? CONCURRENCY : 0, h2: http === 'h2' ? CONCURRENCY : 0 });
      expect(tab.page.gaps, p.point.id).toBe(0);
      expect(tab.page.events, p.point.id).toBeGreaterThan(0);
      expect(tab.cpu.tabProcess, p.point.id).toBeGreaterThan(0);
    }
    expect(r.wire!.http[http]).toBe(TABS * CONCURRENCY);
    expect(r.page.events).toBe(tabs.reduce((a, x) => a + x.page.events, 0));
    expect(r.page.batches).toBe(tabs.reduce((a, x) => a + x.page.batches, 0));
    expect(r.page.gaps).toBe(0);
    expect(r.server.batchesShed).toBe(0);
    // Rates are rounded per tab and in total: at most half an event per tab apart.
    expect(Math.abs(r.eventsPerSec - tabs.reduce((a, x) => a + x.eventsPerSec, 0))).toBeLessThanOrEqual(TABS);
    expect(r.perTabEventsPerSec!.min).toBe(Math.min(...tabs.map((x) => x.eventsPerSec)));
    expect(r.perTabEventsPerSec!.max).toBe(Math.max(...tabs.map((x) => x.eventsPerSec)));
    expect(r.cpu.tabProcess).toBeCloseTo(
      tabs.reduce((a, x) => a + x.cpu.tabProcess!, 0),
      0,
    );
    expect(r.cpu.tabMainThread).toBe(Math.max(...tabs.map((x) => x.cpu.tabMainThread!)));
    // A timing figure from a short window on a shared 2-core host: held loosely.
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(p.summary!.tabEventsPerSecMin!.n).toBe(1);
  });

  it('headful beside headless: both delivered in full, each repeat naming its browser', () => {
    const headless = measured(pointOf('display', 'sse', (p) => p.point.display === 'headless'));
    const headful = measured(pointOf('display', 'sse', (p) => p.point.display === 'headful'));
    expect(headless.browser).toMatchObject({ headless: true, display: null, xvfb: false });
    expect(headful.browser).toMatchObject({ headless: false, xvfb: !process.env.DISPLAY });
    expect(headful.browser!.display).toMatch(/^:\d+/);
    expect(headful.browser!.version).toMatch(/Chrom/);
    for (const r of [headless, headful]) {
      expect(r.page.gaps).toBe(0);
      expect(r.page.errors).toBe(0);
      expect(r.eventsPerSec / (CONCURRENCY * 20_000)).toBeGreaterThan(0.5);
    }
    // The report's environment is the sweep's own (headless) browser.
    expect(report.environment.headless).toBe(true);
  });

  it.each(COMPRESSIBLE.map((t) => [t]))('%s compressed: negotiated on every stream, fewer bytes on the wire than the page decoded, 0 gaps', (t) => {
    const p = pointOf('compressed', t);
    const r = measured(p);
    const c = r.compression!;
    expect(p.point.compression).toBe(compressionOf(t));
    expect(c.kind).toBe(compressionOf(t));
    expect(c.streams, p.point.id).toBe(4);
    expect(c.compressedStreams, p.point.id).toBe(4);
    expect(c.ratio!, p.point.id).toBeLessThan(0.5);
    expect(c.outputBytes).toBeLessThan(c.inputBytes);
    // The page counts what it decoded; the server what it wrote: compressed, well below it.
    expect(c.wireBytes, p.point.id).toBeLessThan(0.6 * r.page.bytes);
    expect(r.page.gaps, p.point.id).toBe(0);
    expect(r.page.errors, p.point.id).toBe(0);
    expect(r.server.batchesShed, p.point.id).toBe(0);
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(r.notes.join('\n')).not.toMatch(/compression .* was asked for/);
  });
});
