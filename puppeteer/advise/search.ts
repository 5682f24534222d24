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
 * 3. **Pick.** Among those that sustain, the lowest cost per event by the objective (`--objective`:
 *    renderer CPU per event, all threads, by default; results/costs.ts), read
 *    with the equivalence rule: a candidate whose paired CPU ratio against the cheapest is not
 *    clearly beyond the margin is tied with it, and a tie goes to a clearly lower p99 (the paired
 *    per-round p99 ratio's CI below 1; among several, the lowest pooled p99 upper limit). So it never
 *    prefers one over another on noise. Extra rounds (up to maxConfirmRounds) are measured while
 *    such a comparison is unclear and the budget allows.
 * 4. **Headroom.** For the winner, the highest batch it still sustains at the same tick and
 *    connections (find-max.ts), bounded by the budget.
 *
 * The machine: the measurer's yardstick (the in-page decoding ceilings the sweep reads every
 * round) is read before the screen, between the stages and at the end, and the screen's anchor
 * (the first candidate it probed that kept up with its rate) is probed again as the screen ends:
 * the same setup minutes apart, so the answer says how far the machine moved (`drift`,
 * results/machine-drift.ts). Neither changes a decision: confirmations are paired by round.
 *
 * The budget: no measurement starts that its estimate says would end past it (with room for the
 * readings still to come), and the screen leaves room for the anchor's re-probe, the
 * confirmation and a short headroom search. What it could not try is listed with the reason.
 * When nothing sustains, the closest candidate is named with what limited it and what the
 * measurements say would help.
 */
import type {
  Advice,
  AnchorDrift,
  Candidate,
  CandidateFigures,
  Closest,
  CpuComparison,
  Headroom,
  MachineDrift,
  TriedCandidate,
  Knob,
  NotMeasuredReason,
  SearchAccount,
  SearchStage,
  YardstickMoment,
  YardstickReading,
} from '../../protocol/advice.js';
import { NOT_MEASURED_REASONS } from '../../protocol/advice.js';
import { type Margins, DEFAULT_MARGINS } from '../../protocol/margins.js';
import { judgeRatio } from '../../results/equivalence.js';
import { LIMITS } from '../../protocol/limits.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import { describe, pairedRatio } from '../../results/stats.js';
import { decidingP99Ms, reasonText } from '../../results/sustains.js';
import type { Objective, Target } from '../../protocol/target.js';
import { TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { candidateSpace, DEFAULT_SPACE, knobsBetween, withBatch, type CandidateSpace } from './candidates.js';
import { clearlyCannot, figuresOf, objectiveCost, sustainsMore, worthAnotherProbe } from '../../results/advice-figures.js';
import { costText, OBJECTIVE_WORDS, repeatCost } from '../../results/costs.js';
import { candidateWords, changeWords, cpuWords, reachText } from '../../results/advice-words.js';
import { anchorDriftOf, keptUp, measuredBoth } from '../../results/machine-drift.js';
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
  o: { target: Target; transports: readonly Transport[]; margins: Margins; budgetSec: number; elapsedSec: number },
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
    search: account,
  };
}

/** The answer before the search measured anything: what a report holds from its first save. */
export function adviceBeforeSearch(o: Pick<AdviseOptions, 'target' | 'transports' | 'space' | 'margins' | 'budgetSec'>): Advice {
  const transports = o.transports ?? TRANSPORTS;
  const notTried = candidateSpace(o.target, transports, { ...DEFAULT_SPACE, ...o.space }).map((candidate) => ({
    candidate,
    why: INTERRUPTED_WHY,
    reason: 'interrupted' as const,
  }));
  const account = accountOf('interrupted', 'screen', null, { probes: 0, confirmRounds: 0, headroomRepeats: 0 }, notTried);
  return cutOff({ target: o.target, transports, margins: o.margins ?? DEFAULT_MARGINS, budgetSec: o.budgetSec, elapsedSec: 0 }, [], notTried, account);
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

/** Whether B's latency p99 is clearly lower than A's: the paired ratio's whole CI below 1 (no margin: any clear difference). */
function clearlyFaster(a: Rec, b: Rec): boolean {
  const r = paired(a, b, (m) => m.latency.p99Ms);
  return r !== null && judgeRatio(r, 0, false).better === 'b';
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
  /** Set once the pick is made (choose): from then on a snapshot is the answer without its headroom. */
  picked: boolean;
  headroom: Headroom | null;
  /** The yardstick's readings so far, in order. */
  readings: YardstickReading[];
  /** Moments whose reading is taken or passed: the budget stops keeping room for them. */
  passed: Set<YardstickMoment>;
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
  return answerOf(s, s.headroom, s.stopped);
}

function newSearch(o: AdviseOptions): Search {
  const space: CandidateSpace = { ...DEFAULT_SPACE, ...o.space };
  const transports = o.transports ?? TRANSPORTS;
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
    picked: false,
    headroom: null,
    readings: [],
    passed: new Set(),
    anchor: null,
    anchorSkipped: null,
    anchorDone: false,
  };
}

