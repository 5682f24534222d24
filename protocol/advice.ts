/**
 * The advisor's answer (issue 24): which configuration takes a target rate under a latency
 * bound at the lowest tab CPU per event on this machine, with every candidate it tried and why
 * each was kept or dropped, every repeat raw. Plain, JSON-able data: it goes into report.json as
 * `advice` and, with `--json`, to stdout; the words are a pure function of it
 * (results/advice-words.ts). Pure types, no Node or DOM.
 */
import type { EquivalenceKind, Margins } from './margins.js';
import type { Repeat, Stat, Verdict } from './repeat-figures.js';
import type { ParseCeiling } from './page-api.js';
import type { Objective, Target } from './target.js';
import type { Encoding, ParseMode, StreamCompression, Transport } from './wire.js';

/** One configuration the advisor can measure: a point of the page without its render mode and timing. */
export interface Candidate {
  /** `sse-b300-c1-i1[-w2][-o2][-mp][-p25]`: stable, and unique within a search. */
  id: string;
  transport: Transport;
  /** Rows per message. */
  batch: number;
  /** Milliseconds between messages on one connection (the tick). */
  intervalMs: number;
  concurrency: number;
  parse: ParseMode;
  /** Parsing Workers (parse mode worker); 0 on the main thread. */
  workers: number;
  /** Origins the connections are spread over (1 unless it matters: HTTP/2 on the main origin). */
  origins: number;
  encoding: Encoding;
  /** `deflate` or `gzip` when the stream is compressed (its transport's kind); absent when off. */
  compression?: StreamCompression;
  /** `poll` only: ms between the starts of two requests. */
  pollMs?: number;
  /** batch × concurrency × 1000 ÷ intervalMs: at least the target's rate. */
  offeredEventsPerSec: number;
}

/**
 * One cost over a candidate's measured repeats: the median and the range (min–max) over the
 * repeats that measured it, with its unit. When some or all repeats did not measure it, `n` says
 * how many did and `unmeasured` why the others did not; with none, the figures are null (never 0).
 */
export interface CostFigure {
  /** The unit, in words (`ms per million events`, `% of one core`, `bytes`, `MB/s`, `GB per user-hour`, `ms`). */
  unit: string;
  median: number | null;
  min: number | null;
  max: number | null;
  /** Repeats that measured it, of `of` measured repeats. */
  n: number;
  of: number;
  /** Why the repeats that lack it lack it; absent when every measured repeat has it. */
  unmeasured?: string;
}

/**
 * What a team budgets for a candidate, over the repeats of one figures record (results/costs.ts
 * `costsOf`, from each repeat's figures as the sweep records them; docs/method.md "The costs").
 */
export interface Costs {
  /** The tab's renderer process, all threads (CDP Performance.getMetrics ProcessTime), ms of CPU per million events. */
  rendererCpuMsPerMillionEvents: CostFigure;
  /** The tab's main thread busy time (TaskDuration), % of one core (≤ 100): what is left for the product's own work. */
  mainThreadPercent: CostFigure;
  /** The same busy time per event, ms per million events (`--objective main-thread`). */
  mainThreadMsPerMillionEvents: CostFigure;
  /** Every Chrome process together (SystemInfo.getProcessInfo), % of one core. */
  chromePercent: CostFigure;
  /** The same per event, ms of CPU per million events (`--objective chrome`). */
  chromeCpuMsPerMillionEvents: CostFigure;
  /** Chrome's processes by kind, % of one core each: every renderer, the network service, the browser process, the GPU process. */
  chromeProcesses: { renderers: CostFigure; network: CostFigure; browser: CostFigure; gpu: CostFigure };
  /** The page's message bytes over its events (`--objective bytes`): what each encoding costs on the wire. */
  bytesPerEvent: CostFigure;
  /** The page's message bytes per second, MB (10⁶ bytes). */
  megabytesPerSec: CostFigure;
  /** The same for one user streaming for an hour at the measured rate, GB (10⁹ bytes). */
  gigabytesPerUserHour: CostFigure;
  /** The server process's CPU (process.cpuUsage() via /stats) per 100 k events/s it sent, % of one core. */
  serverCpuPercentPer100kEventsPerSec: CostFigure;
  /** Event age p99 (birth → the page's handler), ms: each repeat's own window. */
  eventAgeP99Ms: CostFigure;
  /** Display age p99 (the newest event on screen at each draw), ms; unmeasured in render mode none. */
  displayAgeP99Ms: CostFigure;
  /** Input delay p99 of real input sent while the page streamed (results/input-delay.ts), ms. */
  inputDelayP99Ms: CostFigure;
}

