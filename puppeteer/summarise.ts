/**
 * Turns the samples at both ends of a measured window into one repeat's figures, and judges
 * where the limit was. Pure: recorded samples in, MeasuredRepeat out.
 */
import type { MeasuredRepeat, RepeatFigures, TabThreadsCpu, Verdict, WireFigures } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { maxBurst } from '../protocol/pacing.js';
import { TRANSPORT_ROUTES } from '../protocol/wire.js';
import { findLimit, hostSaturated } from '../protocol/verdict.js';
import { median } from '../protocol/stats.js';
import { chromeCpu, hostCpu, percentOfCore } from './cpu.js';
import { efficiencyOf } from './point-summary.js';
import type { Sample } from './sampler.js';
import { threadsCpu } from './threads.js';


const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export interface SummaryMeta {
  /** Round the repeat belongs to (0-based). */
  round: number;
  startedAt: string;
  attempts: number;
  cores: number;
  /** Seconds waited after the warm-up for both ends to catch up. */
  settleSec: number;
  /** The window opened with a backlog (the settle wait ran out of time). */
  startedBehind: boolean;
  /** The current round's in-page JSON.parse ceiling at this point's batch size, events/s. */
  ceilingEventsPerSec: number | null;
}

export function summarise(point: Point, a: Sample, b: Sample, meta: SummaryMeta): MeasuredRepeat {
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
  // Connections the browser never opened (its per-host cap) never reached the server: nothing
  // was due on them, so they must not count against the server's pacing.
  const due = ((point.concurrency - stalledConnections(point, b.page.open)) * serverWallSec * 1000) / point.intervalMs;
  const eventsPerSec = d.events / windowSec;
  const counters = (k: keyof Sample['page']['counters']) => b.page.counters[k] - a.page.counters[k];

  const cpu: RepeatFigures['cpu'] = {
    chrome: roundAll(chromeCpu(a.chrome, b.chrome, windowSec)),
    tabProcess: round(percentOfCore(b.tab.processTime - a.tab.processTime, tabWall)),
    tabMainThread: round(Math.min(100, percentOfCore(b.tab.taskDuration - a.tab.taskDuration, tabWall))),
    tabThreads: tabThreads(a, b, windowSec),
    server: round(percentOfCore(serverCpuSec, serverWallSec)),
    host: a.host && b.host ? round(hostCpu(a.host, b.host)) : null,
  };
  const figures: RepeatFigures = {
    windowSec: round(windowSec, 3),
    settleSec: meta.settleSec,
    eventsPerSec: Math.round(eventsPerSec),
    batchesPerSec: round(d.batches / windowSec),
    megabytesPerSec: round(d.bytes / windowSec / 1e6, 2),
    deliveredRatio: round(eventsPerSec / point.offeredEventsPerSec, 4),
    ceilingEventsPerSec: meta.ceilingEventsPerSec,
    ceilingRatio: meta.ceilingEventsPerSec ? round(eventsPerSec / meta.ceilingEventsPerSec, 4) : null,
    efficiency: efficiencyOf(eventsPerSec, cpu),
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
    cpu,
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
    wire: wireFigures(b, point.concurrency),
  };
  const { verdict, notes } = judge(point, figures, b, meta.cores);
  return {
    status: 'ok',
    round: meta.round,
    startedAt: meta.startedAt,
    attempts: meta.attempts,
    verdict,
    startedBehind: meta.startedBehind,
    notes,
    ...figures,
  };
}

/** The page's streams in the server's `/stats` at the end of the window: their HTTP versions and TCP connections. */
export function wireFigures(end: Pick<Sample, 'page' | 'server'>, concurrency: number): WireFigures | null {
  const client = end.page.client;
  if (!client) return null;
  const mine = end.server.connections.filter((c) => c.client === client);
  return {
    http: { h1: mine.filter((c) => c.http === 'h1').length, h2: mine.filter((c) => c.http === 'h2').length },
    tcpConnections: new Set(mine.map((c) => c.socket)).size,
    stalled: Math.max(0, concurrency - end.page.open),
  };
}

/** Connections that stalled behind the browser's per-host cap: not open, with the cap's worth open. */
export function stalledConnections(point: Pick<Point, 'transport' | 'concurrency'>, open: number): number {
  const cap = TRANSPORT_ROUTES[point.transport].perHostCap;
  return cap !== undefined && open >= cap ? Math.max(0, point.concurrency - open) : 0;
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
export function judge(point: Point, r: RepeatFigures, end: Sample, cores: number): { verdict: Exclude<Verdict, 'failed'>; notes: string[] } {
  const notes: string[] = [];
  const { cpu, server, page } = r;
  const stalled = stalledConnections(point, end.page.open);
  if (end.page.open < point.concurrency) {
    const why = stalled > 0 ? ` (the others stalled behind the browser's ${TRANSPORT_ROUTES[point.transport].perHostCap} connections per host over HTTP/1.1)` : '';
    notes.push(`only ${end.page.open} of ${point.concurrency} connections were open at the end of the window${why}`);
  }
  const wire = r.wire;
  const expected = TRANSPORT_ROUTES[point.transport].http;
  if (wire && wire.http[expected === 'h1' ? 'h2' : 'h1'] > 0) {
    notes.push(`${point.transport} is expected over ${expected === 'h1' ? 'HTTP/1.1' : 'HTTP/2'}, but the server saw ${wire.http.h1} stream(s) over HTTP/1.1 and ${wire.http.h2} over HTTP/2`);
  }
  if (page.reconnects > 0) notes.push(`${page.reconnects} reconnect(s) during the point: its connections were interrupted`);
  if (page.duplicates > 0) notes.push(`${page.duplicates} duplicate batches`);
  if (page.gaps > 0) notes.push(`${page.gaps} batches missing at the page; the server shed ${server.batchesShed} in the window`);
  if (page.perConnectionBatchesPerSec.min < 0.5 * page.perConnectionBatchesPerSec.max) {
    notes.push(`unfair connections: ${page.perConnectionBatchesPerSec.min}–${page.perConnectionBatchesPerSec.max} batches/s per connection`);
  }
  if (hostSaturated(cpu.host, cores)) notes.push(`host CPU ${cpu.host}% of ${cores * 100}%: the machine was saturated`);

  // The decision itself is shared with the lab page's live verdict (protocol/verdict.ts).
  const limit = findLimit({
    deliveredRatio: r.deliveredRatio,
    stalled: stalled > 0 ? { connections: stalled, of: point.concurrency, cap: TRANSPORT_ROUTES[point.transport].perHostCap! } : null,
    parse: point.parse,
    workers: point.workers,
    cores,
    server: {
      pacingRatio: server.pacingRatio,
      batchesBehind: server.batchesBehind,
      // Behind by more than one tick's catch-up on every connection: the schedule slipped.
      slipped: server.batchesBehind > point.concurrency * maxBurst(point.intervalMs),
      shed: server.batchesShed,
      cpu: cpu.server,
    },
    cpu: { tabMainThread: cpu.tabMainThread, tabProcess: cpu.tabProcess, tabThreads: cpu.tabThreads ?? null, host: cpu.host, network: cpu.chrome.network, browser: cpu.chrome.browser },
  });
  if (limit.note) notes.push(limit.note);
  return { verdict: limit.verdict, notes };
}
