/**
 * Turns the samples at both ends of a measured window into a point's result, and judges
 * where the limit was. Pure: recorded samples in, PointResult out.
 */
import type { PointResult, TabThreadsCpu, Verdict } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { maxBurst } from '../server/pacer.js';
import { chromeCpu, hostCpu, percentOfCore } from './cpu.js';
import type { Sample } from './sampler.js';
import { threadsCpu } from './threads.js';

/** Delivered below this share of the offered rate, a point did not keep up. */
export const KEPT_UP_RATIO = 0.97;
/** The server fell behind its own schedule below this share (issue: 99% of nominal). */
export const PACING_OK_RATIO = 0.99;
/** A thread or host this busy (share of its capacity) is called saturated. */
export const SATURATED = 0.9;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export interface SummaryMeta {
  startedAt: string;
  attempts: number;
  cores: number;
  /** The run's in-page JSON.parse ceiling at this point's batch size, events/s. */
  ceilingEventsPerSec?: number;
}

export function summarise(point: Point, a: Sample, b: Sample, meta: SummaryMeta): PointResult {
  const windowSec = (b.page.atMs - a.page.atMs) / 1000;
  const d = {
    events: b.page.counters.events - a.page.counters.events,
    batches: b.page.counters.batches - a.page.counters.batches,
    bytes: b.page.counters.bytes - a.page.counters.bytes,
  };
  const perConn = b.page.batchesPerConnection.map((n, i) => (n - (a.page.batchesPerConnection[i] ?? 0)) / windowSec);
  const tabWall = b.tab.timestamp - a.tab.timestamp;
  const serverWallSec = (b.server.nowMs - a.server.nowMs) / 1000;
  const serverCpuSec = (b.server.cpuUserUs + b.server.cpuSystemUs - a.server.cpuUserUs - a.server.cpuSystemUs) / 1e6;
  const eluActive = b.server.eventLoopActiveMs - a.server.eventLoopActiveMs;
  const eluIdle = b.server.eventLoopIdleMs - a.server.eventLoopIdleMs;
  const generated = b.server.batchesSent + b.server.batchesShed - (a.server.batchesSent + a.server.batchesShed);
  const due = (point.concurrency * serverWallSec * 1000) / point.intervalMs;
  const eventsPerSec = d.events / windowSec;
  const counters = (k: keyof Sample['page']['counters']) => b.page.counters[k] - a.page.counters[k];

  const result: PointResult = {
    point,
    status: 'ok',
    attempts: meta.attempts,
    verdict: 'ok',
    notes: [],
    startedAt: meta.startedAt,
    windowSec: round(windowSec, 3),
    eventsPerSec: Math.round(eventsPerSec),
    batchesPerSec: round(d.batches / windowSec),
    megabytesPerSec: round(d.bytes / windowSec / 1e6, 2),
    deliveredRatio: round(eventsPerSec / point.offeredEventsPerSec, 4),
    ...(meta.ceilingEventsPerSec ? { ceilingRatio: round(eventsPerSec / meta.ceilingEventsPerSec, 4) } : {}),
    page: {
      events: d.events,
      batches: d.batches,
      bytes: d.bytes,
      gaps: counters('gaps'),
      duplicates: counters('duplicates'),
      reconnects: counters('reconnects'),
      errors: counters('errors'),
      perConnectionBatchesPerSec: {
        min: round(Math.min(...perConn)),
        median: round(median(perConn)),
        max: round(Math.max(...perConn)),
      },
    },
    latency: b.page.latency,
    cpu: {
      chrome: roundAll(chromeCpu(a.chrome, b.chrome, windowSec)),
      tabProcess: round(percentOfCore(b.tab.processTime - a.tab.processTime, tabWall)),
      tabMainThread: round(Math.min(100, percentOfCore(b.tab.taskDuration - a.tab.taskDuration, tabWall))),
      tabThreads: tabThreads(a, b, windowSec),
      server: round(percentOfCore(serverCpuSec, serverWallSec)),
      host: a.host && b.host ? round(hostCpu(a.host, b.host)) : null,
    },
    server: {
      eventsSent: b.server.eventsSent - a.server.eventsSent,
      batchesSent: b.server.batchesSent - a.server.batchesSent,
      batchesShed: b.server.batchesShed - a.server.batchesShed,
      eventsPerSec: Math.round((b.server.eventsSent - a.server.eventsSent) / serverWallSec),
      pacingRatio: round(generated / due, 4),
      batchesBehind: b.server.batchesBehind,
      eventLoopUtilization: round(eluActive / (eluActive + eluIdle), 3),
      latenessMs: b.server.latenessMs,
      rssBytes: b.server.rssBytes,
    },
  };
  const { verdict, notes } = judge(result, b, meta.cores);
  result.verdict = verdict;
  result.notes = notes;
  return result;
}

