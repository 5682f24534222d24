/**
 * Event age end to end (issue 33), through `npm run sweep`'s entry point in headless Chromium: at
 * a 50 ms tick a batch's oldest event waited ~50 ms before its batch was due, so event age p99 is
 * at least ~49.5 ms while transit (the server's write → the page's handler) stays far lower; a
 * push transport (ws) and poll keep one book (each event from its birth, protocol/age.ts), so
 * their event ages agree within what poll's own wait adds; and the drawing page reports display
 * age beside it. Tails are compared as a sweep states them, medians over 3 repeats: on a shared
 * 2-core host one window's p99 can be one stall.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { median } from '../../results/stats.js';
import type { Transport } from '../../protocol/wire.js';
import { runSweep } from '../helpers/sweep-process.js';

const INTERVAL_MS = 50;
const BATCH = 200;
/** poll's request interval: short, so its wait (part of transit and of event age alike) stays small beside the tick. */
const POLL_MS = 10;
const REPEATS = 3;

describe('event age at a 50 ms tick, ws and poll, Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-age-'));
    const file = {
      scenarios: [
        {
          id: 'age',
          description: 'event age against transit at a 50 ms tick',
          transport: ['ws', 'poll'],
          batch: BATCH,
          intervalMs: INTERVAL_MS,
          concurrency: 1,
          pollMs: POLL_MS,
          render: 'full',
          // Half a second (3 s less over the 6 repeats than 1 s): ten ticks for the page's first
          // frames, and the window opens only once the settle probes find the page caught up. A
          // stall in the window lengthens event age and transit alike, which the bounds allow for.
          warmupSec: 0.5,
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
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'age', '--json', '--retries', '0', '--out', dir],
      240_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const pointOf = (t: Transport) => report.points.find((p) => p.point.transport === t)!;
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
    // Each event's age is its transit plus its wait to fill the batch (uniform over the 50 ms
    // tick), so age lies above transit by that wait: half a tick at the median, and at least a
    // fifth of it at the p99 whatever the tails. A stall lengthens both alike: half of age's p99
    // (the bound this was) failed once in CI with transit p99 36.6 ms beside age p99 69.1 ms.
    expect(
      med(t, (r) => r.latency.p50Ms! - r.transit!.p50Ms!),
      figures(t),
    ).toBeGreaterThanOrEqual(INTERVAL_MS / 2 - 5);
    expect(
      med(t, (r) => r.transit!.p99Ms!),
      figures(t),
    ).toBeLessThanOrEqual(med(t, (r) => r.latency.p99Ms!) - INTERVAL_MS / 5);
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