/** A candidate's figures over the repeats the advisor measured of it (a probe's one, or its confirmation's). */
export interface CandidateFigures {
  /** The sustains rule over those repeats (results/sustains.ts), with its reasons in words. */
  sustains: Sustains;
  /** The tab's renderer CPU (all threads) per million events, ms: what the advisor minimises; null where unmeasured. */
  cpuMsPerMillionEvents: Stat | null;
  /** The tab's renderer process, % of one core. */
  rendererPercent: Stat | null;
  /** The tab's main thread busy time, % of one core (≤ 100). */
  mainThreadPercent: Stat | null;
  eventsPerSec: Stat | null;
  deliveredRatio: Stat | null;
  latencyP99Ms: Stat | null;
  /** The verdict most measured repeats reached ('failed' when none measured). */
  verdict: Verdict;
  /** What limited it, from the measured figures ("client-bound: the tab's main thread at 100%"); null when it sustained with room. */
  limit: string | null;
  /**
   * How near the target it came, 0…1: the median delivered share of the 99% the rule asks,
   * times the share of the p99 bound it kept (1 when it sustains). Ranks what did not sustain.
   */
  closeness: number;
  /** What a team budgets, over these repeats (results/costs.ts). Absent in reports written before it was kept. */
  costs?: Costs;
  /**
   * The figure the search minimised (`--objective`) and its median over these repeats, in the
   * objective's unit (null where unmeasured). Absent in reports written before: the renderer's
   * `cpuMsPerMillionEvents` decided.
   */
  objective?: { name: Objective; median: number | null };
}

/**
 * A comparison of the objective's cost per event (renderer CPU unless `objective` says otherwise),
 * B ÷ A, paired by round, read against the CPU margin.
 */
export interface CpuComparison {
  /** The figure compared; absent: renderer CPU per event (and in reports written before). */
  objective?: Objective;
  /** The candidate compared (B) against the winner (A). */
  of: string;
  against: string;
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  rounds: number;
  kind: EquivalenceKind;
  margin: number;
}

/** What happened to one candidate the advisor measured. */
export interface TriedCandidate {
  candidate: Candidate;
  /**
   * `kept` (sustained in its probe), `marginal` (did not, but not clearly), `dropped` (clearly
   * cannot sustain, or too costly to confirm), `finalist` (confirmed, then not chosen: see why),
   * `winner`, `runner-up`.
   */
  outcome: 'kept' | 'marginal' | 'dropped' | 'finalist' | 'winner' | 'runner-up';
  /** Why, in words. */
  why: string;
  /** Its probe's figures (one window); null when it was confirmed without a probe. */
  probe: CandidateFigures | null;
  /** Its confirmation's figures (paired, interleaved rounds); null when it was not confirmed. */
  confirmed: CandidateFigures | null;
  /** Its renderer CPU per event against the winner's, where both were confirmed. */
  cpuVsWinner: CpuComparison | null;
  /**
   * What decided against a confirmed, sustaining finalist: `cpu` (dearer per event: its paired CI
   * wholly above 1 and not inside the margin, against the winner or another finalist), `p99` (a
   * clearly higher paired p99), `simplicity` (equally good or indistinguishable on CPU, the winner
   * simpler by the order of simplicity: `criterion` names the first that told them apart),
   * `headroom` (as simple, the winner measured more headroom) or `order` (as simple, headroom not
   * telling: the stated order of last resort, `--transports`' order, then the shorter tick).
   * `median-cpu` (tied, the winner's unpaired median lower) is in reports written before the
   * answer became a set: nothing decides on it now. Absent for the winner, for others, and in
   * earlier reports.
   */
  lostOn?: 'cpu' | 'median-cpu' | 'p99' | 'simplicity' | 'headroom' | 'order';
  /** With `lostOn: 'simplicity'`: the criterion of the order of simplicity on which the winner was simpler. */
  criterion?: SimplicityCriterion;
  /**
   * With `lostOn: 'cpu'`, when the paired comparison against the winner could not tell: the
   * finalist it was dearer than (`against`), with that comparison. Absent in earlier reports.
   */
  dearerThan?: CpuComparison;
  /** With `lostOn: 'p99'`: the finalist whose paired p99 was clearly lower (the winner's id, or another's). Absent in earlier reports. */
  slowerThan?: string;
  /**
   * A confirmed finalist's paired p99 against the winner's (its ÷ the winner's, each round's window
   * p99): what shows a finalist rejected as dearer that had a clearly lower p99, a trade-off the
   * answer names. Absent for the winner, where no round was shared, and in earlier reports.
   */
  p99VsWinner?: NonNullable<EquivalentCandidate['p99VsWinner']>;
  /** Every repeat measured of it, raw: the probe's and each confirming round's. */
  repeats: { purpose: 'probe' | 'confirm'; round: number | null; repeat: Repeat }[];
}

