/** The one sustains rule (results/sustains.ts): over repeats, with every criterion in words. */
import { describe, expect, it } from 'vitest';
import { medianInterval } from '../../results/stats.js';
import { pointSustains, sustains, SUSTAINS_DELIVERED_RATIO, type SustainsRepeat } from '../../results/sustains.js';
import { DEFAULT_INPUT_DELAY_BOUND_MS, sustainsRepeat } from '../../results/sustains.js';
import { KEPT_UP_RATIO } from '../../results/verdict.js';
import { failed, measured, point } from '../helpers/v2-fixture.js';

const target = { p99BoundMs: 50 };
const r = (deliveredRatio: number, p99Ms: number | null, o: Partial<{ shed: number; notOpen: number; cap: number | null }> = {}): SustainsRepeat => ({
  deliveredRatio,
  p99Ms,
  shed: o.shed ?? 0,
  notOpen: o.notOpen ?? 0,
  streams: 10,
  cap: o.cap ?? null,
});

describe('sustains over one window (a probe)', () => {
  it('passes a window that delivered, shed nothing and kept p99 under the bound', () => {
    expect(sustains([r(0.996, 12.3)], target)).toMatchObject({
      sustains: true,
      reasons: ['delivered 99.6%, nothing shed, p99 12 ms ≤ 50 ms', 'input delay not measured (not failed for it)'],
    });
  });
  it('names every criterion that failed', () => {
    expect(sustains([r(0.972, 84, { shed: 310 })], target).reasons).toEqual(['delivered 97.2% < 99%', 'shed 310 batches', 'p99 84 ms > 50 ms']);
  });
  it('never reads a failure as the bound itself', () => {
    expect(sustains([r(0.98996, 50.2)], target).reasons).toEqual(['delivered 98.9% < 99%', 'p99 50.2 ms > 50 ms']);
    expect(sustains([r(1, null, { shed: 1 })], target).reasons).toEqual(['shed 1 batch', 'no latency measured']);
  });
  it('a failed window says only that it failed', () => {
    expect(sustains([{ failed: 'renderer crashed' }], target)).toMatchObject({ sustains: false, reasons: ['failed: renderer crashed'] });
  });
});

describe('sustains over repeats', () => {
  it('judges the median repeat, not every window: one slow window among three does not fail a point that holds', () => {
    // As measured on the 2-core VM: one window's p99 moved from 31 to 54 ms at the same point.
    const s = sustains([r(1, 31), r(0.995, 54), r(1, 33)], target);
    expect(s.sustains).toBe(true);
    expect(s.figures.p99Ms).toEqual({ median: 33, low: 31, high: 54, confidence: 0.75 });
    expect(s.reasons).toEqual([
      'median delivered 100.0%, nothing shed, median p99 33 ms ≤ 50 ms (range 31–54 over 3 repeats)',
      'input delay not measured (not failed for it)',
    ]);
  });

  it('fails when the median repeat is over the bound, showing the interval of the median', () => {
    const s = sustains([r(1, 54), r(1, 204), r(1, 60)], target);
    expect(s.sustains).toBe(false);
    expect(s.reasons).toEqual(['median p99 60 ms > 50 ms (range 54–204 over 3 repeats)']);
  });

  it('calls the interval a CI once the order statistics reach 95% (6 repeats or more)', () => {
    const s = sustains(
      [10, 11, 12, 13, 14, 15, 16, 17, 18].map((p) => r(1, p)),
      target,
    );
    expect(s.reasons[0]).toContain('median p99 14 ms ≤ 50 ms (CI 11–17)');
  });

  it('fails on the median delivered ratio below 99%, not on one window below it', () => {
    expect(sustains([r(0.985, 10), r(0.995, 10), r(0.999, 10)], target).sustains).toBe(true);
    const s = sustains([r(0.985, 10), r(0.988, 10), r(0.999, 10)], target);
    expect(s.reasons).toEqual(['median delivered 98.8% < 99%']);
  });

  it('fails when any repeat shed: shedding is lost data, not window noise', () => {
    const s = sustains([r(1, 10), r(1, 10, { shed: 12 }), r(1, 10)], target);
    expect(s.sustains).toBe(false);
    expect(s.reasons).toEqual(['shed 12 batches in 1 of 3 repeats']);
    expect(s.figures).toMatchObject({ shedRepeats: 1, shedBatches: 12 });
  });

  it('fails when a connection never opened in any repeat, naming the per-host cap', () => {
    const s = sustains([r(1, 10), r(1, 10, { notOpen: 4, cap: 6 }), r(1, 10)], target);
    expect(s.reasons).toEqual(["4 of 10 connections never opened (stalled behind the browser's 6 per host) in 1 of 3 repeats"]);
  });

  it('fails on any failed repeat, and ranks failed repeats worst in the medians', () => {
    const one = sustains([r(1, 10), { failed: 'renderer crashed' }, r(1, 12)], target);
    expect(one.sustains).toBe(false);
    expect(one.reasons[0]).toBe('1 of 3 repeats failed (renderer crashed)');
    // The median repeat itself held: only the failure is named.
    expect(one.reasons).toHaveLength(1);
    expect(one.figures.p99Ms).toEqual({ median: 12, low: 10, high: null, confidence: 0.75 });
    const two = sustains([r(1, 10), { failed: 'timeout' }, { failed: 'timeout' }], target);
    expect(two.reasons).toEqual(['2 of 3 repeats failed (timeout)', 'median delivered 0.0% < 99%', 'no latency measured in the median repeat']);
    expect(two.figures.p99Ms).toBeNull();
    // JSON-able: nothing infinite survives into the figures.
    expect(JSON.parse(JSON.stringify(one.figures))).toEqual(one.figures);
  });

  it('reads report repeats: shed from the server, stalled connections from the wire, failures as failed', () => {
    const p = { ...point('sse-h1', 10, 10), transport: 'sse-h1' as const };
    const ok = measured(p, { round: 0, eps: p.offeredEventsPerSec, p99: 20 });
    const stalled = {
      ...measured(p, { round: 1, eps: p.offeredEventsPerSec * 0.6, p99: 20 }),
      wire: { http: { h1: 6, h2: 0 }, tcpConnections: 6, stalled: 4 },
    };
    const s = pointSustains(p, [ok, stalled, failed(2)], target);
    expect(s.sustains).toBe(false);
    expect(s.reasons).toContain("4 of 10 connections never opened (stalled behind the browser's 6 per host) in 1 of 3 repeats");
    expect(s.reasons).toContain('1 of 3 repeats failed (renderer crashed)');
  });

  it('is stricter than the verdicts\' "kept up": a point can be ok and not sustain its rate', () => {
    expect(KEPT_UP_RATIO).toBeLessThan(SUSTAINS_DELIVERED_RATIO);
    expect(sustains([r(0.98, 5), r(0.98, 5), r(0.98, 5)], target).sustains).toBe(false);
  });
});

