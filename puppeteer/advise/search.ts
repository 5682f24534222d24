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
 * 3. **Pick.** Among those that sustain, a finalist dearer per event (by the objective,
 *    `--objective`: renderer CPU per event, all threads, by default; results/costs.ts) than
 *    another on their paired rounds (the CI wholly above 1 and not inside the margin, results/equivalence.ts
 *    costReading) is rejected as dearer; of the rest, one whose paired p99 is clearly higher than
 *    another's (the per-round ratio's CI above 1) loses on latency. What is left is a set the
 *    evidence cannot order: each `equivalent` to the winner (CI inside ±margin) or `cannot-tell`
 *    (CI straddling the margin). The winner among them is the simplest by the order of simplicity
 *    (`prefer`: fewer connections, the main thread before Workers, one origin, JSON before binary),
 *    then headroom, then a stated order of last resort (the transports' order, then the shorter
 *    tick). Never an unpaired median. Extra rounds (up to maxConfirmRounds) are measured while a
 *    finalist cannot be told from the winner and the budget allows.
 * 4. **Headroom.** For the winner and the runner-up, the highest batch each still sustains at the
 *    same tick and connections (find-max.ts), bounded by the budget, with what capped it; when the
 *    two were as simple, the one that clearly sustains more is the winner.
 *
 * The machine: the measurer's yardstick (the in-page decoding ceilings the sweep reads every
 * round) is read before the screen, between the stages and at the end. The screen's anchor (the
 * first candidate it probed that kept up with its rate) is probed again every ANCHOR_EVERY
 * probes through the screen and once more as it ends: from its readings, a drift curve
 * (results/machine-drift.ts driftCurveOf), and every screening decision (each transport's best,
 * pruning, the leader, the finalists) compares probe costs divided by the drift at their time
 * (`screenCost`), never raw costs taken minutes apart. The answer says how far the machine moved
 * and what correction the readings gave (`drift`). The sustains rule is never corrected: a probe
 * that kept up did so on the machine it ran on. Confirmations are paired by round.
 *
 * The budget: no measurement starts that its estimate says would end past it (with room for the
 * readings still to come), and the screen leaves room for the anchor's re-probe, the
 * confirmation and a short headroom search. What it could not try is listed with the reason.
 * When nothing sustains, the closest candidate is named with what limited it and what the
 * measurements say would help.
 */
import {
  DEFAULT_PREFER,
  type Advice,
  type AnchorDrift,
  type AnchorReading,
  type Candidate,
  type CandidateFigures,
  type Closest,
  type CpuComparison,
  type EquivalentCandidate,
  type Headroom,
  type HeadroomLimit,
  type SimplicityCriterion,
  MachineDrift,
  type TriedCandidate,
  type Knob,
  type NotMeasuredReason,
  type SearchAccount,
  type SearchStage,
  type YardstickMoment,
  type YardstickReading,
} from '../../protocol/advice.js';
import { NOT_MEASURED_REASONS } from '../../protocol/advice.js';
import { type Margins, DEFAULT_MARGINS } from '../../protocol/margins.js';
import { costReading, judgeRatio } from '../../results/equivalence.js';
import { LIMITS } from '../../protocol/limits.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import { describe, pairedRatio } from '../../results/stats.js';
import { decidingP99Ms, reasonText } from '../../results/sustains.js';
import { headroomShown, type HeadroomShown } from '../../results/headroom.js';
import { ADVISE_TRANSPORTS, adviseTicksMs, type Objective, type Target } from '../../protocol/target.js';
import type { Transport } from '../../protocol/wire.js';
import { candidateSpace, DEFAULT_SPACE, knobsBetween, spaceFor, stepsFrom, withBatch, type CandidateSpace } from './candidates.js';
import { clearlyCannot, figuresOf, objectiveCost, P99_MARGIN, simplerOn, sustainsMore, worthAnotherProbe } from '../../results/advice-figures.js';
import { costText, OBJECTIVE_WORDS, repeatCost } from '../../results/costs.js';
import { candidateWords, changeWords, cpuWords, lostOnWords, reachText } from '../../results/advice-words.js';
import { anchorDriftOf, driftCurveOf, keptUp, measuredBoth } from '../../results/machine-drift.js';
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
  /**
   * The machine's yardstick (the in-page decoding ceilings), read at `at`: what it measured, or
   * the error it failed with (the search goes on); null when interrupted. Absent: the search takes
   * no readings (a synthetic measurer).
   */
  yardstick?(at: YardstickMoment): Promise<YardstickTaken | null>;
}

/** A yardstick reading as the measurer takes it; the search gives it its place and moment. */
export type YardstickTaken = Omit<YardstickReading, 'index' | 'at'>;

/** What a measurement is expected to take, s (puppeteer/sweep/estimate.ts for a browser). */
export interface AdviseEstimates {
  probeSec(candidate: Candidate): number;
  /** One confirming repeat. */
  repeatSec(candidate: Candidate): number;
  /** One yardstick reading; absent with a measurer that takes none. */
  yardstickSec?(): number;
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
  /**
   * The order of simplicity that chooses among finalists the evidence cannot order (`--prefer`):
   * default every criterion in protocol/advice.ts SIMPLICITY_CRITERIA's order.
   */
  prefer?: readonly SimplicityCriterion[];
  /** Called after every measurement: for a progress line. */
  onMeasured?(event: { stage: 'screen' | 'confirm' | 'headroom'; candidates: readonly Candidate[]; elapsedSec: number }): void;
  /**
   * Called once as the search starts, with a function that gives the answer as it would be were
   * the search cut off at that moment: what a report saved between two measurements holds, so a
   * run killed there still says what it measured (and a resume knows what was asked).
   */
  onStart?(snapshot: () => Advice): void;
  /**
   * Called when the machine's drift has news: a yardstick reading taken, or the anchor's re-probe
   * decided (taken or skipped). For the progress lines; the answer carries the same in `drift`.
   */
  onDrift?(drift: MachineDrift, what: 'reading' | 'anchor'): void;
}

export const DEFAULT_FINALISTS = 3;
export const DEFAULT_CONFIRM_ROUNDS = 3;
export const DEFAULT_MAX_CONFIRM_ROUNDS = 5;
export const DEFAULT_HEADROOM_FACTOR = 8;
/** Finalists per transport: the runner-up is then more often another transport, which says more. */
const PER_TRANSPORT = 2;
/** A transport whose best sustaining candidate costs this many times the cheapest (drift-corrected) is explored no further. */
const EXPLORE_COST_RATIO = 1.5;
/**
 * The anchor is probed again after every this many probes of the screen: one probe in seven,
 * about 14% of the screen's probes, within the ~15% the drift curve is worth (issue 34). At
 * about 6–10 s a probe that is a reading every 40–70 s, often enough to follow a machine whose
 * speed moved 2× within a 10-minute run, and three readings or more in any screen longer than
 * two minutes, enough for the curve to smooth one noisy reading away.
 */
const ANCHOR_EVERY = 6;
/**
 * How far apart two drift-corrected probe costs can read on noise alone, as a factor: one window's
 * log cost has sd 0.10 here, two windows' log ratio 0.14 (issue 34), and two sd of that is ×1.32.
 * Candidates within it of the cheapest are confirmed together (up to MAX_FINALISTS), so that the
 * paired rounds, not one window each, decide among them.
 */
const SCREEN_SPREAD = Math.exp(2 * 0.1 * Math.SQRT2);
/** The most finalists confirmed together when several lie within the screen's noise of the cheapest. */
const MAX_FINALISTS = 5;
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
  /** When its probe ran, on the search's clock (the window's middle; over both windows when there was a second), s: where the drift curve is read for it. */
  probeAtSec: number;
  /** A second probe, taken when the first would have dropped the candidate on too coarse a window (worthAnotherProbe). */
  reprobe?: Repeat;
  /** The probe's figures: over both probes when there was a second. */
  probeFigures: CandidateFigures | null;
  confirm: { round: number; repeat: Repeat }[];
  confirmed: CandidateFigures | null;
  outcome: TriedCandidate['outcome'];
  why: string;
  cpuVsWinner: CpuComparison | null;
  lostOn?: TriedCandidate['lostOn'];
  criterion?: SimplicityCriterion;
  dearerThan?: CpuComparison;
  slowerThan?: string;
  p99VsWinner?: TriedCandidate['p99VsWinner'];
}