/**
 * What ended a headroom search, so the answer names it: `setup` (the setup stopped sustaining:
 * `firstPast` is the rate where), `not-held` (measured again at its own batch, the setup did not
 * sustain: no headroom shown), `message-limit` (it sustained the most rows per message the server
 * sends, Headroom.messageLimit: a cap of the lab, not of the setup), `search-range` (it sustained the
 * top of the search's range, `headroomFactor` × its batch), `budget` (the time budget stopped the
 * search), `confirmations` (the search spent its confirmations), `interrupted` (Ctrl-C).
 */
export type HeadroomLimit = 'setup' | 'not-held' | 'message-limit' | 'search-range' | 'budget' | 'confirmations' | 'interrupted';

/** The server's message limit (LIMITS.batch.max) until 2026-11-29: what a headroom recorded without `messageLimit` was searched under. */
export const EARLIER_MESSAGE_LIMIT = 10_000;

/** A finalist's headroom: the highest rate it sustains at the same tick and connections, varying rows per message. */
export interface Headroom {
  /** The candidate measured (absent in reports written before the runner-up's headroom was measured: the winner). */
  candidateId?: string;
  /**
   * The highest batch confirmed to sustain, and the rate it offers; null when none did (`not-held`,
   * or a probe at its own batch failed and the budget left no room to confirm it). Where the
   * search measured nothing above its own batch, its own batch (confirmed by the confirmation).
   */
  batch: number | null;
  eventsPerSec: number | null;
  /** The search reached the top of its range (the server's message limit, or its own factor): at least this. */
  atLeast: boolean;
  /** What ended the search (see HeadroomLimit); absent in earlier reports, where the words derive it. */
  limit?: HeadroomLimit;
  /**
   * The most rows per message the server sent in this run: LIMITS.batch.max, or fewer for a
   * `--rows` file of large events (its pool's largest batch, payload `maxBatch`). Absent in
   * reports before it: EARLIER_MESSAGE_LIMIT, the limit then.
   */
  messageLimit?: number;
  /** The lowest batch found not to sustain above it, with why; null when none was. */
  firstPast: { batch: number; eventsPerSec: number; reason: string } | null;
  probes: number;
  confirmations: number;
  /** Why it ended early: the time budget, or its confirmations; null when it finished. */
  stopped: 'budget' | 'confirmations' | null;
  /** Every repeat it measured, raw, by the batch measured. */
  repeats: { batch: number; purpose: 'probe' | 'confirm'; repeat: Repeat }[];
}

/** When nothing sustains: the candidate that came closest, what limited it, and what the measurements say would help. */
export interface Closest {
  candidate: Candidate;
  figures: CandidateFigures;
  /** What limited it, in words. */
  limit: string;
  /** From what was measured: settings that got further than their neighbours, the next closest other transport. */
  helps: string[];
}

