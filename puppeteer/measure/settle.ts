/**
 * After the warm-up, waits until neither end is catching up before the window opens.
 *
 * A page that starts its window with a backlog (a GC pause or chart.js start-up during the
 * warm-up), or a server still paying off pacing debt, drains it inside the window and so
 * shows more events per second than were offered: on a busy 2-core host that reached +6%
 * at a load the page otherwise keeps up with. Overloaded points never settle; for them the
 * wait is bounded, and the point carries a note saying how far behind its window started.
 */

/** One short look at both ends: what the page's latest batches took, and the server's debt. */
export interface SettleProbe {
  /** Median event age of the events received during the probe, ms; null when none arrived. */
  p50Ms: number | null;
  /** Batches due by schedule but not yet written, over all open connections. */
  batchesBehind: number;
  /**
   * Batches the page found missing during the probe (its gaps, over its tabs): the server shed
   * them because its queue for the page was full. Absent: not read (counted as none).
   */
  lostBatches?: number;
  /**
   * Batches the server shed during the probe for this point's streams (its per-stream `shed`
   * in /stats, found by the page's client tags). The same loss as `lostBatches`, seen where it
   * happens: the page counts a gap only when the batch after it arrives, which at saturation
   * waits behind the page's backlog, so its count trails by a probe or more. Absent: not read.
   */
  shedBatches?: number;
}

/**
 * Batches the probe lost: the server's shed count for the point's streams when it was read, else
 * the page's gaps. Not the larger of the two: the gaps are the same batches seen a probe late, so
 * one hiccup's loss would then count in two probes in a row and read as overload.
 */
export function lostInProbe(probe: SettleProbe): number {
  return probe.shedBatches ?? probe.lostBatches ?? 0;
}

/**
 * Backlog either end may carry and still count as caught up, ms: the page's median latency,
 * and the server's pacing debt per connection (on a busy host the server is often a few ms
 * behind at any instant, which moves a window's EPS by well under 1%).
 */
export const SETTLED_MS = 50;

/** Batches behind schedule a caught-up server may show, over all connections. */
export function settledBehind(intervalMs: number, concurrency: number): number {
  return concurrency * Math.max(2, Math.floor(SETTLED_MS / intervalMs));
}

/**
 * The median event's wait to fill its batch, ms: what the page's p50 (event age, protocol/age.ts)
 * holds with no backlog at all. A batch's `batch` events are born evenly over the interval before
 * it was due, so their ages at its due time run from 0 to interval·(batch − 1)/batch.
 */
export function batchingFloorMs(intervalMs: number, batch: number): number {
  return (intervalMs * (batch - 1)) / (2 * batch);
}

/**
 * `floorMs`: latency the transport has with no backlog at all, on top of SETTLED_MS (`poll`
 * holds each batch until the next request: up to pollMs; every batch's events waited to fill
 * it: batchingFloorMs).
 */
export function isSettled(probe: SettleProbe, intervalMs: number, concurrency: number, floorMs = 0): boolean {
  // No batch in the probe means the interval is longer than the probe: nothing to drain.
  const pageCaughtUp = probe.p50Ms === null || probe.p50Ms <= SETTLED_MS + floorMs;
  return pageCaughtUp && probe.batchesBehind <= settledBehind(intervalMs, concurrency);
}

/** How long one probe lasts: long enough to see a few batches per connection. */
export function probeMs(intervalMs: number): number {
  return Math.min(2000, Math.max(250, 3 * intervalMs));
}

/** The longest a point waits to settle after its warm-up, ms. */
export function settleBudgetMs(warmupSec: number): number {
  return Math.max(2000, warmupSec * 1000);
}

/**
 * Probes in a row whose page latency was above SETTLED_MS and not draining (not below
 * DRAINING_SHARE of the probe before): the backlog is not shrinking, the point is overloaded
 * and will not settle in any budget, so waiting longer is dead time (its window is flagged as
 * started behind either way). A warm-up hiccup (a GC pause, the chart's start-up) drains: its
 * latency falls from probe to probe, and the wait goes on.
 */
export const DIVERGING_PROBES = 3;
export const DRAINING_SHARE = 0.9;

/**
 * Probes in a row in which the point lost batches while behind (lostInProbe: the server shed
 * them because every buffer between it and the page was full: its send bound, Chrome's receive
 * window, the kernel's), which a page that is catching up does not do twice in a row. Such a
 * point is overloaded however its latency moves: at saturation the median age wanders by more
 * than DRAINING_SHARE from probe to probe, so the drain test alone let saturated points wait out
 * their whole budget (3 s of a 2 s warm-up's repeat, measured on the default sweep). The server's
 * own count is read beside the page's gaps because the gaps lag: with them alone a saturated
 * point still waited a probe or two past the two that shed.
 */
export const SHEDDING_PROBES = 2;

export interface SettleOutcome {
  settled: boolean;
  /** The page's backlog did not drain over the last DIVERGING_PROBES probes: gave up early. */
  diverging: boolean;
  /** Time spent waiting after the warm-up, ms. */
  waitedMs: number;
  last: SettleProbe;
}