/** Why a candidate was not measured when the search was cut off before the screen's end. */
const INTERRUPTED_WHY = 'interrupted before it was measured';
/** How many candidate ids the account keeps as examples of each reason. */
const EXAMPLES = 3;

/**
 * The account of a search (issue 34): how it ended, where it stopped, and what it did not
 * measure counted by why, from the answer's `notTried`: one place derives it, so the two agree.
 */
function accountOf(
  stopped: Advice['stopped'],
  stoppedIn: SearchStage | null,
  screen: SearchAccount['screen'],
  measurements: SearchAccount['measurements'],
  notTried: Advice['notTried'],
): SearchAccount {
  const notMeasured = Object.fromEntries(NOT_MEASURED_REASONS.map((k) => [k, { count: 0, examples: [] as string[] }])) as SearchAccount['notMeasured'];
  for (const n of notTried) {
    const bucket = notMeasured[n.reason ?? 'notReached'];
    bucket.count++;
    if (bucket.examples.length < EXAMPLES) bucket.examples.push(n.candidate.id);
  }
  return { ended: stopped ?? 'converged', stoppedIn: stopped ? stoppedIn : null, screen, measurements, notMeasured };
}

/**
 * The answer of a search cut off before it picked (or before it measured anything): what it
 * measured, nothing decided.
 */
function cutOff(
  o: { target: Target; transports: readonly Transport[]; margins: Margins; budgetSec: number; elapsedSec: number; prefer: readonly SimplicityCriterion[] },
  tried: TriedCandidate[],
  notTried: Advice['notTried'],
  account: SearchAccount,
): Advice {
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
    equivalent: [],
    prefer: [...o.prefer],
    search: account,
  };
}

/** The answer before the search measured anything: what a report holds from its first save. */
export function adviceBeforeSearch(o: Pick<AdviseOptions, 'target' | 'transports' | 'space' | 'margins' | 'budgetSec' | 'prefer'>): Advice {
  const transports = o.transports ?? ADVISE_TRANSPORTS;
  const notTried = candidateSpace(o.target, transports, spaceFor(o.target, { ...DEFAULT_SPACE, ...o.space })).map((candidate) => ({
    candidate,
    why: INTERRUPTED_WHY,
    reason: 'interrupted' as const,
  }));
  const account = accountOf('interrupted', 'screen', null, { probes: 0, confirmRounds: 0, headroomRepeats: 0 }, notTried);
  return cutOff(
    { target: o.target, transports, margins: o.margins ?? DEFAULT_MARGINS, budgetSec: o.budgetSec, elapsedSec: 0, prefer: o.prefer ?? DEFAULT_PREFER },
    [],
    notTried,
    account,
  );
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
    ...(r.criterion ? { criterion: r.criterion } : {}),
    ...(r.dearerThan ? { dearerThan: r.dearerThan } : {}),
    ...(r.slowerThan ? { slowerThan: r.slowerThan } : {}),
    ...(r.p99VsWinner ? { p99VsWinner: r.p99VsWinner } : {}),
    repeats: [
      ...(r.probe ? [{ purpose: 'probe' as const, round: null, repeat: r.probe }] : []),
      ...(r.reprobe ? [{ purpose: 'probe' as const, round: null, repeat: r.reprobe }] : []),
      ...r.confirm.map((x) => ({ purpose: 'confirm' as const, round: x.round, repeat: x.repeat })),
    ],
  };
}

/** The figures a candidate is judged by: its confirmation's when it has one, else its probe's. */
const figuresFor = (r: Rec): CandidateFigures | null => r.confirmed ?? r.probeFigures;
/** What the search minimises, lower is better: the objective's median (`--objective`; renderer CPU per event by default). */
const cost = (f: CandidateFigures | null) => (f ? objectiveCost(f) : null) ?? Number.POSITIVE_INFINITY;
/** The objective a record's figures were read by (the search's: figuresOf is given the target's). */
const objectiveOf = (r: Rec): Objective => r.confirmed?.objective?.name ?? r.probeFigures?.objective?.name ?? 'renderer';
/** The search's objective in words: `renderer CPU per event`, `bytes per event`; and its unit. */
const costWords = (s: Search) => OBJECTIVE_WORDS[s.target.objective ?? 'renderer'];
const p99 = (f: CandidateFigures | null) => (f ? decidingP99Ms(f.sustains.figures) : null) ?? Number.POSITIVE_INFINITY;

/**
 * A record's cost as the screen compares it: its probe's cost divided by the machine's drift at
 * the probe's time (the anchor's curve), so probes minutes apart compare as if taken together.
 * A confirmed record's is its confirmation's median, which only its own paired rounds judge.
 */
function screenCost(s: Search, r: Rec): number {
  if (r.confirmed) return cost(r.confirmed);
  return cost(r.probeFigures) / s.drift(r.probeAtSec);
}

/**
 * Better of two records for ranking a transport's best and the screen's order: sustaining before
 * not; among sustaining, cheaper (drift-corrected, screenCost); among the rest, closer.
 */
const better =
  (s: Search) =>
  (a: Rec, b: Rec): number => {
    const fa = figuresFor(a);
    const fb = figuresFor(b);
    const sa = fa?.sustains.sustains ? 1 : 0;
    const sb = fb?.sustains.sustains ? 1 : 0;
    if (sa !== sb) return sb - sa;
    if (sa) return screenCost(s, a) - screenCost(s, b);
    return (fb?.closeness ?? 0) - (fa?.closeness ?? 0);
  };

