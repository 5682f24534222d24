/**
 * A log-linear histogram of microsecond values (HDR-style: 64 linear sub-buckets per
 * power of two, so any recorded value is known to within 1/64 ≈ 1.6%; below 128 µs it is
 * exact). Recording is two integer ops and an array increment, with no allocation, so the
 * page can record one latency per batch at millions of events per second.
 */

const LINEAR = 128; // values below this are their own bucket
const SUB = 64; // sub-buckets per power of two above LINEAR
const MAX_SHIFT = 24; // msb 30: values up to 2^31 − 1 µs ≈ 36 min; larger values are clamped
export const HISTOGRAM_BUCKETS = LINEAR + MAX_SHIFT * SUB;
const MAX_VALUE = 2 ** 31 - 1;

export function bucketOf(us: number): number {
  const v = us <= 0 ? 0 : us >= MAX_VALUE ? MAX_VALUE : us | 0;
  if (v < LINEAR) return v;
  const shift = 31 - Math.clz32(v) - 6; // ≥ 1 because v ≥ 128
  return LINEAR + (shift - 1) * SUB + ((v >>> shift) - SUB);
}

/** The lowest value that lands in `bucket`, and its width. */
export function bucketRange(bucket: number): { low: number; width: number } {
  if (bucket < LINEAR) return { low: bucket, width: 1 };
  const shift = Math.floor((bucket - LINEAR) / SUB) + 1;
  const sub = ((bucket - LINEAR) % SUB) + SUB;
  return { low: sub << shift, width: 1 << shift };
}

/** Percentiles and extremes of a histogram, in milliseconds; null when nothing was recorded. */
export interface LatencySummary {
  count: number;
  minMs: number | null;
  p25Ms: number | null;
  p50Ms: number | null;
  p75Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  meanMs: number | null;
  // rule (issue 33): the tail beside p99. Absent in version 3 reports.
  p999Ms?: number | null;
}

/** A histogram's state as plain data, to post between threads. */
export interface HistogramData {
  counts: Float64Array;
  count: number;
  min: number;
  max: number;
  sum: number;
}

export class Histogram {
  readonly counts = new Float64Array(HISTOGRAM_BUCKETS);
  count = 0;
  min = Infinity;
  max = -Infinity;
  sum = 0;

  /** Records one value in microseconds (negative values count as 0). */
  record(us: number): void {
    const v = us < 0 ? 0 : us;
    this.counts[bucketOf(v)]++;
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /**
   * Records `count` values spread evenly over [lowUs, highUs]: the k-th (from 0) at
   * lowUs + k·(highUs − lowUs)/(count − 1), all at lowUs when count is 1. One batch's events
   * differ in age by up to a tick (protocol/age.ts), so a batch is recorded as its range, each
   * event with its own age, at the cost of the buckets the range spans or of its values,
   * whichever is fewer: never one op per row of a large batch. Counts per bucket are whole
   * numbers, exactly those of recording each value.
   */
  recordSpread(lowUs: number, highUs: number, count: number): void {
    if (count <= 0) return;
    const lo = lowUs < 0 ? 0 : lowUs;
    const hi = highUs < lo ? lo : highUs;
    if (count === 1 || hi === lo) {
      this.counts[bucketOf(lo)] += count;
    } else {
      const step = (hi - lo) / (count - 1);
      const first = bucketOf(lo);
      const last = bucketOf(hi);
      if (count <= last - first + 1) {
        for (let k = 0; k < count; k++) this.counts[bucketOf(k === count - 1 ? hi : lo + k * step)]++;
      } else {
        // Values below x: the k with lo + k·step < x, that is k < (x − lo)/step. The last bucket
        // takes the rest, so rounding at a boundary cannot lose or add a value.
        let below = 0;
        for (let b = first; b < last; b++) {
          const { low, width } = bucketRange(b);
          const upTo = Math.min(count, Math.max(0, Math.ceil((low + width - lo) / step - 1e-9)));
          this.counts[b] += upTo - below;
          below = upTo;
        }
        this.counts[last] += count - below;
      }
    }
    this.count += count;
    this.sum += ((lo + hi) / 2) * count;
    if (lo < this.min) this.min = lo;
    if (hi > this.max) this.max = hi;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.sum = 0;
  }

  /** A copy of the state (the counts are a new array, safe to transfer). */
  data(): HistogramData {
    return { counts: this.counts.slice(), count: this.count, min: this.min, max: this.max, sum: this.sum };
  }