/**
 * The shortest warm-up, ms: JIT tiers, the chart's first frames and the first GCs happen in
 * the first second; after it, the window opens as soon as neither end is catching up.
 */
export const MIN_WARMUP_MS = 1000;

/**
 * Messages per connection that half of MIN_WARMUP_MS must hold for a point to warm up for that
 * half only. Paired against 1 s on the default sweep's points (1 ms ticks: 500 messages a
 * connection in the half-second; 24 pairs, docs/results/2026-11-29.md), 0.5 s read EPS ×1.007
 * (95% CI 0.957–1.059), renderer CPU per event ×0.996 (0.951–1.043) and event-age p99 ×0.936
 * (0.815–1.075), and saved 11 s of 214. A slow tick's half-second holds a handful of messages,
 * too few for the decoder's first tiers, and was not checked: ticks over 5 ms keep the second.
 */
export const FAST_WARMUP_MESSAGES = 100;

/** A point's shortest warm-up, ms: MIN_WARMUP_MS, or half of it at a tick fast enough (FAST_WARMUP_MESSAGES), and never more than its own warm-up. */
export function minWarmupMs(p: { intervalMs: number; warmupSec: number }): number {
  const half = MIN_WARMUP_MS / 2;
  return Math.min(p.intervalMs * FAST_WARMUP_MESSAGES <= half ? half : MIN_WARMUP_MS, p.warmupSec * 1000);
}

/**
 * How long before the minimum warm-up ends the first probe starts, ms: one probe, when it fits
 * in half the minimum (at most 500 ms of 1 s: ticks up to ~166 ms), else 0. A point caught up by
 * then opens its window as the minimum ends instead of one probe later (about 0.3 s a repeat:
 * most of a search's probes); see settle() for why that probe cannot change any other outcome.
 */
export function earlyProbeMs(intervalMs: number, minWarmupMs: number): number {
  const ms = probeMs(intervalMs);
  return ms <= minWarmupMs / 2 ? ms : 0;
}

/**
 * Probes until settled or out of budget; `probe(ms)` looks at both ends over `ms`.
 *
 * `earlyMs` (earlyProbeMs): the first probe started that long before the minimum warm-up ended.
 * When it finds both ends caught up, the window opens as the minimum ends: after the minimum, and
 * right after a settled probe, as always. When it does not, it is set aside: the drain and shed
 * streaks start with the probe after it, which begins as the minimum ends, so an overloaded or a
 * draining point meets exactly the probes it met without it (a backlog from the first second
 * that is still draining then is not called overloaded a probe earlier). `waitedMs` counts from
 * the end of the minimum either way.
 */
export async function settle(
  probe: (ms: number) => Promise<SettleProbe>,
  opts: { intervalMs: number; concurrency: number; budgetMs: number; floorMs?: number; earlyMs?: number },
): Promise<SettleOutcome> {
  const floorMs = opts.floorMs ?? 0;
  const started = performance.now() + (opts.earlyMs ?? 0);
  const ms = probeMs(opts.intervalMs);
  let early = (opts.earlyMs ?? 0) > 0;
  let stuck = 0;
  let shedding = 0;
  let previous: number | null = null;
  for (;;) {
    const last = await probe(ms);
    const waitedMs = Math.max(0, Math.round(performance.now() - started));
    if (isSettled(last, opts.intervalMs, opts.concurrency, floorMs)) return { settled: true, diverging: false, waitedMs, last };
    if (early) {
      early = false;
      continue;
    }
    const draining = previous !== null && last.p50Ms !== null && last.p50Ms < DRAINING_SHARE * previous;
    stuck = last.p50Ms !== null && last.p50Ms > SETTLED_MS + floorMs && !draining ? stuck + 1 : 0;
    previous = last.p50Ms;
    shedding = lostInProbe(last) > 0 ? shedding + 1 : 0;
    if (stuck >= DIVERGING_PROBES || shedding >= SHEDDING_PROBES) return { settled: false, diverging: true, waitedMs, last };
    if (waitedMs + ms > opts.budgetMs) return { settled: false, diverging: false, waitedMs, last };
  }
}

export function unsettledNote(o: SettleOutcome): string {
  const page = o.last.p50Ms === null ? '' : `page latency p50 ${Math.round(o.last.p50Ms)} ms`;
  const server = o.last.batchesBehind > 0 ? `server ${o.last.batchesBehind} batches behind` : '';
  const lostBatches = lostInProbe(o.last);
  const lost = lostBatches > 0 ? `${lostBatches} batches shed in the last probe` : '';
  const why = !o.diverging
    ? 'the window started with a backlog'
    : lostBatches > 0
      ? 'the server shed batches for it in probes in a row: overloaded'
      : 'its backlog was not draining: overloaded';
  return `still catching up after ${(o.waitedMs / 1000).toFixed(1)} s past the warm-up (${[page, server, lost].filter(Boolean).join(', ')}): ${why}`;
}