/** The order in which a transport's best tries its one-setting moves, from what limited it. */
function knobOrder(f: CandidateFigures | null, objective: Objective = 'renderer'): Knob[] {
  // Minimising bytes on the wire, only the encoding and compression move the figure: try them first.
  if (objective === 'bytes' && (!f || f.sustains.sustains)) return ['encoding', 'compression', 'tick', 'connections', 'origins', 'parsing'];
  // Compression last: it moves the decoding out of the renderer's sight (the network service)
  // and costs the host CPU; it is worth a probe only once the rest has settled.
  if (!f || f.sustains.sustains) return ['encoding', 'tick', 'connections', 'origins', 'parsing', 'compression'];
  const limit = f.limit ?? '';
  if (limit.includes('main thread') || limit.startsWith('latency')) return ['parsing', 'encoding', 'tick', 'connections', 'origins', 'compression'];
  if (limit.startsWith('host-bound')) return ['encoding', 'tick', 'parsing', 'connections', 'origins', 'compression'];
  return ['connections', 'origins', 'tick', 'encoding', 'parsing', 'compression'];
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

/** The paired ratio of the objective's cost per event (renderer CPU by default) of B against A over the rounds both measured, read against the margin. */
function cpuComparison(a: Rec, b: Rec, margin: number): CpuComparison | null {
  const objective = objectiveOf(a);
  const r = paired(a, b, (m) => repeatCost(m, objective));
  if (!r) return null;
  const e = judgeRatio(r, margin, false);
  return {
    ...(objective === 'renderer' ? {} : { objective }),
    of: b.candidate.id,
    against: a.candidate.id,
    ratio: r.ratio,
    ciLow: r.ciLow,
    ciHigh: r.ciHigh,
    rounds: r.rounds,
    kind: e.kind,
    margin,
  };
}

/** Whether B's latency p99 is clearly lower than A's: the paired ratio's whole CI below 1 ÷ (1 + P99_MARGIN). */
function clearlyFaster(a: Rec, b: Rec): boolean {
  const r = paired(a, b, (m) => m.latency.p99Ms);
  return r !== null && judgeRatio(r, P99_MARGIN, false).better === 'b';
}

/**
 * One search as it runs: what it was asked, every candidate's record, and what it has decided so
 * far. The stages below each take it and move it on; the answer is read from it (answerOf).
 */
interface Search {
  o: AdviseOptions;
  target: Target;
  margins: Margins;
  space: CandidateSpace;
  transports: readonly Transport[];
  /** Every candidate the search may measure. */
  all: Candidate[];
  finalistCount: number;
  /** Paired rounds of a confirmation, and at most this many while a CPU comparison is unclear. */
  rounds: number;
  maxRounds: number;
  bound: number;
  recs: Map<string, Rec>;
  /** Transports explored no further (nextMove), with why; a transport that moves again leaves it. */
  pruned: Map<Transport, { reason: 'prunedDear' | 'prunedHopeless'; why: string }>;
  stopped: Advice['stopped'];
  /** The stage under way, and the first one the budget or an interruption stopped. */
  stage: SearchStage;
  stoppedIn: SearchStage | null;
  /** When and how the screen ended (its `stopped`, which is why a candidate went unmeasured); null while it runs. */
  screenEnded: SearchAccount['screen'];
  /** The screen's basic shapes are all probed: from then on it explores. */
  basicsDone: boolean;
  /** The moves the screen had next when the budget ended it (outOfBudget); empty otherwise. */
  frontier: Set<string>;
  /** The next confirming round's index. */
  round: number;
  /** The finalists confirmed, group after group. */
  confirmed: Rec[];
  /** The sustaining finalists in order (rank), the winner first. */
  ranked: Rec[];
  winner: Rec | null;
  /** The order of simplicity that chooses among finalists the evidence cannot order. */
  prefer: readonly SimplicityCriterion[];
  /** The finalists the evidence cannot put behind the winner, winner aside (choose): the answer's set. */
  set: Rec[];
  /** Set when the headroom search put the runner-up first (as simple, it clearly sustained more): the one it put behind. */
  headroomDecided: Rec | null;
  /** Set once the pick is made (choose): from then on a snapshot is the answer without its headroom. */
  picked: boolean;
  /** The winner's and the runner-up's headroom, by candidate id, as measured. */
  headrooms: Map<string, Headroom>;
  /** The yardstick's readings so far, in order. */
  readings: YardstickReading[];
  /** Moments whose reading is taken or passed: the budget stops keeping room for them. */
  passed: Set<YardstickMoment>;
  /** The anchor's readings so far: its first probe, its re-probes through the screen, and the last as the screen ends. */
  anchorReadings: { atSec: number; repeat: Repeat; own: boolean }[];
  /** The machine's drift factor at a time of the search's clock, from the anchor's readings (driftCurveOf). */
  drift: (atSec: number) => number;
  /** The anchor's re-probe, once taken; why not, once skipped. */
  anchor: AnchorDrift | null;
  anchorSkipped: string | null;
  /** Set once the anchor's re-probe is decided: the screen stops keeping room for it. */
  anchorDone: boolean;
}

/**
 * The search, stage by stage: screen every candidate worth a probe, confirm the cheapest in
 * paired rounds, choose among them, then the winner's headroom. Each stage stops early on the
 * budget or an interruption (`stopped`), and the answer says what it measured either way.
 */
export async function advise(o: AdviseOptions): Promise<Advice> {
  const s = newSearch(o);
  o.onStart?.(() => snapshot(s));
  await readYardstick(s, 'start');
  await screen(s);
  endScreen(s);
  await reprobeAnchor(s);
  stageDone(s);
  await readYardstick(s, 'screen-confirm');
  s.stage = 'confirm';
  await confirm(s);
  stageDone(s);
  choose(s);
  // Between the stages only when a headroom search comes next.
  await readYardstick(s, 'confirm-headroom', s.winner !== null);
  s.stage = 'headroom';
  await headroom(s);
  stageDone(s);
  await readYardstick(s, 'end');
  return answerOf(s, s.stopped);
}

function newSearch(o: AdviseOptions): Search {
  // A render module leaves main-thread parsing only (candidates.ts spaceFor).
  const space = spaceFor(o.target, { ...DEFAULT_SPACE, ...o.space });
  const transports = o.transports ?? ADVISE_TRANSPORTS;
  const rounds = o.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS;
  return {
    o,
    target: o.target,
    margins: o.margins ?? DEFAULT_MARGINS,
    space,
    transports,
    all: candidateSpace(o.target, transports, space),
    finalistCount: o.finalists ?? DEFAULT_FINALISTS,
    rounds,
    maxRounds: Math.max(rounds, o.maxConfirmRounds ?? DEFAULT_MAX_CONFIRM_ROUNDS),
    bound: o.target.p99BoundMs,
    recs: new Map(),
    pruned: new Map(),
    stopped: null,
    stage: 'screen',
    stoppedIn: null,
    screenEnded: null,
    basicsDone: false,
    frontier: new Set(),
    round: 0,
    confirmed: [],
    ranked: [],
    winner: null,
    prefer: o.prefer ?? DEFAULT_PREFER,
    set: [],
    headroomDecided: null,
    picked: false,
    headrooms: new Map(),
    readings: [],
    passed: new Set(),
    anchorReadings: [],
    drift: () => 1,
    anchor: null,
    anchorSkipped: null,
    anchorDone: false,
  };
}

/** The answer as it would be were the search cut off now: what a report saved between two measurements holds. */
function snapshot(s: Search): Advice {
  if (s.picked) return answerOf(s, 'interrupted');
  // Before the pick: a candidate under confirmation is not yet confirmed (its figures so far are not a verdict).
  const tried = [...s.recs.values()].map((r) => triedOf(r, r.outcome === 'kept' || r.outcome === 'marginal' ? null : r.confirmed));
  const notTried = notTriedOf(s);
  return withDrift(
    s,
    cutOff(
      { target: s.target, transports: s.transports, margins: s.margins, budgetSec: s.o.budgetSec, elapsedSec: s.o.now(), prefer: s.prefer },
      tried,
      notTried,
      accountOf('interrupted', s.stoppedIn ?? s.stage, s.screenEnded, measurementsOf(s), notTried),
    ),
  );
}

/** Whether a measurement of `sec` ends within the budget, with room left for the yardstick readings still to come. */
const fits = (s: Search, sec: number) => s.o.now() + sec + readingsLeftSec(s) <= s.o.budgetSec;
const keptOf = (s: Search) => [...s.recs.values()].filter((r) => r.probeFigures?.sustains.sustains);
const note = (s: Search, stage: 'screen' | 'confirm' | 'headroom', cs: readonly Candidate[]) =>
  s.o.onMeasured?.({ stage, candidates: cs, elapsedSec: s.o.now() });

/** Time a headroom search needs at least: two probes and one confirmation. */
function headroomReserve(s: Search, c: Candidate): number {
  return 2 * s.o.estimate.probeSec(c) + s.rounds * s.o.estimate.repeatSec(c);
}

/**
 * Time the screen leaves for what comes after it, estimated at the candidate about to be
 * probed: the anchor's re-probe, confirming `k` finalists (those it would have now, at least one) for
 * the minimum rounds, and a short headroom search (two probes and a confirmation), of which no
 * more than 15% of the budget: the answer comes before its headroom.
 */
function reserveSec(s: Search, c: Candidate, k = Math.min(s.finalistCount, Math.max(1, keptOf(s).length))): number {
  // The anchor's re-probe, once a probe made one and until the re-probe is decided: before that
  // there is nothing to probe again, and the first probes of a one-minute budget are not held back.
  const anchor = anchorOf(s);
  const again = s.anchorDone || !anchor ? 0 : s.o.estimate.probeSec(anchor.rec.candidate);
  return k * s.rounds * s.o.estimate.repeatSec(c) + Math.min(headroomReserve(s, c), 0.15 * s.o.budgetSec) + again;
}

function recOf(s: Search, c: Candidate): Rec {
  let r = s.recs.get(c.id);
  if (!r)
    s.recs.set(
      c.id,
      (r = { candidate: c, probe: null, probeAtSec: 0, probeFigures: null, confirm: [], confirmed: null, outcome: 'dropped', why: '', cpuVsWinner: null }),
    );
  return r;
}

// ---- the machine's drift (issue 33): the yardstick's readings and the anchor's re-probe

/** Every moment the yardstick is read at, in order. */
const MOMENTS: readonly YardstickMoment[] = ['start', 'screen-confirm', 'confirm-headroom', 'end'];

/** Time the yardstick readings still to come take, s: the budget keeps room for them. */
function readingsLeftSec(s: Search): number {
  const each = s.o.measurer.yardstick && s.o.estimate.yardstickSec ? s.o.estimate.yardstickSec() : 0;
  return each * MOMENTS.filter((m) => !s.passed.has(m)).length;
}

/** The drift so far, as the answer carries it; undefined before anything of it was measured. */
function driftOf(s: Search): MachineDrift | undefined {
  if (!s.readings.length && !s.anchor && s.anchorSkipped === null) return undefined;
  return { readings: [...s.readings], anchor: s.anchor, ...(s.anchorSkipped !== null ? { anchorSkipped: s.anchorSkipped } : {}) };
}

/** `a` with the drift so far (none: `a` as it is, so an answer without drift reads as before). */
function withDrift(s: Search, a: Advice): Advice {
  const drift = driftOf(s);
  return drift ? { ...a, drift } : a;
}

/**
 * Reads the yardstick at `at` when the measurer has one and `wanted`. A failed reading is kept
 * with its error and the search goes on; an interrupted one is not kept, and the next
 * measurement finds the interruption (an interruption at the end changes no answer).
 */
async function readYardstick(s: Search, at: YardstickMoment, wanted = true): Promise<void> {
  s.passed.add(at);
  if (!wanted || !s.o.measurer.yardstick || s.stopped === 'interrupted') return;
  const got = await s.o.measurer.yardstick(at);
  if (!got) return;
  s.readings.push({ index: s.readings.length, at, ...got });
  s.o.onDrift?.(driftOf(s)!, 'reading');
}

/**
 * The screen's anchor: the first candidate probed whose probe kept up with its rate (the same
 * work both times, results/machine-drift.ts keptUp), else, when none did, the first whose probe
 * measured EPS and renderer CPU per event. Records are in the order first probed.
 */
function anchorOf(s: Search): { rec: Rec; chosen: string } | null {
  const recs = [...s.recs.values()];
  const kept = recs.find((r) => r.probe && keptUp(r.probe));
  if (kept) return { rec: kept, chosen: 'the first screened that kept up with its rate' };
  const some = recs.find((r) => r.probe && measuredBoth(r.probe));
  return some ? { rec: some, chosen: 'the first screened that measured; none kept up with its rate' } : null;
}

/**
 * 1c. The anchor probed again as the screen ends: its two probes, minutes apart, give the drift
 * over the screen. Skipped (with why) when nothing was measured or the budget has no room for it
 * before the confirmation; its repeat changes no candidate's figures.
 */
async function reprobeAnchor(s: Search): Promise<void> {
  s.anchorDone = true;
  if (s.stopped === 'interrupted') return;
  const anchor = anchorOf(s);
  if (!anchor) s.anchorSkipped = 'no probe of the screen measured EPS and renderer CPU per event';
  // Room for one finalist's confirmation is enough: the screen kept room for the re-probe beside
  // it, and a confirmation takes fewer finalists rather than fewer rounds (pickGroup).
  else if (!fits(s, s.o.estimate.probeSec(anchor.rec.candidate) + reserveSec(s, anchor.rec.candidate, 1)))
    s.anchorSkipped = 'the time budget leaves no room for it before the confirmation';
  else {
    const again = await readAnchor(s, anchor.rec);
    if (!again) {
      s.stopped = 'interrupted';
      return;
    }
    s.anchor = anchorDriftOf(anchor.rec.candidate.id, anchor.chosen, anchor.rec.probe!, again, undefined, anchorReadingsOf(s));
  }
  s.o.onDrift?.(driftOf(s)!, 'anchor');
}

/** The objective's cost of one anchor window, for the drift curve; null when it did not measure it. */
function anchorCost(s: Search, r: Repeat): number | null {
  const v = r.status === 'ok' ? repeatCost(r, s.target.objective ?? 'renderer') : null;
  return v !== null && v > 0 ? v : null;
}

/** The drift curve again from the anchor's readings. */
function redrawDrift(s: Search): void {
  s.drift = driftCurveOf(s.anchorReadings.flatMap((x) => ((c) => (c === null ? [] : [{ atSec: x.atSec, cost: c }]))(anchorCost(s, x.repeat))));
}

/**
 * One more reading of the anchor: a probe of it, kept as a reading (its first probe is the
 * first reading), the drift curve drawn again. Null when interrupted.
 */
async function readAnchor(s: Search, anchor: Rec): Promise<Repeat | null> {
  if (!s.anchorReadings.length) s.anchorReadings.push({ atSec: anchor.probeAtSec, repeat: anchor.probe!, own: true });
  const start = s.o.now();
  const again = await s.o.measurer.probe(anchor.candidate);
  if (!again) return null;
  s.anchorReadings.push({ atSec: (start + s.o.now()) / 2, repeat: again, own: false });
  redrawDrift(s);
  return again;
}

/** The anchor's readings as the answer keeps them, each with the drift factor the screen read at its time. */
function anchorReadingsOf(s: Search): AnchorReading[] {
  return s.anchorReadings.map((x) => ({
    atSec: x.atSec,
    startedAt: x.repeat.startedAt,
    cost: anchorCost(s, x.repeat),
    factor: s.drift(x.atSec),
    repeat: x.own ? null : x.repeat,
  }));
}

/**
 * 1d. The anchor probed again through the screen, every ANCHOR_EVERY probes since its last
 * reading, once there is an anchor that kept up (a stable one: the first that kept up stays the
 * first) and the budget has room for it besides what the screen keeps. False when interrupted.
 */
async function reprobeAnchorWithin(s: Search): Promise<boolean> {
  const anchor = anchorOf(s);
  if (!anchor || !anchor.rec.probe || !keptUp(anchor.rec.probe)) return true;
  const last = s.anchorReadings.length ? s.anchorReadings[s.anchorReadings.length - 1].atSec : anchor.rec.probeAtSec;
  const since = [...s.recs.values()].reduce((n, r) => n + (r.probe && r.probeAtSec > last ? (r.reprobe ? 2 : 1) : 0), 0);
  if (since < ANCHOR_EVERY) return true;
  if (!fits(s, s.o.estimate.probeSec(anchor.rec.candidate) + reserveSec(s, anchor.rec.candidate))) return true;
  return (await readAnchor(s, anchor.rec)) !== null;
}

/** One probe; false when the budget or an interruption ends the screen. */
async function probe(s: Search, c: Candidate): Promise<boolean> {
  if (s.recs.get(c.id)?.probe) return true;
  if (!fits(s, s.o.estimate.probeSec(c) + reserveSec(s, c))) {
    s.stopped = 'budget';
    return false;
  }
  const start = s.o.now();
  const repeat = await s.o.measurer.probe(c);
  if (!repeat) {
    s.stopped = 'interrupted';
    return false;
  }
  const r = recOf(s, c);
  r.probe = repeat;
  r.probeAtSec = (start + s.o.now()) / 2;
  r.probeFigures = figuresOf(c, [repeat], s.bound, sustainsMore(s.target));
  // A window too coarse to drop a candidate on (one batch from a threshold, or too few batches)
  // gets a second one, and the two are judged together before it is dropped.
  if (
    !r.probeFigures.sustains.sustains &&
    clearlyCannot(r.probeFigures, s.bound) &&
    worthAnotherProbe(r.probeFigures) &&
    fits(s, s.o.estimate.probeSec(c) + reserveSec(s, c))
  ) {
    const secondStart = s.o.now();
    const again = await s.o.measurer.probe(c);
    if (!again) {
      s.stopped = 'interrupted';
      return false;
    }
    r.reprobe = again;
    // Judged over both windows: the drift is read between them.
    r.probeAtSec = (r.probeAtSec + (secondStart + s.o.now()) / 2) / 2;
    r.probeFigures = figuresOf(c, [repeat, again], s.bound, sustainsMore(s.target));
  }
  const words = reasonText(r.probeFigures.sustains);
  if (r.probeFigures.sustains.sustains) [r.outcome, r.why] = ['kept', `sustained in its probe: ${words}`];
  else if (clearlyCannot(r.probeFigures, s.bound)) [r.outcome, r.why] = ['dropped', `clearly cannot sustain: ${words}`];
  else [r.outcome, r.why] = ['marginal', `did not sustain in its probe, but not clearly: ${words}`];
  note(s, 'screen', [c]);
  if (!(await reprobeAnchorWithin(s))) {
    s.stopped = 'interrupted';
    return false;
  }
  return true;
}

/** 1. Screen: the basic shapes, then passes of one-setting moves, until nothing moves or the screen ends. */
async function screen(s: Search): Promise<void> {
  if (await screenBasics(s)) await explore(s);
}

/**
 * 1a. Every transport's basic shape at each tick: main thread, JSON, one origin, on the fewest
 * connections that offer the rate at that tick in whole rows. False when the screen ended.
 */
async function screenBasics(s: Search): Promise<boolean> {
  for (const c of basicsOf(s)) if (!(await probe(s, c))) return false;
  s.basicsDone = true;
  return true;
}

/** The basic shapes in screening order: each tick (middle first) with transports interleaved, then the ticks of their own that low rates take. */
function basicsOf(s: Search): Candidate[] {
  const plain = (c: Candidate) => c.parse === 'main' && c.origins === 1 && c.encoding === 'json' && !c.compression;
  const ticks = adviseTicksMs(s.bound, s.space.ticksMs);
  const basicAt = (t: Transport, tick: number) =>
    s.all.filter((x) => x.transport === t && x.intervalMs === tick && plain(x)).sort((a, b) => a.concurrency - b.concurrency)[0];
  const out: Candidate[] = [];
  for (const tick of byMiddleFirst(ticks)) {
    for (const t of s.transports) {
      const c = basicAt(t, tick);
      if (c) out.push(c);
    }
  }
  // Rates too low for whole rows at any tick offer one row per message at a tick of their own.
  for (const t of s.transports) {
    const own = [...new Set(s.all.filter((x) => x.transport === t && !ticks.includes(x.intervalMs)).map((x) => x.intervalMs))];
    for (const tick of own) out.push(basicAt(t, tick));
  }
  return out;
}

/** 1b. Passes: each transport's best moves one setting, in the order its limit suggests, until a pass moves none. */
async function explore(s: Search): Promise<void> {
  for (;;) {
    const { bests, leader, cheapest } = passOf(s);
    let moved = false;
    for (const best of bests) {
      const next = nextMove(s, best, leader, cheapest);
      if (!next) continue;
      if (!(await probe(s, next))) return;
      moved = true;
    }
    if (!moved) return;
  }
}

/** A pass's starting points: each transport's best (best first), the leader (the cheapest that sustained anywhere), and its cost. */
function passOf(s: Search): { bests: Rec[]; leader: Rec | undefined; cheapest: number } {
  const bests = s.transports
    .map((t) => [...s.recs.values()].filter((r) => r.candidate.transport === t && r.probe).sort(better(s))[0])
    .filter((r): r is Rec => r !== undefined)
    .sort(better(s));
  const cheapest = Math.min(...keptOf(s).map((r) => screenCost(s, r)));
  // The cheapest that sustained anywhere: `better` ranks sustaining first, so it heads `bests`.
  const leader = bests[0]?.probeFigures?.sustains.sustains ? bests[0] : undefined;
  return { bests, leader, cheapest };
}

/** How the screen ended, and when; with the budget, the moves it had next (outOfBudget). */
function endScreen(s: Search): void {
  s.screenEnded = { endedSec: s.o.now(), ended: s.stopped ?? 'converged' };
  if (s.stopped !== 'budget') return;
  const unprobed = (c: Candidate) => !s.recs.get(c.id)?.probe;
  // The basic shapes still to probe, then each unpruned transport's next one-setting moves.
  for (const c of basicsOf(s)) if (unprobed(c)) s.frontier.add(c.id);
  const { bests, leader } = passOf(s);
  for (const best of bests) {
    if (s.pruned.has(best.candidate.transport)) continue;
    const { twin, neighbours } = movesOf(s, best, leader);
    for (const c of [...(twin ? [twin] : []), ...neighbours]) if (unprobed(c)) s.frontier.add(c.id);
  }
}

/** After a stage: the first stage the budget or an interruption stopped is where the search stopped. */
function stageDone(s: Search): void {
  if (s.stopped && !s.stoppedIn) s.stoppedIn = s.stage;
}

/** The moves open to a transport's best: the leader's setting on its transport, and its unmeasured one-setting neighbours. */
function movesOf(s: Search, best: Rec, leader: Rec | undefined): { twin: Candidate | undefined; neighbours: Candidate[] } {
  const twin = leader ? twinOf(s, leader.candidate, best.candidate.transport) : undefined;
  const neighbours = stepsFrom(best.candidate, s.all).filter((c) => !s.recs.get(c.id)?.probe);
  return { twin, neighbours };
}

/** The candidate of transport `t` with `c`'s settings (origins as near as `t` has them); none when `t` cannot take them. */
function twinOf(s: Search, c: Candidate, t: Transport): Candidate | undefined {
  return t === c.transport
    ? undefined
    : s.all
        .filter((x) => x.transport === t && knobsBetween(c, x).every((k) => k === 'origins'))
        .sort((a, b) => Math.abs(a.origins - c.origins) - Math.abs(b.origins - c.origins))[0];
}

/**
 * Where a transport's best moves next in this pass: the leader's setting on its transport, else
 * its one-setting neighbour its limit suggests; none when it has none left or is not worth the
 * budget (said in `pruned`).
 */
function nextMove(s: Search, best: Rec, leader: Rec | undefined, cheapest: number): Candidate | null {
  // The cheapest setting found so far, tried on this transport too, before it can be called
  // dear: a saving that came from a setting (an encoding, a tick, Workers) is the setting's,
  // not the transport's. (On 2026-11-27 grpc-web reached Arrow first, ws and fetch were
  // called dear on their JSON costs, and ws with Arrow was never measured.)
  const t = best.candidate.transport;
  const { twin, neighbours } = movesOf(s, best, leader);
  if (twin && !s.recs.get(twin.id)?.probe) {
    s.pruned.delete(t);
    return twin;
  }
  const f = best.probeFigures;
  if (!neighbours.length) return null;
  // Not worth the budget: nowhere near while others sustain, or far dearer than the cheapest.
  const hopeless = Number.isFinite(cheapest) && f && !f.sustains.sustains && clearlyCannot(f, s.bound);
  const dear = Number.isFinite(cheapest) && f?.sustains.sustains && screenCost(s, best) > EXPLORE_COST_RATIO * cheapest;
  if (hopeless || dear) {
    s.pruned.set(
      t,
      hopeless
        ? { reason: 'prunedHopeless', why: `not explored: ${t}'s best came nowhere near (${reasonText(f!.sustains)}) while other transports sustained` }
        : {
            reason: 'prunedDear',
            why: `not explored: ${t}'s best costs ${Math.round((screenCost(s, best) / cheapest - 1) * 100)}% more ${costWords(s).figure} than the cheapest that sustained (probes corrected for the machine's drift)`,
          },
    );
    return null;
  }
  s.pruned.delete(t);
  const order = knobOrder(f, s.target.objective);
  const byOrder = (a: Candidate, b: Candidate) => order.indexOf(knobsBetween(best.candidate, a)[0]) - order.indexOf(knobsBetween(best.candidate, b)[0]);
  // A best that sustains within the screen's noise of the cheapest tries its simpler neighbours
  // first (fewer connections, the main thread, one origin, JSON, no compression: --prefer), so the
  // simplest of a flat cheap region is measured whichever way the screen came into it. Two runs
  // here (200 k, p99 200 ms) reached Arrow on 2 connections and on 1: the first never probed the
  // 1-connection setup the second chose, and so could not name it (issue 34).
  // Then its shorter tick: at the same rate and a cost within the noise, a shorter tick serves
  // fresher events, and the pick prefers it (a clearly lower paired p99, else the shorter tick
  // last). Two runs of one question here (50 k, p99 200 ms) chose ws with Arrow at 2,500 rows
  // every 50 ms and at 5,000 every 100 ms: the second never probed the 50 ms tick, so it could
  // neither name it nor list it (issue 34).
  if (f?.sustains.sustains && screenCost(s, best) <= cheapest * SCREEN_SPREAD) {
    const simpler = neighbours.filter((c) => simplerOn(s.prefer, c, best.candidate)?.simpler === 'a');
    if (simpler.length) return simpler.sort(byOrder)[0];
    const shorter = neighbours.find((c) => knobsBetween(best.candidate, c)[0] === 'tick' && c.intervalMs < best.candidate.intervalMs);
    if (shorter) return shorter;
  }
  return neighbours.sort(byOrder)[0];
}

/** 2. Confirm the cheapest that sustained (the closest that did not, when too few did), in paired rounds, group after group until one has a winner. */
async function confirm(s: Search): Promise<void> {
  while (!s.winner && s.stopped !== 'interrupted') {
    const group = pickGroup(s);
    if (!group.length) break;
    if (!(await confirmGroup(s, group))) break;
    s.confirmed.push(...group);
    for (const r of group)
      [r.outcome, r.why] = [
        'finalist',
        r.confirmed!.sustains.sustains ? 'sustained over its repeats' : `not sustained over its repeats: ${reasonText(r.confirmed!.sustains)}`,
      ];
    s.ranked = rank(
      s,
      s.confirmed.filter((r) => r.confirmed?.sustains.sustains),
    );
    s.winner = s.ranked[0] ?? null;
    if (s.stopped) break;
  }
}

/**
 * The next finalists, by drift-corrected probe cost: every one within the screen's noise of the
 * cheapest (SCREEN_SPREAD, up to MAX_FINALISTS: one window each cannot order them, the paired
 * rounds can), else the cheapest few probed and not yet confirmed, at most PER_TRANSPORT a
 * transport; as many as the budget confirms.
 */
function pickGroup(s: Search): Rec[] {
  const pool = [...s.recs.values()].filter((r) => r.probe && !r.confirmed && (r.outcome === 'kept' || r.outcome === 'marginal'));
  const kept = pool.filter((r) => r.outcome === 'kept').sort(better(s));
  const order = [...kept, ...pool.filter((r) => r.outcome === 'marginal').sort(better(s))];
  const floor = kept.length ? screenCost(s, kept[0]) : Number.POSITIVE_INFINITY;
  const group: Rec[] = kept.filter((r) => screenCost(s, r) <= floor * SCREEN_SPREAD).slice(0, Math.max(MAX_FINALISTS, s.finalistCount));
  for (const r of order) {
    if (group.includes(r)) continue;
    if (group.length >= s.finalistCount) break;
    if (group.filter((g) => g.candidate.transport === r.candidate.transport).length >= PER_TRANSPORT && order.length > s.finalistCount) continue;
    group.push(r);
  }
  // Under another objective, the renderer's own pick of those kept is confirmed beside them (in the
  // last place), so the answer can say, paired by round, what choosing by the renderer would change.
  const renderer = (r: Rec) => r.probeFigures?.cpuMsPerMillionEvents?.median ?? Number.POSITIVE_INFINITY;
  const rendererPick =
    (s.target.objective ?? 'renderer') === 'renderer' ? undefined : pool.filter((r) => r.outcome === 'kept').sort((a, b) => renderer(a) - renderer(b))[0];
  if (rendererPick && !group.includes(rendererPick)) {
    if (group.length >= s.finalistCount) group.pop();
    group.push(rendererPick);
  }
  // Fewer finalists rather than fewer rounds: a confirmation needs its rounds for a CI. The
  // dearest goes first, the renderer's own pick last (the answer's reason needs it).
  while (group.length > 1 && !fits(s, s.rounds * group.reduce((a, r) => a + s.o.estimate.repeatSec(r.candidate), 0)))
    group.splice(group.length > 2 && group[group.length - 1] === rendererPick ? group.length - 2 : group.length - 1, 1);
  return group;
}

/** The group's paired rounds: the minimum, then more while a CPU comparison is unclear and the budget allows. Returns the rounds measured. */
async function confirmGroup(s: Search, group: Rec[]): Promise<number> {
  const roundSec = group.reduce((a, r) => a + s.o.estimate.repeatSec(r.candidate), 0);
  let measuredRounds = 0;
  for (;;) {
    const more = measuredRounds < s.rounds || (measuredRounds < s.maxRounds && unclear(s, group) && fits(s, roundSec + headroomReserve(s, group[0].candidate)));
    if (!more) break;
    if (!fits(s, roundSec)) {
      s.stopped = 'budget';
      break;
    }
    const repeats = await s.o.measurer.confirm(
      group.map((r) => r.candidate),
      s.round,
    );
    if (!repeats) {
      s.stopped = 'interrupted';
      break;
    }
    group.forEach((r, i) => r.confirm.push({ round: s.round, repeat: repeats[i] }));
    s.round++;
    measuredRounds++;
    for (const r of group)
      r.confirmed = figuresOf(
        r.candidate,
        r.confirm.map((x) => x.repeat),
        s.bound,
        sustainsMore(s.target),
      );
    note(
      s,
      'confirm',
      group.map((r) => r.candidate),
    );
  }
  return measuredRounds;
}

/**
 * Where each sustaining finalist stands against the others, on their paired rounds only: `dearer`
 * holds those dearer per event than another (results/equivalence.ts costReading: the CI wholly
 * above 1 and not inside the margin), with that comparison; of the rest, `slower` those whose
 * paired p99 is clearly higher than another's, with which; `contenders` the rest, a set the
 * evidence cannot order. (Paired log ratios add up around a cycle, so within one group's rounds
 * someone is never dearer; the fallbacks only guard against finalists that shared no round.)
 */
function standing(s: Search, sustaining: readonly Rec[]): { contenders: Rec[]; dearer: Map<Rec, CpuComparison>; slower: Map<Rec, Rec> } {
  const dearer = new Map<Rec, CpuComparison>();
  for (const r of sustaining)
    for (const q of sustaining) {
      if (q === r || dearer.has(r)) continue;
      const c = cpuComparison(q, r, s.margins.cpuPerEvent);
      if (c && costReading(c, c.margin) === 'dearer') dearer.set(r, c);
    }
  const unbeaten = sustaining.filter((r) => !dearer.has(r));
  const pool = unbeaten.length ? unbeaten : [...sustaining];
  const slower = new Map<Rec, Rec>();
  for (const r of pool) {
    const q = pool.find((x) => x !== r && clearlyFaster(r, x));
    if (q) slower.set(r, q);
  }
  const contenders = pool.filter((r) => !slower.has(r));
  return { contenders: contenders.length ? contenders : pool, dearer, slower };
}

/**
 * Among finalists the evidence cannot order: simpler first by the order of simplicity, then the
 * stated order of last resort (the transports' order, then the shorter tick, then the id). A
 * total order of the candidates' settings alone: no measured figure enters it.
 */
function simplerFirst(s: Search, a: Rec, b: Rec): number {
  const on = simplerOn(s.prefer, a.candidate, b.candidate);
  if (on) return on.simpler === 'a' ? -1 : 1;
  const t = s.transports.indexOf(a.candidate.transport) - s.transports.indexOf(b.candidate.transport);
  if (t) return t;
  if (a.candidate.intervalMs !== b.candidate.intervalMs) return a.candidate.intervalMs - b.candidate.intervalMs;
  return a.candidate.id < b.candidate.id ? -1 : a.candidate.id > b.candidate.id ? 1 : 0;
}

/**
 * The sustaining finalists in order: the contenders simplest first (the winner first), then those
 * with a clearly higher p99, then those dearer per event, each by their paired CPU ratio against
 * the winner. A headroom decision (headroomDecided) puts the runner-up first.
 */
function rank(s: Search, sustaining: Rec[]): Rec[] {
  if (!sustaining.length) return [];
  const { contenders, slower } = standing(s, sustaining);
  const first = [...contenders].sort((a, b) => simplerFirst(s, a, b));
  if (s.headroomDecided && first[0] === s.headroomDecided && first.length > 1) [first[0], first[1]] = [first[1], first[0]];
  const w = first[0];
  const vsWinner = (r: Rec) => cpuComparison(w, r, s.margins.cpuPerEvent)?.ratio ?? Number.POSITIVE_INFINITY;
  const rest = sustaining
    .filter((r) => !contenders.includes(r))
    .sort((a, b) => Number(!slower.has(a)) - Number(!slower.has(b)) || vsWinner(a) - vsWinner(b) || simplerFirst(s, a, b));
  return [...first, ...rest];
}

/** Whether a sustaining finalist still cannot be told from the winner on CPU: more rounds could settle it. */
function unclear(s: Search, group: Rec[]): boolean {
  const ranked = rank(
    s,
    group.filter((r) => r.confirmed?.sustains.sustains),
  );
  return ranked.slice(1).some((r) => {
    const c = cpuComparison(ranked[0], r, s.margins.cpuPerEvent);
    return c !== null && costReading(c, c.margin) === 'cannot-tell';
  });
}

/** The paired p99 ratio of B against A (each repeat's window p99), for the answer's set. */
function p99Comparison(a: Rec, b: Rec): EquivalentCandidate['p99VsWinner'] {
  const r = paired(a, b, (m) => m.latency.p99Ms);
  return r && { ratio: r.ratio, ciLow: r.ciLow, ciHigh: r.ciHigh, rounds: r.rounds };
}

/**
 * 3. The winner, the set the evidence cannot put behind it, the runner-up, and why the others
 * were not chosen; from here a snapshot is the answer. Run again when the headroom decides.
 */
function choose(s: Search): void {
  const runnerUp = s.ranked[1] ?? null;
  const w = s.winner;
  s.set = [];
  if (w) {
    const { contenders, dearer, slower } = standing(
      s,
      s.confirmed.filter((r) => r.confirmed?.sustains.sustains),
    );
    w.cpuVsWinner = null;
    w.lostOn = undefined;
    w.criterion = undefined;
    w.p99VsWinner = undefined;
    for (const r of s.confirmed)
      if (r !== w && r.confirmed) [r.cpuVsWinner, r.p99VsWinner] = [cpuComparison(w, r, s.margins.cpuPerEvent), p99Comparison(w, r) ?? undefined];
    s.set = s.ranked.slice(1).filter((r) => contenders.includes(r));
    const cpuText = (c: CpuComparison | null) => (c ? cpuWords(c) : 'CPU not compared (no common round)');
    for (const r of s.ranked.slice(1)) {
      r.criterion = undefined;
      r.dearerThan = undefined;
      r.slowerThan = undefined;
      if (s.set.includes(r)) {
        const on = simplerOn(s.prefer, w.candidate, r.candidate);
        r.lostOn = on ? 'simplicity' : s.headroomDecided === r ? 'headroom' : 'order';
        if (on) r.criterion = on.criterion;
        r.why = `sustained; against the winner ${cpuText(r.cpuVsWinner)}; ${lostOnWords(r.lostOn, r.criterion, w.candidate, r.candidate, s.transports, headroomsOf(s, w, r))}`;
      } else if (slower.has(r)) {
        const q = slower.get(r)!;
        r.lostOn = 'p99';
        r.slowerThan = q.candidate.id;
        r.why = `sustained; against the winner ${cpuText(r.cpuVsWinner)}; but a clearly higher p99 than ${q === w ? 'the winner' : q.candidate.id} (the paired per-round ratio's CI above ${1 + P99_MARGIN}; p99 up to ${Math.round(p99(q.confirmed))} ms against up to ${Math.round(p99(r.confirmed))} ms)`;
      } else {
        // Dearer: against the winner where that comparison says so, else against the finalist that does.
        const c = r.cpuVsWinner && costReading(r.cpuVsWinner, r.cpuVsWinner.margin) === 'dearer' ? r.cpuVsWinner : (dearer.get(r) ?? r.cpuVsWinner);
        r.lostOn = 'cpu';
        if (c && c.against !== w.candidate.id) r.dearerThan = c;
        r.why = `sustained, but dearer: ${c ? cpuWords(c) : 'CPU not compared'}${c && c.against !== w.candidate.id ? ` than ${c.against}` : ' than the winner'}`;
      }
    }
    const by = s.headroomDecided ? 'its headroom' : s.set.some((r) => r.lostOn === 'simplicity') ? 'the order of simplicity' : 'the order of last resort';
    [w.outcome, w.why] = [
      'winner',
      s.set.length
        ? `sustained over its repeats, no finalist cheaper in ${costWords(s).figure} on the paired rounds; first of ${s.set.length + 1} the evidence cannot order (equivalent, or cannot tell), by ${by}`
        : s.ranked.length > 1
          ? `sustained over its repeats; every other finalist that sustained was dearer in ${costWords(s).figure} or had a clearly higher p99`
          : 'sustained over its repeats; the only finalist that did',
    ];
    if (runnerUp) runnerUp.outcome = 'runner-up';
  }
  for (const r of s.recs.values()) {
    if (r.outcome !== 'kept') continue;
    r.outcome = 'dropped';
    r.why = w
      ? `sustained in its probe, but not among the cheapest confirmed (${Math.round(screenCost(s, r))} ${costWords(s).unit} in one window, corrected for the machine's drift)`
      : 'sustained in its probe, not confirmed: the time budget ran out';
  }
  s.picked = true;
}

/** The winner's and another finalist's headroom rates, when both were measured: for the words of a headroom decision. */
function headroomsOf(s: Search, w: Rec, r: Rec): { winner: HeadroomShown | null; other: HeadroomShown | null } | undefined {
  const [hw, hr] = [s.headrooms.get(w.candidate.id), s.headrooms.get(r.candidate.id)];
  return hw && hr ? { winner: headroomShown(hw), other: headroomShown(hr) } : undefined;
}

/**
 * 4. Headroom: the winner's highest batch at the same tick and connections, then the
 * runner-up's, within the budget (the winner's search leaves room for a short one of the
 * runner-up's when both fit). When the two are as simple and only the order of last resort put
 * the winner first, the one that clearly sustains more is the winner.
 */
async function headroom(s: Search): Promise<void> {
  const w = s.winner;
  if (!w || s.stopped === 'interrupted') return;
  const r = s.ranked[1] ?? null;
  const keep = r && fits(s, headroomReserve(s, w.candidate) + headroomReserve(s, r.candidate)) ? headroomReserve(s, r.candidate) : 0;
  s.headrooms.set(w.candidate.id, await headroomOf(s, w.candidate, keep));
  // (headroomOf may have set it: read it afresh.)
  if (!r || (s.stopped as Advice['stopped']) === 'interrupted') return;
  s.headrooms.set(r.candidate.id, await headroomOf(s, r.candidate, 0));
  if (r.lostOn === 'order' && clearlyMoreHeadroom(s.headrooms.get(r.candidate.id)!, s.headrooms.get(w.candidate.id)!)) {
    s.headroomDecided = w;
    s.ranked = rank(
      s,
      s.confirmed.filter((x) => x.confirmed?.sustains.sustains),
    );
    s.winner = s.ranked[0];
  }
  // Again with both headrooms known, so the words of a decision between the two can give them.
  choose(s);
}

/**
 * Whether headroom `b` clearly exceeds `a`: b sustained (confirmed) a rate at or above one that
 * `a` was measured not to sustain, or `a` held nothing and `b` did. Capped or budget-cut searches
 * without a failure above their knee say nothing about where `a` stops.
 */
function clearlyMoreHeadroom(b: Headroom, a: Headroom): boolean {
  if (b.batch === null || b.eventsPerSec === null) return false;
  if (a.batch === null) return true;
  return a.firstPast !== null && b.eventsPerSec >= a.firstPast.eventsPerSec;
}

/**
 * The headroom of one candidate: the highest batch it sustains at its tick and connections, up
 * to headroomFactor × its batch within the server's message limit, by find-max.ts, within the
 * budget less `keepSec`; with what ended the search (HeadroomLimit).
 */
async function headroomOf(s: Search, w: Candidate, keepSec: number): Promise<Headroom> {
  const { o, rounds, bound } = s;
  // The server's message limit: LIMITS.batch.max, or a --rows pool's own (candidates.ts CandidateSpace.maxBatch).
  const messageLimit = s.space.maxBatch ?? LIMITS.batch.max;
  const max = Math.min(messageLimit, w.batch * (o.headroomFactor ?? DEFAULT_HEADROOM_FACTOR));
  const repeats: Headroom['repeats'] = [];
  const base = { candidateId: w.id, messageLimit, probes: 0, confirmations: 0, repeats };
  // Already at the top of the range: its own batch, confirmed, is as far as it can be asked.
  if (max <= w.batch) {
    const limit: HeadroomLimit = w.batch >= messageLimit ? 'message-limit' : 'search-range';
    return { ...base, batch: w.batch, eventsPerSec: w.offeredEventsPerSec, atLeast: true, limit, firstPast: null, stopped: null };
  }
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
      return !interrupted && fits(s, (kind === 'probe' ? o.estimate.probeSec(c) : 0) + rounds * o.estimate.repeatSec(c) + keepSec);
    },
    probe: async (batch) => {
      const c = withBatch(w, batch);
      const repeat = await o.measurer.probe(c);
      if (!repeat) {
        interrupted = true;
        return { sustainable: false, eventsPerSec: null, reason: 'interrupted' };
      }
      repeats.push({ batch, purpose: 'probe', repeat });
      note(s, 'headroom', [c]);
      const f = figuresOf(c, [repeat], bound, sustainsMore(s.target));
      return { sustainable: f.sustains.sustains, eventsPerSec: f.eventsPerSec?.median ?? null, reason: reasonText(f.sustains) };
    },
    confirm: async (batch) => {
      const c = withBatch(w, batch);
      const got: Repeat[] = [];
      for (let i = 0; i < rounds && !interrupted; i++) {
        const r = await o.measurer.confirm([c], s.round++);
        if (!r) interrupted = true;
        else {
          got.push(r[0]);
          repeats.push({ batch, purpose: 'confirm', repeat: r[0] });
        }
      }
      note(s, 'headroom', [c]);
      if (interrupted || !got.length) return { sustainable: false, eventsPerSec: describe([0]), reason: 'interrupted' };
      const f = figuresOf(c, got, bound, sustainsMore(s.target));
      return { sustainable: f.sustains.sustains, eventsPerSec: f.eventsPerSec ?? describe([0]), reason: reasonText(f.sustains) };
    },
  });
  if (interrupted) s.stopped = 'interrupted';
  else if (out.stopped === 'budget') s.stopped ??= 'budget';
  const firstPast = out.firstPast && {
    batch: out.firstPast.value,
    eventsPerSec: withBatch(w, out.firstPast.value).offeredEventsPerSec,
    reason: out.firstPast.reason,
  };
  // No knee: measured again at its own batch, it did not sustain (confirmed, or one probe the
  // budget left no room to confirm): no headroom is shown, never its own batch as a fallback.
  // With no failure there, what held it back was the budget: its own batch stands as confirmed.
  const ownFailed = !out.knee && firstPast !== null && firstPast.batch <= w.batch;
  const knee = out.knee?.value ?? (ownFailed ? null : w.batch);
  const stopLimit: HeadroomLimit | null = interrupted ? 'interrupted' : out.stopped;
  const limit: HeadroomLimit =
    knee === null
      ? (stopLimit ?? 'not-held')
      : knee === max
        ? max >= messageLimit
          ? 'message-limit'
          : 'search-range'
        : (stopLimit ?? (firstPast ? 'setup' : 'search-range'));
  return {
    ...base,
    batch: knee,
    eventsPerSec: knee === null ? null : withBatch(w, knee).offeredEventsPerSec,
    atLeast: limit === 'message-limit' || limit === 'search-range',
    limit,
    firstPast: firstPast && (knee === null || firstPast.batch > knee) ? firstPast : null,
    probes: out.probes.length,
    confirmations: out.confirmations.length,
    stopped: out.stopped,
  };
}

