/**
 * What one measured window of one point gives (a repeat): the page's, the server's and the
 * browser's figures over it, and `Stat`, one such figure over a point's repeats. The report
 * (protocol/report.ts) keeps every repeat raw beside the summary results/ makes of them.
 */
import type { Engine } from './engine.js';
import type { LatencySummary, SparseHistogram, TailSummary } from './histogram.js';
import type { LongFrames, PageCounters, TabThreadsCpu } from './page-api.js';
import type { StreamCompression } from './wire.js';
import type { LinkFigures } from './link.js';

/** What held a repeat back, as results/verdict.ts reads its figures ('failed': it measured nothing). */
export type Verdict = 'ok' | 'client-bound' | 'server-bound' | 'host-bound' | 'network-bound' | 'failed';

/** What the page counted over one window. */
export interface PageFigures extends PageCounters {
  /** Batches/s per connection over the window: spread shows unfair multiplexing. */
  perConnectionBatchesPerSec: { min: number; median: number; max: number };
}

/** A figure of CpuFigures that a repeat may be unable to read (then null, and listed in `unavailable`). */
export type CpuFigure = 'tabProcess' | 'tabMainThread' | 'tabThreads' | 'host' | 'browser' | 'renderers' | 'network' | 'gpu' | 'other' | 'total';

/** CPU over one window, % of one core each. */
export interface CpuFigures {
  chrome: ChromeCpu;
  /**
   * The tab's renderer process, % of one core: Chrome's Performance.getMetrics ProcessTime;
   * Firefox's tab content process from /proc. Null where it cannot be read (a remote Firefox).
   */
  tabProcess: number | null;
  /**
   * The tab's main thread, % of one core, ≤ 100: Chrome's busy time (Performance.getMetrics
   * TaskDuration); Firefox's main thread CPU time from /proc (`sources` says which). Null where
   * it cannot be read.
   */
  tabMainThread: number | null;
  /** The tab's renderer CPU by thread; null where the host does not expose threads. */
  tabThreads: TabThreadsCpu | null;
  server: number;
  /** All processes on the host (/proc/stat), % of one core: at most 100 × cores. */
  host: number | null;
  /**
   * Figures this repeat could not read, which are therefore null (never 0): a remote browser's
   * host has no procfs here, so its per-thread CPU (`tabThreads`) and its host CPU (`host`)
   * are unavailable; a remote Firefox gives no CPU at all (no CDP). Absent when everything was
   * readable, and in older reports.
   */
  unavailable?: CpuFigure[];
  /**
   * Where each figure came from, in words, when the engine is not Chrome (Firefox: which
   * process in /proc, or why it is null). Absent for Chrome (CDP, as the column notes say).
   */
  sources?: Partial<Record<CpuFigure, string>>;
}

/**
 * The browser's CPU over a window by process kind, in % of one core (a process can exceed 100 on
 * a multi-core host). Chrome's comes from CDP (SystemInfo.getProcessInfo); Firefox's from /proc
 * (CpuFigures.sources says which process fills each). Null where the engine or the host cannot
 * give it (a remote Firefox: no CDP and no /proc here; Firefox with no GPU or socket process);
 * reports before version 3 always have numbers.
 */
export interface ChromeCpu {
  browser: number | null;
  /** Every renderer (Firefox: content) process, the tab's and any other. */
  renderers: number | null;
  network: number | null;
  gpu: number | null;
  /** Other utility processes (storage, audio, …). */
  other: number | null;
  total: number | null;
}