export interface Advice {
  target: Target;
  /** The transports searched, in the order the screen takes them (`--transports`; default every one). */
  transports: Transport[];
  margins: Margins;
  /** The command's time budget and what the search used, s. */
  budgetSec: number;
  elapsedSec: number;
  /**
   * Why the search ended before it had tried all it meant to: `budget`, or `interrupted` (Ctrl-C);
   * null when it finished. A report saved between two measurements holds the answer as it would
   * be were the search cut off there (`interrupted`), which the finished search's replaces.
   */
  stopped: 'budget' | 'interrupted' | null;
  winner: { candidate: Candidate; figures: CandidateFigures } | null;
  /**
   * The next in the ranking (in the set below when one is equally good or indistinguishable,
   * else the best rejected finalist), with its own headroom: null when the search ended before
   * it (absent in earlier reports).
   */
  runnerUp: { candidate: Candidate; figures: CandidateFigures; cpuVsWinner: CpuComparison | null; headroom?: Headroom | null } | null;
  /** The winner's headroom. */
  headroom: Headroom | null;
  /**
   * The answer as a set: every sustaining finalist the evidence does not put behind the winner
   * (not dearer per event, no clearly higher p99), each with its paired comparisons against the
   * winner and what put the winner first. Empty when the winner stands alone; absent in reports
   * written before the answer became a set.
   */
  equivalent?: EquivalentCandidate[];
  /** The order of simplicity the search chose by (`--prefer`); absent in earlier reports. */
  prefer?: SimplicityCriterion[];
  /** Every candidate measured and not chosen, with the reason (the finalists first). */
  rejected: { candidateId: string; transport: Transport; reason: string }[];
  /** Every candidate measured, in the order first measured. */
  tried: TriedCandidate[];
  /**
   * Candidates of the space it did not measure, and why: in words, and as a `reason` (absent in
   * reports written before issue 34).
   */
  notTried: { candidate: Candidate; why: string; reason?: NotMeasuredReason }[];
  /** Set when nothing sustained. */
  closest: Closest | null;
  /**
   * What the search did (issue 34): where it stopped, when its screen ended, and the candidates it
   * did not measure counted by why. Absent in reports written before it.
   */
  search?: SearchAccount;
  /**
   * How the machine's speed moved through the search (issue 33): the yardstick's readings and the
   * anchor's re-probe. Absent in reports written before they were taken.
   */
  drift?: MachineDrift;
}

/**
 * When in the search the yardstick is read: before the screen, between the screen and the
 * confirmation, between the confirmation and the headroom search, and once the search is done.
 */
export type YardstickMoment = 'start' | 'screen-confirm' | 'confirm-headroom' | 'end';

/**
 * One reading of the yardstick the sweep measures every round: the in-page decoding ceiling, the
 * same messages decoded in a fresh tab, no network, the same work every time. Shaped like a
 * sweep's round for the ceilings (`index`, `parseCeilings`), so results/machine-speed.ts reads
 * the readings as it reads rounds.
 */
export interface YardstickReading {
  /** Its place among the search's readings, 0-based. */
  index: number;
  at: YardstickMoment;
  /** When it was measured (ISO 8601). */
  measuredAt: string;
  /** What it took, s: a resumed search's clock counts it when it replays the reading. */
  tookSec: number;
  /** The ceilings measured, events/s each; empty when the measurement failed. */
  parseCeilings: ParseCeiling[];
  /** Why the measurement failed; absent when it did not. */
  error?: string;
}

/** One probe of the anchor, as the drift reads it: null where that probe did not measure the figure. */
export interface AnchorProbe {
  startedAt: string;
  eventsPerSec: number | null;
  cpuMsPerMillionEvents: number | null;
}

/**
 * The anchor candidate probed a second time at the end of the screen: the same setup minutes
 * apart, so second ÷ first is the machine's drift over the screen.
 */
export interface AnchorDrift {
  candidateId: string;
  /** How it was chosen, in words (`the first screened that kept up with its rate`). */
  chosen: string;
  first: AnchorProbe;
  second: AnchorProbe;
  /** Between the two probes' starts, s. */
  apartSec: number;
  /** Second ÷ first: EPS, and renderer CPU per event; null where either probe lacks the figure. */
  eventsPerSecRatio: number | null;
  cpuPerEventRatio: number | null;
  /**
   * How far each ratio moves for a re-probe within seconds (results/machine-drift.ts
   * ANCHOR_NOISE), as a factor: a ratio beyond it either way is drift, not noise.
   */
  noise: { eventsPerSec: number; cpuPerEvent: number };
  /** Either ratio beyond its noise. */
  beyondNoise: boolean;
  /** The re-probe, raw (its point's repeats in the report hold it too). */
  repeat: Repeat;
  /**
   * Every reading of the anchor through the screen (issue 34), its first probe first and this
   * re-probe last: the drift curve every probe's cost was corrected by. Absent in reports
   * written before the screen re-probed its anchor more than once.
   */
  readings?: AnchorReading[];
}