/** The answer from the records as they stand, with this reason to have stopped. Decides nothing. */
function answerOf(s: Search, stoppedNow: Advice['stopped']): Advice {
  const { winner } = s;
  const runnerUp = s.ranked[1] ?? null;
  // When nothing sustained: the closest, what limited it, what the measurements say would help.
  const closest = winner ? null : closestOf(s, [...s.recs.values()]);
  // Every candidate measured and not chosen nor in the set: the finalists first (the runner-up is
  // not rejected), then the rest best first, so a transport's first entry is its best attempt (the
  // words name that one; in the order measured it was the transport's first, plain JSON probe).
  const rest = [...s.recs.values()].filter((r) => !s.confirmed.includes(r)).sort(better(s));
  const rejectedOrder = [...s.ranked, ...s.confirmed.filter((r) => !s.ranked.includes(r)), ...rest].filter(
    (r) => r !== winner && r !== runnerUp && !s.set.includes(r),
  );
  const equivalent: EquivalentCandidate[] = winner
    ? s.set.map((r) => {
        const c = r.cpuVsWinner;
        return {
          candidate: r.candidate,
          figures: r.confirmed!,
          reading: c && costReading(c, c.margin) === 'equivalent' ? ('equivalent' as const) : ('cannot-tell' as const),
          cpuVsWinner: c,
          p99VsWinner: p99Comparison(winner, r),
          lostOn: r.lostOn as EquivalentCandidate['lostOn'],
          ...(r.criterion ? { criterion: r.criterion } : {}),
        };
      })
    : [];
  const notTried = notTriedOf(s);
  return withDrift(s, {
    target: s.target,
    transports: [...s.transports],
    margins: s.margins,
    budgetSec: s.o.budgetSec,
    elapsedSec: s.o.now(),
    stopped: stoppedNow,
    winner: winner && { candidate: winner.candidate, figures: winner.confirmed! },
    runnerUp: runnerUp && {
      candidate: runnerUp.candidate,
      figures: runnerUp.confirmed!,
      cpuVsWinner: runnerUp.cpuVsWinner,
      headroom: s.headrooms.get(runnerUp.candidate.id) ?? null,
    },
    headroom: (winner && s.headrooms.get(winner.candidate.id)) ?? null,
    rejected: rejectedOrder.map((r) => ({ candidateId: r.candidate.id, transport: r.candidate.transport, reason: r.why })),
    tried: [...s.recs.values()].map((r) => triedOf(r, r.confirmed)),
    notTried,
    closest,
    equivalent,
    prefer: [...s.prefer],
    search: accountOf(stoppedNow, s.stoppedIn ?? (stoppedNow ? s.stage : null), s.screenEnded, measurementsOf(s), notTried),
  });
}