  add(other: HistogramData): void {
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) this.counts[i] += other.counts[i];
    this.count += other.count;
    this.sum += other.sum;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /** The value (µs) at quantile q in [0, 1]: the midpoint of its bucket, clamped to min/max. */
  quantile(q: number): number {
    if (this.count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      seen += this.counts[i];
      if (seen >= rank) {
        const { low, width } = bucketRange(i);
        const mid = width === 1 ? low : low + width / 2;
        return Math.min(this.max, Math.max(this.min, mid));
      }
    }
    return this.max;
  }

  summary(): LatencySummary {
    const ms = (us: number) => (Number.isFinite(us) ? Math.round(us) / 1000 : null);
    return {
      count: this.count,
      minMs: ms(this.count ? this.min : Number.NaN),
      p25Ms: ms(this.quantile(0.25)),
      p50Ms: ms(this.quantile(0.5)),
      p75Ms: ms(this.quantile(0.75)),
      p95Ms: ms(this.quantile(0.95)),
      p99Ms: ms(this.quantile(0.99)),
      maxMs: ms(this.count ? this.max : Number.NaN),
      meanMs: ms(this.count ? this.sum / this.count : Number.NaN),
      p999Ms: ms(this.quantile(0.999)),
    };
  }
}

/**
 * A histogram as compact JSON, to keep in a report: only the buckets that hold values, in
 * this file's layout (`bucketOf`: exact below 128 µs, then 64 sub-buckets per power of two of
 * µs). Repeats' histograms merge exactly (results/sustains.ts pools a point's windows), which
 * their percentiles never can. A 5 s window's latencies fill a few hundred buckets at most.
 */
export interface SparseHistogram {
  /** Values recorded. */
  count: number;
  /** Smallest and largest value recorded, µs (0 when nothing was). */
  minUs: number;
  maxUs: number;
  /** Sum of the values, µs. */
  sumUs: number;
  /** Indexes of the non-empty buckets, ascending, and their counts (same length). */
  buckets: number[];
  counts: number[];
}

/** `h` as a SparseHistogram. */
export function sparseOf(h: HistogramData): SparseHistogram {
  const buckets: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    if (h.counts[i] > 0) {
      buckets.push(i);
      counts.push(h.counts[i]);
    }
  }
  const some = h.count > 0;
  return { count: h.count, minUs: some ? h.min : 0, maxUs: some ? h.max : 0, sumUs: h.sum, buckets, counts };
}

/** A Histogram holding what `s` holds. */
export function histogramOf(s: SparseHistogram): Histogram {
  const h = new Histogram();
  for (let i = 0; i < s.buckets.length; i++) h.counts[s.buckets[i]] += s.counts[i];
  h.count = s.count;
  h.sum = s.sumUs;
  if (s.count > 0) {
    h.min = s.minUs;
    h.max = s.maxUs;
  }
  return h;
}

/** The midpoint of a bucket, µs: the value a quantile that lands in it reads. */
export function bucketMidUs(bucket: number): number {
  const { low, width } = bucketRange(bucket);
  return width === 1 ? low : low + width / 2;
}

/**
 * `s` with `offsetMs` taken off every value (the page's clock ran that far ahead): each bucket
 * is moved by its midpoint, so a value stays known to within its bucket's width.
 */
export function shiftSparse(s: SparseHistogram, offsetMs: number): SparseHistogram {
  const offUs = offsetMs * 1000;
  const h = new Histogram();
  for (let i = 0; i < s.buckets.length; i++) h.counts[bucketOf(bucketMidUs(s.buckets[i]) - offUs)] += s.counts[i];
  const out = sparseOf({ ...h.data(), count: s.count, min: Math.max(0, s.minUs - offUs), max: Math.max(0, s.maxUs - offUs), sum: s.sumUs - offUs * s.count });
  return out;
}

/**
 * A figure's tail, in ms: what issue 33's transit and display age report beside event age
 * (p50, p99, p99.9 and the maximum). Null figures when nothing was recorded.
 */
export interface TailSummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  p999Ms: number | null;
  maxMs: number | null;
}

/** The tail of a histogram (TailSummary). */
export function tailSummary(h: Histogram): TailSummary {
  const ms = (us: number) => (h.count && Number.isFinite(us) ? Math.round(us) / 1000 : null);
  return { count: h.count, p50Ms: ms(h.quantile(0.5)), p99Ms: ms(h.quantile(0.99)), p999Ms: ms(h.quantile(0.999)), maxMs: ms(h.max) };
}
