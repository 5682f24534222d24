/**
 * The report a sweep, `npm run advise` and the lab write (report.json): the run's environment and
 * browsers, its rounds, each point's repeats and their summary, the comparisons and the find-max
 * searches. Every view of a result (terminal table, report viewer) is a pure function of it. A
 * repeat's own figures are protocol/repeat-figures.ts; the live counters the driver makes them
 * from are the page's (protocol/page-api.ts) and the server's (protocol/server-stats.ts).
 */
import type { PayloadDescription } from './payload.js';
import type { Advice } from './advice.js';
import type { Soak } from './soak.js';
import type { Engine } from './engine.js';
import type { DeviceCalibration } from './device.js';
import type { EquivalenceKind, Margins } from './margins.js';
import type { ParseCeiling } from './page-api.js';
import type { ClockOffset, Repeat, Stat, Verdict, WireFigures } from './repeat-figures.js';
import type { Point } from './scenario.js';
import type { Transport } from './wire.js';

/**
 * The report.json version this build writes. Version 4 (issue 33, "sustains must mean what a
 * user sees") changes what `latency` is: a repeat's `latency` is **event age** (each event from
 * its birth to the page's handler, the wait to fill its batch included), where versions 2 and 3
 * recorded transit (the server's write to the handler). Everything else it adds is optional:
 * transit and display age, the latency histogram and the window's trend, closed and stalled
 * time, input delay and long animation frames, p99.9. Older reports are converted on read
 * (protocol/report-check.ts), so they still open, compare and resume; their measured repeats are
 * marked `latencyBook: 'transit'`, and a resumed one is written back as version 4 with its old
 * repeats still marked. A point whose repeats mix the two carries a `mixed-latency` unsteady flag
 * (results/point-summary.ts), which every view prints with the point.
 */
export const SCHEMA_VERSION = 4;

/**
 * A run id names one directory directly under the reports directory (`--out`, `--reports`) and
 * nothing else: it starts with a letter or digit (so it is never `.`, `..`, a hidden name or
 * something read as a flag), holds only letters, digits, `.`, `_` and `-` (no separator to
 * climb or descend with), and is at most 100 characters. A sweep's ids (`20261122-013000`) and
 * the lab's (`lab-20261122-013000`) are of this form.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** RUN_ID_PATTERN in words, for a refusal. */
export const RUN_ID_ALLOWED =
  'one directory name directly under the reports directory: a letter or digit, then letters, digits, ., _ or -, at most 100 (no / or \\, not . or ..), e.g. 20261123-141500';

/** Whether `name` is a run id (RUN_ID_PATTERN). */
export const isRunId = (name: string): boolean => RUN_ID_PATTERN.test(name);

export interface Environment {
  chromeVersion: string;
  chromePath: string;
  nodeVersion: string;
  platform: string;
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  headless: boolean;
  launchArgs: string[];
  /** Puppeteer's CDP Network domain stays off while measuring (it floods CDP and halves EPS). */
  networkEnabled: boolean;
  serverUrl: string;
  /** The engine of the sweep's own browser. Absent: `chrome` (a version 2 report is read with `chrome` here). */
  engine?: Engine;
  /**
   * The Firefox the sweep launched for its `engine: firefox` points (or the lab's), once one
   * started: its version as it reports itself, its binary, and where it was found. Absent when
   * no point ran in Firefox.
   */
  firefox?: { version: string; path: string; source: string; headless: boolean };
}

/**
 * One browser a sweep measured in (issue 12): a Chrome it launched, or one it connected to
 * (`--browser`). Repeats name theirs in `browserId`; a point's `browsers` lists those behind its
 * statistics.
 */