/** Every candidate of the space not measured, with why. */
function notTriedOf(s: Search): Advice['notTried'] {
  return s.all.filter((c) => !s.recs.has(c.id)).map((c) => ({ candidate: c, ...notTriedWhy(s, c) }));
}

/**
 * Why a candidate went unmeasured: its transport was pruned (dear, or hopeless), else the
 * screen's reason to stop (a report saved while the screen runs: interrupted), and, when the
 * budget stopped it, whether the candidate was among its next moves.
 */
function notTriedWhy(s: Search, c: Candidate): { why: string; reason: NotMeasuredReason } {
  const pruned = s.pruned.get(c.transport);
  if (pruned) return pruned;
  const ended = s.screenEnded?.ended ?? 'interrupted';
  if (ended === 'interrupted') return { why: INTERRUPTED_WHY, reason: 'interrupted' };
  if (ended === 'budget')
    return s.frontier.has(c.id)
      ? { why: 'the time budget ran out before it was measured, among the moves the screen had next', reason: 'outOfBudget' }
      : { why: 'not reached: the time budget ended the screen before a measured neighbour led here', reason: 'notReached' };
  return { why: "not reached: the search moves one setting at a time from each transport's best, and no measured neighbour led here", reason: 'notReached' };
}

/** What the search measured so far. */
function measurementsOf(s: Search): SearchAccount['measurements'] {
  const recs = [...s.recs.values()];
  return {
    probes: recs.reduce((n, r) => n + (r.probe ? 1 : 0) + (r.reprobe ? 1 : 0), 0) + s.anchorReadings.filter((x) => !x.own).length,
    confirmRounds: new Set(recs.flatMap((r) => r.confirm.map((x) => x.round))).size,
    headroomRepeats: [...s.headrooms.values()].reduce((n, h) => n + h.repeats.length, 0),
  };
}