/** The tab's renderer is the one that burned the most CPU in the window: the page under load. */
function tabThreads(a: Sample, b: Sample, wallSeconds: number): TabThreadsCpu | null {
  const before = new Map(a.chrome.map((p) => [p.id, p.cpuTime]));
  const busiest = b.chrome
    .filter((p) => p.type === 'renderer' && b.rendererThreads.get(p.id)?.length)
    .map((p) => ({ pid: p.id, used: p.cpuTime - (before.get(p.id) ?? 0) }))
    .sort((x, y) => y.used - x.used)[0];
  if (!busiest) return null;
  const t = threadsCpu(busiest.pid, a.rendererThreads.get(busiest.pid) ?? [], b.rendererThreads.get(busiest.pid)!, wallSeconds);
  return { ...roundAll({ ...t, workers: 0 }), workers: t.workers.map((w) => round(w)) };
}

function roundAll<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)])) as T;
}

/**
 * Where was the limit? The server's pacing is checked first (a server that fell behind
 * without having to shed was itself the limit), then the tab's main thread (the
 * single-thread ceiling the reference found), then the host as a whole.
 */
export function judge(r: PointResult, end: Sample, cores: number): { verdict: Verdict; notes: string[] } {
  const notes: string[] = [];
  const cpu = r.cpu!;
  const server = r.server!;
  const page = r.page!;
  const hostSaturated = cpu.host !== null && cpu.host >= SATURATED * 100 * cores;
  if (end.page.open < r.point.concurrency) notes.push(`only ${end.page.open} of ${r.point.concurrency} connections were open at the end of the window`);
  if (page.reconnects > 0) notes.push(`${page.reconnects} reconnect(s) during the point: its connections were interrupted`);
  if (page.duplicates > 0) notes.push(`${page.duplicates} duplicate batches`);
  if (page.gaps > 0) notes.push(`${page.gaps} batches missing at the page; the server shed ${server.batchesShed} in the window`);
  if (page.perConnectionBatchesPerSec.min < 0.5 * page.perConnectionBatchesPerSec.max) {
    notes.push(`unfair connections: ${page.perConnectionBatchesPerSec.min}–${page.perConnectionBatchesPerSec.max} batches/s per connection`);
  }
  if (hostSaturated) notes.push(`host CPU ${cpu.host}% of ${cores * 100}%: the machine was saturated`);

  if ((r.deliveredRatio ?? 0) >= KEPT_UP_RATIO) return { verdict: 'ok', notes };
  // Behind by more than one tick's catch-up on every connection: the schedule slipped.
  const behind = server.batchesBehind > r.point.concurrency * maxBurst(r.point.intervalMs);
  if ((server.pacingRatio < PACING_OK_RATIO || behind) && server.batchesShed === 0) {
    notes.push(`server generated only ${(server.pacingRatio * 100).toFixed(1)}% of scheduled batches without shedding, ${server.batchesBehind} behind at the end (server CPU ${cpu.server}%)`);
    // A server starved of CPU by a saturated host is the host's limit, not the server's.
    return { verdict: hostSaturated ? 'host-bound' : 'server-bound', notes };
  }
  if (cpu.tabMainThread >= SATURATED * 100) {
    notes.push(`tab main thread ${cpu.tabMainThread}% busy: the page could not take more`);
    return { verdict: 'client-bound', notes };
  }
  // In parse mode worker the main thread idles and the Workers do the work, each on at most
  // one core: judged by their own CPU where the kernel exposes threads, else by the process.
  if (r.point.parse === 'worker') {
    const workers = cpu.tabThreads?.workers ?? [];
    const busiest = Math.max(0, ...workers);
    if (workers.length && busiest >= SATURATED * 100) {
      notes.push(`parsing Workers at ${workers.map((w) => `${w}%`).join(', ')} of a core: the Workers could not take more`);
      return { verdict: 'client-bound', notes };
    }
    if (!cpu.tabThreads && cpu.tabProcess >= SATURATED * 100 * Math.min(r.point.workers, cores) && !hostSaturated) {
      notes.push(`tab process ${cpu.tabProcess}% with ${r.point.workers} parsing Worker(s): the Workers could not take more`);
      return { verdict: 'client-bound', notes };
    }
  }
  if (hostSaturated) return { verdict: 'host-bound', notes };
  const busiest = busiestTabThread(cpu.tabThreads ?? null);
  const threadText = busiest ? `busiest tab thread: ${busiest.name} at ${busiest.percent}%, ` : '';
  notes.push(`delivered ${((r.deliveredRatio ?? 0) * 100).toFixed(1)}% with no thread at ${SATURATED * 100}% (${threadText}network service ${cpu.chrome.network}%, browser ${cpu.chrome.browser}%)`);
  return { verdict: 'client-bound', notes };
}

/**
 * The tab's busiest thread, to name where a point that hit no threshold came closest. On a
 * busy 2-core host a thread that could use a whole core often shows 85–90%: it waits for a
 * core as well as for work.
 */
export function busiestTabThread(t: TabThreadsCpu | null): { name: string; percent: number } | null {
  if (!t) return null;
  const all: [string, number][] = [
    ['main', t.main],
    ...t.workers.map((w, i): [string, number] => [`parsing Worker ${i + 1}`, w]),
    ['IO', t.io],
    ['compositor', t.compositor],
    ['thread pool (GC)', t.pool],
  ];
  const [name, percent] = all.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { name, percent };
}
