/**
 * What a team asks the advisor for: an event rate under a latency bound, in a render mode; the
 * bounds of what it can ask, and the two pure parsers of `--rate 300k` and `--p99 100ms`. A
 * refusal names the flag, the value as given and what is allowed (ParamError, as the server's
 * refusals do). Pure, no Node or DOM.
 */
import { LIMITS, P99_BOUND_MS, parseDecimal, type Range } from './limits.js';
import { deviceWords, type DeviceClass } from './device.js';
import { tabWords, type HiddenState } from './tab-state.js';
import { linkWords } from './link.js';
import type { RenderModuleRef } from './render-module.js';
import { paramError, TRANSPORT_INFO, TRANSPORTS, type ParamError, type RenderMode, type Transport } from './wire.js';

/**
 * What the search minimises among the candidates that sustain (`--objective`), each a cost per
 * event so that candidates offering slightly different rates (whole rows, up to 5% over the
 * target) compare fairly:
 * - `renderer`: the tab's renderer process (all threads), ms of CPU per million events (the default);
 * - `chrome`: every Chrome process (renderers, network service, browser, GPU, other), ms of CPU per million events;
 * - `main-thread`: the tab's main thread busy time, ms per million events;
 * - `bytes`: the page's message bytes per event.
 */
export type Objective = 'renderer' | 'chrome' | 'main-thread' | 'bytes';
export const OBJECTIVES: readonly Objective[] = ['renderer', 'chrome', 'main-thread', 'bytes'];

/** The advisor's target. */
export interface Target {
  /** Events per second the page must take, in total over its connections. */
  eventsPerSec: number;
  /** The median repeat's latency p99 must be at or below this, ms (the sustains rule). */
  p99BoundMs: number;
  /** What the page draws while it takes them (default full: the product's page renders). */
  render: RenderMode;
  // --- input (issue 33: the page still answers) ---
  /** `--input-delay`: the input delay p99 bound, ms; absent: the rule's default (200 ms), and in version 3 reports. */
  inputDelayBoundMs?: number;
  // --- age (issue 33) ---
  /**
   * `--p99-display`: the median repeat's display age p99 (how stale the screen is at each draw)
   * must be at or below this, ms. Absent: no bound on it. Absent in version 3 reports.
   */
  displayP99BoundMs?: number;
  // --- device classes (issue 36) ---
  /**
   * `--device`: the class every candidate runs as (protocol/device.ts), the browser slowed until
   * its BenchmarkIndex reads the class's; absent: this machine at full speed. Kept here so a
   * resumed search measures the same points.
   */
  device?: DeviceClass;
  /** `--throttle main-thread`; absent: the whole browser is slowed (or no device). As a point records it. */
  throttle?: 'main-thread';
  // --- costs (issue 34) ---
  /**
   * `--objective`: what the search minimises among the candidates that sustain (Objective). Absent: the renderer's CPU per event (the default, and every report before it).
   */
  objective?: Objective;
  // --- your page (issue 35) ---
  /**
   * `--render-module`: the team's page component every candidate draws with, built before the
   * search (the file as given and the SHA-256 of its text). Absent: pushlab's own views, and in
   * reports before it. Kept here so a resumed search draws with the same version of the same file.
   */
  renderModule?: RenderModuleRef;
  // --- your stream (issue 35) ---
  /** `--pace recorded`: every candidate's batches fall due at the `--rows` file's recorded times (protocol/pace.ts); absent: every interval. */
  pace?: 'recorded';
  // --- tab states (issue 36) ---
  /** `--tab`: every candidate's lab tab hidden (protocol/tab-state.ts); absent: in the foreground, and in reports before it. */
  tab?: HiddenState;
  /** `--tab hidden-long` only: the intensive-throttling grace its browser is given, s (`--hidden-long-grace`, default Chrome's 300). */
  hiddenLongGraceSec?: number;
  // --- a network between server and tab (issue 36) ---
  /** `--link`: the link every candidate streams across (protocol/link.ts), its canonical text; absent: loopback. */
  link?: string;
}

/**
 * The target in words: `300 k events/s with p99 ≤ 100 ms (render full)`, its display and input
 * delay bounds when it has them, and its device class (`on a low-tier device (BenchmarkIndex
 * 264)`) unless `device` is false (the answer names the class with its calibration instead).
 */
export function targetText(t: Target, device = true): string {
  const display = t.displayP99BoundMs === undefined ? '' : `, display age p99 ≤ ${t.displayP99BoundMs} ms`;
  const input = t.inputDelayBoundMs === undefined ? '' : `, input delay p99 ≤ ${t.inputDelayBoundMs} ms`;
  const on = device && t.device !== undefined ? ` on a ${deviceWords(t.device, t.throttle)}` : '';
  const pace = t.pace === 'recorded' ? ', at the recorded pace' : '';
  const tab = t.tab !== undefined ? ` in ${tabWords(t)}` : '';
  const across = t.link !== undefined ? ` across ${linkWords(t.link)}` : '';
  return `${rateText(t.eventsPerSec)} with p99 ≤ ${t.p99BoundMs} ms${display}${input} (render ${t.render}${pace})${on}${tab}${across}`;
}

/**
 * The transports advise searches by default, in its order of last resort: those every engine
 * opens first, in TRANSPORTS' order, then those only some engines open (WebSocketStream). Between
 * two finalists the evidence cannot order and the order of simplicity does not part, the default
 * should not fall on the newest API (on 2026-11-28 ws-stream won over sse by this order alone).
 */
