/**
 * Event age end to end (issue 33), through `npm run sweep`'s entry point in headless Chromium: at
 * a 50 ms tick a batch's oldest event waited ~50 ms before its batch was due, so event age p99 is
 * at least ~49.5 ms while transit (the server's write → the page's handler) stays far lower; a
 * push transport (ws) and poll keep one book (each event from its birth, protocol/age.ts), so
 * their event ages agree within what poll's own wait adds; and the drawing page reports display
 * age beside it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../protocol/report.js';
import type { Transport } from '../../protocol/wire.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const INTERVAL_MS = 50;
const BATCH = 200;
/** poll's request interval: short, so its wait (part of transit and of event age alike) stays small beside the tick. */
const POLL_MS = 10;

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
          warmupSec: 1,
          // 120 batches a window: p99 is not just the window's one slowest batch.
          measureSec: 6,
          repeats: 1,
        },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'age', '--json', '--retries', '0', '--out', dir],
      180_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 240_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const repeatOf = (t: Transport) => firstMeasured(report.points.find((p) => p.point.transport === t)!);
  /** The figures an assertion is about, in its message: on a shared host a tail can be anything. */
  const figures = (t: Transport) => {
    const r = repeatOf(t);
    return `${t}: event age ${JSON.stringify(r.latency)}, transit ${JSON.stringify(r.transit)}, display ${JSON.stringify(r.displayAge)}`;
  };

  it('measures both points, every batch delivered', () => {
    expect(code, stderr).toBe(0);
    for (const t of ['ws', 'poll'] as const) {
      const r = repeatOf(t);
      expect(r.page.gaps, t).toBe(0);
      expect(r.server.batchesShed, t).toBe(0);
      expect(r.deliveredRatio, t).toBeGreaterThan(0.9);
    }
  });

  it.each([['ws'], ['poll']] as const)('%s: event age p99 ≥ 49 ms (the wait to fill the batch) while transit p99 is far lower', (t) => {
    const r = repeatOf(t);
    const age = r.latency;
    const transit = r.transit!;
    expect(age.p99Ms, t).toBeGreaterThanOrEqual(49);
    // Events are born evenly over the tick: the median waited about half of it.
    expect(age.p50Ms!, t).toBeGreaterThanOrEqual(20);
    expect(transit.count, t).toBeGreaterThan(0);
    expect(transit.p99Ms!, figures(t)).toBeLessThan(age.p99Ms! / 2);
    // Event age holds transit: every batch's newest event is as old as its transit from the due time, or older.
    expect(age.p99Ms!, t).toBeGreaterThan(transit.p99Ms!);
    expect(transit.p999Ms!).toBeGreaterThanOrEqual(transit.p99Ms!);
    expect(transit.maxMs!).toBeGreaterThanOrEqual(transit.p999Ms!);
    // The table's p99 column is event age.
    const point = report.points.find((p) => p.point.transport === t)!;
    expect(point.summary!.latencyP99Ms!.median).toBe(age.p99Ms);
  });

  it('push and poll keep one book: their event ages agree within what poll’s own wait adds', () => {
    const [ws, poll] = [repeatOf('ws'), repeatOf('poll')];
    const both = `${figures('ws')}\n${figures('poll')}`;
    // poll holds a batch up to POLL_MS for the next request, on top of what ws's transit is.
    expect(Math.abs(poll.latency.p99Ms! - ws.latency.p99Ms!), both).toBeLessThanOrEqual(POLL_MS + 15);
    // What each adds to its own transit is the wait to fill its batch (about half a tick at the
    // median), whatever the transport: one birth for both, as one book says.
    const batching = (r: typeof ws) => r.latency.p50Ms! - r.transit!.p50Ms!;
    expect(Math.abs(batching(poll) - batching(ws)), both).toBeLessThanOrEqual(10);
    for (const r of [ws, poll]) expect(batching(r), both).toBeGreaterThan(INTERVAL_MS / 2 - 10);
  });

  it('reports display age beside event age: the newest event on screen at each draw', () => {
    for (const t of ['ws', 'poll'] as const) {
      const d = repeatOf(t).displayAge!;
      expect(d, t).not.toBeNull();
      expect(d.count, t).toBeGreaterThan(0);
      // The newest event shown is a batch's newest: never older than a tick, transit and a draw's wait, on a page that keeps up.
      expect(d.p50Ms!, t).toBeGreaterThanOrEqual(0);
      expect(d.p99Ms!, t).toBeLessThan(1000);
    }
  });
});