export interface BrowserHost {
  /** What repeats call it: the label given (`desk=ws://…`, or `a` of `a@desk=…`), else the endpoint's host:port, else `local`. */
  id: string;
  /** `launched`: a Chrome this sweep started; `remote`: one it connected to. */
  origin: 'launched' | 'remote';
  /** Its engine: a remote endpoint speaking CDP is Chrome, one speaking WebDriver BiDi Firefox. Absent: chrome. */
  engine?: Engine;
  /** The endpoint connected to, without credentials or query (tokens); null when launched. */
  endpoint: string | null;
  /**
   * The machine it runs on: the `@machine` of the label, else the label, else the endpoint's host name, with every address of the
   * driver's own machine (loopback included) called `localhost`. An SSH tunnel makes a far
   * browser look local: label it.
   */
  host: string;
  /** Browser.getVersion's product, e.g. `Chrome/156.0.8078.79` (HeadlessChrome when headless). */
  version: string;
  userAgent: string;
  headless: boolean;
  /** The browser host's logical cores (`navigator.hardwareConcurrency`); null if unread. */
  cores: number | null;
  /** The CPU model: read from the OS for a launched Chrome; CDP does not give it, so null for a remote one. */
  cpuModel: string | null;
  /** SystemInfo.getInfo's `modelName modelVersion` (e.g. `MacBookPro18,1`), where the platform gives one; else null. */
  machineModel: string | null;
  /** CPU architecture from the page's `navigator.userAgentData` (`x86`, `arm`), where given; else null. */
  architecture: string | null;
  /**
   * What makes two browsers' figures comparable (platform, architecture, cores, CPU or
   * machine model, browser version): repeats of one point from different kinds are never
   * pooled in one summary.
   */
  kind: string;
  /** Per-thread CPU (/proc) and host CPU (/proc/stat) are readable: only for a launched Chrome. */
  procfs: boolean;
  /** Whether the pushlab server ran on this browser's host; null when that cannot be told. */
  serverSharesHost: boolean | null;
  /** Other browsers of this sweep on the same host, which competed with it for CPU. */
  sharesHostWith: string[];
  /** Set when the browser was lost mid-sweep (disconnected and could not be reached again). */
  lost?: { at: string; error: string };
  /** The browser's clock against the server's, measured when the sweep described it (absent in older reports). */
  clock?: ClockOffset;
  /** A `--grid` session's Grid node (its id and URI from the Grid's /status): `host` is that node's machine. */
  gridNode?: { id: string; uri: string };
}

// Schema version 2 (issue 8): a point's summary over its repeats, paired verdicts, saturation.

/** Why a point's figures should not be read as steady. */
export interface UnsteadyFlag {
  /** `mixed-latency`: some repeats' latency is transit (`latencyBook`, from a version 2 or 3 run resumed), the others event age. */
  kind: 'over-delivery' | 'backlog' | 'outlier' | 'failed-repeats' | 'mixed-hosts' | 'mixed-latency';
  /** Rounds concerned. */
  rounds: number[];
  message: string;
}

/** The statistics over a point's measured repeats. */
export interface PointSummary {
  /** Measured (ok) repeats. */
  n: number;
  eventsPerSec: Stat;
  deliveredRatio: Stat;
  ceilingRatio: Stat | null;
  /** Over the repeats' jsonCeilingRatio; absent in reports written before per-encoding ceilings. */
  jsonCeilingRatio?: Stat | null;
  /** Over the repeats' bytesPerEvent; absent in reports written before it was kept. */
  bytesPerEvent?: Stat | null;
  latencyP50Ms: Stat | null;
  latencyP99Ms: Stat | null;
  /** Each over the repeats that could read it; null when none could (CpuFigures: never 0 for unreadable). */
  cpu: {
    tabProcess: Stat | null;
    tabMainThread: Stat | null;
    chromeTotal: Stat | null;
    browser: Stat | null;
    network: Stat | null;
    gpu: Stat | null;
    server: Stat;
    host: Stat | null;
  };
  efficiency: {
    eventsPerCpuSecRenderer: Stat | null;
    eventsPerCpuSecMainThread: Stat | null;
    eventsPerCpuSecChrome: Stat | null;
    rendererCpuMsPerMillionEvents: Stat | null;
  };
  /** Sums over the repeats' windows. */
  gaps: number;
  shed: number;
  /** The last measured repeat's; repeats that saw another say so in the point's notes. Absent in older reports. */
  wire?: WireFigures | null;
  /** Points with `tabs` > 1 only: the lowest and the highest tab's EPS in each repeat, over the repeats. */
  tabEventsPerSecMin?: Stat;
  tabEventsPerSecMax?: Stat;
  /** Compressed points only: MB/s on the wire, and compressed ÷ uncompressed bytes. */
  wireMegabytesPerSec?: Stat;
  compressionRatio?: Stat | null;
  // --- input (issue 33: the page still answers) ---
  /** Over the repeats' input delay p99, ms; absent when no repeat carries input figures (version 3 reports). */
  inputDelayP99Ms?: Stat | null;
  /** Over the repeats' long animation frames' blocking time, ms per s of window; null where the browser has none (Firefox). */
  longFrameBlockingMsPerSec?: Stat | null;
  // --- age (issue 33): beside event age (latencyP50Ms, latencyP99Ms); absent in version 3 reports ---
  /** Transit p99 (write → handler), ms, over the repeats that have it: a diagnostic. */
  transitP99Ms?: Stat | null;
  /** Display age p50 and p99 (the newest event on screen at each draw), ms; null where nothing drew (render none). */
  displayAgeP50Ms?: Stat | null;
  displayAgeP99Ms?: Stat | null;
}