/** What the server did over one window. */
export interface ServerFigures {
  eventsSent: number;
  batchesSent: number;
  batchesShed: number;
  eventsPerSec: number;
  /**
   * Batches generated / batches falling due, over the window. Below 1: the server fell
   * behind its schedule; above 1: it was catching up on a backlog from before the window.
   */
  pacingRatio: number;
  /** Batches due but not yet generated at the end of the window, over all connections. */
  batchesBehind: number;
  eventLoopUtilization: number;
  /** How late the server wrote batches relative to their schedule, over the window, ms. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  rssBytes: number;
}

/**
 * One figure over a point's measured repeats. The interval is a 95% confidence interval of
 * the MEAN (Student's t on n − 1 degrees of freedom; null below 2 repeats); median, min and
 * max are plain order statistics. docs/method.md ("Statistics") documents the method.
 */
export interface Stat {
  /** Measured repeats the figure comes from. */
  n: number;
  median: number;
  mean: number;
  min: number;
  max: number;
  /** Sample standard deviation (n − 1); 0 for one repeat. */
  sd: number;
  /** 95% CI of the mean; null when n < 2. */
  ciLow: number | null;
  ciHigh: number | null;
}

/** Events per CPU-second: the figure that stays comparable across machines and days. */
export interface Efficiency {
  /** eventsPerSec ÷ (tab renderer process CPU, cores). */
  eventsPerCpuSecRenderer: number | null;
  /** eventsPerSec ÷ (tab main-thread busy time, cores). */
  eventsPerCpuSecMainThread: number | null;
  /** eventsPerSec ÷ (every Chrome process's CPU, cores). */
  eventsPerCpuSecChrome: number | null;
  /** Renderer CPU per million events, ms: the inverse view, for comparisons. */
  rendererCpuMsPerMillionEvents: number | null;
}

/** What one measured window of one point gives. */
export interface RepeatFigures {
  windowSec: number;
  settleSec: number;
  eventsPerSec: number;
  batchesPerSec: number;
  megabytesPerSec: number;
  deliveredRatio: number;
  /**
   * The in-page decoding ceiling of this point's encoding (JSON.parse for json) measured in this
   * repeat's round, at this batch size.
   */
  ceilingEventsPerSec: number | null;
  /** eventsPerSec ÷ ceilingEventsPerSec. */
  ceilingRatio: number | null;
  /**
   * The best JSON.parse ceiling of this repeat's round, over its batch sizes: the bar every
   * encoding is read against. Absent in reports written before per-encoding ceilings.
   */
  jsonCeilingEventsPerSec?: number | null;
  /** eventsPerSec ÷ jsonCeilingEventsPerSec. Absent in reports written before per-encoding ceilings. */
  jsonCeilingRatio?: number | null;
  /** The page's bytes over its events in the window (null without events); absent in reports written before it was kept. */
  bytesPerEvent?: number | null;
  efficiency: Efficiency;
  page: PageFigures;
  /**
   * Event age over the window, ms: every event from its birth (spread evenly over the interval
   * before its batch was due, protocol/age.ts) to the page's handler, so it holds the wait to
   * fill the batch, the server's lateness and transit; the latency that decides (sustains,
   * find-max, the advisor's bound, the table's p99). In version 3 reports (before issue 33) it
   * was transit: write → handler, one per batch.
   */
  latency: LatencySummary;
  cpu: CpuFigures;
  server: ServerFigures;
  /** How the page's connections reached the server; null when the page tags none (the bare page). Absent in older reports. */
  wire?: WireFigures | null;
  /**
   * Points with `tabs` > 1 only: each tab's own figures, in the order the tabs were opened. The
   * figures above are their totals (events, EPS, bytes, gaps summed; `latency` is the tab with
   * the highest p99's; CPU as CpuFigures says).
   */
  tabs?: TabFigures[];
  /** Points with `tabs` > 1 only: the spread of the tabs' EPS. */
  perTabEventsPerSec?: { min: number; median: number; max: number };
  /** Points whose scenario names a `display`, Firefox points and hidden-tab points only: the browser the repeat ran in. */
  browser?: BrowserFigures;
  /** Points with a hidden `tab` only (protocol/tab-state.ts): the tab's visibility, and its return to the foreground. */
  tabState?: TabStateFigures;
  /** Points with a namespace link only (protocol/link.ts): what the link carried over the window, beside its cap. */
  link?: LinkFigures;
  /** Compressed points only: what compression did to the page's streams over the window, from the server's counts. */
  compression?: CompressionFigures;
  // rule (issue 33): what the sustains rule pools and reads over time. Absent in version 3 reports.
  /**
   * The window's latencies as a histogram, so a point's repeats pool into one sample
   * (results/sustains.ts). Same clock correction as `latency`, and the same tab: with several
   * tabs the one `latency` shows (the highest p99), since the rule judges the worst tab's tail.
   * Multi-tab repeats of version 4 reports written before pooled every tab's here; the rule
   * does not read those (its count is not `latency`'s).
   */
  latencyHistogram?: SparseHistogram;
  /** Whether the page fell further behind through the window (results/sustains.ts reads it). */
  trend?: WindowTrend;
  // --- input (issue 33: the page still answers) ---
  /** How the page answered the driver's input over the window; absent in version 3 reports and on pages without the probe (the bare page). */
  input?: InputFigures;
  // --- age (issue 33): transit and display age beside event age (`latency`); absent in version 3 reports ---
  /**
   * Transit over the window, ms: the page's handler time minus the server's write (`sentAt`),
   * one per batch (`poll`: written into the poll's buffer, so it holds the wait for the next
   * poll). A diagnostic beside event age, which decides. Several tabs: the tab with the highest
   * p99's. Absent in version 3 reports.
   */
  transit?: TailSummary;
  /**
   * Display age over the window, ms: at each draw of the table or the charts, the age of the
   * newest event it shows (now minus its batch's due time): how stale the screen is. Per frame,
   * not per event. Null in render mode `none`, which draws nothing; `count` 0 when nothing drew
   * in the window. Several tabs: the tab with the highest p99's. Absent in version 3 reports.
   */
  displayAge?: TailSummary | null;
}

/**
 * How far behind the stream the page was at the window's start and end, and its mean latency
 * in each half of the window: a page that takes a little less than the rate falls further
 * behind every second, which no delivered ratio over one window shows.
 */
export interface WindowTrend {
  /** The page's snapshot time minus the newest `sentAt` it had, ms, at the window's start and end; null before any batch. */
  backlogStartMs: number | null;
  backlogEndMs: number | null;
  /** Mean latency over the first and the second half of the window, ms; null when a half had no batch or was not read. */
  firstHalfMeanMs: number | null;
  secondHalfMeanMs: number | null;
}

/**
 * How the page answered real input over one window: the driver sends a click or a key press
 * through the browser's input pipeline (Chrome: CDP Input.dispatch*; Firefox: BiDi
 * input.performActions) a few times a second (puppeteer/measure/input-sender.ts), the page
 * times each from its event timestamp (web/lab/input-probe.ts). With several tabs: the first tab's.
 */
export interface InputFigures {
  /** Inputs the driver sent in the window (a click is one: its press; a key is one: its keydown). */
  sent: number;
  /** Inputs whose handler ran in the window. */
  handled: number;
  /**
   * How long the input still in flight at the window's end had waited unanswered, ms (from its
   * first event sent): a lower bound on its delay, which the input delay p99 counts
   * (results/input-delay.ts). Absent when none was waiting, and in version 4 reports written
   * before it (those dropped it).
   */
  unansweredMs?: number;
  /** Input delay, event timestamp → start of its handler (INP's input delay), ms; its p99 is what sustains reads. */
  delayMs: LatencySummary;
  /** Event timestamp → the next animation frame after its handler, ms (INP without the paint). */
  nextFrameMs: LatencySummary;
  /** Long animation frames (> 50 ms) in the window; null where the browser has none to give (`longFramesUnavailable` says why), never 0. */
  longFrames: LongFrames | null;
  longFramesUnavailable?: string;
  /** Why no input could be sent (the browser refused it); the delay figures are then empty. */
  unavailable?: string;
  /**
   * Each input's round trip as the driver saw it, ms: sending its press → the browser answering
   * it (Chrome: once the renderer handled it; Firefox: once its content process dispatched it).
   */
  roundTripMs?: LatencySummary;
  /**
   * Where `delayMs` comes from when it is not the page's own timing, and why: in Firefox, input
   * sent over WebDriver BiDi is stamped when its content process dispatches it, after any wait for
   * the main thread, so the page's figure leaves the wait out (a 600 ms block read as 5 ms) and
   * `delayMs` is the driver's round trip, which holds it; the page's own is `pageDelayMs`.
   */
  delaySource?: string;
  pageDelayMs?: LatencySummary;
}

/** One tab of a multi-tab point over the window. */
export interface TabFigures {
  /** The tab's `client` tag, which its streams carry in `/stats`. */
  client: string | null;
  windowSec: number;
  eventsPerSec: number;
  batchesPerSec: number;
  megabytesPerSec: number;
  /** EPS ÷ the tab's own offered rate (the point's ÷ tabs). */
  deliveredRatio: number;
  page: PageFigures;
  latency: LatencySummary;
  /** The tab's renderer process and its main thread busy time (Performance.getMetrics on its own page), % of one core. */
  cpu: { tabProcess: number | null; tabMainThread: number | null };
  wire: WireFigures | null;
}

/** The browser one repeat ran in. */
export interface BrowserFigures {
  /** `Chrome/156.0.8078.79` or `HeadlessChrome/…` (`firefox/153.7.0`), as the browser reports itself. */
  version: string;
  /** Its engine; absent: chrome. */
  engine?: Engine;
  headless: boolean;
  /** The X display a headful browser drew on (`:0`, or the Xvfb the sweep started); null when headless. */
  display: string | null;
  /** True when that display was an Xvfb the sweep started. */
  xvfb: boolean;
  /**
   * The flags pushlab launched it with, for hidden-tab points: without the anti-throttling ones
   * (so Chrome's background throttling was on), with a hidden-long point's grace. Absent otherwise.
   */
  args?: string[];
}

/**
 * A hidden-tab repeat (protocol/tab-state.ts): how long the tab had been hidden, what the page
 * said of its visibility over the window, and what it did once brought back to the foreground.
 */
export interface TabStateFigures {
  state: 'hidden' | 'hidden-long';
  /** hidden-long only: the intensive-throttling grace the browser was launched with, s. */
  graceSec?: number;
  /** From the other tab's bringing to front to the window's start, s: the hidden-long wait, the warm-up and settling. */
  hiddenBeforeWindowSec: number;
  /** `document.visibilityState` as the lab page read it at the window's start and end. */
  visibilityAtStart: 'visible' | 'hidden';
  visibilityAtEnd: 'visible' | 'hidden';
  /** `visibilitychange` events the page saw in the window: 0 when it stayed as it was. */
  visibilityChanges: number;
  /** The return to the foreground, once the window closed. */
  return: TabReturn;
}

/**
 * The lab tab brought back to the front after the window: what it had not yet taken then, and how
 * long it took to take it.
 */
export interface TabReturn {
  /**
   * Batches and events the server had written to the page's streams (its `/stats`) but the page
   * had not counted, read together at the return; null when a connection had reopened (the
   * server counts its open streams only, the page every one).
   */
  backlogBatches: number | null;
  backlogEvents: number | null;
  /**
   * From the return until the page had counted every batch written up to it, ms (read every
   * 20 ms or so, so about that coarse); 0 when it had at the return (no backlog); null when it
   * had not within `waitedSec` (or the backlog is unknown).
   */
  catchUpMs: number | null;
  /** The longest the catch-up was watched, s (protocol/tab-state.ts CATCH_UP_WAIT_SEC). */
  waitedSec: number;
  /** `document.visibilityState` once back, as the page read it: `visible`. */
  visibilityAfter: 'visible' | 'hidden';
}

/** What compression did to a point's streams over one window, as the server counted it. */
export interface CompressionFigures {
  kind: StreamCompression;
  /** The page's streams, and how many of them were compressed (the browser must negotiate permessage-deflate). */
  streams: number;
  compressedStreams: number;
  /** Bytes written to the page's streams (after compression, framing included), and per second in MB. */
  wireBytes: number;
  wireMegabytesPerSec: number;
  /** The compressed streams' message bytes before and after compression. */
  inputBytes: number;
  outputBytes: number;
  /** outputBytes ÷ inputBytes; null when nothing was compressed. */
  ratio: number | null;
}

/**
 * The negotiated protocol and TCP connections of a point's connections, as the server saw them
 * at the end of the window (its streams tagged with the page's client tag, in `/stats`).
 */
export interface WireFigures {
  /** Streams open for the page, by the HTTP version they arrived on. */
  http: { h1: number; h2: number };
  /** Distinct TCP connections carrying them: 1 for any number of HTTP/2 streams of one session. */
  tcpConnections: number;
  /** Connections the page asked for that never opened (waiting behind a per-host cap). */
  stalled: number;
}

interface RepeatBase {
  /** Round this repeat was measured in (0-based). */
  round: number;
  startedAt: string;
  /** Tries this repeat took (1 unless a try failed). */
  attempts: number;
  notes: string[];
  /** The browser host (`Report.hosts[].id`) that measured it. Absent in older reports. (`browser` is the display factor's BrowserFigures.) */
  browserId?: string;
}

export interface MeasuredRepeat extends RepeatBase, RepeatFigures {
  status: 'ok';
  verdict: Exclude<Verdict, 'failed'>;
  /** The window opened before page and server had caught up (settle ran out of budget). */
  startedBehind?: boolean;
  /** The page's clock against the server's, measured before this repeat and taken off its latency (absent in older reports). */
  clock?: ClockOffset;
  /**
   * What `latency` measures when it is not event age: `transit` for a repeat measured before
   * version 4 (write → handler; converted on read, protocol/report-check.ts). Absent: event age.
   */
  latencyBook?: 'transit';
}

/**
 * The page's clock minus the server's, from request/response exchanges against the server's
 * `/clock` (the one with the smallest round trip): latency figures have it taken off.
 */
export interface ClockOffset {
  /** Page minus server, ms (positive: the page's clock is ahead). */
  offsetMs: number;
  /** ± this much, ms: half the round trip of the exchange kept. */
  uncertaintyMs: number;
}

export interface FailedRepeat extends RepeatBase {
  status: 'failed';
  verdict: 'failed';
  error: string;
  /** What failed, when known: 'renderer crashed', 'browser crashed', 'timeout', 'interrupted'. */
  cause?: string;
}

export type Repeat = MeasuredRepeat | FailedRepeat;
