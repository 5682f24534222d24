/**
 * What the server reports (`GET /stats`), what the page reports (`pushlab.snapshot()`), and
 * the report a sweep writes. Every view of a result (terminal table, report viewer) is a
 * pure function of these shapes.
 */
import type { Margins } from './margins.js';
import type { Advice } from './advice.js';
import type { LatencySummary } from './histogram.js';
import type { Point } from './scenario.js';
import type { Encoding, ParseMode, RenderMode, StreamCompression, Transport } from './wire.js';

/**
 * The report.json version this build writes. Version 3 is one bump for a round of issues
 * (23–27) that each add to the report, all of it optional: `advice`, the `engine` of the
 * environment and of a point, `options.margins` (already read from late version 2 reports),
 * and, as they land, per-encoding ceilings and clock offsets. Version 2 reports are converted on
 * read (protocol/report-check.ts), so old runs still open, compare and resume; a resumed one is
 * written back as version 3.
 */
export const SCHEMA_VERSION = 3;

/** The browser engine a point ran in; absent in a report: `chrome` (every report before version 3 is Chrome's). */
export type Engine = 'chrome' | 'firefox';
export const ENGINES: readonly Engine[] = ['chrome', 'firefox'];

/**
 * A run id names one directory directly under the reports directory (`--out`, `--reports`) and
 * nothing else: it starts with a letter or digit (so it is never `.`, `..`, a hidden name or
 * something read as a flag), holds only letters, digits, `.`, `_` and `-` (no separator to
 * climb or descend with), and is at most 100 characters. A sweep's ids (`20261122-013000`) and
 * the lab's (`lab-20261122-013000`) are of this form.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** RUN_ID_PATTERN in words, for a refusal. */
export const RUN_ID_ALLOWED = 'one directory name directly under the reports directory: a letter or digit, then letters, digits, ., _ or -, at most 100 (no / or \\, not . or ..), e.g. 20261123-141500';

/** Whether `name` is a run id (RUN_ID_PATTERN). */
export const isRunId = (name: string): boolean => RUN_ID_PATTERN.test(name);

/** One open stream as the server sees it. */
export interface ServerConnectionStats {
  id: number;
  transport: Transport;
  /** 'h1' or 'h2': the HTTP version the request arrived on. */
  http: string;
  /** Which TCP connection carries it (a number per connection, from 1); streams of one HTTP/2 session share one. */
  socket: number;
  batch: number;
  intervalMs: number;
  /** The `client` tag the stream was opened with, or null. */
  client: string | null;
  openSec: number;
  /** The next seq: batches generated so far, counting from the seq the stream resumed at. */
  generated: number;
  sent: number;
  /** Batches skipped because the client's send buffer was over the bound. */
  shed: number;
  /** Batches due by schedule but not yet generated: this stream's pacing debt. */
  behind: number;
  /** Batches written per second since the connection opened (shed excluded). */
  batchesPerSec: number;
  /** How late batches were written relative to their schedule since the last reset, in ms. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  /** Bytes queued for this client now (WS bufferedAmount or HTTP/2 stream writableLength). */
  bufferedBytes: number;
  /**
   * Bytes written to the connection so far: what goes on the wire above TLS and HTTP/2 framing
   * (WebSocket frame headers, SSE `id:`/`data:` lines, after compression when compressed).
   */
  bytes: number;
  /** What compressing this stream did so far; null when it is not compressed (not asked, or not negotiated). */
  compression: StreamCompressionStats | null;
}

/** One compressed stream's compressor, cumulative. */
export interface StreamCompressionStats {
  kind: StreamCompression;
  /** Message bytes before compression (framing the compressed bytes travel in is not counted). */
  inputBytes: number;
  /** The same messages compressed. */
  outputBytes: number;
}