/** The answer as it would be were the search cut off now: what a report saved between two measurements holds. */
function snapshot(s: Search): Advice {
  if (s.picked) return answerOf(s, null, 'interrupted');
  // Before the pick: a candidate under confirmation is not yet confirmed (its figures so far are not a verdict).
  const tried = [...s.recs.values()].map((r) => triedOf(r, r.outcome === 'kept' || r.outcome === 'marginal' ? null : r.confirmed));
  const notTried = notTriedOf(s);
  return withDrift(
    s,
    cutOff(
      { target: s.target, transports: s.transports, margins: s.margins, budgetSec: s.o.budgetSec, elapsedSec: s.o.now() },
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
    s.recs.set(c.id, (r = { candidate: c, probe: null, probeFigures: null, confirm: [], confirmed: null, outcome: 'dropped', why: '', cpuVsWinner: null }));
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
    const again = await s.o.measurer.probe(anchor.rec.candidate);
    if (!again) {
      s.stopped = 'interrupted';
      return;
    }
    s.anchor = anchorDriftOf(anchor.rec.candidate.id, anchor.chosen, anchor.rec.probe!, again);
  }
  s.o.onDrift?.(driftOf(s)!, 'anchor');
}

/** One probe; false when the budget or an interruption ends the screen. */
async function probe(s: Search, c: Candidate): Promise<boolean> {
  if (s.recs.get(c.id)?.probe) return true;
  if (!fits(s, s.o.estimate.probeSec(c) + reserveSec(s, c))) {
    s.stopped = 'budget';
    return false;
  }
  const repeat = await s.o.measurer.probe(c);
  if (!repeat) {
    s.stopped = 'interrupted';
    return false;
  }
  const r = recOf(s, c);
  r.probe = repeat;
  r.probeFigures = figuresOf(c, [repeat], s.bound, sustainsMore(s.target));
  // A window too coarse to drop a candidate on (one batch from a threshold, or too few batches)
  // gets a second one, and the two are judged together before it is dropped.
  if (
    !r.probeFigures.sustains.sustains &&
    clearlyCannot(r.probeFigures, s.bound) &&
    worthAnotherProbe(r.probeFigures) &&
    fits(s, s.o.estimate.probeSec(c) + reserveSec(s, c))
  ) {
    const again = await s.o.measurer.probe(c);
    if (!again) {
      s.stopped = 'interrupted';
      return false;
    }
    r.reprobe = again;
    r.probeFigures = figuresOf(c, [repeat, again], s.bound, sustainsMore(s.target));
  }
  const words = reasonText(r.probeFigures.sustains);
  if (r.probeFigures.sustains.sustains) [r.outcome, r.why] = ['kept', `sustained in its probe: ${words}`];
  else if (clearlyCannot(r.probeFigures, s.bound)) [r.outcome, r.why] = ['dropped', `clearly cannot sustain: ${words}`];
  else [r.outcome, r.why] = ['marginal', `did not sustain in its probe, but not clearly: ${words}`];
  note(s, 'screen', [c]);
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
  const plain = (c: Candidate) => c.parse === 'main' && c.origins === 1 && c.encoding === 'json';
  const basicAt = (t: Transport, tick: number) =>
    s.all.filter((x) => x.transport === t && x.intervalMs === tick && plain(x)).sort((a, b) => a.concurrency - b.concurrency)[0];
  const out: Candidate[] = [];
  for (const tick of byMiddleFirst(s.space.ticksMs)) {
    for (const t of s.transports) {
      const c = basicAt(t, tick);
      if (c) out.push(c);
    }
  }
  // Rates too low for whole rows at any tick offer one row per message at a tick of their own.
  for (const t of s.transports) {
    const own = [...new Set(s.all.filter((x) => x.transport === t && !s.space.ticksMs.includes(x.intervalMs)).map((x) => x.intervalMs))];
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
    .map((t) => [...s.recs.values()].filter((r) => r.candidate.transport === t && r.probe).sort(better)[0])
    .filter((r): r is Rec => r !== undefined)
    .sort(better);
  const cheapest = Math.min(...keptOf(s).map((r) => cost(r.probeFigures)));
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
  const neighbours = s.all.filter((c) => c.transport === best.candidate.transport && !s.recs.get(c.id)?.probe && knobsBetween(best.candidate, c).length === 1);
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
  const dear = Number.isFinite(cheapest) && f?.sustains.sustains && cost(f) > EXPLORE_COST_RATIO * cheapest;
  if (hopeless || dear) {
    s.pruned.set(
      t,
      hopeless
        ? { reason: 'prunedHopeless', why: `not explored: ${t}'s best came nowhere near (${reasonText(f!.sustains)}) while other transports sustained` }
        : {
            reason: 'prunedDear',
            why: `not explored: ${t}'s best costs ${Math.round((cost(f) / cheapest - 1) * 100)}% more ${costWords(s).figure} than the cheapest that sustained`,
          },
    );
    return null;
  }
  s.pruned.delete(t);
  const order = knobOrder(f);
  return neighbours.sort((a, b) => order.indexOf(knobsBetween(best.candidate, a)[0]) - order.indexOf(knobsBetween(best.candidate, b)[0]))[0];
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

/** The next finalists: the cheapest few probed and not yet confirmed, at most PER_TRANSPORT a transport, as many as the budget confirms. */
function pickGroup(s: Search): Rec[] {
  const pool = [...s.recs.values()].filter((r) => r.probe && !r.confirmed && (r.outcome === 'kept' || r.outcome === 'marginal'));
  const order = [...pool.filter((r) => r.outcome === 'kept').sort(better), ...pool.filter((r) => r.outcome === 'marginal').sort(better)];
  const group: Rec[] = [];
  for (const r of order) {
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
  // Fewer finalists rather than fewer rounds: a confirmation needs its rounds for a CI.
  while (group.length > 1 && !fits(s, s.rounds * group.reduce((a, r) => a + s.o.estimate.repeatSec(r.candidate), 0))) group.pop();
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

/** The sustaining finalists in order: the cheapest (none clearly cheaper), its ties by p99, then the rest by cost. */
function rank(s: Search, sustaining: Rec[]): Rec[] {
  if (!sustaining.length) return [];
  const byCost = [...sustaining].sort((a, b) => cost(a.confirmed) - cost(b.confirmed));
  let cheapest = byCost[0];
  // The median may disagree with the paired rounds: a candidate clearly cheaper than it, paired, takes its place.
  const vs = (r: Rec) => cpuComparison(cheapest, r, s.margins.cpuPerEvent);
  for (let moves = 0; moves < byCost.length; moves++) {
    const clearer = byCost.find((r) => r !== cheapest && vs(r)?.kind === 'different' && vs(r)!.ratio < 1);
    if (!clearer) break;
    cheapest = clearer;
  }
  // Finalists of one group share their rounds (a later group is confirmed only when no earlier
  // one sustained), so every comparison here is paired.
  const tied = byCost.filter((r) => r === cheapest || vs(r)?.kind !== 'different');
  const rest = byCost.filter((r) => !tied.includes(r));
  // A tie on CPU goes to latency only where latency clearly differs: among those whose paired
  // per-round p99 is clearly below the cheapest's, the one with the lowest p99 the rule judged
  // (its pooled upper limit); else the cheapest.
  const faster = tied.filter((r) => r !== cheapest && clearlyFaster(cheapest, r)).sort((a, b) => p99(a.confirmed) - p99(b.confirmed));
  const first = faster[0] ?? cheapest;
  return [first, ...tied.filter((r) => r !== first), ...rest];
}

/** Whether a sustaining finalist's CPU against the cheapest is still unclear: more rounds could settle it. */
function unclear(s: Search, group: Rec[]): boolean {
  const ranked = rank(
    s,
    group.filter((r) => r.confirmed?.sustains.sustains),
  );
  return ranked.slice(1).some((r) => cpuComparison(ranked[0], r, s.margins.cpuPerEvent)?.kind === 'unclear');
}

/** 3. The winner, the runner-up and why the others were not chosen; from here a snapshot is the answer. */
function choose(s: Search): void {
  const runnerUp = s.ranked[1] ?? null;
  const w = s.winner;
  if (w) {
    for (const r of s.confirmed) if (r !== w && r.confirmed) r.cpuVsWinner = cpuComparison(w, r, s.margins.cpuPerEvent);
    const byLatency = s.ranked.some((r) => r !== w && r.cpuVsWinner?.kind !== 'different' && cost(r.confirmed) < cost(w.confirmed));
    [w.outcome, w.why] = [
      'winner',
      byLatency
        ? `sustained over its repeats; tied on ${costWords(s).figure} within the margin with a cheaper median, and a clearly lower p99`
        : `sustained over its repeats at the lowest ${costWords(s).figure}`,
    ];
    for (const r of s.ranked.slice(1)) {
      const c = r.cpuVsWinner;
      const tiedWithWinner = c !== null && c.kind !== 'different';
      // A tie goes to the winner on latency when the winner was picked for its p99 (byLatency),
      // else on its lower median cost: the words name which one decided.
      r.lostOn = !tiedWithWinner ? 'cpu' : byLatency ? 'p99' : 'median-cpu';
      r.why = !tiedWithWinner
        ? `sustained, but against the winner ${c ? cpuWords(c) : 'dearer'}`
        : byLatency
          ? `sustained; against the winner ${c ? cpuWords(c) : 'CPU not compared'}; the winner's clearly lower p99 decided (median ${Math.round(p99(w.confirmed))} ms against ${Math.round(p99(r.confirmed))} ms)`
          : `sustained; against the winner ${c ? cpuWords(c) : 'CPU not compared'}; the winner's lower median decided (${costText(cost(w.confirmed))} against ${costText(cost(r.confirmed))} ${costWords(s).unit}) and its p99 was not clearly higher`;
    }
    if (runnerUp) runnerUp.outcome = 'runner-up';
  }
  for (const r of s.recs.values()) {
    if (r.outcome !== 'kept') continue;
    r.outcome = 'dropped';
    r.why = w
      ? `sustained in its probe, but not among the ${s.finalistCount} cheapest confirmed (${Math.round(cost(r.probeFigures))} ${costWords(s).unit} in one window)`
      : 'sustained in its probe, not confirmed: the time budget ran out';
  }
  s.picked = true;
}

/** 4. Headroom: the winner's highest batch at the same tick and connections. */
async function headroom(s: Search): Promise<void> {
  if (s.winner && s.stopped !== 'interrupted') s.headroom = await headroomOf(s, s.winner.candidate);
}

async function headroomOf(s: Search, w: Candidate): Promise<Headroom | null> {
  const { o, rounds, bound } = s;
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
      return !interrupted && fits(s, (kind === 'probe' ? o.estimate.probeSec(c) : 0) + rounds * o.estimate.repeatSec(c));
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
  // The winner's own batch was confirmed already: the knee is at least that.
  const knee = out.knee?.value ?? w.batch;
  const at = withBatch(w, knee);
  return {
    batch: knee,
    eventsPerSec: at.offeredEventsPerSec,
    atLeast: knee === max,
    firstPast: out.firstPast && {
      batch: out.firstPast.value,
      eventsPerSec: withBatch(w, out.firstPast.value).offeredEventsPerSec,
      reason: out.firstPast.reason,
    },
    probes: out.probes.length,
    confirmations: out.confirmations.length,
    stopped: out.stopped,
    repeats,
  };
}

/** The answer from the records as they stand, with this headroom and reason to have stopped. Decides nothing. */
function answerOf(s: Search, headroomNow: Headroom | null, stoppedNow: Advice['stopped']): Advice {
  const { winner } = s;
  const runnerUp = s.ranked[1] ?? null;
  // When nothing sustained: the closest, what limited it, what the measurements say would help.
  const closest = winner ? null : closestOf(s, [...s.recs.values()]);
  // Every candidate measured and not chosen: the finalists first (the runner-up is not rejected),
  // then the rest best first, so a transport's first entry is its best attempt (the words name
  // that one; in the order measured it was the transport's first, plain JSON probe).
  const rest = [...s.recs.values()].filter((r) => !s.confirmed.includes(r)).sort(better);
  const rejectedOrder = [...s.confirmed, ...rest].filter((r) => r !== winner && r !== runnerUp);
  const notTried = notTriedOf(s);
  return withDrift(s, {
    target: s.target,
    transports: [...s.transports],
    margins: s.margins,
    budgetSec: s.o.budgetSec,
    elapsedSec: s.o.now(),
    stopped: stoppedNow,
    winner: winner && { candidate: winner.candidate, figures: winner.confirmed! },
    runnerUp: runnerUp && { candidate: runnerUp.candidate, figures: runnerUp.confirmed!, cpuVsWinner: runnerUp.cpuVsWinner },
    headroom: headroomNow,
    rejected: rejectedOrder.map((r) => ({ candidateId: r.candidate.id, transport: r.candidate.transport, reason: r.why })),
    tried: [...s.recs.values()].map((r) => triedOf(r, r.confirmed)),
    notTried,
    closest,
    search: accountOf(stoppedNow, s.stoppedIn ?? (stoppedNow ? s.stage : null), s.screenEnded, measurementsOf(s, headroomNow), notTried),
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
function measurementsOf(s: Search, headroomNow: Headroom | null = null): SearchAccount['measurements'] {
  const recs = [...s.recs.values()];
  return {
    probes: recs.reduce((n, r) => n + (r.probe ? 1 : 0) + (r.reprobe ? 1 : 0), 0) + (s.anchor ? 1 : 0),
    confirmRounds: new Set(recs.flatMap((r) => r.confirm.map((x) => x.round))).size,
    headroomRepeats: headroomNow?.repeats.length ?? 0,
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
