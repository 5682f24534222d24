import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchAgeRangeUs, birthMs } from '../../protocol/age.js';
import { bucketOf, bucketRange, Histogram, HISTOGRAM_BUCKETS, tailSummary } from '../../protocol/histogram.js';
import { parseFlags } from '../../protocol/flags.js';
import { targetText } from '../../protocol/target.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { shiftTail } from '../../puppeteer/measure/clock-offset.js';
import { batchingFloorMs } from '../../puppeteer/measure/settle.js';
import { sustainsMore } from '../../results/advice-figures.js';
import { sustains, type SustainsRepeat } from '../../results/sustains.js';
import { summarisePoint } from '../../results/point-summary.js';
import type { Report } from '../../protocol/report.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';

/** The histogram of recording each value of recordSpread's definition one at a time. */
function oneByOne(lowUs: number, highUs: number, count: number): Histogram {
  const h = new Histogram();
  for (let k = 0; k < count; k++) h.record(count === 1 ? lowUs : k === count - 1 ? highUs : lowUs + (k * (highUs - lowUs)) / (count - 1));
  return h;
}

function spread(lowUs: number, highUs: number, count: number): Histogram {
  const h = new Histogram();
  h.recordSpread(lowUs, highUs, count);
  return h;
}

/** The non-empty buckets as [bucket, count] pairs. */
const filled = (h: Histogram) => [...h.counts.entries()].filter(([, n]) => n > 0);

describe('birth and event age (protocol/age.ts)', () => {
  it('spreads a batch’s births evenly over the interval before it was due, the newest at the due time', () => {
    // 4 rows due at 1000 ms, every 50 ms: born at 962.5, 975, 987.5, 1000.
    expect([0, 1, 2, 3].map((k) => birthMs(1000, 50, 4, k))).toEqual([962.5, 975, 987.5, 1000]);
    // One row per batch is born when its batch falls due.
    expect(birthMs(1000, 50, 1, 0)).toBe(1000);
  });

  it('gives the batch’s ages from its newest (transit from the due time) to its oldest', () => {
    // Due at 1000, handled at 1004: the newest is 4 ms old, the oldest of 5000 rows 4 + 49.99.
    const r = batchAgeRangeUs(1004, 1000, 50, 5000);
    expect(r.lowUs).toBeCloseTo(4000, 6);
    expect(r.highUs).toBeCloseTo(53_990, 6);
    // Each age is the handler time minus a birth.
    const rows = 5;
    const ages = [0, 1, 2, 3, 4].map((k) => (1004 - birthMs(1000, 50, rows, k)) * 1000);
    const range = batchAgeRangeUs(1004, 1000, 50, rows);
    expect(Math.max(...ages)).toBeCloseTo(range.highUs, 6);
    expect(Math.min(...ages)).toBeCloseTo(range.lowUs, 6);
    // A write the server made late ages every row by its lateness: the due time stays.
    expect(batchAgeRangeUs(1010, 1000, 50, 1)).toEqual({ lowUs: 10_000, highUs: 10_000 });
  });

  it('makes the worked example of docs/method.md: 5000 rows every 50 ms, p99 ≈ 49.5 ms + transit', () => {
    const h = new Histogram();
    for (let batch = 0; batch < 40; batch++) {
      const due = batch * 50;
      const { lowUs, highUs } = batchAgeRangeUs(due + 4, due, 50, 5000);
      h.recordSpread(lowUs, highUs, 5000);
    }
    expect(h.count).toBe(200_000);
    const p99 = h.quantile(0.99) / 1000;
    // 4 + 0.99 × 49.99 = 53.49; the histogram is within 1.6%.
    expect(p99).toBeGreaterThan(53.49 * 0.984);
    expect(p99).toBeLessThan(53.49 * 1.016);
    expect(h.quantile(0.5) / 1000).toBeCloseTo(29, 0);
  });
});