/** A reason in a few words, for the closest's list of moves not measured. */
const NOT_MEASURED_SHORT: Record<NotMeasuredReason, string> = {
  notReached: 'not reached',
  prunedDear: 'pruned as dear',
  prunedHopeless: 'pruned as hopeless',
  outOfBudget: 'the time budget ran out',
  interrupted: 'interrupted',
};

function closestOf(s: Search, list: Rec[]): Closest | null {
  const measured = list.filter((r) => figuresFor(r));
  if (!measured.length) return null;
  const best = [...measured].sort(better(s))[0];
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
  const other = measured.filter((r) => r.candidate.transport !== best.candidate.transport).sort(better(s))[0];
  if (other) helps.push(`the closest other transport: ${candidateWords(other.candidate)}, ${reachText(figuresFor(other)!)}`);
  const untried = s.all.filter((c) => c.transport === best.candidate.transport && !s.recs.has(c.id) && knobsBetween(best.candidate, c).length === 1);
  // Grouped by why, in the reasons' order: `not measured (not reached): …`.
  for (const reason of NOT_MEASURED_REASONS) {
    const these = untried.filter((c) => notTriedWhy(s, c).reason === reason);
    if (these.length)
      helps.push(
        `not measured (${NOT_MEASURED_SHORT[reason]}): ${these.map((c) => changeWords(knobsBetween(best.candidate, c)[0], best.candidate, c)).join('; ')}`,
      );
  }
  return { candidate: best.candidate, figures: f, limit: f.limit ?? reasonText(f.sustains), helps };
}
