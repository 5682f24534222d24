/**
 * What the advisor reads from a candidate's repeats: the sustains rule, its cost (renderer CPU
 * per event), what limited it, and how near the target it came. Pure.
 */
import type { Candidate, CandidateFigures, SimplicityCriterion } from '../protocol/advice.js';
import { costsOf, objectiveFigure } from './costs.js';
import type { MeasuredRepeat, Repeat } from '../protocol/repeat-figures.js';
import { describePresent } from './stats.js';
import { decidingP99Ms, MIN_WINDOW_BATCHES, pointSustains, SUSTAINS_DELIVERED_RATIO, type SustainsTarget } from './sustains.js';
import type { Objective, Target } from '../protocol/target.js';
import { majorityVerdict, SATURATED } from './verdict.js';

/** A probe this far from the target "clearly cannot sustain" and is not confirmed: under 90% delivered, or p99 over twice the bound. */
export const CLEARLY_BELOW_DELIVERED = 0.9;
export const CLEARLY_OVER_P99 = 2;

const statOf = describePresent;

const pct = (x: number) => `${Math.round(x)}%`;

/**
 * What limited a candidate, in words, from the majority verdict and the median figures:
 * connections stalled behind a per-host cap first (nothing else matters for those), then the
 * verdict's side (host, server, the tab's main thread or Workers), then, for a point that kept up
 * and still missed the target, the latency or the delivered share. Null when it sustained.
 */
function limitOf(c: Candidate, f: Omit<CandidateFigures, 'limit' | 'closeness'>, measured: readonly MeasuredRepeat[]): string | null {
  const s = f.sustains.figures;
  if (f.sustains.sustains) return null;
  if (s.notOpen > 0) {
    return `per-host connection cap: ${s.notOpen} of ${s.streams} connections never opened${s.cap !== null ? ` (the browser allows ${s.cap} per host over HTTP/1.1)` : ''}`;
  }
  if (!measured.length) return `every repeat failed (${f.sustains.reasons[0]})`;
  const main = f.mainThreadPercent?.median ?? null;
  const mainText = main === null ? '' : ` (main thread at ${pct(main)})`;
  const median = (g: (r: MeasuredRepeat) => number | null) => statOf(measured.map(g))?.median ?? null;
  switch (f.verdict) {
    case 'host-bound': {
      const host = median((r) => r.cpu.host);
      return `host-bound: the machine's CPU was saturated${host !== null ? ` (all processes at ${pct(host)} of one core)` : ''}`;
    }
    case 'network-bound':
      return `network-bound: the link ran at its cap (${pct((median((r) => r.link?.atRate ?? null) ?? 0) * 100)} of it) while the server shed`;
    case 'server-bound':
      return `server-bound: the server fell behind its schedule (server at ${pct(median((r) => r.cpu.server) ?? 0)} of a core, paced ${pct((median((r) => r.server.pacingRatio) ?? 0) * 100)})`;
    case 'client-bound': {
      if (main !== null && main >= SATURATED * 100) return `client-bound: the tab's main thread at ${pct(main)}`;
      const workers = measured.map((r) => Math.max(0, ...(r.cpu.tabThreads?.workers ?? [])));
      const busiest = statOf(workers)?.median ?? 0;
      if (c.parse === 'worker' && busiest >= SATURATED * 100) return `client-bound: parsing Workers at ${pct(busiest)} of a core`;
      return `client-bound: the page fell behind with no thread saturated${mainText}`;
    }
    default: {
      const p99 = decidingP99Ms(s);
      if (p99 !== null && f.sustains.reasons.some((r) => r.includes('p99')))
        return `latency: ${s.tail ? (s.tail.pooled ? 'pooled p99 up to' : "worst window's p99") : 'median p99'} ${Math.round(p99)} ms over the bound${mainText}`;
      return `${f.sustains.reasons.join('; ')}${mainText}`;
    }
  }
}

/**
 * How near the target a candidate came, 0…1 (1 when it sustains). Delivering comes first: a page
 * that does not take the rate has a backlog, and its latency says nothing more, so a candidate
 * below 99% delivered scores its delivered share of 99% in [0, ½), and one that delivered but
 * missed the latency bound ½ plus half the share of the bound it kept, in [½, 1). Either is
 * scaled by the share of its repeats that measured and of its connections that opened; a shed
 * costs 5%.
 */
function closenessOf(f: Omit<CandidateFigures, 'limit' | 'closeness'>, p99BoundMs: number): number {
  if (f.sustains.sustains) return 1;
  const s = f.sustains.figures;
  const delivered = s.deliveredRatio / SUSTAINS_DELIVERED_RATIO;
  const p99 = decidingP99Ms(s);
  const reach = delivered < 1 ? 0.5 * delivered : 0.5 + 0.5 * (p99 === null ? 0 : Math.min(1, p99BoundMs / p99));
  const measuredShare = (s.repeats - s.failed) / s.repeats;
  const open = s.streams ? (s.streams - s.notOpen) / s.streams : 1;
  // Never 1 for a candidate that did not sustain: it ranks below every one that did.
  return Math.min(0.999, reach * measuredShare * open * (s.shedRepeats ? 0.95 : 1));
}

/** What figuresOf reads of the target beside its p99: the sustains rule's other bounds, and the objective its cost is read by. */
export type FiguresTarget = Omit<SustainsTarget, 'p99BoundMs'> & { objective?: Objective };

/** The target's bounds beside its p99 that the sustains rule reads, and its objective (figuresOf's `more`). */
export function sustainsMore(t: Pick<Target, 'displayP99BoundMs' | 'inputDelayBoundMs' | 'objective'>): FiguresTarget {
  return {
    ...(t.displayP99BoundMs === undefined ? {} : { displayBoundMs: t.displayP99BoundMs }),
    ...(t.inputDelayBoundMs === undefined ? {} : { inputDelayBoundMs: t.inputDelayBoundMs }),
    ...(t.objective === undefined ? {} : { objective: t.objective }),
  };
}

