/**
 * A point's latency tail over its repeats: the repeats' histograms pooled into one sample, its
 * p99, p99.9 and maximum, and an upper confidence limit of that p99 from a bootstrap over the
 * repeats. Pure, no Node or DOM; results/sustains.ts judges with it.
 *
 * Why a bootstrap over repeats and not an order-statistic interval on the pooled sample: the
 * order-statistic interval treats every latency as an independent draw, and they are not. A
 * GC pause or a stall in the server's write delays every batch for as long as it lasts, so one
 * window's latencies move together and the windows are the independent units. On a pooled
 * sample of 3 windows of 5000 batches the order-statistic interval of the p99 is a few tenths
 * of a ms wide, while the same point's window p99s moved from 31 to 54 ms on this 2-core
 * machine. Resampling whole windows with replacement carries that variation into the interval.
 *
 * The limit is the 97.5th percentile of the resampled pooled p99s (the upper end of the usual
 * two-sided 95% interval). With up to 6 repeats every resample is enumerated with its exact
 * multinomial weight, so the answer has no randomness; above that, 4000 resamples are drawn
 * from a fixed seed. One consequence is deliberate: with 3 repeats or fewer, the resample that
 * repeats the worst window three times has probability at least 1/27 (3.7%, above 2.5%), and a
 * pool's p99 never exceeds its worst window's, so the limit IS the worst window's p99. A
 * configuration whose p99 breaks the bound in one window of three therefore never passes:
 * under the old rule (the median window) it passed a 3-round confirmation 74% of the time.
 */
import { bucketMidUs, histogramOf, type SparseHistogram } from '../protocol/histogram.js';
import { mulberry32 } from '../protocol/random.js';

/** The one-sided confidence of the p99's upper limit. */
export const TAIL_CONFIDENCE = 0.975;
/** Up to this many repeats every resample is enumerated. */
const EXACT_UP_TO = 6;
const DRAWS = 4000;
const SEED = 0x7a11;

export interface PooledTail {
  /** The pooled sample's p99, p99.9 and maximum, ms; null when it holds nothing. */
  p99Ms: number | null;
  p999Ms: number | null;
  maxMs: number | null;
  /** The bootstrap's upper limit of the p99 at TAIL_CONFIDENCE, ms. */
  p99HighMs: number | null;
  /** Latencies pooled. */
  count: number;
  /**
   * Latencies over `boundMs` (by their bucket's midpoint) beyond the 1% a p99 allows: in the
   * pooled sample, and in the window where that excess is largest.
   */
  excessOver: number;
  worstWindowExcessOver: number;
}

const msOf = (us: number) => Math.round(us) / 1000;

/**
 * The pooled tail of `windows`, each a window's latency histogram. `boundMs` only counts the
 * latencies over the bound (for the quantisation check in sustains.ts).
 */
export function pooledTail(windows: readonly SparseHistogram[], boundMs: number): PooledTail {
  const pooled = histogramOf(windows[0] ?? { count: 0, minUs: 0, maxUs: 0, sumUs: 0, buckets: [], counts: [] });
  for (const w of windows.slice(1)) pooled.add(histogramOf(w).data());
  const count = pooled.count;
  const overIn = (w: SparseHistogram) => w.buckets.reduce((a, b, i) => a + (bucketMidUs(b) > boundMs * 1000 ? w.counts[i] : 0), 0);
  const excessOver = windows.reduce((a, w) => a + overIn(w), 0) - Math.floor(0.01 * count);
  const worstWindowExcessOver = Math.max(...windows.map((w) => overIn(w) - Math.floor(0.01 * w.count)));
  if (count === 0) return { p99Ms: null, p999Ms: null, maxMs: null, p99HighMs: null, count, excessOver, worstWindowExcessOver };
  return {
    p99Ms: msOf(pooled.quantile(0.99)),
    p999Ms: msOf(pooled.quantile(0.999)),
    maxMs: msOf(pooled.max),
    p99HighMs: msOf(bootstrapHighUs(windows.filter((w) => w.count > 0))),
    count,
    excessOver,
    worstWindowExcessOver,
  };
}

/**
 * The windows on one grid: the union of their non-empty buckets, ascending, and each window's
 * counts on it, so a resample's pooled p99 is one weighted walk.
 */
function onOneGrid(windows: readonly SparseHistogram[]): { buckets: number[]; counts: number[][] } {
  const buckets = [...new Set(windows.flatMap((w) => w.buckets))].sort((a, b) => a - b);
  const at = new Map(buckets.map((b, i) => [b, i]));
  const counts = windows.map((w) => {
    const row = new Array<number>(buckets.length).fill(0);
    w.buckets.forEach((b, i) => (row[at.get(b)!] += w.counts[i]));
    return row;
  });
  return { buckets, counts };
}

/** The p99 (µs) of the pool that takes window i `weights[i]` times. */
function weightedP99Us(grid: { buckets: number[]; counts: number[][] }, windows: readonly SparseHistogram[], weights: readonly number[]): number {
  let total = 0;
  let max = 0;
  windows.forEach((w, i) => {
    total += weights[i] * w.count;
    if (weights[i] > 0) max = Math.max(max, w.maxUs);
  });
  const rank = Math.max(1, Math.ceil(0.99 * total));
  let seen = 0;
  for (let j = 0; j < grid.buckets.length; j++) {
    for (let i = 0; i < windows.length; i++) seen += weights[i] * grid.counts[i][j];
    if (seen >= rank) return Math.min(max, bucketMidUs(grid.buckets[j]));
  }
  return max;
}

/** Every way to put n draws into n windows (as counts per window), with its multinomial probability. */
function* resamples(n: number): Generator<{ weights: number[]; p: number }> {
  const fact = [1];
  for (let i = 1; i <= n; i++) fact.push(fact[i - 1] * i);
  const weights = new Array<number>(n).fill(0);
  function* place(i: number, left: number): Generator<{ weights: number[]; p: number }> {
    if (i === n - 1) {
      weights[i] = left;
      const ways = fact[n] / weights.reduce((a, k) => a * fact[k], 1);
      yield { weights: [...weights], p: ways / n ** n };
      return;
    }
    for (let k = 0; k <= left; k++) {
      weights[i] = k;
      yield* place(i + 1, left - k);
    }
  }
  yield* place(0, n);
}

/** The TAIL_CONFIDENCE upper limit of the pooled p99 by a bootstrap over the windows, µs. */
function bootstrapHighUs(windows: readonly SparseHistogram[]): number {
  const n = windows.length;
  const grid = onOneGrid(windows);
  const outcomes: { v: number; p: number }[] = [];
  if (n <= EXACT_UP_TO) {
    for (const { weights, p } of resamples(n)) outcomes.push({ v: weightedP99Us(grid, windows, weights), p });
  } else {
    const random = mulberry32(SEED);
    for (let d = 0; d < DRAWS; d++) {
      const weights = new Array<number>(n).fill(0);
      for (let k = 0; k < n; k++) weights[Math.floor(random() * n)]++;
      outcomes.push({ v: weightedP99Us(grid, windows, weights), p: 1 / DRAWS });
    }
  }
  outcomes.sort((a, b) => a.v - b.v);
  let cum = 0;
  for (const o of outcomes) {
    cum += o.p;
    if (cum >= TAIL_CONFIDENCE - 1e-12) return o.v;
  }
  return outcomes[outcomes.length - 1].v;
}