/** One reading of the screen's anchor: its cost at a time, and the drift factor the screen read there. */
export interface AnchorReading {
  /** When, on the search's clock (the window's middle), s. */
  atSec: number;
  startedAt: string;
  /** The objective's cost per event (the search's `--objective`: renderer CPU by default); null when the window did not measure it. */
  cost: number | null;
  /**
   * The smoothed drift factor at this time against the first reading (results/machine-drift.ts
   * driftCurveOf): a probe's cost here was divided by it before the screen compared it.
   */
  factor: number;
  /** The repeat, raw; null for the first reading, which is the anchor's own probe (in `tried`). */
  repeat: Repeat | null;
}

export interface MachineDrift {
  /** The yardstick's readings, in the order taken. */
  readings: YardstickReading[];
  /** The anchor's re-probe; null when there was none (see `anchorSkipped`). */
  anchor: AnchorDrift | null;
  /** Why the anchor was not re-probed; absent when it was, or the screen has not ended. */
  anchorSkipped?: string;
}

/** The figures behind a sustains decision, JSON-able (no Infinity: a missing figure is null). */
export interface SustainsFigures {
  repeats: number;
  failed: number;
  /** Median delivered ratio over the repeats (failed ones count as 0). */
  deliveredRatio: number;
  /** Repeats that shed, and the batches they shed together. */
  shedRepeats: number;
  shedBatches: number;
  /**
   * The median repeat's p99 and the order-statistic interval of that median (its confidence:
   * 75% for 3 repeats, so a view calls it a range below 95%); null when the median repeat has
   * no latency (a majority failed or measured none). `high` is null when the interval's upper
   * end is a repeat without latency (unbounded).
   */
  p99Ms: { median: number; low: number; high: number | null; confidence: number } | null;
  /** Repeats in which a connection was not open, and the most not open in one of them. */
  stalledRepeats: number;
  notOpen: number;
  streams: number | null;
  cap: number | null;
  // rule (issue 33): pooled tails, loss, falling behind, quantisation. Absent in version 3 reports.
  /**
   * The repeats' latencies pooled (results/tail.ts): the p99 the rule judges, its upper limit at
   * `confidence` by a bootstrap over the repeats, p99.9 and the maximum, ms. `pooled` false: the
   * repeats kept no histograms (version 3), so `p99Ms` and `p99HighMs` are the worst window's
   * p99 and p99.9 is null.
   */
  tail?: {
    pooled: boolean;
    p99Ms: number | null;
    p99HighMs: number | null;
    confidence: number;
    p999Ms: number | null;
    maxMs: number | null;
  };
  /**
   * What the page lost over the repeats: batches missing from the sequence (gaps), reconnects,
   * connection-ms closed and stalled (null where the repeats did not count it), and in how many
   * repeats any of these happened.
   */
  loss?: { repeats: number; gapBatches: number; reconnects: number; closedMs: number | null; stalledMs: number | null };
  /** Repeats in which the page fell further behind through the window (see sustains.ts). */
  behindRepeats?: number;
  /**
   * The fewest batches a measured repeat's window was scheduled to hold (its length × the point's
   * batches per second; in reports written before, the batches it received): below 200, one batch
   * moves delivered by over 0.5%.
   */
  fewestBatches?: number | null;
  /**
   * Failed clauses other than the delivered share and the p99 (a failed repeat, loss, falling
   * behind, a connection not open, input delay, display age): a window that failed on one of
   * those is not worth measuring again, however coarse. Absent in version 4 reports written before it.
   */
  otherFailures?: number;
  /** A failure one batch could have turned (delivered, or the latencies over the bound): a window worth measuring again. */
  nearThreshold?: boolean;
  /**
   * The median over the repeats of their input delay p99, ms (the figure the input clause judged);
   * null when no repeat measured it or none answered input (the reasons say which). Absent in
   * reports written before it was kept.
   */
  inputDelayP99Ms?: number | null;
}

/** Whether a point sustains its rate, as results/sustains.ts decides it. */
export interface Sustains {
  sustains: boolean;
  /**
   * In words: every criterion that failed, or, when none did, what held. One repeat reads as a
   * window ("delivered 97.2% < 99%"), several as a median ("median delivered 97.2% < 99%").
   */
  reasons: string[];
  figures: SustainsFigures;
}

