/**
 * The statistics behind every figure a sweep reports: order statistics, the 95% confidence
 * interval of the mean by Student's t, and the paired ratio of two points measured in the same
 * rounds. Pure functions; docs/method.md ("Statistics") describes the method.
 */
import type { Stat } from '../protocol/repeat-figures.js';

/** The confidence level of every interval pushlab reports. */
export const CONFIDENCE = 0.95;

function checkFinite(xs: readonly number[], what: string): void {
  xs.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new RangeError(`${what}[${i}] must be a finite number, got ${String(x)}`);
  });
}

/** The middle value, or the mean of the middle two (so two repeats do not bias a figure up). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample standard deviation (n − 1 in the denominator); 0 for one value. */
function sampleSd(xs: readonly number[], m: number): number {
  if (xs.length < 2) return 0;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

// Lanczos approximation (g = 7, 9 terms), relative error below 1e-15 for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the incomplete beta function (modified Lentz; Numerical Recipes §6.4). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b), 0 ≤ x ≤ 1. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast only on this side of the mean; use symmetry on the other.
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(T > t) for Student's t with `df` degrees of freedom, t ≥ 0. */
function tUpperTail(t: number, df: number): number {
  return 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The standard normal's 0.975 quantile: the t quantile's limit as df → ∞. */
const Z_975 = 1.959963984540054;

const quantileCache = new Map<number, number>();

/**
 * Student's t 0.975 quantile (two-sided 95%) for `df` ≥ 1 degrees of freedom, by inverting the
 * t distribution's CDF (regularised incomplete beta) with bisection to ~1e-12. Infinity gives
 * the normal quantile 1.95996.
 */
export function tQuantile975(df: number): number {
  if (!(df >= 1)) throw new RangeError(`degrees of freedom must be ≥ 1, got ${String(df)}`);
  if (df === Infinity || df > 1e7) return Z_975;
  const cached = quantileCache.get(df);
  if (cached !== undefined) return cached;
  // The quantile lies between the normal's 1.96 and df = 1's 12.706.
  let lo = Z_975;
  let hi = 12.8;
  while (hi - lo > 1e-12) {
    const mid = (lo + hi) / 2;
    if (tUpperTail(mid, df) > (1 - CONFIDENCE) / 2) lo = mid;
    else hi = mid;
  }
  const q = (lo + hi) / 2;
  quantileCache.set(df, q);
  return q;
}

/**
 * The largest and the smallest of `xs` (-Infinity and Infinity for none), by a loop:
 * `Math.max(...xs)` passes every value as an argument and overflows the stack past about
 * 100,000 of them, which a report of that many repeats or points holds.
 */
export function maxOf(xs: Iterable<number>): number {
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  return m;
}

export function minOf(xs: Iterable<number>): number {
  let m = Infinity;
  for (const x of xs) if (x < m) m = x;
  return m;
}

/**
 * Summary of one figure over repeats: order statistics, mean, sample sd, and the 95% CI of
 * the mean, mean ± t(0.975, n − 1) × sd / √n (null below two values). Throws on an empty
 * list or a non-finite value: callers drop missing figures first.
 */
export function describe(xs: readonly number[]): Stat {
  if (xs.length === 0) throw new RangeError('describe() needs at least one value');
  checkFinite(xs, 'values');
  const m = mean(xs);
  const sd = sampleSd(xs, m);
  const n = xs.length;
  const half = n >= 2 ? (tQuantile975(n - 1) * sd) / Math.sqrt(n) : null;
  return {
    n,
    median: median(xs),
    mean: m,
    min: minOf(xs),
    max: maxOf(xs),
    sd,
    ciLow: half === null ? null : m - half,
    ciHigh: half === null ? null : m + half,
  };
}

/** Stat over the values present and finite (null, undefined, NaN and ±∞ are left out); null when none is. */
export function describePresent(values: readonly (number | null | undefined)[]): Stat | null {
  const present = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return present.length ? describe(present) : null;
}

/**
 * Pairs measured in the same rounds: the ratio b[i] ÷ a[i] per pair, their geometric mean,
 * and its 95% CI, found as the t interval of the mean of the log ratios and transformed back
 * (so it is asymmetric around the ratio, and B ÷ A and A ÷ B give reciprocal intervals).
 * CI null below two pairs. Every value must be finite and > 0.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): { ratio: number; ciLow: number | null; ciHigh: number | null; ratios: number[] } {
  if (a.length !== b.length) throw new RangeError(`paired values must have equal lengths, got ${a.length} and ${b.length}`);
  if (a.length === 0) throw new RangeError('pairedRatio() needs at least one pair');
  checkFinite(a, 'a');
  checkFinite(b, 'b');
  const ratios = a.map((x, i) => {
    if (x <= 0 || b[i] <= 0) throw new RangeError(`paired values must be > 0, got a[${i}] = ${x}, b[${i}] = ${b[i]}`);
    return b[i] / x;
  });
  const logs = ratios.map(Math.log);
  const m = mean(logs);
  const n = logs.length;
  if (n < 2) return { ratio: Math.exp(m), ciLow: null, ciHigh: null, ratios };
  const half = (tQuantile975(n - 1) * sampleSd(logs, m)) / Math.sqrt(n);
  return { ratio: Math.exp(m), ciLow: Math.exp(m - half), ciHigh: Math.exp(m + half), ratios };
}

/**
 * Half the CI's width as a share of the median: `--auto` keeps adding rounds while this is
 * above 0.05 (±5%). Null when there is no CI (n < 2) or the median is 0.
 */
export function relativeHalfWidth(s: Stat): number | null {
  if (s.ciLow === null || s.ciHigh === null || s.median === 0) return null;
  return (s.ciHigh - s.ciLow) / 2 / Math.abs(s.median);
}

/**
 * A distribution-free interval for the median of `xs`: the order statistics x(k) and
 * x(n − k + 1) with k the largest for which P(x(k) ≤ median ≤ x(n − k + 1)) ≥ 95% (binomial
 * with p = ½, no assumption about the figure's distribution, which for a p99 is skewed). Below 6
 * values no pair of order statistics reaches 95%: then the interval is [min, max] and
 * `confidence` says what it does reach (75% for 3 values, 94% for 5), so a view can call it a
 * range rather than a CI. Throws on an empty list.
 */
export function medianInterval(xs: readonly number[]): { low: number; high: number; confidence: number } {
  if (xs.length === 0) throw new RangeError('medianInterval() needs at least one value');
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  // below[j] = P(Binomial(n, ½) ≤ j), summed from the exact binomial coefficients.
  const below: number[] = [];
  let term = 0.5 ** n;
  let sum = 0;
  for (let j = 0; j <= n; j++) {
    sum += term;
    below.push(sum);
    term = (term * (n - j)) / (j + 1);
  }
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && 1 - 2 * below[k] >= CONFIDENCE) k++;
  return { low: s[k - 1], high: s[n - k], confidence: n === 1 ? 0 : 1 - 2 * below[k - 1] };
}
