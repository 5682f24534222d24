/**
 * The lab page's control surface, `window.pushlab`: what the driver and the console give it
 * (PageConfig, CpuReading) and what it answers (PageSnapshot, ParseCeiling, RecordedPoint).
 */
import type { LatencySummary, SparseHistogram, TailSummary } from './histogram.js';
import type { Encoding, ParseMode, RenderMode, StreamCompression, Transport } from './wire.js';
import type { DeviceClass } from './device.js';

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
  // rule (issue 33): loss over time. Absent in version 3 reports.
  /** Connection-ms its connections spent closed (between a drop and the reconnect), outages under way included. */
  closedMs?: number;
  /**
   * Connection-ms of silence beyond the stall threshold on open connections (web/lab/counters.ts
   * `stallAfterMs`: 1 s, or 4 ticks or polls when longer), silences under way included.
   */
  stalledMs?: number;
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
  /**
   * Event age since the last snapshot that reset it: every event from its birth (protocol/age.ts)
   * to the page's handler. Before issue 33 this was transit (write → handler, one per batch).
   */
  latency: LatencySummary;
  // rule (issue 33): pooled tails and falling behind. Absent on pages before version 4.
  /** The same latencies as a histogram, so repeats can be pooled (results/sustains.ts). */
  latencyHistogram?: SparseHistogram;
  /** `atMs` minus the newest `sentAt` received, ms: how far behind the stream the page is; null before any batch. */
  backlogMs?: number | null;
  // --- input (issue 33: the page still answers) ---
  /** How the page answered input since the last snapshot that reset latency; absent on pages without the probe (the bare page) and in version 3 reports. */
  input?: InputSnapshot;
  // --- age (issue 33): transit and display age; absent from the bare page ---
  /** Transit since the last reset: handler time minus the server's write (`sentAt`), one per batch, ms. A diagnostic. */
  transit?: TailSummary;
  /**
   * Display age since the last reset: at each draw of the table or the charts, the age of the
   * newest event it shows (now minus its batch's `dueAt`), ms. Null when the render mode draws
   * nothing (`none`).
   */
  displayAge?: TailSummary | null;
  // --- tab states (issue 36): absent from the bare page and older pages ---
  /** `document.visibilityState` when taken. */
  visibility?: 'visible' | 'hidden';
  /** `visibilitychange` events since `start()`. */
  visibilityChanges?: number;
}

/**
 * How the page answered input over a window (web/lab/input-probe.ts): INP-style input delay, the
 * wait to the next frame, and long animation frames where the browser has them.
 */
export interface InputSnapshot {
  /** Inputs (pointerdown, keydown) whose handler ran in the window. */
  handled: number;
  /** Input delay: the event's timestamp (`event.timeStamp`) to the start of its first handler, ms. */
  delay: LatencySummary;
  /**
   * The event's timestamp to the start of the first animation frame after its handler, ms: input
   * delay + processing + the wait for a frame, a lower bound of INP's presentation (the paint is not in it).
   */
  nextFrame: LatencySummary;
  /** Long animation frames (> 50 ms) in the window; null where the browser has no such entries (see longFramesUnavailable). */
  longFrames: LongFrames | null;
  /** Why longFrames is null: the browser has no 'long-animation-frame' PerformanceObserver entries (Firefox 153). */
  longFramesUnavailable?: string;
}

/** Long animation frames over a window, from PerformanceObserver 'long-animation-frame'. */
export interface LongFrames {
  count: number;
  /** Sum of their `blockingDuration` (each frame's time past 50 ms, render included), ms. */
  blockingMs: number;
  /** Sum of their `duration`, ms. */
  durationMs: number;
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
  /** `msgpack` batches instead of JSON text (ws, ws-h2, ws-stream, fetch). */
  encoding?: Encoding;
  /** Ask the server to compress the streams: `deflate` on ws, ws-h2 and ws-stream, `gzip` on sse, sse-h1 and fetch. */
  compression?: StreamCompression;
  /** `recorded`: batches fall due at the server's `--rows` file's recorded times (protocol/pace.ts); absent: every interval. */
  pace?: 'recorded';
  // --- input (issue 33: the page still answers) ---
  /** Time input and observe long animation frames (default true); false only for bench:page's baseline, which measures what the probe costs. */
  inputProbe?: boolean;
  /**
   * A team's own page component in place of the table and the charts (protocol/render-module.ts):
   * the built module's page-relative URL, `renderModuleUrl(sha256)`. Absent: pushlab's own views.
   */
  renderModule?: string;
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
  /** One line: verdict, EPS with delivered %, main thread, renderer CPU, event age. */
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
  /** The device class it was measured as (the driver adds it; protocol/device.ts); absent: full speed. */
  device?: DeviceClass;
  /** `main-thread` when only the main thread was slowed; absent: the whole browser, or no class. */
  throttle?: 'main-thread';
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
