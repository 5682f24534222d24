/**
 * Whether a point sustains its offered rate: the one rule `--find-max`'s confirmations, its
 * probes (one window is a judgement over one repeat) and the advisor use. Pure, no Node or DOM.
 *
 * The rule is a statement over a point's repeats, never over one window: on a 2-core machine
 * one window's p99 moved from 31 to 54 ms at the same point, so "every window within the bound"
 * fails points that hold, and one good window passes points that do not. A point sustains the
 * rate when, over its repeats:
 *
 * - the median repeat delivered ≥ 99% of what was offered (SUSTAINS_DELIVERED_RATIO);
 * - no repeat shed a batch: shedding is the server dropping data for a client whose send buffer
 *   ran over its bound, which happens only under real overload and loses rows a product needs,
 *   so one repeat that shed is evidence enough (unlike p99, a shed is not window noise);
 * - the median repeat's latency p99 is within the bound (the interval of that median, by order
 *   statistics, is reported beside it: stats.ts medianInterval);
 * - every connection was open in every repeat: a connection that never opened (stalled behind
 *   the browser's per-host cap, verdict.ts stalledBehindCap) carried nothing, whatever the
 *   others delivered.
 *
 * - no repeat failed: a repeat is recorded failed only after its retries (a renderer that
 *   crashed, a window that timed out), which under load is a finding like a shed, not noise. In
 *   the medians a failed repeat ranks worst (delivered 0, no latency), so the figures shown
 *   beside the reason never look better than what was measured.
 *
 * How this relates to the verdicts (verdict.ts): a repeat's verdict says WHERE a limit was, and
 * calls ≥ 97% delivered (KEPT_UP_RATIO) "ok", leaving room for batches in flight at the window's
 * edges when diagnosing which side limited a point. `sustains` is the stricter TARGET test a
 * product asks ("does this take my rate, under my latency bound?"), so a point can be `ok` and
 * not sustain its rate (98% delivered, or p99 over the bound). Both stay: one diagnoses, one
 * decides.
 */
import type { Sustains, SustainsFigures } from '../protocol/advice.js';
import type { Repeat } from '../protocol/repeat-figures.js';
import type { Point } from '../protocol/scenario.js';
import { median, medianInterval } from './stats.js';
import { stalledBehindCap } from './verdict.js';
import { streamsOf } from '../protocol/wire.js';

/** Sustaining means the median repeat delivered at least this share of the offered events. */
export const SUSTAINS_DELIVERED_RATIO = 0.99;

/** What one repeat contributes to the rule; `failed` for a repeat that measured nothing. */
export type SustainsRepeat =
  | {
      deliveredRatio: number;
      /** Batches the server shed in the window. */
      shed: number;
      /** Latency p99 over the window, ms; null when no latency was measured. */
      p99Ms: number | null;
      /** Connections asked for that were not open at the end of the window; 0 when all were. */
      notOpen: number;
      /** Connections asked for (every tab's). */
      streams: number;
      /** The per-host cap they stalled behind, when that is why (stalledBehindCap); null otherwise. */
      cap: number | null;
      // --- age (issue 33) ---
      /** Display age p99 over the window, ms (the newest event on screen at each draw); null when nothing drew. Absent: not read. */
      displayP99Ms?: number | null;
    }
  | { failed: string };

export interface SustainsTarget {
  /** The latency bound: the median repeat's p99 must be at or below it, ms. */
  p99BoundMs: number;
  // --- age (issue 33) ---
  /** A bound on display age (`--p99-display`): the median repeat's display age p99 must be at or below it, ms. Absent: none. */
  displayBoundMs?: number;
}

/** Rounded down, so 98.96% reads "98.9% < 99%", never "99.0% < 99%". */
const percent = (ratio: number) => `${(Math.floor(ratio * 1000 + 1e-9) / 10).toFixed(1)}%`;
/** Whole ms, or one decimal where whole ms would hide which side of the bound it is on. */
const ms = (v: number, bound: number) => (Math.round(v) === bound && v !== bound ? v.toFixed(1) : String(Math.round(v)));

/** The interval beside a median p99: a CI at 95% or more, else the range it is. */
function p99Interval(p: NonNullable<SustainsFigures['p99Ms']>, n: number, bound: number): string {
  if (n < 2) return '';
  const span = p.high === null ? `${ms(p.low, bound)} ms to unbounded` : `${ms(p.low, bound)}–${ms(p.high, bound)}`;
  return p.confidence >= 0.95 ? ` (CI ${span})` : ` (range ${span} over ${n} repeats)`;
}

