/**
 * `--find-max`: the highest sustainable value of one factor (batch size or concurrency) for
 * one transport, by bisection on a log scale, then confirmed with repeats.
 *
 * A single probe is one noisy window on a machine whose speed moves by ±20% between runs, so
 * the bisection's answer is only a candidate: `confirm` measures it again over several repeats
 * and judges it by the one sustains rule (results/sustains.ts). When the repeats say it does
 * not hold, the search does not give up while a lower value may: it steps down once to the next
 * lower value a probe found sustainable (the common case, a probe a little optimistic), then
 * confirms the minimum (which settles whether anything holds at all), and bisects on a log
 * scale between the highest value that held and the lowest that did not, with confirmations,
 * until the two are within the bracket ratio. So the search ends at the highest value that held,
 * as far down as the minimum, within `maxConfirms` confirmations and whatever `canStart` allows.
 */
import type { Stat } from '../../protocol/repeat-figures.js';

/** Bisection stops once the bracket's upper end is within this factor of its lower end. */
export const DEFAULT_BRACKET_RATIO = 1.15;
/** Probes the bisection may spend, besides confirmations. */
export const DEFAULT_MAX_PROBES = 12;
/**
 * Confirmations the search may spend: the probe's knee, one step down, the minimum and a
 * confirmed bisection of about log2(log(65 / 10) / log(1.15)) ≈ 4 steps fit in 8.
 */
export const DEFAULT_MAX_CONFIRMS = 8;

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
  /**
   * Whether a measurement may start now (a time budget); false ends the search with what it has
   * found, and `stopped` says so. Absent: always.
   */
  canStart?(kind: 'probe' | 'confirm', value: number): boolean;
}

export interface FindMaxOutcome {
  /** Every single-window probe, in the order tried. */
  probes: { value: number; sustainable: boolean; eventsPerSec: number | null; reason: string }[];
  /** Every confirmation, in the order tried. */
  confirmations: { value: number; sustainable: boolean; eventsPerSec: Stat; reason: string }[];
  /** The highest value confirmed sustainable; null if none was. */
  knee: { value: number; eventsPerSec: Stat } | null;
  /** The lowest value above the knee found not sustainable (by a confirmation, else a probe). */
  firstPast: { value: number; reason: string } | null;
  /**
   * Why the search ended before it could say more: `budget` (canStart refused a measurement),
   * `confirmations` (maxConfirms spent while the bracket was still wide or nothing had held);
   * null when it finished.
   */
  stopped: 'budget' | 'confirmations' | null;
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
 * Bisects [min, max] on a log scale for the highest sustainable value, then confirms it (see the
 * module comment for how it steps down). A minimum whose probe fails is confirmed before the
 * search gives up on it: one window is not enough to call the whole range unsustainable.
 */
export async function findMax(o: FindMaxOptions): Promise<FindMaxOutcome> {
  checkRange(o);
  const maxProbes = o.maxProbes ?? DEFAULT_MAX_PROBES;
  const bracketRatio = o.bracketRatio ?? DEFAULT_BRACKET_RATIO;
  const maxConfirms = o.maxConfirms ?? DEFAULT_MAX_CONFIRMS;
  const canStart = o.canStart ?? (() => true);
  const probes: FindMaxOutcome['probes'] = [];
  const confirmations: FindMaxOutcome['confirmations'] = [];
  let stopped: FindMaxOutcome['stopped'] = null;
  /** The highest value confirmed to hold, and the lowest confirmed not to. */
  let held: FindMaxOutcome['confirmations'][number] | null = null;
  let failed: FindMaxOutcome['confirmations'][number] | null = null;

  const probe = async (value: number) => {
    if (!canStart('probe', value)) {
      stopped = 'budget';
      return null;
    }
    const r = await o.probe(value);
    probes.push({ value, sustainable: r.sustainable, eventsPerSec: r.eventsPerSec, reason: r.reason });
    return r;
  };
  const confirm = async (value: number): Promise<boolean | null> => {
    if (confirmations.length >= maxConfirms) {
      stopped = 'confirmations';
      return null;
    }
    if (!canStart('confirm', value)) {
      stopped = 'budget';
      return null;
    }
    const c = await o.confirm(value);
    const entry = { value, sustainable: c.sustainable, eventsPerSec: c.eventsPerSec, reason: c.reason };
    confirmations.push(entry);
    if (c.sustainable) {
      if (!held || value > held.value) held = entry;
    } else if (!failed || value < failed.value) failed = entry;
    return c.sustainable;
  };
  const outcome = (probeHi: { value: number; reason: string } | null): FindMaxOutcome => {
    const knee = held && { value: held.value, eventsPerSec: held.eventsPerSec };
    // A confirmed failure above the knee (or with no knee) is nearer than any probe's.
    const firstPast = failed && (!held || failed.value > held.value) ? { value: failed.value, reason: failed.reason } : probeHi;
    return { probes, confirmations, knee, firstPast, stopped };
  };

  const first = await probe(o.min);
  if (!first) return outcome(null);
  // One failed window at the minimum is confirmed before the whole range is given up.
  if (!first.sustainable && !(await confirm(o.min))) return outcome(failed ? null : { value: o.min, reason: first.reason });

  let lo = o.min;
  let hi: { value: number; reason: string } | null = null;
  if (o.max > o.min) {
    const top = await probe(o.max);
    if (top?.sustainable) lo = o.max;
    else if (top) hi = { value: o.max, reason: top.reason };
  }
  while (!stopped && hi && hi.value / lo > bracketRatio && hi.value - lo > 1 && probes.length < maxProbes) {
    const mid = logMidpoint(lo, hi.value);
    const r = await probe(mid);
    if (!r) break;
    if (r.sustainable) lo = mid;
    else hi = { value: mid, reason: r.reason };
  }
  if (stopped) return outcome(hi);

  const probedSustainable = [...new Set(probes.filter((p) => p.sustainable).map((p) => p.value))].sort((a, b) => b - a);
  /** The next value to confirm, or null when the search has its answer. */
  const next = (): number | null => {
    const h = held;
    const f = failed;
    if (!h) {
      if (!f) return lo;
      // A probe a little optimistic: one step down to the next value a probe found sustainable,
      // when a confirmation is left after it for the minimum.
      const failures = confirmations.filter((c) => !c.sustainable).length;
      const below = probedSustainable.find((v) => v < f.value && v > o.min);
      if (failures === 1 && below !== undefined && maxConfirms - confirmations.length >= 2) return below;
      // Then the floor: whether anything holds at all.
      return f.value > o.min ? o.min : null;
    }
    if (!f) return lo > h.value ? lo : null;
    return f.value / h.value > bracketRatio && f.value - h.value > 1 ? logMidpoint(h.value, f.value) : null;
  };
  for (let value = next(); value !== null; value = next()) {
    if ((await confirm(value)) === null) break;
  }
  return outcome(hi);
}
