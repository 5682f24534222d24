/**
 * How long a sweep takes, before it runs (`--list`, the start line) and while it runs (the
 * ETA, which the progress display scales by how fast the repeats so far actually went).
 * The costs below were timed on the 2-core development VM; they are estimates, not promises.
 */
import type { Point } from '../../protocol/scenario.js';
import { TRANSPORT_INFO, type Transport } from '../../protocol/wire.js';
import { ceilingNeeds } from '../../results/ceilings.js';
import { CEILING_MS } from '../measure/ceiling.js';
import { minWarmupMs } from '../measure/settle.js';
import { hiddenWaitSec } from '../../protocol/tab-state.js';

/**
 * A fresh page: create it, load the lab page, wait for `window.pushlab`, s. Read off the wall
 * accounts (report.json `wall`) of a default sweep and a 3-minute advise on the 2-core VM on
 * 2026-11-28, as every figure below: new tabs 0.2 s and page loads 0.25–0.3 s a repeat.
 */
const PAGE_SEC = 0.5;
/** Samples at both ends of the window, stopping the streams and closing the page, s: 0.3–0.4 s a repeat. */
const END_SEC = 0.4;
/**
 * The settle wait once the minimum warm-up is over, s: a point the page keeps up with settles in
 * its early probe (under 0.1 s past the minimum, settle.ts earlyProbeMs), an overloaded one
 * gives up after two or three probes on a swamped page, 0.6–3 s: the default sweep averaged
 * 1.1 s (21 of its 24 repeats overloaded), an advise's search, mostly points that keep up, less.
 */
const SETTLE_SEC = 1;
/**
 * Opening the connections, s: a WebSocket (or WebSocketStream) over HTTP/1.1 is its own connect,
 * and the page opens them `openAtOnce` at a time (protocol/wire.ts WEBSOCKET_OPEN_AT_ONCE): 30
 * took 0.6–1.4 s here, loaded; over HTTP/2 they are streams.
 */
const webSocketOverH1 = (t: Transport) => TRANSPORT_INFO[t].carriage === 'frames' && TRANSPORT_INFO[t].http === 'h1';
const openSec = (p: Point) =>
  0.2 + (webSocketOverH1(p.transport) ? 0.05 * Math.max(0, p.concurrency - (TRANSPORT_INFO[p.transport].openAtOnce ?? 0)) : 0.005 * p.concurrency);

/** Launching a headful Chrome (and an Xvfb) the first time a point asks for one, s: once per sweep, spread here over its repeats. */
const HEADFUL_SEC = 0.5;

/**
 * A hidden-tab point's own steps, s: a blank tab opened and brought to the front, and the return
 * to the foreground (a page that kept up has counted everything at once). Not yet timed from a
 * wall account: an estimate; a page that fell far behind takes up to CATCH_UP_WAIT_SEC more.
 */
const HIDE_AND_RETURN_SEC = 0.5;

/** One repeat of one point, s: each further tab is one more page to load and connections to open; a hidden-long point streams hidden past its grace first. */
export function repeatSec(p: Point): number {
  const warmup = minWarmupMs(p) / 1000;
  const tabs = p.tabs ?? 1;
  const tab = p.tab !== undefined ? HIDE_AND_RETURN_SEC + hiddenWaitSec(p) : 0;
  return PAGE_SEC * tabs + openSec(p) * tabs + warmup + SETTLE_SEC + p.measureSec + END_SEC + (p.display === 'headful' ? HEADFUL_SEC : 0) + tab;
}

/** The per-round JSON.parse ceiling at these batch sizes, s. */
export function ceilingSec(points: readonly Pick<Point, 'batch' | 'encoding'>[]): number {
  const distinct = ceilingNeeds(points).length;
  // Per batch size: the timed loop, and fetching the sample and the page's 200 ms warm-up.
  return distinct ? PAGE_SEC + distinct * (CEILING_MS / 1000 + 0.45) : 0;
}

/** Rounds `from`…`to - 1` of the fixed rounds: every point with `repeats` above the round, and its ceiling. */
export function roundsSec(points: readonly Point[], from: number, to: number): number {
  let s = 0;
  for (let r = from; r < to; r++) {
    const inRound = points.filter((p) => p.repeats > r);
    s += inRound.reduce((a, p) => a + repeatSec(p), 0) + ceilingSec(inRound);
  }
  return s;
}

/**
 * The repeats a find-max search is expected to measure: about log2(max/min) probes, then one
 * confirmation of `repeats` repeats (the usual case; each failed confirmation adds another,
 * which the runner adds to the plan as it happens).
 */
export function searchRepeats(range: { min: number; max: number }, repeats: number): number {
  const probes = Math.min(12, 2 + Math.ceil(Math.log2(Math.max(2, range.max / range.min) / 1.15)));
  return probes + repeats;
}

/** A find-max search, s: searchRepeats of the point's repeat. */
export function searchSec(point: Point, range: { min: number; max: number }, repeats: number): number {
  return searchRepeats(range, repeats) * repeatSec(point);
}

/** Setup before the first round: server, Chrome, first page load, s. */
export const SETUP_SEC = 3;

/** `3 min 20 s`, `45 s`. */
export function durationText(sec: number): string {
  const s = Math.round(sec);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}
