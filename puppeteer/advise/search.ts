/**
 * The advisor's search (issue 24): the cheapest configuration that sustains a target rate under
 * a latency bound, found with the measurer it is given, within a time budget. Pure: it drives an
 * `AdviseMeasurer` (the sweep's repeat measurer in a browser, or a synthetic one in tests) and
 * reads a clock it is given; no Node, no browser.
 *
 * 1. **Screen.** One short probe per candidate, in an order that spends the budget where it
 *    informs: every transport's basic shape at each tick first (one connection, main thread,
 *    JSON), middle tick first, transports interleaved; then, pass after pass, each transport's
 *    best so far (the cheapest that sustained, else the closest) moves one setting at a time
 *    (encoding, tick, connections, origins, parsing), in an order its measured limit suggests;
 *    first, though, it tries the cheapest setting found so far on any transport, where it can.
 *    A probe that clearly cannot sustain (results/advice-figures.ts) is dropped. A transport whose best
 *    came nowhere near while others sustained, or costs far more than the cheapest, stops being
 *    explored.
 * 2. **Confirm.** The cheapest few that sustained in their probe (at most two per transport; the
 *    closest that did not, when too few did) are measured again in paired, interleaved rounds
 *    (the measurer's order), and judged by the sustains rule over their repeats.
 * 3. **Pick.** Among those that sustain, the lowest renderer CPU per event (all threads), read
 *    with the equivalence rule: a candidate whose paired CPU ratio against the cheapest is not
 *    clearly beyond the margin is tied with it, and ties go to the lower median p99. So it never
 *    prefers one over another on noise. Extra rounds (up to maxConfirmRounds) are measured while
 *    such a comparison is unclear and the budget allows.
 * 4. **Headroom.** For the winner, the highest batch it still sustains at the same tick and
 *    connections (find-max.ts), bounded by the budget.
 *
 * The budget: no measurement starts that its estimate says would end past it, and the screen
 * leaves room for the confirmation and a short headroom search. What it could not try is listed
 * with the reason. When nothing sustains, the closest candidate is named with what limited it and
 * what the measurements say would help.
 */
