/**
 * End to end, with real parts (issue 33, "the page still answers"): `npm run sweep`'s entry point
 * with the real server and headless Chromium, on a swamped full-render page and an easy one.
 * While each window runs the driver sends real clicks and key presses through CDP Input.dispatch*
 * a few times a second; the page times each from its event timestamp to its handler.
 *
 * The swamped page is ws at 1,000 rows × 4 connections every 1 ms (4 M events/s offered), drawing
 * the table, on a low-tier device (issue 36: the whole browser slowed until its BenchmarkIndex
 * reads 264, pinned to one core). Chrome runs discrete input before other queued tasks, so input
 * waits for at most the frame in progress: on this fast machine a page busy with many small tasks
 * still answers within tens of ms (ws 2,000 × 4 every 1 ms: input delay p99 15 ms at 95% main-thread
 * busy), and even grpc-web at 10,000 × 10, whose large decoded chunks make long frames, read 77–142
 * ms, under the web's "good" INP. A low-tier phone's frames are several times longer: measured alone
 * here (2026-11-28), the swamped page read input delay p99 708 ms, with 11 long animation frames
 * (1.6 s of blocking) in a 4 s window. So this test judges both pages by the rule's own default
 * bound, DEFAULT_INPUT_DELAY_BOUND_MS (200 ms, INP's "good"), as advise and find-max do.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report } from '../../protocol/report.js';
import { DEFAULT_INPUT_DELAY_BOUND_MS, pointSustains } from '../../results/sustains.js';
import { runSweep } from '../helpers/sweep-process.js';

const SCENARIOS = {
  defaults: { render: 'full', warmupSec: 1, measureSec: 4, repeats: 2 },
  scenarios: [
    { id: 'swamped', transport: 'ws', batch: 1000, concurrency: 4, intervalMs: 1, device: 'low-tier' },
    { id: 'easy', transport: 'ws', batch: 10, concurrency: 1, intervalMs: 50 },
  ],
};

/** The input delay bound the two pages are judged against, ms: the rule's default. */
const BOUND_MS = DEFAULT_INPUT_DELAY_BOUND_MS;
const target = { p99BoundMs: 60_000 };

describe('input delay in headless Chromium: a swamped full-render page on a low-tier device and an easy one', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-input-'));
    const file = path.join(dir, 'scenarios.json');
    await writeFile(file, JSON.stringify(SCENARIOS));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--file', file, '--seed', '3', '--json', '--out', path.join(dir, 'out')], 270_000));
    report = JSON.parse(stdout) as Report;
  }, 280_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const point = (scenario: string): PointResult => report.points.find((p) => p.point.scenario === scenario)!;
  const measured = (p: PointResult) => p.repeats.filter((r): r is MeasuredRepeat => r.status === 'ok');
  /** The summary table's `input p99 ms` cell of a point's row. */
  const tableCell = (scenario: string): string => {
    const lines = stderr.slice(stderr.indexOf('Medians over the repeats')).split('\n');
    const header = lines
      .find((l) => l.startsWith('| point'))!
      .split('|')
      .map((c) => c.trim());
    const row = lines
      .find((l) => l.startsWith(`| ${scenario}/`))!
      .split('|')
      .map((c) => c.trim());
    return row[header.indexOf('input p99 ms')];
  };
  /** The cell's figure (`1,450`, `352 ±12 %`: the median before its CI). */
  const figure = (cell: string) => Number(/[\d,.]+/.exec(cell)![0].replace(/,/g, ''));

  it('runs to its end, the swamped page as a low-tier device calibrated once', () => {
    expect(code, stderr).toBe(0);
    expect(report.points).toHaveLength(2);
    for (const p of report.points) expect(measured(p).length, p.point.id).toBe(2);
    expect(point('swamped').point).toMatchObject({ device: 'low-tier' });
    expect(point('easy').point).not.toHaveProperty('device');
    expect(report.devices?.map((d) => [d.device, d.throttle])).toEqual([['low-tier', 'browser']]);
  });

  it('sends real input through every window and records what the page made of it', () => {
    for (const p of report.points) {
      for (const r of measured(p)) {
        const input = r.input!;
        expect(input, p.point.id).toBeDefined();
        // Every 250 ms over a 4 s window (which a swamped page stretches), one in flight at
        // most: fewer when the page answers late.
        expect(input.sent, p.point.id).toBeGreaterThanOrEqual(2);
        expect(input.sent).toBeLessThanOrEqual(Math.ceil((r.windowSec * 1000) / 250) + 1);
        expect(input.handled).toBeGreaterThanOrEqual(input.sent - 1);
        expect(input.delayMs.count).toBe(input.handled);
        expect(input.unavailable).toBeUndefined();
        // Chrome has long animation frames: a count, never null in its place.
        expect(input.longFrames).not.toBeNull();
        expect(input.longFramesUnavailable).toBeUndefined();
      }
    }
  });

  /** Each repeat's input figures, for a failure's message. */
  const inputs = (p: PointResult) => JSON.stringify(measured(p).map((r) => ({ delayMs: r.input!.delayMs, longFrames: r.input!.longFrames })));

  it(`the swamped page: input delay p99 over ${BOUND_MS} ms with long frames, in report.json and in the table, and it does not sustain for it`, () => {
    const p = point('swamped');
    const delay = p.summary!.inputDelayP99Ms!;
    expect(delay.median, inputs(p)).toBeGreaterThan(BOUND_MS);
    for (const r of measured(p)) expect(r.input!.longFrames!.count).toBeGreaterThan(0);
    expect(figure(tableCell('swamped'))).toBeGreaterThan(BOUND_MS);
    const judged = pointSustains(p.point, p.repeats, target);
    expect(judged.reasons.join('; ')).toMatch(new RegExp(`input delay p99 \\d+ ms > ${BOUND_MS} ms: the page did not answer input in time`));
  });

  it(`the easy page: input delay p99 under ${BOUND_MS} ms, in report.json and in the table, and no failure for it`, () => {
    const p = point('easy');
    expect(p.summary!.inputDelayP99Ms!.median, inputs(p)).toBeLessThan(BOUND_MS);
    expect(figure(tableCell('easy'))).toBeLessThan(BOUND_MS);
    const judged = pointSustains(p.point, p.repeats, target);
    expect(judged.reasons.join('; ')).not.toMatch(/did not answer input/);
  });

  it('the easy page answers input several times sooner than the swamped one', () => {
    const easy = point('easy').summary!.inputDelayP99Ms!.median;
    const swamped = point('swamped').summary!.inputDelayP99Ms!.median;
    expect(swamped / easy, `${inputs(point('easy'))} ${inputs(point('swamped'))}`).toBeGreaterThan(3);
  });
});