/** `GET /stats`: cumulative counters; the driver differences two of them over a window. */
export interface ServerStats {
  /** Server clock when sampled, ms (performance.now()). */
  nowMs: number;
  pid: number;
  /** Cumulative process CPU, µs (process.cpuUsage()). */
  cpuUserUs: number;
  cpuSystemUs: number;
  /** Cumulative event-loop time, ms (performance.eventLoopUtilization()). */
  eventLoopActiveMs: number;
  eventLoopIdleMs: number;
  rssBytes: number;
  /** Totals since the server started, over every connection ever opened. */
  batchesSent: number;
  eventsSent: number;
  bytesSent: number;
  batchesShed: number;
  /** Batches due by schedule but not yet written: pacing debt of open connections. */
  batchesBehind: number;
  /** Tick lateness over every open connection since the last `?reset=lateness`, ms. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  connectionsOpen: number;
  connectionsTotal: number;
  /** Streams dropped because their transport threw on write, and the last such error. */
  writeErrors: number;
  lastWriteError: string | null;
  /** Connections dropped for not answering heartbeat pings (dead peers nobody told us about). */
  deadPeersDropped: number;
  /** Streams dropped because their connection was found gone (destroyed or closed) with no close event seen. */
  goneStreamsDropped: number;
  /** SSE requests whose Last-Event-ID was not a plain safe integer; they started from seq 0. */
  badLastEventIds: number;
  sendBufferLimitBytes: number;
  connections: ServerConnectionStats[];
}

/** Page counters: exact, cumulative since `start()`. */
export interface PageCounters {
  events: number;
  batches: number;
  /**
   * Message bytes received as the page sees them: decoded, after any compression the browser
   * undid (JSON text, whose rows are ASCII so characters = bytes; or msgpack/protobuf bytes).
   * What travelled on the wire is the server's count (`CompressionFigures`).
   */
  bytes: number;
  /** Batches missing from the seq sequence (each one either shed by the server or lost). */
  gaps: number;
  /** Messages whose seq was not above the last one seen on that connection. */
  duplicates: number;
  reconnects: number;
  /** Messages that failed to parse. */
  errors: number;
}

export interface PageSnapshot {
  /** performance.timeOrigin + performance.now() when taken, ms since the epoch. */
  atMs: number;
  transport: Transport;
  concurrency: number;
  /** The `client` tag the page's streams carry, to find them in `/stats`; absent on the bare page. */
  client?: string;
  open: number;
  counters: PageCounters;
  /** Batches received per connection, in connection order. */
  batchesPerConnection: number[];
  /** Latency since the last snapshot that reset it. */
  latency: LatencySummary;
}

/** Config for `pushlab.start()`; the query parameters plus page-side choices. */
export interface PageConfig {
  transport: Transport;
  batch: number;
  intervalMs: number;
  concurrency: number;
  render: RenderMode;
  /** Parse on the main thread or in `workers` dedicated Workers. */
  parse?: ParseMode;
  workers?: number;
  /** Milliseconds between table/chart redraws (and Worker updates). */
  renderEveryMs?: number;
  /** Rows the table keeps. */
  tableRows?: number;
  /** How long `start()` may wait for every connection to open, ms. */
  openTimeoutMs?: number;
  /** `poll` only: ms between the starts of two requests on one connection. */
  pollMs?: number;
  /** Origins the connections are spread over (connection i on origin i mod k); transports on the main origin only. */
  origins?: number;
  /** `msgpack` batches instead of JSON text (ws, ws-h2, fetch). */
  encoding?: Encoding;
  /** Ask the server to compress the streams: `deflate` on ws and ws-h2, `gzip` on sse, sse-h1 and fetch. */
  compression?: StreamCompression;
}

/** `window.pushlab`: the lab page's control surface, used by the driver and the console. */
export interface PushlabApi {
  /** Opens the connections; resolves once every one is open. Stops any previous run. */
  start(config: PageConfig): Promise<{ opened: number; openMs: number }>;
  stop(): void;
  /** Counters since start; `resetLatency` starts a fresh latency window after this one. */
  snapshot(options?: { resetLatency?: boolean }): Promise<PageSnapshot | null>;
  /**
   * The in-page decoding ceiling of `encoding` (default json: the JSON.parse ceiling): fetches
   * real messages of this batch size from the server, then decodes them in a loop on the main
   * thread for `durationMs`, with no network, counting rows and reading `sentAt`.
   */
  parseCeiling(batch: number, durationMs: number, encoding?: Encoding): Promise<ParseCeiling>;
  /**
   * The lab page only, under `npm run lab`: the driver calls this about once a second with CPU
   * it read from CDP and procfs (a page cannot read its own CPU).
   */
  cpuReadings?(reading: CpuReading): void;
  /**
   * The lab page only, under `npm run lab`: measures the current settings exactly as a sweep
   * point and appends it to the lab report; rejects when the page was opened some other way.
   */
  record?(): Promise<RecordedPoint>;
}

