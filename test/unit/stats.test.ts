/**
 * The statistics against values computed independently (scipy 1.17: `scipy.stats.t.ppf`,
 * `scipy.stats.ttest_1samp(...).confidence_interval()`), and the intervals' coverage checked
 * the way google/tachometer does (its PR #16): draw from a distribution whose mean we chose,
 * build many intervals, and count how often they contain it.
 */
import { describe as group, expect, it } from 'vitest';
import { mulberry32 } from '../../protocol/random.js';
import { describe, median, pairedRatio, relativeHalfWidth, tQuantile975 } from '../../results/stats.js';

/** A standard normal draw (Box–Muller) from a seeded uniform source. */
function normal(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

group('median', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
  it('refuses an empty list', () => {
    expect(() => median([])).toThrow(/no values/);
  });
});

group('tQuantile975', () => {
  it.each([
    // Textbook table values (e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2), 3 decimals.
    [1, 12.706],
    [2, 4.303],
    [4, 2.776],
    [9, 2.262],
    [29, 2.045],
  ])('df %i → %f', (df, t) => {
    expect(tQuantile975(df)).toBeCloseTo(t, 3);
  });
  it.each([
    // scipy.stats.t.ppf(0.975, df), full precision.
    [3, 3.1824463052837078],
    [10, 2.228138851986274],
    [194, 1.9722675325821355],
    [1000, 1.9623390808264083],
  ])('df %i matches scipy to 1e-9', (df, t) => {
    expect(Math.abs(tQuantile975(df) - t)).toBeLessThan(1e-9);
  });
  it('tends to the normal 1.960 as df grows', () => {
    expect(tQuantile975(Infinity)).toBeCloseTo(1.959964, 6);
    expect(tQuantile975(1e6)).toBeCloseTo(1.959966, 5);
  });
  it('refuses df below 1', () => {
    expect(() => tQuantile975(0)).toThrow(/≥ 1, got 0/);
  });
});

group('describe', () => {
  // Student (1908), "The probable error of a mean", Biometrika 6(1): extra hours of sleep with
  // drug 2 over drug 1 in ten patients (Cushny & Peebles). The classic paired t example; R's
  // `t.test(extra ~ group, data = sleep, paired = TRUE)` prints the same interval (with the sign
  // flipped, group 1 − group 2): mean 1.58, 95% CI 0.7001142–2.4598858.
  const differences = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4];

  it("reproduces Student's sleep-data interval", () => {
    const s = describe(differences);
    expect(s.n).toBe(10);
    expect(s.mean).toBeCloseTo(1.58, 12);
    expect(s.median).toBe(1.3);
    expect(s.min).toBe(0);
    expect(s.max).toBe(4.6);
    expect(s.sd).toBeCloseTo(1.229995483279873, 12);
    expect(s.ciLow).toBeCloseTo(0.7001142367230174, 9);
    expect(s.ciHigh).toBeCloseTo(2.4598857632769824, 9);
  });

  it('gives no interval for one value, and sd 0', () => {
    expect(describe([5])).toEqual({ n: 1, median: 5, mean: 5, min: 5, max: 5, sd: 0, ciLow: null, ciHigh: null });
  });

  it('refuses non-finite values, naming the index', () => {
    expect(() => describe([1, Number.NaN])).toThrow(/values\[1\] must be a finite number, got NaN/);
    expect(() => describe([])).toThrow(/at least one/);
  });

  it.each([3, 10])('covers the true mean about 95%% of the time with n = %i', (n) => {
    const draw = normal(mulberry32(12345 + n));
    const trueMean = 500_000;
    const sd = 80_000;
    const trials = 2000;
    let covered = 0;
    for (let t = 0; t < trials; t++) {
      const s = describe(Array.from({ length: n }, () => trueMean + sd * draw()));
      if (s.ciLow! <= trueMean && trueMean <= s.ciHigh!) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.93);
    expect(covered / trials).toBeLessThan(0.97);
  });
});

group('pairedRatio', () => {
  it('matches an interval computed with scipy on the log ratios', () => {
    // python3: l = log(b / a); exp(l.mean() ± t.ppf(0.975, 3) × l.std(ddof=1) / 2)
    const a = [519e3, 619e3, 773e3, 650e3];
    const b = [600e3, 700e3, 905e3, 770e3];
    const r = pairedRatio(a, b);
    expect(r.ratios.map((x) => +x.toFixed(6))).toEqual([1.156069, 1.130856, 1.170763, 1.184615]);
    expect(r.ratio).toBeCloseTo(1.1604045802294405, 12);
    expect(r.ciLow).toBeCloseTo(1.1242855242279282, 12);
    expect(r.ciHigh).toBeCloseTo(1.197684005352788, 12);
  });

  it('is reciprocal when the sides swap', () => {
    const a = [10, 12, 9];
    const b = [13, 12, 14];
    const ab = pairedRatio(a, b);
    const ba = pairedRatio(b, a);
    expect(ba.ratio).toBeCloseTo(1 / ab.ratio, 12);
    expect(ba.ciLow).toBeCloseTo(1 / ab.ciHigh!, 12);
    expect(ba.ciHigh).toBeCloseTo(1 / ab.ciLow!, 12);
  });

  it('gives the ratio without an interval for one pair', () => {
    expect(pairedRatio([4], [5])).toEqual({ ratio: 1.25, ciLow: null, ciHigh: null, ratios: [1.25] });
  });

  it('refuses unequal lengths and values ≤ 0', () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(/equal lengths, got 2 and 1/);
    expect(() => pairedRatio([1, 0], [1, 1])).toThrow(/must be > 0, got a\[1\] = 0/);
  });

  it('covers the true ratio about 95% of the time when the machine drifts between rounds', () => {
    // Each round the whole machine runs at a different speed (the drift pairing cancels), and
    // each side adds its own noise; the true B ÷ A is 1.23.
    const draw = normal(mulberry32(2024));
    const trueRatio = 1.23;
    const trials = 2000;
    let covered = 0;
    for (let t = 0; t < trials; t++) {
      const a: number[] = [];
      const b: number[] = [];
      for (let round = 0; round < 3; round++) {
        const machine = Math.exp(0.3 * draw());
        a.push(500_000 * machine * Math.exp(0.08 * draw()));
        b.push(500_000 * trueRatio * machine * Math.exp(0.08 * draw()));
      }
      const r = pairedRatio(a, b);
      if (r.ciLow! <= trueRatio && trueRatio <= r.ciHigh!) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.93);
    expect(covered / trials).toBeLessThan(0.97);
  });
});

group('relativeHalfWidth', () => {
  it('is the CI half-width over the median', () => {
    expect(relativeHalfWidth({ n: 3, median: 100, mean: 100, min: 90, max: 110, sd: 10, ciLow: 94, ciHigh: 106 })).toBeCloseTo(0.06, 12);
  });
  it('is null without an interval or with a zero median', () => {
    expect(relativeHalfWidth(describe([3]))).toBeNull();
    expect(relativeHalfWidth({ n: 2, median: 0, mean: 0, min: -1, max: 1, sd: 1.4, ciLow: -12, ciHigh: 12 })).toBeNull();
  });
});