/** Judges a point's repeats against the target; see the module comment for the rule. */
export function sustains(repeats: readonly SustainsRepeat[], target: SustainsTarget): Sustains {
  if (!repeats.length) throw new RangeError('sustains() needs at least one repeat');
  const bound = target.p99BoundMs;
  const measured = repeats.filter((r): r is Exclude<SustainsRepeat, { failed: string }> => !('failed' in r));
  const failed = repeats.filter((r): r is { failed: string } => 'failed' in r);
  const n = repeats.length;
  const one = n === 1;
  // Failed repeats rank worst: delivered 0, latency beyond any bound.
  const delivered = median([...measured.map((r) => r.deliveredRatio), ...failed.map(() => 0)]);
  const p99s = [...measured.map((r) => r.p99Ms ?? Number.POSITIVE_INFINITY), ...failed.map(() => Number.POSITIVE_INFINITY)];
  const p99Median = median(p99s);
  const interval = medianInterval(p99s);
  const shedding = measured.filter((r) => r.shed > 0);
  const stalled = measured.filter((r) => r.notOpen > 0);
  const worstStall = stalled.reduce<(typeof stalled)[number] | null>((a, r) => (a === null || r.notOpen > a.notOpen ? r : a), null);
  const figures: SustainsFigures = {
    repeats: n,
    failed: failed.length,
    deliveredRatio: delivered,
    shedRepeats: shedding.length,
    shedBatches: shedding.reduce((a, r) => a + r.shed, 0),
    p99Ms: Number.isFinite(p99Median)
      ? { median: p99Median, low: interval.low, high: Number.isFinite(interval.high) ? interval.high : null, confidence: interval.confidence }
      : null,
    stalledRepeats: stalled.length,
    notOpen: worstStall?.notOpen ?? 0,
    streams: measured[0]?.streams ?? null,
    cap: worstStall?.cap ?? null,
  };

  const failures: string[] = [];
  const med = one ? '' : 'median ';
  if (failed.length)
    failures.push(one ? `failed: ${failed[0].failed}` : `${failed.length} of ${n} repeats failed (${[...new Set(failed.map((f) => f.failed))].join('; ')})`);
  if (delivered < SUSTAINS_DELIVERED_RATIO && !(one && failed.length))
    failures.push(`${med}delivered ${percent(delivered)} < ${Math.round(SUSTAINS_DELIVERED_RATIO * 100)}%`);
  if (shedding.length) {
    const batches = `${figures.shedBatches} batch${figures.shedBatches === 1 ? '' : 'es'}`;
    failures.push(one ? `shed ${batches}` : `shed ${batches} in ${shedding.length} of ${n} repeats`);
  }
  if (figures.p99Ms === null) {
    if (!(one && failed.length)) failures.push(one ? 'no latency measured' : 'no latency measured in the median repeat');
  } else if (figures.p99Ms.median > bound) {
    failures.push(`${med}p99 ${ms(figures.p99Ms.median, bound)} ms > ${bound} ms${p99Interval(figures.p99Ms, n, bound)}`);
  }
  if (target.displayBoundMs !== undefined) {
    // Display age (issue 33): how stale the screen is; a repeat that drew nothing has none to keep.
    const shown = measured.flatMap((r) => (typeof r.displayP99Ms === 'number' ? [r.displayP99Ms] : []));
    const display = shown.length ? median(shown) : null;
    if (display === null) failures.push('no display age measured (nothing drew)');
    else if (display > target.displayBoundMs) failures.push(`${med}display age p99 ${ms(display, target.displayBoundMs)} ms > ${target.displayBoundMs} ms`);
  }
  if (worstStall) {
    const why = worstStall.cap !== null ? ` (stalled behind the browser's ${worstStall.cap} per host)` : '';
    failures.push(`${worstStall.notOpen} of ${worstStall.streams} connections never opened${why}${one ? '' : ` in ${stalled.length} of ${n} repeats`}`);
  }
  if (failures.length) return { sustains: false, reasons: failures, figures };
  const p = figures.p99Ms!;
  return {
    sustains: true,
    reasons: [`${med}delivered ${percent(delivered)}, nothing shed, ${med}p99 ${ms(p.median, bound)} ms ≤ ${bound} ms${p99Interval(p, n, bound)}`],
    figures,
  };
}

/** A report repeat of `point` as the rule reads it. */
export function sustainsRepeat(point: Pick<Point, 'transport' | 'concurrency' | 'tabs'>, r: Repeat): SustainsRepeat {
  if (r.status === 'failed') return { failed: r.error };
  const streams = streamsOf(point);
  // Older reports and the bare page carry no wire figures: their connections count as open.
  const notOpen = r.wire?.stalled ?? 0;
  return {
    deliveredRatio: r.deliveredRatio,
    shed: r.server.batchesShed,
    // Event age in reports since issue 33 (version 3 reports: transit): the latency that decides.
    p99Ms: r.latency.p99Ms,
    notOpen,
    streams,
    cap: stalledBehindCap(point.transport, streams, streams - notOpen)?.cap ?? null,
    displayP99Ms: r.displayAge === undefined ? undefined : (r.displayAge?.p99Ms ?? null),
  };
}

/** `sustains` over a point's report repeats. */
export function pointSustains(point: Pick<Point, 'transport' | 'concurrency' | 'tabs'>, repeats: readonly Repeat[], target: SustainsTarget): Sustains {
  return sustains(
    repeats.map((r) => sustainsRepeat(point, r)),
    target,
  );
}

/** The reasons as one line, `; `-separated. */
export const reasonText = (s: Pick<Sustains, 'reasons'>): string => s.reasons.join('; ');