describe('Histogram.recordSpread', () => {
  it('puts one value, or a range of no width, in its one bucket', () => {
    expect(filled(spread(300, 300, 1))).toEqual([[bucketOf(300), 1]]);
    expect(filled(spread(300, 300, 7))).toEqual([[bucketOf(300), 7]]);
    expect(filled(spread(5000, 9000, 1))).toEqual([[bucketOf(5000), 1]]);
  });

  it('spreads over the exact buckets below 128 µs: 0…99 in 100 values is one per bucket', () => {
    const h = spread(0, 99, 100);
    expect(filled(h)).toEqual(Array.from({ length: 100 }, (_, v) => [v, 1]));
    expect(h.count).toBe(100);
    expect(h.min).toBe(0);
    expect(h.max).toBe(99);
    expect(h.sum).toBe(4950);
  });

  it('counts exactly what recording each value would, by buckets or by values', () => {
    // Hand-computed: 0, 50, 100, 150, 200 µs → buckets 0, 50, 100, 128 + (150 − 128) / 2 = 139, 128 + 36 = 164.
    expect(filled(spread(0, 200, 5))).toEqual([
      [0, 1],
      [50, 1],
      [100, 1],
      [139, 1],
      [164, 1],
    ]);
    // Many more values than buckets (the bucket path) and fewer (the value path).
    const cases: [number, number, number][] = [
      [4000, 53_990, 5000],
      [0, 49_990, 100_000],
      [1234.5, 1300.25, 977],
      [127, 129, 1000],
      [10, 2_000_000, 3],
      [900, 40_000, 20],
      [4321.7, 98_765.4, 12_345],
    ];
    for (const [lo, hi, n] of cases) {
      const a = spread(lo, hi, n);
      const b = oneByOne(lo, hi, n);
      expect(filled(a), `${lo}…${hi} × ${n}`).toEqual(filled(b));
      expect(a.count).toBe(n);
      expect(a.min).toBe(b.min);
      expect(a.max).toBe(b.max);
      expect(a.sum).toBeCloseTo(b.sum, 0);
    }
  });

  it('costs the buckets the range spans, not its rows', () => {
    // 10 million values over 0…50 ms: well under a millisecond's work, as a loop per row would not be.
    const h = new Histogram();
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) h.recordSpread(0, 50_000, 10_000_000);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(h.count).toBe(1e9);
    // Uniform over 0…50 ms: the quantiles are where they should be, within the histogram's 1.6%.
    expect(h.quantile(0.5) / 25_000).toBeGreaterThan(0.984);
    expect(h.quantile(0.5) / 25_000).toBeLessThan(1.016);
    expect(h.quantile(0.99) / 49_500).toBeGreaterThan(0.984);
    expect(h.quantile(0.99) / 49_500).toBeLessThan(1.016);
  });

  it('takes negative ages as 0, a range given backwards as its low end, and nothing for no values', () => {
    expect(filled(spread(-50, -10, 4))).toEqual([[0, 4]]);
    expect(filled(spread(500, 100, 3))).toEqual([[bucketOf(500), 3]]);
    const h = spread(100, 200, 0);
    expect(h.count).toBe(0);
    expect(filled(h)).toEqual([]);
  });

  it('keeps every count inside the histogram, up to the clamp at the top', () => {
    const h = spread(2 ** 30, 2 ** 32, 1000);
    expect(h.counts.reduce((a, x) => a + x, 0)).toBe(1000);
    expect(h.counts[HISTOGRAM_BUCKETS - 1]).toBeGreaterThan(0);
    expect(bucketRange(HISTOGRAM_BUCKETS - 1).low).toBeLessThan(2 ** 31);
  });
});

describe('tailSummary', () => {
  it('gives p50, p99, p99.9 and the maximum in ms, or nulls when empty', () => {
    expect(tailSummary(new Histogram())).toEqual({ count: 0, p50Ms: null, p99Ms: null, p999Ms: null, maxMs: null });
    const h = spread(0, 99, 1000);
    const t = tailSummary(h);
    expect(t.count).toBe(1000);
    expect(t.maxMs).toBe(0.099);
    expect(t.p999Ms).toBe(0.098);
    expect(t.p99Ms).toBe(0.098);
    expect(t.p50Ms).toBe(0.049);
  });
});

