/**
 * `--find-max`: the highest sustainable value of one factor (batch size or concurrency) for
 * one transport, by bisection on a log scale, then confirmed with repeats.
 *
 * A single probe is one noisy window on a machine whose speed moves by ±20% between runs, so
 * the bisection's answer is only a candidate: `confirm` measures it again several times, and
 * when the repeats say it is not sustainable after all, the search steps down to the next
 * lower value a probe found sustainable and confirms that instead.
 */
import type { Stat } from '../protocol/report.js';

/** Sustainable means at least this share of the offered events arrived. */
export const SUSTAINABLE_DELIVERED_RATIO = 0.99;
/** The reference experiment's latency goal (Test III): p99 at or below this, ms. */
export const DEFAULT_P99_BOUND_MS = 50;
/** Bisection stops once the bracket's upper end is within this factor of its lower end. */
export const DEFAULT_BRACKET_RATIO = 1.15;
/** Probes the bisection may spend, besides confirmations. */
export const DEFAULT_MAX_PROBES = 12;
/** Candidates `confirm` may be asked about before the search gives up. */
export const DEFAULT_MAX_CONFIRMS = 3;

export interface ProbeResult {
  sustainable: boolean;
  /** Events per second delivered in the probe's window; null when it failed. */
  eventsPerSec: number | null;
  reason: string;
}

export interface Confirmation {
  sustainable: boolean;
  /** EPS over the confirming repeats. */
  eventsPerSec: Stat;
  reason: string;
}

export interface FindMaxOptions {
  /** The factor's range, inclusive: integers, 1 ≤ min ≤ max. */
  min: number;
  max: number;
  /** The factor is a count (batch size, connections): every probe is an integer. */
  integer: true;
  /** Measures one window at `value`. */
  probe(value: number): Promise<ProbeResult>;
  /** Measures `value` again with repeats, and judges it over them. */
  confirm(value: number): Promise<Confirmation>;
  maxProbes?: number;
  /** Stop bisecting when hi ÷ lo ≤ this (default 1.15) or hi and lo are adjacent integers. */
  bracketRatio?: number;
  maxConfirms?: number;
}

export interface FindMaxOutcome {
  /** Every single-window probe, in the order tried. */
  probes: { value: number; sustainable: boolean; eventsPerSec: number | null; reason: string }[];
  /** Every confirmation, in the order tried. */
  confirmations: { value: number; sustainable: boolean; eventsPerSec: Stat; reason: string }[];
  /** The highest value confirmed sustainable; null if none was. */
  knee: { value: number; eventsPerSec: Stat } | null;
  /** The lowest value above the knee found not sustainable (by a probe or a confirmation). */
  firstPast: { value: number; reason: string } | null;
}

function checkRange(o: FindMaxOptions): void {
  for (const field of ['min', 'max'] as const) {
    if (!Number.isInteger(o[field]) || o[field] < 1) throw new RangeError(`find-max ${field} must be an integer ≥ 1, got ${o[field]}`);
  }
  if (o.min > o.max) throw new RangeError(`find-max min must be ≤ max, got min ${o.min} and max ${o.max}`);
}

/** The geometric midpoint of a bracket, as an integer strictly inside it. */
export function logMidpoint(lo: number, hi: number): number {
  return Math.min(hi - 1, Math.max(lo + 1, Math.round(Math.sqrt(lo * hi))));
}

/**
 * Bisects [min, max] on a log scale for the highest sustainable value, then confirms it.
 * min not sustainable → no knee; max sustainable → the knee is max (once confirmed).
 */
export async function findMax(o: FindMaxOptions): Promise<FindMaxOutcome> {
  checkRange(o);
  const maxProbes = o.maxProbes ?? DEFAULT_MAX_PROBES;
  const bracketRatio = o.bracketRatio ?? DEFAULT_BRACKET_RATIO;
  const probes: FindMaxOutcome['probes'] = [];
  const confirmations: FindMaxOutcome['confirmations'] = [];
  const probe = async (value: number) => {
    const r = await o.probe(value);
    probes.push({ value, sustainable: r.sustainable, eventsPerSec: r.eventsPerSec, reason: r.reason });
    return r;
  };

  const first = await probe(o.min);
  if (!first.sustainable) return { probes, confirmations, knee: null, firstPast: { value: o.min, reason: first.reason } };

  let lo = o.min;
  let hi: { value: number; reason: string } | null = null;
  if (o.max > o.min) {
    const top = await probe(o.max);
    if (top.sustainable) lo = o.max;
    else hi = { value: o.max, reason: top.reason };
  }
  while (hi && hi.value / lo > bracketRatio && hi.value - lo > 1 && probes.length < maxProbes) {
    const mid = logMidpoint(lo, hi.value);
    const r = await probe(mid);
    if (r.sustainable) lo = mid;
    else hi = { value: mid, reason: r.reason };
  }

  // Confirm the best candidate; on failure step down through the values probes found sustainable.
  const candidates = [...new Set(probes.filter((p) => p.sustainable && p.value <= lo).map((p) => p.value))].sort((a, b) => b - a);
  let firstPast = hi;
  for (const value of candidates.slice(0, o.maxConfirms ?? DEFAULT_MAX_CONFIRMS)) {
    const c = await o.confirm(value);
    confirmations.push({ value, sustainable: c.sustainable, eventsPerSec: c.eventsPerSec, reason: c.reason });
    if (c.sustainable) return { probes, confirmations, knee: { value, eventsPerSec: c.eventsPerSec }, firstPast };
    firstPast = { value, reason: c.reason };
  }
  return { probes, confirmations, knee: null, firstPast };
}

/** Rounded down, so 98.96% reads "98.9% < 99%", never "99.0% < 99%". */
const percent = (ratio: number) => `${(Math.floor(ratio * 1000 + 1e-9) / 10).toFixed(1)}%`;
/** Whole ms, or one decimal where whole ms would hide which side of the bound it is on. */
const ms = (v: number, bound: number) => (Math.round(v) === bound && v !== bound ? v.toFixed(1) : String(Math.round(v)));

/**
 * Sustainable: delivered ≥ `bound.deliveredRatio` of offered, nothing shed, latency p99 at or
 * below `bound.p99BoundMs`. The reason names every criterion that failed (or the figures, when
 * none did), e.g. "delivered 97.2% < 99%; shed 310 batches".
 */
export function isSustainable(
  r: { deliveredRatio: number; batchesShed: number; p99Ms: number | null },
  bound: { deliveredRatio: number; p99BoundMs: number },
): { sustainable: boolean; reason: string } {
  const failures: string[] = [];
  if (r.deliveredRatio < bound.deliveredRatio) failures.push(`delivered ${percent(r.deliveredRatio)} < ${Math.round(bound.deliveredRatio * 100)}%`);
  if (r.batchesShed > 0) failures.push(`shed ${r.batchesShed} batch${r.batchesShed === 1 ? '' : 'es'}`);
  if (r.p99Ms === null) failures.push('no latency measured');
  else if (r.p99Ms > bound.p99BoundMs) failures.push(`p99 ${ms(r.p99Ms, bound.p99BoundMs)} ms > ${bound.p99BoundMs} ms`);
  if (failures.length) return { sustainable: false, reason: failures.join('; ') };
  return { sustainable: true, reason: `delivered ${percent(r.deliveredRatio)}, nothing shed, p99 ${ms(r.p99Ms!, bound.p99BoundMs)} ms ≤ ${bound.p99BoundMs} ms` };
}