/**
 * A finalist as good as the winner on the evidence: `equivalent` when its paired CPU-per-event CI
 * against the winner lies inside ±margin (the choice does not matter within the margin),
 * `cannot-tell` when the CI straddles the margin (or the two shared no round): the evidence cannot
 * tell them apart, which is not the same as equivalent (more rounds might put either ahead).
 */
export interface EquivalentCandidate {
  candidate: Candidate;
  figures: CandidateFigures;
  reading: 'equivalent' | 'cannot-tell';
  /** Renderer CPU per event, B (this one) ÷ A (the winner), paired by round; null with no common round. */
  cpuVsWinner: CpuComparison | null;
  /** Latency p99 (each repeat's window p99), B ÷ A, paired by round with its 95% CI; null with no common round. */
  p99VsWinner: { ratio: number; ciLow: number | null; ciHigh: number | null; rounds: number } | null;
  /** What put the winner first (TriedCandidate.lostOn). */
  lostOn: 'simplicity' | 'headroom' | 'order';
  criterion?: SimplicityCriterion;
}

/**
 * The order of simplicity the advisor chooses by among finalists it cannot rank on cost or
 * latency, simplest first on each: `connections` (fewer), `parsing` (the main thread before
 * Workers, fewer Workers before more), `origins` (one before several), `encoding` (JSON before a
 * binary encoding), `compression` (none before a compressed stream).
 */
export const SIMPLICITY_CRITERIA = ['connections', 'parsing', 'origins', 'encoding', 'compression'] as const;
export type SimplicityCriterion = (typeof SIMPLICITY_CRITERIA)[number];
/** The default order (`--prefer`'s default): every criterion, in SIMPLICITY_CRITERIA's order. */
export const DEFAULT_PREFER: readonly SimplicityCriterion[] = SIMPLICITY_CRITERIA;

/**
 * Why a candidate of the space was not measured:
 * - `notReached`: the screen ended by itself and no measured neighbour led there (it moves one
 *   setting at a time from each transport's best); or, when the budget ended the screen, it was not
 *   among the moves the screen had next;
 * - `prunedDear`: its transport was explored no further, its best costing far more renderer CPU
 *   per event than the cheapest that sustained;
 * - `prunedHopeless`: its transport was explored no further, its best coming nowhere near while
 *   others sustained;
 * - `outOfBudget`: among the moves the screen had next (a basic shape, or a one-setting move from
 *   a transport's best) when the time budget ended it;
 * - `interrupted`: the search was interrupted (Ctrl-C, or a report saved mid-search) before it.
 */
export type NotMeasuredReason = 'notReached' | 'prunedDear' | 'prunedHopeless' | 'outOfBudget' | 'interrupted';

/** Every NotMeasuredReason, in the order the words give them. */
export const NOT_MEASURED_REASONS: readonly NotMeasuredReason[] = ['notReached', 'prunedDear', 'prunedHopeless', 'outOfBudget', 'interrupted'];

/** The search's stages, in order. */
export type SearchStage = 'screen' | 'confirm' | 'headroom';

/** What the search did, for a reader who asks how far it got and why it stopped. */
export interface SearchAccount {
  /**
   * How it ended: `converged` (every stage ended by itself: nothing left worth measuring),
   * `budget` (the time budget stopped a stage) or `interrupted`; the same as `stopped` (null:
   * converged), said here beside the rest of the account.
   */
  ended: 'converged' | 'budget' | 'interrupted';
  /** The first stage the budget or the interruption stopped; null when it converged. */
  stoppedIn: SearchStage | null;
  /** When the screen ended, s since the search began, and how; null while it runs. */
  screen: { endedSec: number; ended: 'converged' | 'budget' | 'interrupted' } | null;
  /** Measurements made: probes (the anchor's re-probe and second windows included), paired confirming rounds, and the headroom search's repeats. */
  measurements: { probes: number; confirmRounds: number; headroomRepeats: number };
  /** The candidates in `notTried`, counted by reason, with a few of their ids. */
  notMeasured: Record<NotMeasuredReason, { count: number; examples: string[] }>;
}

/** A setting the advisor moves one at a time from a candidate (puppeteer/advise/candidates.ts). */
export type Knob = 'tick' | 'connections' | 'parsing' | 'origins' | 'encoding' | 'compression';