describe('display age in the sustains rule (--p99-display)', () => {
  const repeat = (displayP99Ms: number | null | undefined): SustainsRepeat => ({
    deliveredRatio: 1,
    shed: 0,
    p99Ms: 60,
    notOpen: 0,
    streams: 1,
    cap: null,
    ...(displayP99Ms === undefined ? {} : { displayP99Ms }),
  });

  it('reads nothing of display age without a bound', () => {
    expect(sustains([repeat(900), repeat(900), repeat(900)], { p99BoundMs: 100 }).sustains).toBe(true);
  });

  it('fails when the median repeat’s display age p99 is over the bound, and holds at it', () => {
    const over = sustains([repeat(90), repeat(260), repeat(250)], { p99BoundMs: 100, displayBoundMs: 200 });
    expect(over.sustains).toBe(false);
    expect(over.reasons).toContain('median display age p99 250 ms > 200 ms');
    expect(sustains([repeat(90), repeat(200), repeat(250)], { p99BoundMs: 100, displayBoundMs: 200 }).sustains).toBe(true);
  });

  it('fails a bound on display age when nothing drew', () => {
    const none = sustains([repeat(null)], { p99BoundMs: 100, displayBoundMs: 200 });
    expect(none.sustains).toBe(false);
    expect(none.reasons).toContain('no display age measured (nothing drew)');
  });

  it('advise --p99-display is parsed as --p99 is, refused with words, and not with render none', () => {
    const check = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '10k', '--p99', '100ms', ...argv], 'x'));
    expect(check().target).not.toHaveProperty('displayP99BoundMs');
    expect(check('--p99-display', '0.25s').target).toMatchObject({ displayP99BoundMs: 250 });
    expect(check('--p99-display', '250').target!.displayP99BoundMs).toBe(250);
    expect(() => check('--p99-display', 'soon')).toThrow(/--p99-display is not a latency; .*got 'soon'/);
    expect(() => check('--p99-display', '0.5ms')).toThrow(/--p99-display must be at least 1 ms/);
    expect(() => check('--p99-display', '200ms', '--render', 'none')).toThrow(/--render none draws nothing.*got '200ms' with --render none/);
    expect(targetText({ eventsPerSec: 1e5, p99BoundMs: 100, render: 'full', displayP99BoundMs: 250 })).toBe(
      '100 k events/s with p99 ≤ 100 ms, display age p99 ≤ 250 ms (render full)',
    );
    // The advisor's figures hand the bound to the rule.
    expect(sustainsMore({ displayP99BoundMs: 250 })).toEqual({ displayBoundMs: 250 });
    expect(sustainsMore({})).toEqual({});
  });
});

describe('settle: event age with no backlog', () => {
  it('allows the median event’s wait to fill its batch', () => {
    expect(batchingFloorMs(50, 1)).toBe(0);
    expect(batchingFloorMs(50, 5000)).toBeCloseTo(24.995, 9);
    expect(batchingFloorMs(10, 2)).toBe(2.5);
  });
});

describe('the page’s clock offset comes off transit and display age too', () => {
  it('shifts every figure of a tail; a figure not measured stays null', () => {
    const t = { count: 10, p50Ms: 5, p99Ms: 9, p999Ms: 9.5, maxMs: 10 };
    expect(shiftTail(t, 2)).toEqual({ count: 10, p50Ms: 3, p99Ms: 7, p999Ms: 7.5, maxMs: 8 });
    expect(shiftTail({ count: 0, p50Ms: null, p99Ms: null, p999Ms: null, maxMs: null }, 2).p99Ms).toBeNull();
  });
});

describe('a point’s summary of transit and display age', () => {
  const v2 = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'report-v2.json'), 'utf8')) as Report;
  const p = v2.points.find((x) => x.repeats.some((r) => r.status === 'ok'))!;
  const base = p.repeats.find((r): r is MeasuredRepeat => r.status === 'ok')!;
  const tail = (p99Ms: number) => ({ count: 100, p50Ms: p99Ms / 2, p99Ms, p999Ms: p99Ms, maxMs: p99Ms });

  it('gives transit and display age over the repeats that have them, and nothing for reports before them', () => {
    expect(summarisePoint(p.point, [base]).summary).not.toHaveProperty('transitP99Ms');
    expect(summarisePoint(p.point, [base]).summary).not.toHaveProperty('displayAgeP99Ms');
    const s = summarisePoint(p.point, [
      { ...base, transit: tail(4), displayAge: tail(60) },
      { ...base, round: 1, transit: tail(6), displayAge: tail(80) },
    ]).summary!;
    expect(s.transitP99Ms!.median).toBe(5);
    expect(s.displayAgeP99Ms!.median).toBe(70);
    expect(s.displayAgeP50Ms!.median).toBe(35);
  });

  it('says nothing drew (null) in render mode none, never 0', () => {
    const s = summarisePoint(p.point, [{ ...base, transit: tail(4), displayAge: null }]).summary!;
    expect(s.displayAgeP99Ms).toBeNull();
  });
});
