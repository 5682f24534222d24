/**
 * The range of every numeric factor, and the one way a number is read from text. The
 * scenario schema (protocol/scenario-schema.ts, and the generated scenarios.schema.json),
 * the stream query (STREAM_LIMITS), the page's config and every command's flags derive from
 * these; change a limit here and all of them follow.
 */

export interface Range {
  min: number;
  max: number;
  /** Whole numbers only. */
  integer: boolean;
}

export const LIMITS = {
  /**
   * Rows per batch: the largest message the server sends. 100,000 so that the advisor's headroom
   * search (up to 8× a winner's batch, puppeteer/advise/search.ts) finds the knee of a 5,000-row
   * winner, and a tick of half a 100 ms p99 bound carries 2 M events/s on one connection: about
   * 13 MB of JSON per message. The server's row pool is not this big (server/rows.ts POOL_ROWS):
   * a larger batch runs on through the next seconds' rows.
   */
  batch: { min: 1, max: 100_000, integer: true },
  /** Connections one page opens. */
  concurrency: { min: 1, max: 500, integer: true },
  /** Milliseconds between batches on one connection. */
  intervalMs: { min: 0.05, max: 60_000, integer: false },
  /** Workers parsing in parse mode worker. */
  workers: { min: 1, max: 16, integer: true },
  /** Seconds streamed before the measured window. */
  warmupSec: { min: 0, max: 600, integer: false },
  /** Length of the measured window in seconds. */
  measureSec: { min: 0.5, max: 3600, integer: false },
  /** Origins (server ports) a point's connections are spread over: k TCP connections over HTTP/2. */
  origins: { min: 1, max: 8, integer: true },
  /**
   * Tabs of one browser streaming a point at once, each its own renderer, all sharing the
   * browser's one network service (and, over HTTP/2, its connection to each origin).
   */
  tabs: { min: 1, max: 4, integer: true },
  /** Milliseconds between the starts of two requests of the `poll` transport. */
  pollMs: { min: 1, max: 60_000, integer: false },
  /** Times a sweep measures each point, one round each. */
  repeats: { min: 1, max: 50, integer: true },
  /**
   * A `hidden-long` point's intensive-throttling grace, s (protocol/tab-state.ts): Chrome's own
   * is 300. Below 5 s the tab would not be hidden long enough for the budget throttling before it
   * to show; above an hour no one sits the point out.
   */
  hiddenLongGraceSec: { min: 5, max: 3600, integer: true },
} as const satisfies Record<string, Range>;

/**
 * Ports the server's other origins take after a fixed main port (server/origins.ts): h1, connect,
 * and a replica for each origin past the first. A link (puppeteer/link/) forwards every one.
 */
export const EXTRA_ORIGIN_PORTS = 2 + (LIMITS.origins.max - 1);

/**
 * The most points one sweep runs. At the defaults (3 repeats of ~10 s) 2,000 points take about
 * 17 hours, past any sweep one would sit out; a file that expands further (every array is
 * multiplied by every other) is much more likely a mistake, and it is refused before it runs.
 */
export const MAX_SWEEP_POINTS = 2000;

/**
 * The most repeats one run's report holds (points × repeats, with --auto's max-repeats): a
 * repeat is about 6 KB of report.json, which is written whole at every save, so 20,000 make
 * about 120 MB (and 55 hours at the defaults). The largest plan the other limits allow, 2,000
 * points × 50 repeats, would make a report.json past what one JSON string can hold.
 */
export const MAX_REPORT_REPEATS = 20_000;

/**
 * `--time-budget`, s: above 0 and at most a week. Bounded where it is read, so no later
 * arithmetic (the disk space its repeats need, a timer) meets a value Node refuses.
 */
export const TIME_BUDGET_SEC = { min: 0, max: 7 * 24 * 3600 } as const;

/** Latency p99 bound of a sustainable load in a find-max search (scenario `findMax.p99BoundMs`), ms. */
export const P99_BOUND_MS: Range = { min: 1, max: 60_000, integer: false };

/**
 * A plain decimal: digits, an optional fraction and exponent. `Number()` alone would also
 * take '0x10', '0b1', 'Infinity' and '' (as 0), none of which a person means as a count.
 */
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number a plain decimal text spells, or NaN for anything else. */
export function parseDecimal(text: string): number {
  return DECIMAL.test(text) ? Number(text) : Number.NaN;
}

export function inRange(n: number, r: Range): boolean {
  return Number.isFinite(n) && n >= r.min && n <= r.max && (!r.integer || Number.isInteger(n));
}

/** What a range allows, for error messages: "an integer from 1 to 100000". */
export function rangeText(r: Range): string {
  return `${r.integer ? 'an integer' : 'a number'} from ${r.min} to ${r.max}`;
}