/**
 * CPU over the last reading interval (about 1 s), in % of one core (a process may exceed 100
 * on a multi-core host); null where the host cannot say (per-thread figures off Linux).
 */
export interface CpuReading {
  /** When read, ms since the epoch. */
  atMs: number;
  /** Wall time the figures cover, s. */
  intervalSec: number;
  cores: number;
  /** The tab's renderer process (the lab page's tab: Performance.getMetrics ProcessTime). */
  renderer: number | null;
  /** The tab's main thread busy time (TaskDuration), ≤ 100: the sweep's `tabMainThread`. */
  mainThreadBusy: number | null;
  /** The tab's renderer by thread (procfs CPU time: main, each parsing Worker, …); null off Linux. */
  threads: TabThreadsCpu | null;
  /** Null where the engine cannot give it (Firefox with no socket or GPU process). */
  network: number | null;
  browser: number | null;
  gpu: number | null;
  /** Every other browser process (other renderers, utilities). */
  otherChrome: number | null;
  server: number | null;
  /** Every process on the host (/proc/stat), ≤ 100 × cores. */
  host: number | null;
}

/** What `pushlab.record()` resolves to: where the point went and its one-line result. */
export interface RecordedPoint {
  /** The report file, and the viewer URL that opens it. */
  reportPath: string;
  viewerUrl: string;
  pointId: string;
  /** One line: verdict, EPS with delivered %, main thread, renderer CPU, latency. */
  line: string;
}

/**
 * What one core can decode in this browser, on the server's own bytes: the ceiling for EPS.
 * A round holds one per batch size and encoding its points use.
 */
export interface ParseCeiling {
  batch: number;
  /** The encoding decoded; absent: json (JSON.parse), as in every report before encodings had ceilings. */
  encoding?: Encoding;
  eventsPerSec: number;
  /** Distinct messages parsed round-robin, and their mean size. */
  messages: number;
  bytesPerMessage: number;
  durationMs: number;
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

/**
 * The tab's renderer by thread, in % of one core, from the kernel's per-thread CPU time
 * (Linux `/proc/<pid>/task/<tid>/stat`; null elsewhere). CPU time, not busy wall time, so a
 * thread the host descheduled does not look busy.
 */
export interface TabThreadsCpu {
  /** The renderer's main thread: parsing, rendering and script when parse = main. */
  main: number;
  /** One entry per dedicated Worker thread, in creation order. */
  workers: number[];
  /** Chrome_ChildIOThread: IPC from the network service and the browser. */
  io: number;
  compositor: number;
  /** ThreadPool threads: mostly V8's concurrent and parallel GC. */
  pool: number;
  other: number;
}

export type Verdict = 'ok' | 'client-bound' | 'server-bound' | 'host-bound' | 'failed';

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

// ---------------------------------------------------------------------------------------------
// Schema version 2: repeats, statistics, paired verdicts, saturation (issue 8).
// The contract the stats module, the runner and the report views build against.

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
  /** Points whose scenario names a `display` only: the browser the repeat ran in. */
  browser?: BrowserFigures;
  /** Compressed points only: what compression did to the page's streams over the window, from the server's counts. */
  compression?: CompressionFigures;
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

/** Why a point's figures should not be read as steady. */
export interface UnsteadyFlag {
  kind: 'over-delivery' | 'backlog' | 'outlier' | 'failed-repeats' | 'mixed-hosts';
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
   * delivered ≥ `deliveredRatio` of offered, no repeat shed or failed, the median repeat's p99
   * ≤ p99BoundMs, every connection open. A probe is the same rule over its one window.
   */
  criteria: { deliveredRatio: number; shed: 0; p99BoundMs: number };
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
  options: SweepOptions;
  rounds: Round[];
  points: PointResult[];
  comparisons: PairedComparison[];
  /** Knob comparisons (absent in reports written before them: read as none). */
  knobs?: KnobComparison[];
  saturation: SaturationResult[];
  /** `npm run advise`'s answer (protocol/advice.ts); absent in a sweep's or the lab's report. */
  advice?: Advice;
}

/** Practical margins of a run's comparisons, as shares (protocol/margins.ts, where they are parsed). */
export type { Margins };

export type EquivalenceKind = 'both-kept-up' | 'equivalent' | 'different' | 'unclear';