export const ADVISE_TRANSPORTS: readonly Transport[] = [
  ...TRANSPORTS.filter((t) => !TRANSPORT_INFO[t].onlyIn),
  ...TRANSPORTS.filter((t) => TRANSPORT_INFO[t].onlyIn),
];

/**
 * Ticks the advisor may try, ms between batches on one connection: message size at a rate is
 * batch and tick together. A target takes those up to half its p99 bound (adviseTicksMs).
 */
export const ADVISE_TICKS_MS = [1, 10, 50, 100, 250, 500, 1000, 2500, 5000] as const;
/** Connection counts the advisor tries (where the transport's per-host cap allows). */
export const ADVISE_CONNECTIONS = [1, 2, 4, 8] as const;

/**
 * The ticks a target's search tries: up to half its p99 bound. Event age holds the wait to fill
 * a batch (protocol/age.ts: its oldest event is a tick old when the batch falls due), so a tick
 * past half the bound leaves too little of it for the server, the wire and the page. At least
 * the shortest tick.
 */
export function adviseTicksMs(p99BoundMs: number, ticks: readonly number[] = ADVISE_TICKS_MS): number[] {
  const within = ticks.filter((t) => t <= p99BoundMs / 2);
  return within.length ? within : [Math.min(...ticks)];
}

/**
 * The rates a target may ask for, events/s: at least 1, at most what the server can send in the
 * advisor's space, its largest batch (LIMITS.batch) every shortest tick on its most connections.
 */
export const RATE_EVENTS_PER_SEC: Range = {
  min: 1,
  max: (LIMITS.batch.max * Math.max(...ADVISE_CONNECTIONS) * 1000) / Math.min(...ADVISE_TICKS_MS),
  integer: false,
};

type Parsed = { ok: true; value: number } | { ok: false; error: ParamError };

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6 };
const RATE_ALLOWED = `events per second from ${RATE_EVENTS_PER_SEC.min} to ${RATE_EVENTS_PER_SEC.max / 1e6}M: a number with an optional k (thousands) or M (millions), e.g. 300k, 1.5M, 2500`;

/** `--rate 300k`: events/s, a plain number with an optional `k`/`K` or `M` suffix (lower-case `m` is refused: milli or mega?). */
export function parseRate(text: string, flag = '--rate'): Parsed {
  const refuse = (why: string) => ({
    ok: false as const,
    error: paramError(flag, text, RATE_ALLOWED, (v, p) => `${p} ${why}; it takes ${RATE_ALLOWED}; got '${v}'`),
  });
  const m = /^\s*([^\s/kKmM]+)\s*([kKmM]?)\s*(?:(?:events|ev)?\/s)?\s*$/.exec(text);
  if (!m) return refuse('is not a rate');
  if (m[2] === 'm') return refuse('uses m, which could mean milli: write M for millions');
  const n = parseDecimal(m[1]);
  if (!Number.isFinite(n)) return refuse('is not a number');
  const rate = n * SUFFIX[m[2]];
  if (rate <= 0) return refuse('must be above 0');
  if (rate < RATE_EVENTS_PER_SEC.min) return refuse(`must be at least ${RATE_EVENTS_PER_SEC.min} event/s`);
  if (rate > RATE_EVENTS_PER_SEC.max)
    return refuse(
      `is above what the server can send (${LIMITS.batch.max} rows every ${Math.min(...ADVISE_TICKS_MS)} ms on ${Math.max(...ADVISE_CONNECTIONS)} connections)`,
    );
  return { ok: true, value: rate };
}

const P99_ALLOWED = `a latency from ${P99_BOUND_MS.min} ms to ${P99_BOUND_MS.max / 1000} s: a number with ms or s (a bare number is ms), e.g. 100ms, 0.5s`;

/** `--p99 100ms`: the latency bound in ms or s (a bare number is ms), from 1 ms to 60 s (protocol/limits.ts P99_BOUND_MS). */
export function parseP99(text: string, flag = '--p99'): Parsed {
  const refuse = (why: string) => ({
    ok: false as const,
    error: paramError(flag, text, P99_ALLOWED, (v, p) => `${p} ${why}; it takes ${P99_ALLOWED}; got '${v}'`),
  });
  const m = /^\s*([^\s a-zA-Z]+)\s*(ms|s)?\s*$/.exec(text);
  if (!m) return refuse('is not a latency');
  const n = parseDecimal(m[1]);
  if (!Number.isFinite(n)) return refuse('is not a number');
  const ms = m[2] === 's' ? n * 1000 : n;
  if (ms <= 0) return refuse('must be above 0');
  if (ms < P99_BOUND_MS.min) return refuse(`must be at least ${P99_BOUND_MS.min} ms: below that the page's own clock and a tick's work are the whole bound`);
  if (ms > P99_BOUND_MS.max) return refuse(`must be at most ${P99_BOUND_MS.max / 1000} s`);
  return { ok: true, value: ms };
}

/** `300 k events/s`, `1.1 M events/s`: a rate in words. */
export function rateText(eventsPerSec: number): string {
  const sig = (x: number) => String(Number(x.toPrecision(3)));
  if (eventsPerSec >= 1e6) return `${sig(eventsPerSec / 1e6)} M events/s`;
  if (eventsPerSec >= 1e3) return `${sig(eventsPerSec / 1e3)} k events/s`;
  return `${sig(eventsPerSec)} events/s`;
}
