/**
 * A soak (issue 34: "an answer a team can ship"): one setup streamed for minutes to hours, sampled
 * every few seconds, with one forced reconnect half-way, so a team sees heap growth, event-age and
 * input-delay drift and what a reconnect costs before it commits to a stream that runs for hours.
 * Written by puppeteer/soak/ (`npm run soak`, `npm run advise -- --soak`), judged by
 * results/soak.ts, plotted by the report viewer. Raw figures only: the judgement is recomputed
 * from them wherever it is shown.
 */
import type { Point } from './scenario.js';

/** The durations a soak may be asked for, s: long enough for its start, middle and end to be told apart; a day at most. */
export const SOAK_DURATION_SEC = { min: 20, max: 24 * 3600 } as const;

/** One interval between two samples of the streaming page (results/summarise.ts over that interval). */
export interface SoakSample {
  /** End of the interval, s since the soak's first sample. */
  atSec: number;
  /** The interval's length, s (the page's clock). */
  windowSec: number;
  /**
   * The main thread's JS heap in use at the end of the interval, MB (10^6 bytes), Chrome's
   * JSHeapUsedSize: garbage not yet collected included (no GC is forced: a forced GC would stall
   * the main thread and show in the age and input figures). Null where the browser gives none.
   */
  heapUsedMb: number | null;
  /**
   * The JS heap left after a forced full collection, MB (Runtime.getHeapUsage's usedSize after
   * HeapProfiler.collectGarbage): what the page retains, without the collector's sawtooth. Taken
   * at the end of one interval in RETAINED_EVERY_SEC (results/soak.ts); its pause, tens of ms,
   * falls in the next interval's figures. Absent on other samples and in earlier soaks; null
   * where the browser refused it.
   */
  heapRetainedMb?: number | null;
  /** Events the tab received per second over the interval. */
  eventsPerSec: number;
  /** Events received ÷ events the server generated for the page in the interval. */
  deliveredRatio: number;
  /** Event age p99 over the interval (birth → handler), ms; null when no event arrived. */
  ageP99Ms: number | null;
  /** Input delay p99 over the interval (results/input-delay.ts), ms; null when no input was answered. */
  inputDelayP99Ms: number | null;
  /** Inputs the page handled in the interval (the driver sends one every 250 ms). */
  inputsHandled: number;
  /** Batches missing from the page's sequences in the interval (shed by the server or lost). */
  gaps: number;
  /** Batches the server shed in the interval. */
  shed: number;
  /** Reconnects the page counted in the interval. */
  reconnects: number;
  /** CPU of the tab's renderer process over the interval, % of one core; null where it cannot be read. */
  rendererCpuPercent: number | null;
}

/** The forced reconnect: the server ends every stream at once (`POST /drop`) and the page reconnects by its own path. */
export interface SoakReconnect {
  /** When the server was asked to drop, s since the soak's first sample. */
  atSec: number;
  /** Streams the server ended. */
  dropped: number;
  /** Reconnects the page counted by the end of the wait. */
  reconnects: number;
  /**
   * From the drop to every connection open again with its reconnect counted, s, read every 100 ms;
   * null when they were not all back within the wait (results/soak.ts RECOVERY_WAIT_SEC).
   */
  recoverySec: number | null;
  /**
   * Batches missing across the reconnect by the page's sequence numbers (web/lab/counters.ts):
   * its gap count just before the drop against 1 s after every connection came back, so each
   * connection's first batch after it has settled what was lost.
   */
  lostBatches: number;
  /** `lostBatches` × the rows a batch carries: events lost. */
  lostEvents: number;
  /** Of the same span: batches the server shed (its queue over bound) rather than lost to the drop. */
  shedBatches: number;
  /** Connection-ms the page's connections spent closed over the span. */
  closedMs: number;
}

export interface Soak {
  /** The setup streamed: a confirmation point of the advised setup, or a scenario file's point. */
  point: Point;
  /** Where the setup came from, in words: `the advised setup (winner of this search)`, `confirm.json: advised`. */
  source: string;
  /** The duration asked for, s (SOAK_DURATION_SEC). */
  durationSec: number;
  /** Seconds between two samples. */
  sampleSec: number;
  startedAt: string;
  /** When it ended; null while it runs. */
  finishedAt: string | null;
  /** Null: it streamed its whole duration. `interrupted`: Ctrl-C, what was sampled is kept. `failed`: `error` says why. */
  stopped: 'interrupted' | 'failed' | null;
  error?: string;
  /** Seconds the page took to settle (both ends caught up) before the first sample. */
  settleSec: number;
  samples: SoakSample[];
  /** Null until it happened (or when the soak ended before half-way). */
  reconnect: SoakReconnect | null;
}