export interface PointResult {
  point: Point;
  /** Every repeat, in the order measured; raw figures kept beside the summary. */
  repeats: Repeat[];
  /** Null until at least one repeat measured. */
  summary: PointSummary | null;
  /** The verdict most repeats reached ('failed' when none measured). */
  verdict: Verdict;
  /** Empty when steady. */
  unsteady: UnsteadyFlag[];
  notes: string[];
  /**
   * The browsers (`Report.hosts[].id`) whose repeats the summary is over, one kind of host
   * only. Absent in older reports and before the first measured repeat.
   */
  browsers?: string[];
}

/** One round: every point once, in a seeded order. */
export interface Round {
  index: number;
  /** The seed this round's order was drawn from. */
  seed: number;
  /** Point ids in the order measured. */
  order: string[];
  startedAt: string;
  finishedAt: string | null;
  /** The in-page JSON.parse ceiling, measured at the start of this round (by the one browser of an unsharded sweep). */
  parseCeilings: ParseCeiling[];
  /**
   * A sharded sweep's ceilings: each browser measures its own, at the batch sizes it runs this
   * round, before its first repeat of the round. Absent in unsharded sweeps and older reports.
   */
  hostCeilings?: { browser: string; parseCeilings: ParseCeiling[] }[];
  /**
   * An unsharded sweep's ceilings measured in another engine than Chrome, in that engine's own
   * browser (Firefox's JSON.parse is not Chrome's): its points' ceiling ratios are to these.
   * `parseCeilings` above are Chrome's. Absent when no point of another engine ran.
   */
  engineCeilings?: { engine: Engine; parseCeilings: ParseCeiling[] }[];
}

/**
 * Two points that differ only in transport, compared round by round: the per-round ratio
 * B ÷ A of a metric, and a 95% CI of its geometric mean.
 */
export interface PairedComparison {
  /** Point ids; A and B differ only in transport. */
  a: string;
  b: string;
  metric: 'eventsPerSec' | 'rendererCpuMsPerMillionEvents';
  /** Rounds where both were measured, and B ÷ A in each. */
  rounds: number[];
  ratios: number[];
  /** Geometric mean of the ratios and its 95% CI (t on log ratios); CI null below 2 rounds. */
  ratio: number;
  ciLow: number | null;
  ciHigh: number | null;
  /**
   * 'a' or 'b' when the CI lies wholly beyond the practical margin (that one is better), else
   * 'none'. Reports written before margins: when the CI excluded 1.
   */
  better: 'a' | 'b' | 'none';
  /**
   * The reading against the practical margin (results/equivalence.ts): `both-kept-up` (EPS
   * where both sides delivered ≥ 99% of offered), `equivalent` (the CI inside ±margin),
   * `different` (wholly beyond it), `unclear` (straddling it, or no CI); margin as a share.
   * Absent in older reports.
   */
  equivalence?: { kind: EquivalenceKind; margin: number };
  /** "sse faster by 23% (CI 12–35%)", "EPS equivalent within ±3% (…)", "no clear EPS difference (…)". */
  text: string;
}

/**
 * Two points of one run, same transport and offered load, that differ in one knob only
 * (parsing, message size, origins, encoding, DevTools, render), compared like transports:
 * what that knob bought, paired by round.
 */
export interface KnobComparison extends PairedComparison {
  /** The knob, and its value at A and at B: 'parsing', 'main thread', '2 Workers'. */
  knob: string;
  from: string;
  to: string;
  /** What A and B share: `sse 400 × 10 every 1 ms, 2 Workers, render none`. */
  context: string;
}

/** `--find-max`: the highest sustainable EPS of one transport along one factor. */
export interface SaturationResult {
  scenario: string;
  transport: Transport;
  /** The factor searched; the other one is held at `fixed`. */
  varied: 'batch' | 'concurrency';
  fixed: { batch?: number; concurrency?: number };
  /** The range searched along `varied`. */
  range: { min: number; max: number };
  /**
   * The sustains rule (results/sustains.ts), over a confirmation's repeats: the median repeat
   * delivered ≥ `deliveredRatio` of offered, nothing lost and no repeat failed, the pooled p99's
   * upper limit (results/tail.ts) ≤ p99BoundMs, every connection open, input delay within
   * `inputDelayBoundMs`. A probe is the same rule over its one window.
   */
  criteria: {
    deliveredRatio: number;
    shed: 0;
    p99BoundMs: number;
    /** The input delay p99 bound, ms; absent in version 3 reports. */ inputDelayBoundMs?: number;
  };
  /** Every probe, in the order tried. */
  probes: { value: number; pointId: string; sustainable: boolean; eventsPerSec: number | null; reason: string }[];
  /**
   * Every confirmation, in the order tried, with the sustains rule's verdict over its repeats:
   * how the search stepped down and back up. Absent in reports written before it was kept.
   */
  confirmations?: { value: number; pointId: string; sustainable: boolean; reason: string }[];
  /** The highest sustainable value found, confirmed with repeats; null if none was. */
  knee: { value: number; pointId: string; eventsPerSec: Stat } | null;
  /** The first value past the knee that was not sustainable. */
  firstPast: { value: number; pointId: string; reason: string } | null;
  /**
   * Every repeat the search measured, probes and confirmations alike, in the order measured,
   * with the point it measured: the raw figures behind `probes` and `knee`. Absent in reports
   * written before it was kept.
   */
  repeats?: { pointId: string; purpose: 'probe' | 'confirm'; repeat: Repeat }[];
}