describe('sustains: the page still answers (input delay)', () => {
  const withInput = (inputDelayP99Ms: number | null | undefined): SustainsRepeat => ({
    ...r(1, 20),
    ...(inputDelayP99Ms !== undefined ? { inputDelayP99Ms } : {}),
  });

  it('fails a point whose input delay p99 is over the bound (default 200 ms, the web\'s "good" INP)', () => {
    expect(DEFAULT_INPUT_DELAY_BOUND_MS).toBe(200);
    const s = sustains([withInput(240), withInput(310), withInput(180)], target);
    expect(s.sustains).toBe(false);
    expect(s.reasons).toEqual(['median input delay p99 240 ms > 200 ms: the page did not answer input in time']);
    expect(sustains([withInput(240)], target).reasons).toEqual(['input delay p99 240 ms > 200 ms: the page did not answer input in time']);
  });

  it('takes the bound it is given (--input-delay), and says the figure when it passes', () => {
    expect(sustains([withInput(240)], { ...target, inputDelayBoundMs: 300 })).toMatchObject({
      sustains: true,
      reasons: ['delivered 100.0%, nothing shed, p99 20 ms ≤ 50 ms', 'input delay p99 240 ms ≤ 300 ms'],
    });
    expect(sustains([withInput(12)], { ...target, inputDelayBoundMs: 10 }).reasons).toEqual([
      'input delay p99 12 ms > 10 ms: the page did not answer input in time',
    ]);
  });

  it('does not fail a repeat without the figure (an old report, a browser that took no input), and says so', () => {
    expect(sustains([withInput(undefined)], target)).toMatchObject({
      sustains: true,
      reasons: [expect.any(String), 'input delay not measured (not failed for it)'],
    });
    expect(sustains([withInput(null), withInput(null)], target).sustains).toBe(true);
    // Judged over the repeats that have it; the words count the others.
    const s = sustains([withInput(null), withInput(30), withInput(40)], target);
    expect(s.sustains).toBe(true);
    expect(s.reasons[1]).toBe('median input delay p99 35 ms (1 of 3 repeats without it, not failed for it) ≤ 200 ms');
  });

  it('fails a window whose page answered none of the input sent: unbounded, not "not measured"', () => {
    expect(sustains([withInput(Number.POSITIVE_INFINITY)], target).reasons).toEqual([
      'input delay p99 unbounded (input sent, none answered in the window) > 200 ms: the page did not answer input in time',
    ]);
  });

  it("reads report repeats: the window's input figures, none answered as unbounded, refused input as absent", () => {
    const p = point('ws', 10, 10);
    const base = measured(p, { round: 0, eps: p.offeredEventsPerSec, p99: 20 });
    const lat = (p99Ms: number | null) => ({ ...base.latency, count: p99Ms === null ? 0 : 10, p99Ms });
    const input = (handled: number, p99Ms: number | null, extra = {}) => ({
      ...base,
      input: { sent: 20, handled, delayMs: lat(p99Ms), nextFrameMs: lat(p99Ms), longFrames: null, ...extra },
    });
    expect(sustainsRepeat(p, base)).toMatchObject({ inputDelayP99Ms: null });
    expect(sustainsRepeat(p, input(20, 412))).toMatchObject({ inputDelayP99Ms: 412 });
    expect(sustainsRepeat(p, input(0, null))).toMatchObject({ inputDelayP99Ms: Number.POSITIVE_INFINITY });
    expect(sustainsRepeat(p, input(0, null, { unavailable: 'input could not be sent: refused' }))).toMatchObject({ inputDelayP99Ms: null });
    expect(pointSustains(p, [input(20, 412)], { ...target, inputDelayBoundMs: 200 }).sustains).toBe(false);
  });
});

describe('medianInterval', () => {
  it('is [min, max] with its own confidence below 6 values, order statistics at ≥ 95% above', () => {
    expect(medianInterval([3, 1, 2])).toEqual({ low: 1, high: 3, confidence: 0.75 });
    expect(medianInterval([1, 2, 3, 4, 5]).confidence).toBeCloseTo(0.9375, 10);
    // n = 20: x(6) and x(15), 95.86% (the textbook table's values).
    const twenty = medianInterval(Array.from({ length: 20 }, (_, i) => i + 1));
    expect([twenty.low, twenty.high]).toEqual([6, 15]);
    expect(twenty.confidence).toBeCloseTo(0.9586, 4);
  });
});
