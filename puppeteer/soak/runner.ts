/**
 * A soak: one setup streamed for a long time in the sweep's measuring path (RepeatMeasurer.stream:
 * a fresh tab, connections open, warm-up, settle), then sampled every few seconds where a repeat
 * would take its one window. Each interval between two samples is summarised like a repeat's
 * window (results/summarise.ts), so its event age, input delay, EPS and loss are the sweep's own
 * figures; the JS heap in use is read with the same CDP call as the tab's CPU. Real input is sent
 * throughout (a fresh sender per interval, so each interval's input figure is its own).
 *
 * Half-way, one forced reconnect: the server ends every stream at once (`POST /drop`), the page
 * reconnects by its own path (web/lab/transports/), and what was lost is counted by the page's
 * sequence numbers from just before the drop to 1 s after every connection is back.
 *
 * It never prints: it hands the soak as it stands to `onUpdate` after every sample (the caller
 * saves it) and returns it at the end, interrupted or failed ones included.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { CDPSession } from 'puppeteer-core';
import type { PageCounters } from '../../protocol/page-api.js';
import { streamsOf, type Point } from '../../protocol/scenario.js';
import type { Soak, SoakReconnect } from '../../protocol/soak.js';
import { RECOVERY_WAIT_SEC, RETAINED_EVERY_SEC, sampleSecFor, soakSampleOf } from '../../results/soak.js';
import { summarise } from '../../results/summarise.js';
import { applyClockOffset } from '../measure/clock-offset.js';
import { sendInput, type InputSender } from '../measure/input-sender.js';
import type { RepeatMeasurer, Streaming } from '../measure/repeat.js';
import { takeSample } from '../measure/sampler.js';
import type { ServerHandle } from '../measure/server-process.js';

/** How often the driver looks whether every connection is back after the drop, ms: the recovery time's resolution. */
export const RECOVERY_POLL_MS = 100;
/** Waited after every connection is back before loss is read, ms: each connection's first batch after it settles its gaps. */
const SETTLE_LOSS_MS = 1000;

export type SoakUpdate = 'sample' | 'reconnect' | 'end';

export interface SoakOptions {
  repeats: RepeatMeasurer;
  server: ServerHandle;
  /** The browser host's logical cores and whether its /proc is this machine's (summarise.ts). */
  cores: number;
  procfs: boolean;
  /** The setup; its warm-up is the point's, its window the whole soak. */
  point: Point;
  source: string;
  durationSec: number;
  signal: AbortSignal;
  /** A copy of the soak as it stands (the caller's to keep): after every sample, after the reconnect, and at the end. */
  onUpdate(soak: Soak, what: SoakUpdate): Promise<void> | void;
}