import type { Advice, Candidate, CandidateFigures, Closest, CpuComparison, Headroom, TriedCandidate } from '../../protocol/advice.js';
import type { Margins } from '../../protocol/margins.js';
import { judgeRatio } from '../../results/equivalence.js';
import { DEFAULT_MARGINS } from '../../protocol/margins.js';
import { LIMITS } from '../../protocol/limits.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import { describe, pairedRatio } from '../../results/stats.js';
import { reasonText } from '../../results/sustains.js';
import type { Target } from '../../protocol/target.js';
import { TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { candidateSpace, DEFAULT_SPACE, knobsBetween, withBatch, type CandidateSpace } from './candidates.js';
import type { Knob } from '../../protocol/advice.js';
import { clearlyCannot, figuresOf } from '../../results/advice-figures.js';
import { candidateWords, changeWords, cpuWords, reachText } from '../../results/advice-words.js';
import { findMax } from '../sweep/find-max.js';

/** What the search measures with. Each returns null when the run was interrupted (Ctrl-C). */
export interface AdviseMeasurer {
  /** One short window of a candidate. */
  probe(candidate: Candidate): Promise<Repeat | null>;
  /**
   * One round of a paired confirmation: each candidate once, in an interleaved order the
   * measurer chooses for the round (the sweep's seeded round order); results in the order given.
   */
  confirm(candidates: readonly Candidate[], round: number): Promise<Repeat[] | null>;
}

/** What a measurement is expected to take, s (puppeteer/sweep/estimate.ts for a browser). */
export interface AdviseEstimates {
  probeSec(candidate: Candidate): number;
  /** One confirming repeat. */
  repeatSec(candidate: Candidate): number;
}

export interface AdviseOptions {
  target: Target;
  /** Default: every transport. */
  transports?: readonly Transport[];
  space?: Partial<CandidateSpace>;
  margins?: Margins;
  /** The whole search's budget, s. */
  budgetSec: number;
  /** Seconds since the search (or the command) began. */
  now(): number;
  estimate: AdviseEstimates;
  measurer: AdviseMeasurer;
  /** Candidates confirmed together (default 3). */
  finalists?: number;
  /** Paired rounds of a confirmation (default 3), and at most (default 5) while a CPU comparison is unclear. */
  confirmRounds?: number;
  maxConfirmRounds?: number;
  /** The headroom search goes up to this many times the winner's batch (default 8, within the server's batch limit). */
  headroomFactor?: number;
  /** Called after every measurement: for a progress line. */
  onMeasured?(event: { stage: 'screen' | 'confirm' | 'headroom'; candidates: readonly Candidate[]; elapsedSec: number }): void;
  /**
   * Called once as the search starts, with a function that gives the answer as it would be were
   * the search cut off at that moment: what a report saved between two measurements holds, so a
   * run killed there still says what it measured (and a resume knows what was asked).
   */
  onStart?(snapshot: () => Advice): void;
}

export const DEFAULT_FINALISTS = 3;
export const DEFAULT_CONFIRM_ROUNDS = 3;
export const DEFAULT_MAX_CONFIRM_ROUNDS = 5;
export const DEFAULT_HEADROOM_FACTOR = 8;
/** Finalists per transport: the runner-up is then more often another transport, which says more. */
const PER_TRANSPORT = 2;
/** A transport whose best sustaining candidate costs this many times the cheapest is explored no further. */
const EXPLORE_COST_RATIO = 1.5;
/** Ticks in screening order: the middle one tells most about both neighbours. */
const byMiddleFirst = (ticks: readonly number[]) => {
  const sorted = [...ticks].sort((a, b) => a - b);
  const mid = Math.floor((sorted.length - 1) / 2);
  return [sorted[mid], ...sorted.filter((_, i) => i !== mid)];
};

/** One candidate's record while the search runs. */
interface Rec {
  candidate: Candidate;
  probe: Repeat | null;
  probeFigures: CandidateFigures | null;
  confirm: { round: number; repeat: Repeat }[];
  confirmed: CandidateFigures | null;
  outcome: TriedCandidate['outcome'];
  why: string;
  cpuVsWinner: CpuComparison | null;
  lostOn?: TriedCandidate['lostOn'];
}

/** Why a candidate was not measured when the search was cut off before the screen's end. */
const INTERRUPTED_WHY = 'interrupted before it was measured';

/**
 * The answer of a search cut off before it picked (or before it measured anything): what it
 * measured, nothing decided.
 */
function cutOff(o: { target: Target; transports: readonly Transport[]; margins: Margins; budgetSec: number; elapsedSec: number }, tried: TriedCandidate[], notTried: Advice['notTried']): Advice {
  return {
    target: o.target,
    transports: [...o.transports],
    margins: o.margins,
    budgetSec: o.budgetSec,
    elapsedSec: o.elapsedSec,
    stopped: 'interrupted',
    winner: null,
    runnerUp: null,
    headroom: null,
    rejected: [],
    tried,
    notTried,
    closest: null,
  };
}

/** The answer before the search measured anything: what a report holds from its first save. */
export function adviceBeforeSearch(o: Pick<AdviseOptions, 'target' | 'transports' | 'space' | 'margins' | 'budgetSec'>): Advice {
  const transports = o.transports ?? TRANSPORTS;
  const notTried = candidateSpace(o.target, transports, { ...DEFAULT_SPACE, ...o.space }).map((candidate) => ({ candidate, why: INTERRUPTED_WHY }));
  return cutOff({ target: o.target, transports, margins: o.margins ?? DEFAULT_MARGINS, budgetSec: o.budgetSec, elapsedSec: 0 }, [], notTried);
}

/** A record as the answer lists it, with the confirmation figures to show (null while one is under way). */
function triedOf(r: Rec, confirmed: CandidateFigures | null): TriedCandidate {
  return {
    candidate: r.candidate,
    outcome: r.outcome,
    why: r.why,
    probe: r.probeFigures,
    confirmed,
    cpuVsWinner: r.cpuVsWinner,
    ...(r.lostOn ? { lostOn: r.lostOn } : {}),
    repeats: [...(r.probe ? [{ purpose: 'probe' as const, round: null, repeat: r.probe }] : []), ...r.confirm.map((x) => ({ purpose: 'confirm' as const, round: x.round, repeat: x.repeat }))],
  };
}

/** The figures a candidate is judged by: its confirmation's when it has one, else its probe's. */
const figuresFor = (r: Rec): CandidateFigures | null => r.confirmed ?? r.probeFigures;
const cost = (f: CandidateFigures | null) => f?.cpuMsPerMillionEvents?.median ?? Number.POSITIVE_INFINITY;
const p99 = (f: CandidateFigures | null) => f?.sustains.figures.p99Ms?.median ?? Number.POSITIVE_INFINITY;

/**
 * Better of two records for ranking a transport's best and the screen's order: sustaining before
 * not; among sustaining, cheaper; among the rest, closer.
 */
function better(a: Rec, b: Rec): number {
  const fa = figuresFor(a);
  const fb = figuresFor(b);
  const sa = fa?.sustains.sustains ? 1 : 0;
  const sb = fb?.sustains.sustains ? 1 : 0;
  if (sa !== sb) return sb - sa;
  if (sa) return cost(fa) - cost(fb);
  return (fb?.closeness ?? 0) - (fa?.closeness ?? 0);
}

/** The order in which a transport's best tries its one-setting moves, from what limited it. */
function knobOrder(f: CandidateFigures | null): Knob[] {
  if (!f || f.sustains.sustains) return ['encoding', 'tick', 'connections', 'origins', 'parsing'];
  const limit = f.limit ?? '';
  if (limit.includes('main thread') || limit.startsWith('latency')) return ['parsing', 'encoding', 'tick', 'connections', 'origins'];
  if (limit.startsWith('host-bound')) return ['encoding', 'tick', 'parsing', 'connections', 'origins'];
  return ['connections', 'origins', 'tick', 'encoding', 'parsing'];
}

/** A figure of each confirming round a candidate measured, by round: for paired ratios. */
function byRound(r: Rec, of: (m: MeasuredRepeat) => number | null): Map<number, number> {
  const out = new Map<number, number>();
  for (const x of r.confirm) {
    const v = x.repeat.status === 'ok' ? of(x.repeat) : null;
    if (v !== null && v > 0) out.set(x.round, v);
  }
  return out;
}

/** B ÷ A of a figure over the rounds both measured, paired; null with no common round. */
function paired(a: Rec, b: Rec, of: (m: MeasuredRepeat) => number | null): (ReturnType<typeof pairedRatio> & { rounds: number }) | null {
  const ma = byRound(a, of);
  const mb = byRound(b, of);
  const rounds = [...ma.keys()].filter((k) => mb.has(k));
  if (!rounds.length) return null;
  return {
    ...pairedRatio(
      rounds.map((k) => ma.get(k)!),
      rounds.map((k) => mb.get(k)!),
    ),
    rounds: rounds.length,
  };
}

/** The paired CPU-per-event ratio of B against A over the rounds both measured, read against the margin. */
function cpuComparison(a: Rec, b: Rec, margin: number): CpuComparison | null {
  const r = paired(a, b, (m) => m.efficiency.rendererCpuMsPerMillionEvents);
  if (!r) return null;
  const e = judgeRatio(r, margin, false);
  return { of: b.candidate.id, against: a.candidate.id, ratio: r.ratio, ciLow: r.ciLow, ciHigh: r.ciHigh, rounds: r.rounds, kind: e.kind, margin };
}

/** Whether B's latency p99 is clearly lower than A's: the paired ratio's whole CI below 1 (no margin: any clear difference). */
function clearlyFaster(a: Rec, b: Rec): boolean {
  const r = paired(a, b, (m) => m.latency.p99Ms);
  return r !== null && judgeRatio(r, 0, false).better === 'b';
}

export async function advise(o: AdviseOptions): Promise<Advice> {
  const { target } = o;
  const margins = o.margins ?? DEFAULT_MARGINS;
  const space: CandidateSpace = { ...DEFAULT_SPACE, ...o.space };
  const transports = o.transports ?? TRANSPORTS;
  const all = candidateSpace(target, transports, space);
  const finalistCount = o.finalists ?? DEFAULT_FINALISTS;
  const rounds = o.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS;
  const maxRounds = Math.max(rounds, o.maxConfirmRounds ?? DEFAULT_MAX_CONFIRM_ROUNDS);
  const bound = target.p99BoundMs;
  const recs = new Map<string, Rec>();
  /** Why a candidate was not measured, where the search decided it (else: not reached). */
  const skipped = new Map<string, string>();
  let stopped: Advice['stopped'] = null;
  /** Why the screen ended early, which is why a candidate went unmeasured (the headroom's own stop is not). */
  let screenStopped: Advice['stopped'] = null;
  let round = 0;

  const fits = (sec: number) => o.now() + sec <= o.budgetSec;
  const kept = () => [...recs.values()].filter((r) => r.probeFigures?.sustains.sustains);
  /**
   * Time the screen leaves for what comes after it, estimated at the candidate about to be
   * probed: confirming the finalists it would have now (at least one) for the minimum rounds, and
   * a short headroom search (two probes and a confirmation), of which no more than 15% of the
   * budget: the answer comes before its headroom.
   */
  const reserveSec = (c: Candidate) => {
    const k = Math.min(finalistCount, Math.max(1, kept().length));
    return k * rounds * o.estimate.repeatSec(c) + Math.min(headroomReserve(c), 0.15 * o.budgetSec);
  };
  const note = (stage: 'screen' | 'confirm' | 'headroom', cs: readonly Candidate[]) => o.onMeasured?.({ stage, candidates: cs, elapsedSec: o.now() });
  /** Set once the pick is made (step 3): from then on a snapshot is the answer without its headroom. */
  let picked: ((headroom: Headroom | null, stopped: Advice['stopped']) => Advice) | null = null;
  o.onStart?.(() => {
    if (picked) return picked(null, 'interrupted');
    // Before the pick: a candidate under confirmation is not yet confirmed (its figures so far are not a verdict).
    const tried = [...recs.values()].map((r) => triedOf(r, r.outcome === 'kept' || r.outcome === 'marginal' ? null : r.confirmed));
    const notTried = all.filter((c) => !recs.has(c.id)).map((c) => ({ candidate: c, why: skipped.get(c.id) ?? INTERRUPTED_WHY }));
    return cutOff({ target, transports, margins, budgetSec: o.budgetSec, elapsedSec: o.now() }, tried, notTried);
  });

  const rec = (c: Candidate): Rec => {
    let r = recs.get(c.id);
    if (!r) recs.set(c.id, (r = { candidate: c, probe: null, probeFigures: null, confirm: [], confirmed: null, outcome: 'dropped', why: '', cpuVsWinner: null }));
    return r;
  };

  /** One probe; false when the budget or an interruption ends the screen. */
  const probe = async (c: Candidate): Promise<boolean> => {
    if (recs.get(c.id)?.probe) return true;
    if (!fits(o.estimate.probeSec(c) + reserveSec(c))) {
      stopped = 'budget';
      return false;
    }
    const repeat = await o.measurer.probe(c);
    if (!repeat) {
      stopped = 'interrupted';
      return false;
    }
    const r = rec(c);
    r.probe = repeat;
    r.probeFigures = figuresOf(c, [repeat], bound);
    const words = reasonText(r.probeFigures.sustains);
    if (r.probeFigures.sustains.sustains) [r.outcome, r.why] = ['kept', `sustained in its probe: ${words}`];
    else if (clearlyCannot(r.probeFigures, bound)) [r.outcome, r.why] = ['dropped', `clearly cannot sustain: ${words}`];
    else [r.outcome, r.why] = ['marginal', `did not sustain in its probe, but not clearly: ${words}`];
    note('screen', [c]);
    return true;
  };

  /** The candidate of transport `t` with `c`'s settings (origins as near as `t` has them); none when `t` cannot take them. */
  const twinOf = (c: Candidate, t: Transport): Candidate | undefined =>
    t === c.transport
      ? undefined
      : all
          .filter((x) => x.transport === t && knobsBetween(c, x).every((k) => k === 'origins'))
          .sort((a, b) => Math.abs(a.origins - c.origins) - Math.abs(b.origins - c.origins))[0];

  // 1a. Every transport's basic shape at each tick: main thread, JSON, one origin, on the fewest
  // connections that offer the rate at that tick in whole rows.
  const plain = (c: Candidate) => c.parse === 'main' && c.origins === 1 && c.encoding === 'json';
  const basicAt = (t: Transport, tick: number) => all.filter((x) => x.transport === t && x.intervalMs === tick && plain(x)).sort((a, b) => a.concurrency - b.concurrency)[0];
  screen: {
    for (const tick of byMiddleFirst(space.ticksMs)) {
      for (const t of transports) {
        const c = basicAt(t, tick);
        if (c && !(await probe(c))) break screen;
      }
    }
    // Rates too low for whole rows at any tick offer one row per message at a tick of their own.
    for (const t of transports) {
      const own = [...new Set(all.filter((x) => x.transport === t && !space.ticksMs.includes(x.intervalMs)).map((x) => x.intervalMs))];
      for (const tick of own) if (!(await probe(basicAt(t, tick)))) break screen;
    }

    // 1b. Passes: each transport's best moves one setting, in the order its limit suggests.
    for (;;) {
      const bests = transports
        .map((t) => [...recs.values()].filter((r) => r.candidate.transport === t && r.probe).sort(better)[0])
        .filter((r): r is Rec => r !== undefined)
        .sort(better);
      const cheapest = Math.min(...kept().map((r) => cost(r.probeFigures)));
      // The cheapest that sustained anywhere: `better` ranks sustaining first, so it heads `bests`.
      const leader = bests[0]?.probeFigures?.sustains.sustains ? bests[0] : undefined;
      let moved = false;
      for (const best of bests) {
        // The cheapest setting found so far, tried on this transport too, before it can be called
        // dear: a saving that came from a setting (an encoding, a tick, Workers) is the setting's,
        // not the transport's. (On 2026-11-27 grpc-web reached Arrow first, ws and fetch were
        // called dear on their JSON costs, and ws with Arrow was never measured.)
        const twin = leader ? twinOf(leader.candidate, best.candidate.transport) : undefined;
        if (twin && !recs.get(twin.id)?.probe) {
          skipped.delete(twin.id);
          if (!(await probe(twin))) break screen;
          moved = true;
          continue;
        }
        const f = best.probeFigures;
        const neighbours = all.filter((c) => c.transport === best.candidate.transport && !recs.get(c.id)?.probe && knobsBetween(best.candidate, c).length === 1);
        if (!neighbours.length) continue;
        // Not worth the budget: nowhere near while others sustain, or far dearer than the cheapest.
        const hopeless = Number.isFinite(cheapest) && f && !f.sustains.sustains && clearlyCannot(f, bound);
        const dear = Number.isFinite(cheapest) && f?.sustains.sustains && cost(f) > EXPLORE_COST_RATIO * cheapest;
        if (hopeless || dear) {
          const why = hopeless
            ? `not explored: ${best.candidate.transport}'s best came nowhere near (${reasonText(f!.sustains)}) while other transports sustained`
            : `not explored: ${best.candidate.transport}'s best costs ${Math.round((cost(f) / cheapest - 1) * 100)}% more renderer CPU per event than the cheapest that sustained`;
          for (const c of neighbours) if (!skipped.has(c.id)) skipped.set(c.id, why);
          continue;
        }
        const order = knobOrder(f);
        const next = neighbours.sort((a, b) => order.indexOf(knobsBetween(best.candidate, a)[0]) - order.indexOf(knobsBetween(best.candidate, b)[0]))[0];
        skipped.delete(next.id);
        if (!(await probe(next))) break screen;
        moved = true;
      }
      if (!moved) break;
    }
  }
  screenStopped = stopped;

  // 2. Confirm the cheapest that sustained (the closest that did not, when too few did), in paired rounds.
  const confirmedRecs: Rec[] = [];
  let winner: Rec | null = null;
  let ranked: Rec[] = [];
  const pickGroup = (): Rec[] => {
    const pool = [...recs.values()].filter((r) => r.probe && !r.confirmed && (r.outcome === 'kept' || r.outcome === 'marginal'));
    const order = [...pool.filter((r) => r.outcome === 'kept').sort(better), ...pool.filter((r) => r.outcome === 'marginal').sort(better)];
    const group: Rec[] = [];
    for (const r of order) {
      if (group.length >= finalistCount) break;
      if (group.filter((g) => g.candidate.transport === r.candidate.transport).length >= PER_TRANSPORT && order.length > finalistCount) continue;
      group.push(r);
    }
    // Fewer finalists rather than fewer rounds: a confirmation needs its rounds for a CI.
    while (group.length > 1 && !fits(rounds * group.reduce((a, r) => a + o.estimate.repeatSec(r.candidate), 0))) group.pop();
    return group;
  };
  while (!winner && stopped !== 'interrupted') {
    const group = pickGroup();
    if (!group.length) break;
    const roundSec = group.reduce((a, r) => a + o.estimate.repeatSec(r.candidate), 0);
    let measuredRounds = 0;
    for (;;) {
      const more = measuredRounds < rounds || (measuredRounds < maxRounds && unclear(group) && fits(roundSec + headroomReserve(group[0].candidate)));
      if (!more) break;
      if (!fits(roundSec)) {
        stopped = 'budget';
        break;
      }
      const repeats = await o.measurer.confirm(
        group.map((r) => r.candidate),
        round,
      );
      if (!repeats) {
        stopped = 'interrupted';
        break;
      }
      group.forEach((r, i) => r.confirm.push({ round, repeat: repeats[i] }));
      round++;
      measuredRounds++;
      for (const r of group) r.confirmed = figuresOf(r.candidate, r.confirm.map((x) => x.repeat), bound);
      note('confirm', group.map((r) => r.candidate));
    }
    if (!measuredRounds) break;
    confirmedRecs.push(...group);
    for (const r of group) [r.outcome, r.why] = ['finalist', r.confirmed!.sustains.sustains ? 'sustained over its repeats' : `not sustained over its repeats: ${reasonText(r.confirmed!.sustains)}`];
    ranked = rank(confirmedRecs.filter((r) => r.confirmed?.sustains.sustains));
    winner = ranked[0] ?? null;
    if (stopped) break;
  }

  /** The sustaining finalists in order: the cheapest (none clearly cheaper), its ties by p99, then the rest by cost. */
  function rank(sustaining: Rec[]): Rec[] {
    if (!sustaining.length) return [];
    const byCost = [...sustaining].sort((a, b) => cost(a.confirmed) - cost(b.confirmed));
    let cheapest = byCost[0];
    // The median may disagree with the paired rounds: a candidate clearly cheaper than it, paired, takes its place.
    const vs = (r: Rec) => cpuComparison(cheapest, r, margins.cpuPerEvent);
    for (let moves = 0; moves < byCost.length; moves++) {
      const clearer = byCost.find((r) => r !== cheapest && vs(r)?.kind === 'different' && vs(r)!.ratio < 1);
      if (!clearer) break;
      cheapest = clearer;
    }
    // Finalists of one group share their rounds (a later group is confirmed only when no earlier
    // one sustained), so every comparison here is paired.
    const tied = byCost.filter((r) => r === cheapest || vs(r)?.kind !== 'different');
    const rest = byCost.filter((r) => !tied.includes(r));
    // A tie on CPU goes to latency only where latency clearly differs: the one with the lowest
    // median p99 among those whose paired p99 is clearly below the cheapest's; else the cheapest.
    const faster = tied.filter((r) => r !== cheapest && clearlyFaster(cheapest, r)).sort((a, b) => p99(a.confirmed) - p99(b.confirmed));
    const first = faster[0] ?? cheapest;
    return [first, ...tied.filter((r) => r !== first), ...rest];
  }

  /** Whether a sustaining finalist's CPU against the cheapest is still unclear: more rounds could settle it. */
  function unclear(group: Rec[]): boolean {
    const s = rank(group.filter((r) => r.confirmed?.sustains.sustains));
    return s.slice(1).some((r) => cpuComparison(s[0], r, margins.cpuPerEvent)?.kind === 'unclear');
  }

  /** Time a headroom search needs at least: two probes and one confirmation. */
  function headroomReserve(c: Candidate): number {
    return 2 * o.estimate.probeSec(c) + rounds * o.estimate.repeatSec(c);
  }

  // 3. The winner, the runner-up and why the others were not chosen.
  const runnerUp = ranked[1] ?? null;
  if (winner) {
    const w = winner;
    for (const r of confirmedRecs) if (r !== w && r.confirmed) r.cpuVsWinner = cpuComparison(w, r, margins.cpuPerEvent);
    const byLatency = ranked.some((r) => r !== w && r.cpuVsWinner?.kind !== 'different' && cost(r.confirmed) < cost(w.confirmed));
    [w.outcome, w.why] = [
      'winner',
      byLatency
        ? 'sustained over its repeats; tied on renderer CPU per event within the margin with a cheaper median, and a clearly lower p99'
        : 'sustained over its repeats at the lowest renderer CPU per event',
    ];
    for (const r of ranked.slice(1)) {
      const c = r.cpuVsWinner;
      const tiedWithWinner = c !== null && c.kind !== 'different';
      // A tie goes to the winner on latency when the winner was picked for its p99 (byLatency),
      // else on its lower median cost: the words name which one decided.
      r.lostOn = !tiedWithWinner ? 'cpu' : byLatency ? 'p99' : 'median-cpu';
      r.why = !tiedWithWinner
        ? `sustained, but against the winner ${c ? cpuWords(c) : 'dearer'}`
        : byLatency
          ? `sustained; against the winner ${c ? cpuWords(c) : 'CPU not compared'}; the winner's clearly lower p99 decided (median ${Math.round(p99(w.confirmed))} ms against ${Math.round(p99(r.confirmed))} ms)`
          : `sustained; against the winner ${c ? cpuWords(c) : 'CPU not compared'}; the winner's lower median decided (${Math.round(cost(w.confirmed))} against ${Math.round(cost(r.confirmed))} ms of renderer CPU per million events) and its p99 was not clearly higher`;
    }
    if (runnerUp) runnerUp.outcome = 'runner-up';
  }
  for (const r of recs.values()) {
    if (r.outcome !== 'kept') continue;
    r.outcome = 'dropped';
    r.why = winner
      ? `sustained in its probe, but not among the ${finalistCount} cheapest confirmed (${Math.round(cost(r.probeFigures))} ms of renderer CPU per million events in one window)`
      : 'sustained in its probe, not confirmed: the time budget ran out';
  }

  picked = answer;

  // 4. Headroom: the winner's highest batch at the same tick and connections.
  let headroom: Headroom | null = null;
  if (winner && stopped !== 'interrupted') headroom = await headroomOf(winner.candidate);

  async function headroomOf(w: Candidate): Promise<Headroom | null> {
    const max = Math.min(LIMITS.batch.max, w.batch * (o.headroomFactor ?? DEFAULT_HEADROOM_FACTOR));
    if (max <= w.batch) return null;
    const repeats: Headroom['repeats'] = [];
    let interrupted = false;
    const out = await findMax({
      min: w.batch,
      max,
      integer: true,
      maxProbes: 6,
      maxConfirms: 3,
      // A probe is worth starting only with room for the confirmation it may lead to.
      canStart: (kind, value) => {
        const c = withBatch(w, value);
        return !interrupted && fits((kind === 'probe' ? o.estimate.probeSec(c) : 0) + rounds * o.estimate.repeatSec(c));
      },
      probe: async (batch) => {
        const c = withBatch(w, batch);
        const repeat = await o.measurer.probe(c);
        if (!repeat) {
          interrupted = true;
          return { sustainable: false, eventsPerSec: null, reason: 'interrupted' };
        }
        repeats.push({ batch, purpose: 'probe', repeat });
        note('headroom', [c]);
        const f = figuresOf(c, [repeat], bound);
        return { sustainable: f.sustains.sustains, eventsPerSec: f.eventsPerSec?.median ?? null, reason: reasonText(f.sustains) };
      },
      confirm: async (batch) => {
        const c = withBatch(w, batch);
        const got: Repeat[] = [];
        for (let i = 0; i < rounds && !interrupted; i++) {
          const r = await o.measurer.confirm([c], round++);
          if (!r) interrupted = true;
          else {
            got.push(r[0]);
            repeats.push({ batch, purpose: 'confirm', repeat: r[0] });
          }
        }
        note('headroom', [c]);
        if (interrupted || !got.length) return { sustainable: false, eventsPerSec: describe([0]), reason: 'interrupted' };
        const f = figuresOf(c, got, bound);
        return { sustainable: f.sustains.sustains, eventsPerSec: f.eventsPerSec ?? describe([0]), reason: reasonText(f.sustains) };
      },
    });
    if (interrupted) stopped = 'interrupted';
    else if (out.stopped === 'budget') stopped ??= 'budget';
    // The winner's own batch was confirmed already: the knee is at least that.
    const knee = out.knee?.value ?? w.batch;
    const at = withBatch(w, knee);
    return {
      batch: knee,
      eventsPerSec: at.offeredEventsPerSec,
      atLeast: knee === max,
      firstPast: out.firstPast && { batch: out.firstPast.value, eventsPerSec: withBatch(w, out.firstPast.value).offeredEventsPerSec, reason: out.firstPast.reason },
      probes: out.probes.length,
      confirmations: out.confirmations.length,
      stopped: out.stopped,
      repeats,
    };
  }

  return answer(headroom, stopped);

  /** The answer from the records as they stand, with this headroom and reason to have stopped. Decides nothing. */
  function answer(headroomNow: Headroom | null, stoppedNow: Advice['stopped']): Advice {
    // When nothing sustained: the closest, what limited it, what the measurements say would help.
    const closest = winner ? null : closestOf([...recs.values()]);
    // Every candidate measured and not chosen: the finalists first (the runner-up is not rejected),
    // then the rest best first, so a transport's first entry is its best attempt (the words name
    // that one; in the order measured it was the transport's first, plain JSON probe).
    const rest = [...recs.values()].filter((r) => !confirmedRecs.includes(r)).sort(better);
    const rejectedOrder = [...confirmedRecs, ...rest].filter((r) => r !== winner && r !== runnerUp);
    return {
      target,
      transports: [...transports],
      margins,
      budgetSec: o.budgetSec,
      elapsedSec: o.now(),
      stopped: stoppedNow,
      winner: winner && { candidate: winner.candidate, figures: winner.confirmed! },
      runnerUp: runnerUp && { candidate: runnerUp.candidate, figures: runnerUp.confirmed!, cpuVsWinner: runnerUp.cpuVsWinner },
      headroom: headroomNow,
      rejected: rejectedOrder.map((r) => ({ candidateId: r.candidate.id, transport: r.candidate.transport, reason: r.why })),
      tried: [...recs.values()].map((r) => triedOf(r, r.confirmed)),
      notTried: all.filter((c) => !recs.has(c.id)).map((c) => ({ candidate: c, why: skipped.get(c.id) ?? notTriedWhy() })),
      closest,
    };
  }

  /** Why the candidates nobody decided against went unmeasured: the screen's reason to stop, or the search's order. */
  function notTriedWhy(): string {
    return screenStopped === 'interrupted'
      ? INTERRUPTED_WHY
      : screenStopped === 'budget'
        ? 'the time budget ran out before it was measured'
        : "not reached: the search moves one setting at a time from each transport's best, and no measured neighbour led here";
  }

  function closestOf(list: Rec[]): Closest | null {
    const measured = list.filter((r) => figuresFor(r));
    if (!measured.length) return null;
    const best = [...measured].sort(better)[0];
    const f = figuresFor(best)!;
    const helps: string[] = [];
    // Settings that got further than their one-setting neighbours: the direction that helped.
    for (const n of measured) {
      if (n === best || n.candidate.transport !== best.candidate.transport) continue;
      const knobs = knobsBetween(n.candidate, best.candidate);
      const fn = figuresFor(n)!;
      if (knobs.length !== 1 || fn.closeness >= f.closeness - 0.01) continue;
      helps.push(`${changeWords(knobs[0], n.candidate, best.candidate)} got further: ${reachText(f)} against ${reachText(fn)}`);
    }
    // Another transport that came next.
    const other = measured.filter((r) => r.candidate.transport !== best.candidate.transport).sort(better)[0];
    if (other) helps.push(`the closest other transport: ${candidateWords(other.candidate)}, ${reachText(figuresFor(other)!)}`);
    const untried = all.filter((c) => c.transport === best.candidate.transport && !recs.has(c.id) && knobsBetween(best.candidate, c).length === 1);
    const why = notTriedWhy();
    if (untried.length) helps.push(`not measured (${why.startsWith('not reached') ? 'not reached' : why}): ${untried.map((c) => changeWords(knobsBetween(best.candidate, c)[0], best.candidate, c)).join('; ')}`);
    return { candidate: best.candidate, figures: f, limit: f.limit ?? reasonText(f.sustains), helps };
  }
}