/**
 * The cost the search ranks figures by: the objective's median (renderer CPU per event by
 * default, and for figures from reports written before the objective was kept); null where unmeasured.
 */
export function objectiveCost(f: CandidateFigures): number | null {
  return f.objective ? f.objective.median : (f.cpuMsPerMillionEvents?.median ?? null);
}

/** A candidate's figures over these repeats of it (one probe, or a confirmation's rounds). */
export function figuresOf(
  c: Candidate,
  repeats: readonly Repeat[],
  p99BoundMs: number,
  /** The target's other bounds the sustains rule reads (display age: `--p99-display`; input delay: `--input-delay`), and its objective. */
  more: FiguresTarget = {},
): CandidateFigures {
  const measured = repeats.filter((r): r is MeasuredRepeat => r.status === 'ok');
  const { objective = 'renderer', ...bounds } = more;
  const costs = costsOf(repeats);
  const base: Omit<CandidateFigures, 'limit' | 'closeness'> = {
    sustains: pointSustains(c, repeats, { p99BoundMs, ...bounds }),
    cpuMsPerMillionEvents: statOf(measured.map((r) => r.efficiency.rendererCpuMsPerMillionEvents)),
    rendererPercent: statOf(measured.map((r) => r.cpu.tabProcess)),
    mainThreadPercent: statOf(measured.map((r) => r.cpu.tabMainThread)),
    eventsPerSec: statOf(measured.map((r) => r.eventsPerSec)),
    deliveredRatio: statOf(measured.map((r) => r.deliveredRatio)),
    latencyP99Ms: statOf(measured.map((r) => r.latency.p99Ms)),
    verdict: majorityVerdict(measured),
  };
  return {
    ...base,
    limit: limitOf(c, base, measured),
    closeness: closenessOf(base, p99BoundMs),
    costs,
    objective: { name: objective, median: objectiveFigure(costs, objective).median },
  };
}

/** A probe that came nowhere near: not worth confirming (see CLEARLY_BELOW_DELIVERED). */
export function clearlyCannot(f: CandidateFigures, p99BoundMs: number): boolean {
  const s = f.sustains.figures;
  const p99 = decidingP99Ms(s);
  return (
    s.failed > 0 || s.notOpen > 0 || s.shedBatches > 0 || s.deliveredRatio < CLEARLY_BELOW_DELIVERED || p99 === null || p99 > CLEARLY_OVER_P99 * p99BoundMs
  );
}

export { MIN_WINDOW_BATCHES, MAX_LENGTHENED_WINDOW_SEC, windowSecFor } from './sustains.js';

/**
 * Whether a probe that would drop its candidate is too coarse to drop it on: its window held
 * fewer than MIN_WINDOW_BATCHES, or one batch more would have put it past the line it was dropped
 * at (CLEARLY_BELOW_DELIVERED), or could have turned its failure (the rule's `nearThreshold`).
 * The advisor then probes it once more and judges both windows together.
 */
export function worthAnotherProbe(f: CandidateFigures): boolean {
  const s = f.sustains.figures;
  // Only a delivered share or a p99 is window noise; a loss or an input failure needs no second window.
  if ((s.otherFailures ?? 0) > 0) return false;
  if (s.failed > 0 || s.notOpen > 0 || s.shedBatches > 0 || s.fewestBatches == null) return s.nearThreshold === true;
  // One batch of the window's schedule, as a share of what was offered.
  const oneBatch = s.fewestBatches > 0 ? 1 / s.fewestBatches : 1;
  const nearDrop = s.deliveredRatio < CLEARLY_BELOW_DELIVERED && s.deliveredRatio + oneBatch >= CLEARLY_BELOW_DELIVERED;
  return s.nearThreshold === true || nearDrop || s.fewestBatches < MIN_WINDOW_BATCHES;
}

/** How simple a candidate is on one criterion of the order of simplicity: lower is simpler. */
const SIMPLICITY: Record<SimplicityCriterion, (c: Candidate) => number> = {
  connections: (c) => c.concurrency,
  // The main thread before any Worker, then fewer Workers.
  parsing: (c) => (c.parse === 'main' ? 0 : Math.max(1, c.workers)),
  origins: (c) => c.origins,
  // JSON before a binary encoding; binary encodings are alike here.
  encoding: (c) => (c.encoding === 'json' ? 0 : 1),
  // No compression before a compressed stream: one less thing on the server and the client.
  compression: (c) => (c.compression ? 1 : 0),
};

/**
 * A p99 difference among finalists that all meet the bound counts only past this share: the
 * search's tie-break (search.ts clearlyFaster) and the answer's "Lower p99, at a cost" line read
 * it alike. With no margin, a paired CI of 1.05–1.12 (61 against 56 ms at 100 k here, --objective
 * bytes) put a main-thread setup behind a Worker one the order of simplicity prefers less, on 5 ms.
 */
export const P99_MARGIN = 0.1;

/**
 * The first criterion of `order` on which `a` and `b` differ, and which of them is simpler on it;
 * null when they are as simple on every criterion.
 */
export function simplerOn(order: readonly SimplicityCriterion[], a: Candidate, b: Candidate): { criterion: SimplicityCriterion; simpler: 'a' | 'b' } | null {
  for (const criterion of order) {
    const [x, y] = [SIMPLICITY[criterion](a), SIMPLICITY[criterion](b)];
    if (x !== y) return { criterion, simpler: x < y ? 'a' : 'b' };
  }
  return null;
}