export interface SweepOptions {
  /** Repeats every point gets (fixed rounds). */
  repeats: number;
  /** Round r's order is drawn from a seed derived from this one and r. */
  seed: number;
  auto: boolean;
  maxRepeats: number;
  /** Seconds; null for none. */
  timeBudgetSec: number | null;
  /** Whether the scenarios' `findMax` searches run after the rounds. */
  findMax: boolean;
  /** Extra tries for a failed repeat. */
  retries: number;
  /** The scenario file the points came from, as given (relative to the project root). */
  file: string;
  /** `--spread-repeats`: a point's repeats go to a different browser each round. Absent: false. */
  spreadRepeats?: boolean;
  /**
   * The practical margins the comparisons were read against (results/equivalence.ts), as
   * shares. Absent: the defaults, ±3% EPS and ±5% CPU per event (and, in reports written before
   * margins, none: their comparisons called any CI that excluded 1).
   */
  margins?: Margins;
  // --- input (issue 33: the page still answers) ---
  /** `--input-delay`: the find-max searches' input delay p99 bound, ms; absent: the rule's default (200 ms), and in version 3 reports. */
  inputDelayBoundMs?: number;
}

export interface Report {
  schemaVersion: typeof SCHEMA_VERSION;
  runId: string;
  startedAt: string;
  finishedAt: string | null;
  /** Set when the sweep was stopped (Ctrl-C) before finishing; `resumeCommand` finishes it. */
  interrupted: boolean;
  resumeCommand: string | null;
  scenarios: string[];
  environment: Environment;
  /**
   * Every browser the sweep measured in, with its host and whether the server shared it.
   * Absent in reports written before issue 12.
   */
  hosts?: BrowserHost[];
  /**
   * Each device class the run calibrated, once per browser (protocol/device.ts): the slowdown
   * its points ran at. Absent when no point asked for one, and in reports before device classes.
   */
  devices?: DeviceCalibration[];
  options: SweepOptions;
  rounds: Round[];
  points: PointResult[];
  comparisons: PairedComparison[];
  /** Knob comparisons (absent in reports written before them: read as none). */
  knobs?: KnobComparison[];
  saturation: SaturationResult[];
  /** `npm run advise`'s answer (protocol/advice.ts); absent in a sweep's or the lab's report. */
  advice?: Advice;
  /** A soak of one setup (protocol/soak.ts): `npm run soak`, or `npm run advise -- --soak`; absent otherwise. */
  soak?: Soak;
  /**
   * Where the last session's wall time went: measured windows against everything around them
   * (issue 34). Absent in reports written before it, in the lab's, and for a sweep sharded over
   * several browsers (their phases overlap, so no part is theirs alone).
   */
  wall?: WallAccount;
  /**
   * What the run's events were (protocol/payload.ts): a `--rows` file's, or the lab's car rows,
   * as the server described them at `/payload`. Absent in reports written before `--rows`, and
   * when the server was not asked (`--server` at an older one).
   */
  payload?: PayloadDescription;
}

/**
 * What a command spends outside its measured windows, one part per kind of fixed cost, in the
 * order a repeat meets them (`startup` and `ceilings` aside).
 */
export const WALL_PARTS = ['startup', 'tabs', 'pageLoads', 'connectionOpens', 'warmUps', 'teardowns', 'ceilings', 'other'] as const;
export type WallPart = (typeof WALL_PARTS)[number];

/** One session's wall time, split into measured windows and where the rest went (results/wall-account.ts). */
export interface WallAccount {
  /** The session's wall time, s: from the command's process start to the end of its measuring. */
  wallSec: number;
  /** Time inside measured windows, s: the measured repeats' own `windowSec`, summed. */
  windowsSec: number;
  /** windowsSec ÷ wallSec (0 with no wall time). */
  windowShare: number;
  /**
   * The rest, s, by part; the parts sum to wallSec − windowsSec. `startup`: the server and the
   * browser starting; `tabs`: opening a repeat's tabs; `pageLoads`; `connectionOpens`; `warmUps`:
   * the minimum warm-up and the settle wait; `teardowns`: stopping and closing the tabs;
   * `ceilings`: the in-page decoding ceilings (the sweep's per round, advise's yardstick);
   * `other`: the rest (the samples either side of a window, failed attempts, saving the report).
   */
  outsideSec: Record<WallPart, number>;
}
