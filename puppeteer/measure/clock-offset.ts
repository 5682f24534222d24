/**
 * The page's clock against the server's. A point's latency is the page's receive time minus the
 * server's `sentAt`: one clock on one host, two across hosts, where an offset of a few ms
 * (ordinary NTP) is as large as the figures. A few request/response exchanges against the
 * server's `/clock` (NTP's method): for each, the page's time halfway between sending and
 * receiving minus the server's stamp is the offset, known to ± half that round trip. The one
 * with the smallest round trip is kept; it is subtracted from the latency figures, and the
 * offset and its uncertainty are recorded (report: `ClockOffset`).
 */
import type { Page } from 'puppeteer-core';
import type { LatencySummary, TailSummary } from '../../protocol/histogram.js';
import { shiftSparse } from '../../protocol/histogram.js';
import type { ClockOffset, MeasuredRepeat } from '../../protocol/repeat-figures.js';

/** Exchanges per estimate: the first may open the connection; the rest find a short round trip. */
export const CLOCK_EXCHANGES = 8;

/**
 * Estimates the offset from a page that is on the server's origin (a page the server served).
 * Null when the page cannot reach `/clock` (an older server): latency is then left as read.
 */
export async function clockOffset(page: Page, exchanges = CLOCK_EXCHANGES): Promise<ClockOffset | null> {
  // Runs in the page: the clock the page stamps receive times with (web/lab/ingest.ts).
  return page.evaluate(async (n: number) => {
    const g = globalThis as unknown as {
      performance: { timeOrigin: number; now(): number };
      fetch(u: string, o: object): Promise<{ ok: boolean; json(): Promise<unknown> }>;
    };
    // No named function in here: tsx (esbuild keepNames) would wrap it in a `__name` helper the page lacks.
    const p = g.performance;
    let best: { offsetMs: number; uncertaintyMs: number } | null = null;
    for (let i = 0; i < n; i++) {
      const t0 = p.timeOrigin + p.now();
      const res = await g.fetch('/clock', { cache: 'no-store' }).catch(() => null);
      const body = res && res.ok ? ((await res.json().catch(() => null)) as { nowMs?: unknown } | null) : null;
      const t1 = p.timeOrigin + p.now();
      if (typeof body?.nowMs !== 'number') return null;
      const rtt = t1 - t0;
      if (best === null || rtt / 2 < best.uncertaintyMs) best = { offsetMs: (t0 + t1) / 2 - body.nowMs, uncertaintyMs: rtt / 2 };
    }
    return best;
  }, exchanges);
}

/** A latency summary with `offsetMs` taken off every figure (the page's clock ran that far ahead). */
export function shiftLatency(s: LatencySummary, offsetMs: number): LatencySummary {
  const shift = (v: number | null) => (v === null ? null : Math.round((v - offsetMs) * 1000) / 1000);
  return {
    ...s,
    minMs: shift(s.minMs),
    p25Ms: shift(s.p25Ms),
    p50Ms: shift(s.p50Ms),
    p75Ms: shift(s.p75Ms),
    p95Ms: shift(s.p95Ms),
    p99Ms: shift(s.p99Ms),
    maxMs: shift(s.maxMs),
    meanMs: shift(s.meanMs),
    ...(s.p999Ms !== undefined ? { p999Ms: shift(s.p999Ms) } : {}),
  };
}

/** A tail (transit, display age) with `offsetMs` taken off every figure. */
export function shiftTail(s: TailSummary, offsetMs: number): TailSummary {
  const shift = (v: number | null) => (v === null ? null : Math.round((v - offsetMs) * 1000) / 1000);
  return { ...s, p50Ms: shift(s.p50Ms), p99Ms: shift(s.p99Ms), p999Ms: shift(s.p999Ms), maxMs: shift(s.maxMs) };
}

/** Corrects a repeat's latency (and each tab's, and its transit and display age) by the page's offset, and records it. */
export function applyClockOffset(repeat: MeasuredRepeat, clock: ClockOffset | null): void {
  if (clock === null) return;
  repeat.latency = shiftLatency(repeat.latency, clock.offsetMs);
  if (repeat.transit) repeat.transit = shiftTail(repeat.transit, clock.offsetMs);
  if (repeat.displayAge) repeat.displayAge = shiftTail(repeat.displayAge, clock.offsetMs);
  for (const t of repeat.tabs ?? []) t.latency = shiftLatency(t.latency, clock.offsetMs);
  if (repeat.latencyHistogram) repeat.latencyHistogram = shiftSparse(repeat.latencyHistogram, clock.offsetMs);
  if (repeat.trend) {
    const shift = (v: number | null) => (v === null ? null : round3(v - clock.offsetMs));
    const t = repeat.trend;
    repeat.trend = {
      backlogStartMs: shift(t.backlogStartMs),
      backlogEndMs: shift(t.backlogEndMs),
      firstHalfMeanMs: shift(t.firstHalfMeanMs),
      secondHalfMeanMs: shift(t.secondHalfMeanMs),
    };
  }
  repeat.clock = { offsetMs: round3(clock.offsetMs), uncertaintyMs: round3(clock.uncertaintyMs) };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;
