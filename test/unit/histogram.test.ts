import { describe, expect, it } from 'vitest';
import { HISTOGRAM_BUCKETS, Histogram, bucketOf, bucketRange } from '../../protocol/histogram.js';

/** The largest value the histogram distinguishes; larger ones are clamped into its bucket. */
const MAX_VALUE = 2 ** 31 - 1;
const LAST_BUCKET = bucketOf(MAX_VALUE);

function filled(values: Iterable<number>): Histogram {
  const h = new Histogram();
  for (const v of values) h.record(v);
  return h;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe('bucketOf / bucketRange', () => {
  it('keeps values below 128 µs exact, one bucket each', () => {
    for (let v = 0; v < 128; v++) {
      expect(bucketOf(v)).toBe(v);
      expect(bucketRange(v)).toEqual({ low: v, width: 1 });
    }
    expect(bucketOf(127.9)).toBe(127);
  });

  it('starts the log-linear part at 128 with 64 sub-buckets per power of two', () => {
    expect(bucketOf(128)).toBe(128);
    expect(bucketRange(128)).toEqual({ low: 128, width: 2 });
    expect(bucketOf(129)).toBe(128);
    expect(bucketOf(255)).toBe(191);
    expect(bucketOf(256)).toBe(192);
    expect(bucketRange(192)).toEqual({ low: 256, width: 4 });
    expect(bucketOf(5000)).toBe(462);
    expect(bucketRange(462)).toEqual({ low: 4992, width: 64 });
  });

  it('has contiguous, increasing bucket boundaries up to the last reachable bucket', () => {
    const broken: number[] = [];
    for (let b = 1; b <= LAST_BUCKET; b++) {
      const prev = bucketRange(b - 1);
      const cur = bucketRange(b);
      if (cur.low !== prev.low + prev.width || cur.width < prev.width) broken.push(b);
    }
    expect(broken).toEqual([]);
    expect(LAST_BUCKET).toBeLessThan(HISTOGRAM_BUCKETS);
    const last = bucketRange(LAST_BUCKET);
    expect(last.low + last.width).toBe(2 ** 31);
  });

  it('maps every value into the bucket whose range contains it, within 1/64 above 128 µs', () => {
    const values = [128, 129, 130, 191, 255, 256, 1000, 4095, 4096, 65_535, 1e6, 123_456_789, MAX_VALUE - 1];
    for (let v = 128; v < 70_000; v += 7) values.push(v);
    const outside = values.filter((v) => {
      const { low, width } = bucketRange(bucketOf(v));
      return !(low <= v && v < low + width && width / v <= 1 / 64);
    });
    expect(outside).toEqual([]);
  });

  it('is monotonic in the value', () => {
    const decreasing: number[] = [];
    for (let v = 1; v < 200_000; v++) if (bucketOf(v) < bucketOf(v - 1)) decreasing.push(v);
    expect(decreasing).toEqual([]);
  });

  it('clamps negative, NaN and huge values into the first and last buckets', () => {
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(Number.NaN)).toBe(0);
    expect(bucketOf(MAX_VALUE)).toBe(LAST_BUCKET);
    expect(bucketOf(1e12)).toBe(LAST_BUCKET);
    expect(bucketOf(Infinity)).toBe(LAST_BUCKET);
  });
});

describe('Histogram', () => {
  it('returns the midpoint of the bucket at the quantile: 1..10000 µs uniform', () => {
    const h = filled(range(1, 10_000));
    // Rank 5000 lands in [4992, 5056) and rank 9900 in [9856, 9984): midpoints 5024 and 9920.
    expect(h.quantile(0.5)).toBe(5024);
    expect(h.quantile(0.99)).toBe(9920);
    expect(Math.abs(h.quantile(0.5) - 5000) / 5000).toBeLessThanOrEqual(0.02);
    expect(Math.abs(h.quantile(0.99) - 9900) / 9900).toBeLessThanOrEqual(0.02);
  });

  it('is exact below 128 µs', () => {
    const h = filled(range(1, 100));
    expect(h.quantile(0.5)).toBe(50);
    expect(h.quantile(0.25)).toBe(25);
    expect(h.quantile(0.99)).toBe(99);
    expect(h.quantile(1)).toBe(100);
  });

  it('clamps quantiles to the recorded min and max', () => {
    const h = filled([1000.5, 1000.5, 1000.5]);
    expect(h.quantile(0)).toBe(1000.5);
    expect(h.quantile(0.5)).toBe(1000.5);
    expect(h.quantile(1)).toBe(1000.5);
    const spread = filled([10, 200_000]);
    expect(spread.quantile(0)).toBe(10);
    // The top value's bucket is [198656, 200704): its midpoint is below max, so no clamping.
    expect(spread.quantile(1)).toBe(199_680);
  });

  it('keeps count, sum, min and max, and records negatives as 0', () => {
    const h = filled([5, -3, 12.5]);
    expect(h.count).toBe(3);
    expect(h.sum).toBe(17.5);
    expect(h.min).toBe(0);
    expect(h.max).toBe(12.5);
    expect(h.counts[0]).toBe(1);
  });

  it('summarises in ms, rounded to the µs', () => {
    const h = filled(range(1, 10_000));
    expect(h.summary()).toEqual({
      count: 10_000,
      minMs: 0.001,
      p25Ms: 2.512,
      p50Ms: 5.024,
      p75Ms: 7.52,
      p95Ms: 9.536,
      p99Ms: 9.92,
      maxMs: 10,
      meanMs: 5.001,
      p999Ms: 10,
    });
  });

  it('summarises an empty histogram as nulls', () => {
    const h = new Histogram();
    expect(h.quantile(0.5)).toBeNaN();
    expect(h.summary()).toEqual({
      count: 0,
      minMs: null,
      p25Ms: null,
      p50Ms: null,
      p75Ms: null,
      p95Ms: null,
      p99Ms: null,
      maxMs: null,
      meanMs: null,
      p999Ms: null,
    });
  });

  it('add() merges into the same state as recording everything in one', () => {
    const a = filled(range(1, 5000));
    const b = filled(range(5001, 10_000));
    a.add(b);
    const all = filled(range(1, 10_000));
    expect(a.count).toBe(all.count);
    expect(a.sum).toBe(all.sum);
    expect(a.min).toBe(1);
    expect(a.max).toBe(10_000);
    expect(Array.from(a.counts)).toEqual(Array.from(all.counts));
    expect(a.summary()).toEqual(all.summary());
    // b is left as it was.
    expect(b.count).toBe(5000);
    expect(b.min).toBe(5001);
  });

  it('add() of an empty histogram changes nothing, and into an empty one copies', () => {
    const a = filled([300, 7]);
    a.add(new Histogram());
    expect(a.summary()).toEqual(filled([300, 7]).summary());
    const empty = new Histogram();
    empty.add(a);
    expect(empty.summary()).toEqual(a.summary());
  });

  it('reset() empties it', () => {
    const h = filled(range(1, 1000));
    h.reset();
    expect(h.count).toBe(0);
    expect(h.sum).toBe(0);
    expect(h.min).toBe(Infinity);
    expect(h.max).toBe(-Infinity);
    expect(h.counts.every((c) => c === 0)).toBe(true);
    expect(h.summary().p50Ms).toBeNull();
    h.record(42);
    expect(h.summary().p50Ms).toBe(0.042);
  });
});