/** Streams `o.point` for `o.durationSec` and returns the soak, stopped or failed ones too. */
export async function runSoak(o: SoakOptions): Promise<Soak> {
  const sampleSec = sampleSecFor(o.durationSec);
  const soak: Soak = {
    point: o.point,
    source: o.source,
    durationSec: o.durationSec,
    sampleSec,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    stopped: null,
    settleSec: 0,
    samples: [],
    reconnect: null,
  };
  // The whole soak is the point's window: RepeatMeasurer's timeout is budgeted from it.
  const point: Point = { ...o.point, measureSec: o.durationSec };
  try {
    const done = await o.repeats.stream(point, o.signal, (s) => sample(s, soak, point, o));
    if (done === null) soak.stopped = 'interrupted';
  } catch (err) {
    if (o.signal.aborted) soak.stopped = 'interrupted';
    else {
      soak.stopped = 'failed';
      soak.error = err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
  }
  const ended: Soak = { ...soak, finishedAt: new Date().toISOString() };
  await o.onUpdate(structuredClone(ended), 'end');
  return ended;
}

async function sample(s: Streaming, soak: Soak, point: Point, o: SoakOptions): Promise<true> {
  soak.settleSec = Math.round(s.settled.waitedMs) / 1000;
  const totalMs = o.durationSec * 1000;
  const everyMs = soak.sampleSec * 1000;
  const first = await takeSample(s.src, true);
  const t0 = performance.now();
  let prev = first;
  let retainedAt = 0;
  let input: InputSender = sendInput(s.pages[0], s.signal);
  s.phase('window', 0, totalMs);
  try {
    for (;;) {
      const elapsed = performance.now() - t0;
      if (elapsed >= totalMs) break;
      // The next boundary on the grid (a long reconnect skips the ones already past), or the end.
      const next = Math.min(totalMs, (Math.floor(elapsed / everyMs) + 1) * everyMs);
      await sleepFor(next - elapsed, undefined, { signal: s.signal });
      const sent = input.stop();
      const cur = await takeSample(s.src, true);
      input = sendInput(s.pages[0], s.signal);
      const r = summarise(point, prev, cur, {
        round: 0,
        startedAt: soak.startedAt,
        attempts: 1,
        cores: o.cores,
        procfs: o.procfs,
        settleSec: 0,
        startedBehind: false,
        ceilingEventsPerSec: null,
        input: sent,
      });
      applyClockOffset(r, s.clock);
      const atSec = (cur.page.atMs - first.page.atMs) / 1000;
      const sampled = soakSampleOf(r, atSec, cur.tab?.jsHeapUsedBytes ?? null);
      // Once every RETAINED_EVERY_SEC, after the sample: what the page retains (the pause falls in the next interval).
      if (Math.floor(atSec / RETAINED_EVERY_SEC) > retainedAt) {
        retainedAt = Math.floor(atSec / RETAINED_EVERY_SEC);
        sampled.heapRetainedMb = await retainedHeapMb(s.src.pageSession);
      }
      soak.samples.push(sampled);
      prev = cur;
      s.phase('window', Math.round(performance.now() - t0), totalMs);
      await o.onUpdate(structuredClone(soak), 'sample');
      // Half-way, right after a sample: the next interval holds the reconnect.
      if (soak.reconnect === null && performance.now() - t0 >= totalMs / 2 && performance.now() - t0 < totalMs) {
        soak.reconnect = await forceReconnect(s, o.server, point, (performance.now() - t0) / 1000);
        await o.onUpdate(structuredClone(soak), 'reconnect');
      }
    }
  } finally {
    input.stop();
  }
  return true;
}

/**
 * The JS heap left after a forced full collection, MB: HeapProfiler.collectGarbage, then
 * Runtime.getHeapUsage. Null without a page session (Firefox) or when the browser refuses.
 */
async function retainedHeapMb(session: CDPSession | null): Promise<number | null> {
  if (!session) return null;
  try {
    await session.send('HeapProfiler.collectGarbage');
    const { usedSize } = await session.send('Runtime.getHeapUsage');
    return Math.round(usedSize / 1e4) / 100;
  } catch {
    return null;
  }
}

/** Every tab's counters summed (a multi-tab point's tabs reconnect together), and the connections open. */
async function countersOf(s: Streaming): Promise<{ counters: PageCounters; open: number }> {
  const snaps = await Promise.all(s.apis.map((api) => api.evaluate((p) => p.snapshot({ resetLatency: false }))));
  const sum = (k: 'gaps' | 'reconnects' | 'closedMs') => snaps.reduce((a, x) => a + (x?.counters[k] ?? 0), 0);
  return {
    counters: { events: 0, batches: 0, bytes: 0, duplicates: 0, errors: 0, gaps: sum('gaps'), reconnects: sum('reconnects'), closedMs: sum('closedMs') },
    open: snaps.reduce((a, x) => a + (x?.open ?? 0), 0),
  };
}

/**
 * The server drops every stream; the page's connections come back by themselves. Recovery: from
 * the drop until every connection is open with a reconnect counted for each, read every
 * RECOVERY_POLL_MS; loss: the page's gaps from just before the drop to SETTLE_LOSS_MS after that.
 */
async function forceReconnect(s: Streaming, server: ServerHandle, point: Point, atSec: number): Promise<SoakReconnect> {
  const streams = streamsOf(point);
  const [before, shedBefore] = await Promise.all([countersOf(s), server.stats(false).then((x) => x.batchesShed)]);
  const t0 = performance.now();
  const dropped = await server.dropStreams();
  let recoverySec: number | null = null;
  let now = before;
  while (performance.now() - t0 < RECOVERY_WAIT_SEC * 1000) {
    await sleepFor(RECOVERY_POLL_MS, undefined, { signal: s.signal });
    now = await countersOf(s);
    if (now.open >= streams && now.counters.reconnects - before.counters.reconnects >= streams) {
      recoverySec = Math.round(performance.now() - t0) / 1000;
      break;
    }
  }
  await sleepFor(SETTLE_LOSS_MS, undefined, { signal: s.signal });
  const [after, shedAfter] = await Promise.all([countersOf(s), server.stats(false).then((x) => x.batchesShed)]);
  const lostBatches = after.counters.gaps - before.counters.gaps;
  return {
    atSec: Math.round(atSec * 1000) / 1000,
    dropped,
    reconnects: after.counters.reconnects - before.counters.reconnects,
    recoverySec,
    lostBatches,
    lostEvents: lostBatches * point.batch,
    shedBatches: shedAfter - shedBefore,
    closedMs: Math.round((after.counters.closedMs ?? 0) - (before.counters.closedMs ?? 0)),
  };
}
