/**
 * Turns the samples at both ends of a measured window into one repeat's figures, judged by
 * results/verdict.ts. Pure: recorded samples in, MeasuredRepeat out.
 */
import type { PageSnapshot, TabThreadsCpu } from '../protocol/page-api.js';
import type {
  BrowserFigures,
  ChromeCpu,
  CompressionFigures,
  CpuFigure,
  CpuFigures,
  InputFigures,
  MeasuredRepeat,
  PageFigures,
  RepeatFigures,
  TabFigures,
  WindowTrend,
  WireFigures,
} from '../protocol/repeat-figures.js';
import type { Point } from '../protocol/scenario.js';
import type { Throttle } from '../protocol/device.js';
import type { LinkFigures } from '../protocol/link.js';
import { streamsOf } from '../protocol/wire.js';
import type { LatencySummary, TailSummary } from '../protocol/histogram.js';
import { judgeRepeat, stalledBehindCap } from './verdict.js';
import { maxOf, median, minOf } from './stats.js';
import { chromeCpu, efficiencyOf, FIREFOX_CPU_SOURCES, hostCpu, kindsPresent, percentOfCore, type ChromeProcessKind } from './cpu.js';
import type { Sample, TabSample } from './samples.js';
import { threadsCpu } from './threads.js';

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export interface SummaryMeta {
  /** Round the repeat belongs to (0-based). */
  round: number;
  startedAt: string;
  attempts: number;
  /** The browser host's logical cores. */
  cores: number;
  /** Per-thread and host CPU were readable (a browser on this machine); default true. */
  procfs?: boolean;
  /** Seconds waited after the warm-up for both ends to catch up. */
  settleSec: number;
  /** The window opened with a backlog (the settle wait ran out of time). */
  startedBehind: boolean;
  /** The current round's in-page decoding ceiling of this point's encoding at its batch size, events/s. */
  ceilingEventsPerSec: number | null;
  /** The current round's best JSON.parse ceiling over its batch sizes, events/s; absent: not known. */
  jsonCeilingEventsPerSec?: number | null;
  /** The browser the repeat ran in; recorded for points whose scenario names a `display`. */
  browser?: BrowserFigures;
  /** Every tab's page snapshot half-way through the window, latency not reset (for WindowTrend); absent: not read. */
  mid?: readonly PageSnapshot[];
  /** The input the driver sent the first tab in the window (puppeteer/measure/input-sender.ts); absent: none was sent. */
  input?: { sent: number; unavailable: string | null; roundTrip?: LatencySummary; unansweredMs?: number | null };
  /** The device class the browser was slowed to (puppeteer/device/): how, and how many times slower; absent: full speed. */
  device?: { throttle: Throttle; slowdown: number };
  /** What a namespace link carried over the window (puppeteer/link/); absent: no such link. */
  link?: LinkFigures;
}

/** One tab over the window: its counters' differences and its renderer's CPU, unrounded. */
interface TabWindow {
  end: PageSnapshot;
  windowSec: number;
  events: number;
  batches: number;
  bytes: number;
  counters: Omit<PageFigures, 'events' | 'batches' | 'bytes' | 'perConnectionBatchesPerSec'>;
  /** Batches/s of each of its connections. */
  perConn: number[];
  eventsPerSec: number;
  /** % of one core; null where the tab's own metrics cannot be read (Firefox: see firefoxTab). */
  process: number | null;
  mainThread: number | null;
}

function tabWindow(a: TabSample, b: TabSample): TabWindow {
  const windowSec = (b.page.atMs - a.page.atMs) / 1000;
  const metrics = a.tab && b.tab ? { a: a.tab, b: b.tab, wall: b.tab.timestamp - a.tab.timestamp } : null;
  const delta = (k: 'events' | 'batches' | 'bytes' | 'gaps' | 'duplicates' | 'reconnects' | 'errors') => b.page.counters[k] - a.page.counters[k];
  const events = delta('events');
  return {
    end: b.page,
    windowSec,
    events,
    batches: delta('batches'),
    bytes: delta('bytes'),
    counters: {
      gaps: delta('gaps'),
      duplicates: delta('duplicates'),
      reconnects: delta('reconnects'),
      errors: delta('errors'),
      // Pages before version 4 do not count them: absent, never 0.
      ...(a.page.counters.closedMs !== undefined && b.page.counters.closedMs !== undefined
        ? { closedMs: Math.round(b.page.counters.closedMs - a.page.counters.closedMs) }
        : {}),
      ...(a.page.counters.stalledMs !== undefined && b.page.counters.stalledMs !== undefined
        ? { stalledMs: Math.round(b.page.counters.stalledMs - a.page.counters.stalledMs) }
        : {}),
    },
    perConn: b.page.batchesPerConnection.map((n, i) => (n - (a.page.batchesPerConnection[i] ?? 0)) / windowSec),
    eventsPerSec: events / windowSec,
    process: metrics && percentOfCore(metrics.b.processTime - metrics.a.processTime, metrics.wall),
    mainThread: metrics && Math.min(100, percentOfCore(metrics.b.taskDuration - metrics.a.taskDuration, metrics.wall)),
  };
}

/**
 * Firefox's tab from /proc: no CDP says which content process is the tab's, so it is the one
 * that used the most CPU over the window (the page under load; the idle preallocated one uses
 * next to none), and its main thread is the thread whose id is the process id.
 */
function firefoxTab(a: Sample, b: Sample, wallSeconds: number): { process: number; mainThread: number | null } | null {
  if (!a.chrome || !b.chrome) return null;
  const before = new Map(a.chrome.map((p) => [p.id, p.cpuTime]));
  const busiest = b.chrome
    .filter((p) => p.type === 'renderer')
    .map((p) => ({ pid: p.id, used: p.cpuTime - (before.get(p.id) ?? 0) }))
    .sort((x, y) => y.used - x.used)[0];
  if (!busiest) return null;
  const main = (s: Sample) => s.rendererThreads.get(busiest.pid)?.find((t) => t.tid === busiest.pid)?.cpuSeconds;
  const [m0, m1] = [main(a) ?? 0, main(b)];
  return {
    process: percentOfCore(Math.max(0, busiest.used), wallSeconds),
    mainThread: m1 === undefined ? null : Math.min(100, percentOfCore(Math.max(0, m1 - m0), wallSeconds)),
  };
}

const CHROME_KINDS: readonly ChromeProcessKind[] = ['browser', 'renderers', 'network', 'gpu', 'other'];

/**
 * The repeat's CPU figures. Chrome: CDP for processes and the tab, procfs for threads and the
 * host. Firefox: /proc for all of it (FIREFOX_CPU_SOURCES, said per figure in `sources`); a
 * kind with no process (no socket or GPU process) is null, and a remote Firefox gives none.
 * Every null figure is listed in `unavailable`.
 */
function cpuFigures(a: Sample, b: Sample, tabs: readonly TabWindow[], windowSec: number, meta: SummaryMeta, serverCpu: number): CpuFigures {
  const firefox = b.engine === 'firefox';
  const unavailable: CpuFigure[] = [];
  const procWall = a.procAtSec !== undefined && b.procAtSec !== undefined ? b.procAtSec - a.procAtSec : windowSec;
  let chrome: ChromeCpu = { browser: null, renderers: null, network: null, gpu: null, other: null, total: null };
  if (a.chrome && b.chrome) {
    const measured = roundAll(chromeCpu(a.chrome, b.chrome, procWall));
    const present = kindsPresent(b.chrome);
    // Chrome's CDP lists every kind it has; a Firefox kind without a process is not 0% but unread.
    chrome = { ...measured, ...Object.fromEntries(CHROME_KINDS.filter((k) => firefox && k !== 'other' && !present.has(k)).map((k) => [k, null])) };
  }
  for (const k of [...CHROME_KINDS, 'total'] as const) if (chrome[k] === null) unavailable.push(k);
  let tabProcess: number | null;
  let tabMainThread: number | null;
  if (firefox) {
    const tab = firefoxTab(a, b, procWall);
    tabProcess = tab && round(tab.process);
    tabMainThread = tab?.mainThread == null ? null : round(tab.mainThread);
  } else {
    // Several tabs: their renderers summed; the busiest tab's main thread (≤ 100, what the verdict reads).
    tabProcess = tabs.some((t) => t.process === null) ? null : round(sum(tabs.map((t) => t.process!)));
    tabMainThread = tabs.some((t) => t.mainThread === null) ? null : round(maxOf(tabs.map((t) => t.mainThread!)));
  }
  if (tabProcess === null) unavailable.unshift('tabProcess');
  if (tabMainThread === null) unavailable.unshift('tabMainThread');
  const cpu: CpuFigures = {
    chrome,
    tabProcess,
    tabMainThread,
    tabThreads: tabThreads(a, b, windowSec),
    server: serverCpu,
    host: a.host && b.host ? round(hostCpu(a.host, b.host)) : null,
  };
  // A remote browser's threads and host cannot be read from here: null, and said so, never 0.
  if (meta.procfs === false) unavailable.push('tabThreads', 'host');
  const why = meta.device ? onDevice(cpu, meta.device, firefox, unavailable) : {};
  if (unavailable.length) cpu.unavailable = [...new Set(unavailable)];
  if (Object.keys(why).length) cpu.sources = { ...why };
  if (firefox) {
    const sources: NonNullable<CpuFigures['sources']> = {};
    for (const k of ['tabProcess', 'tabMainThread', ...CHROME_KINDS, 'total'] as const) {
      sources[k] = unavailable.includes(k)
        ? meta.procfs === false
          ? "unavailable: a remote Firefox has no CDP, and its /proc is not this machine's"
          : k === 'network'
            ? 'unavailable: no Socket Process ran; in Firefox 153 ESR the network work is in the parent (browser)'
            : k === 'gpu'
              ? 'unavailable: no GPU Process ran (headless, or compositing in the parent)'
              : 'unavailable: the process could not be read from /proc'
        : FIREFOX_CPU_SOURCES[k];
    }
    cpu.sources = { ...sources, ...why };
  }
  return cpu;
}

/** What a repeat under a device class says of its CPU figures. */
function deviceNote(d: NonNullable<SummaryMeta['device']>): string {
  return d.throttle === 'browser'
    ? `device class: the whole browser ran ${d.slowdown}× slower (a CPU quota of ${round(100 / d.slowdown)}% of one core, pinned to it); its CPU figures are the device's, this machine's CPU time × ${d.slowdown}`
    : `device class: the tab's main thread ran ${d.slowdown}× slower (CDP CPU throttling; Workers, network service and GPU at full speed); the renderer's CPU times and every figure per CPU-second are not valid under it`;
}

/** How a figure read under a device class's quota becomes the device's: CPU time × the slowdown. */
export const DEVICE_CPU_SOURCE =
  "the device's: this machine's CPU time × the class's slowdown (the browser ran under a CPU quota of 1 ÷ slowdown of one core), so 100 = the device's one core busy";

/**
 * A window's CPU figures as the device class's (protocol/device.ts), in place.
 * - Whole browser (a quota of `1 / slowdown` of one core): CPU time is this machine's, spent in
 *   bursts at full speed, so each CPU-time figure is multiplied by the slowdown, and the class
 *   has one core (judged against 1, results/verdict.ts). Chrome's main thread figure is busy
 *   wall time (TaskDuration), which the quota already stretched: it stays. The host figure,
 *   with the server outside the quota, says nothing of the device: null.
 * - Main thread only (CDP): the throttler busy-waits on that thread, so every CPU time of the
 *   renderer counts the wait: null, with the reason; the main thread's busy time stays.
 * Returns the reason for each figure it changed (CpuFigures.sources).
 */
function onDevice(cpu: CpuFigures, device: NonNullable<SummaryMeta['device']>, firefox: boolean, unavailable: CpuFigure[]): Partial<Record<CpuFigure, string>> {
  const why: Partial<Record<CpuFigure, string>> = {};
  if (device.throttle === 'browser') {
    const k = device.slowdown;
    const times = (x: number | null) => (x === null ? null : round(x * k));
    for (const kind of [...CHROME_KINDS, 'total'] as const) {
      cpu.chrome[kind] = times(cpu.chrome[kind]);
      if (cpu.chrome[kind] !== null) why[kind] = DEVICE_CPU_SOURCE;
    }
    cpu.tabProcess = times(cpu.tabProcess);
    if (cpu.tabProcess !== null) why.tabProcess = DEVICE_CPU_SOURCE;
    // Firefox's main thread is CPU time from /proc; Chrome's is busy wall time.
    if (firefox) {
      cpu.tabMainThread = times(cpu.tabMainThread);
      if (cpu.tabMainThread !== null) why.tabMainThread = DEVICE_CPU_SOURCE;
    }
    if (cpu.tabThreads) {
      const t = cpu.tabThreads;
      cpu.tabThreads = {
        main: times(t.main)!,
        workers: t.workers.map((w) => times(w)!),
        io: times(t.io)!,
        compositor: times(t.compositor)!,
        pool: times(t.pool)!,
        other: times(t.other)!,
      };
      why.tabThreads = DEVICE_CPU_SOURCE;
    }
    cpu.host = null;
    unavailable.push('host');
    why.host = "unavailable under a device class: the host's CPU counts the server, which runs outside the browser's quota";
    return why;
  }
  const invalid = "not valid under main-thread throttling: CDP's throttler busy-waits on the renderer's main thread, and its CPU time counts the wait";
  cpu.tabProcess = null;
  cpu.tabThreads = null;
  cpu.chrome.renderers = null;
  cpu.chrome.total = null;
  for (const f of ['tabProcess', 'tabThreads', 'renderers', 'total'] as const) {
    unavailable.push(f);
    why[f] = invalid;
  }
  return why;
}

const tabsOf = (s: Sample): TabSample[] => [{ page: s.page, tab: s.tab }, ...(s.moreTabs ?? [])];
const sum = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0);

function spread(xs: readonly number[]): { min: number; median: number; max: number } {
  return { min: round(minOf(xs)), median: round(median(xs)), max: round(maxOf(xs)) };
}

/** The latency to show for several tabs: the tab whose p99 is highest (the one that fell furthest behind). */
function worstLatency(all: readonly LatencySummary[]): LatencySummary {
  return all[worstTabIndex(all)];
}

/** Which tab's latency `worstLatency` shows: the one whose p99 is highest (the first of equals). */
function worstTabIndex(all: readonly LatencySummary[]): number {
  return all.reduce((w, l, i) => ((l.p99Ms ?? -Infinity) > (all[w].p99Ms ?? -Infinity) ? i : w), 0);
}

/** A tail to show for several tabs: the tab whose p99 is highest. */
function worstTail(all: readonly TailSummary[]): TailSummary {
  return [...all].sort((x, y) => (y.p99Ms ?? -Infinity) - (x.p99Ms ?? -Infinity))[0];
}

/**
 * Transit and display age over the window (issue 33), where every tab's page gave them (the bare
 * page gives neither); display age null when the render mode draws nothing.
 */
function ageFigures(ends: readonly PageSnapshot[]): Pick<RepeatFigures, 'transit' | 'displayAge'> {
  const out: Pick<RepeatFigures, 'transit' | 'displayAge'> = {};
  const transits = ends.flatMap((e) => (e.transit ? [e.transit] : []));
  if (transits.length === ends.length) out.transit = worstTail(transits);
  if (ends.every((e) => e.displayAge === null)) out.displayAge = null;
  else {
    const shown = ends.flatMap((e) => (e.displayAge ? [e.displayAge] : []));
    if (shown.length === ends.length) out.displayAge = worstTail(shown);
  }
  return out;
}

export function summarise(point: Point, a: Sample, b: Sample, meta: SummaryMeta): MeasuredRepeat {
  const before = tabsOf(a);
  const tabs = tabsOf(b).map((end, i) => tabWindow(before[i], end));
  const multi = tabs.length > 1;
  const windowSec = sum(tabs.map((t) => t.windowSec)) / tabs.length;
  const serverWallSec = (b.server.nowMs - a.server.nowMs) / 1000;
  const serverCpuSec = (b.server.cpuUserUs + b.server.cpuSystemUs - a.server.cpuUserUs - a.server.cpuSystemUs) / 1e6;
  const eluActive = b.server.eventLoopActiveMs - a.server.eventLoopActiveMs;
  const eluIdle = b.server.eventLoopIdleMs - a.server.eventLoopIdleMs;
  const generated = b.server.batchesSent + b.server.batchesShed - (a.server.batchesSent + a.server.batchesShed);
  const open = sum(tabs.map((t) => t.end.open));
  // Connections the browser never opened (its per-host cap) never reached the server: nothing
  // was due on them, so they must not count against the server's pacing.
  const streams = streamsOf(point);
  const due = ((streams - (stalledBehindCap(point.transport, streams, open)?.connections ?? 0)) * serverWallSec * 1000) / point.intervalMs;
  // Each tab's rate over its own window (they are read together, a few ms apart), summed.
  const eventsPerSec = sum(tabs.map((t) => t.eventsPerSec));
  const perConn = tabs.flatMap((t) => t.perConn);
  const counter = (k: 'gaps' | 'duplicates' | 'reconnects' | 'errors') => sum(tabs.map((t) => t.counters[k]));
  const optionalCounter = (k: 'closedMs' | 'stalledMs') =>
    tabs.every((t) => t.counters[k] !== undefined) ? { [k]: sum(tabs.map((t) => t.counters[k] ?? 0)) } : {};

  const cpu = cpuFigures(a, b, tabs, windowSec, meta, round(percentOfCore(serverCpuSec, serverWallSec)));
  // Per CPU-second of the main threads: of all the tabs' main threads together.
  const mainScale = meta.device?.throttle === 'browser' && b.engine === 'firefox' ? meta.device.slowdown : 1;
  const mainThreads = multi && cpu.tabMainThread !== null ? round(sum(tabs.map((t) => (t.mainThread ?? 0) * mainScale))) : cpu.tabMainThread;
  const pageEvents = sum(tabs.map((t) => t.events));
  const figures: RepeatFigures = {
    windowSec: round(windowSec, 3),
    settleSec: meta.settleSec,
    eventsPerSec: Math.round(eventsPerSec),
    batchesPerSec: round(sum(tabs.map((t) => t.batches / t.windowSec))),
    megabytesPerSec: round(sum(tabs.map((t) => t.bytes / t.windowSec)) / 1e6, 2),
    deliveredRatio: round(eventsPerSec / point.offeredEventsPerSec, 4),
    ceilingEventsPerSec: meta.ceilingEventsPerSec,
    ceilingRatio: meta.ceilingEventsPerSec ? round(eventsPerSec / meta.ceilingEventsPerSec, 4) : null,
    bytesPerEvent: pageEvents ? round(sum(tabs.map((t) => t.bytes)) / pageEvents, 1) : null,
    ...(meta.jsonCeilingEventsPerSec !== undefined
      ? {
          jsonCeilingEventsPerSec: meta.jsonCeilingEventsPerSec,
          jsonCeilingRatio: meta.jsonCeilingEventsPerSec ? round(eventsPerSec / meta.jsonCeilingEventsPerSec, 4) : null,
        }
      : {}),
    // Under main-thread throttling no figure per CPU-second is valid (not even the main thread's busy time: it holds the wait).
    efficiency: efficiencyOf(
      eventsPerSec,
      meta.device?.throttle === 'main-thread' ? { tabProcess: null, tabMainThread: null, chrome: { total: null } } : { ...cpu, tabMainThread: mainThreads },
    ),
    page: {
      events: sum(tabs.map((t) => t.events)),
      batches: sum(tabs.map((t) => t.batches)),
      bytes: sum(tabs.map((t) => t.bytes)),
      gaps: counter('gaps'),
      duplicates: counter('duplicates'),
      reconnects: counter('reconnects'),
      errors: counter('errors'),
      ...optionalCounter('closedMs'),
      ...optionalCounter('stalledMs'),
      perConnectionBatchesPerSec: spread(perConn),
    },
    latency: multi ? worstLatency(tabs.map((t) => t.end.latency)) : tabs[0].end.latency,
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
    wire: wireFigures(
      tabs.map((t) => t.end),
      b.server,
      point.concurrency,
    ),
  };
  if (multi) {
    figures.tabs = tabs.map((t) => tabFigures(point, t, b.server, tabs.length));
    figures.perTabEventsPerSec = spread(figures.tabs.map((t) => t.eventsPerSec));
  }
  Object.assign(figures, ageFigures(tabs.map((t) => t.end)));
  if (meta.browser) figures.browser = meta.browser;
  // The tab `latency` shows: p99Ms and the histogram the rule pools must be one latency. A
  // histogram pooled over tabs let a starved tab's tail drown in the others' (issue 33 review).
  const histogram = tabs[multi ? worstTabIndex(tabs.map((t) => t.end.latency)) : 0].end.latencyHistogram;
  if (histogram) figures.latencyHistogram = histogram;
  const trend = windowTrend(tabsOf(a), tabsOf(b), meta.mid);
  if (trend) figures.trend = trend;
  const input = inputFigures(b.page, meta.input, b.engine === 'firefox');
  if (input) figures.input = input;
  if (point.compression)
    figures.compression = compressionFigures(
      point,
      tabs.map((t) => t.end.client ?? null),
      a.server,
      b.server,
      serverWallSec,
    );
  if (meta.link) figures.link = meta.link;
  // A whole-browser class is one core of its speed: the browser's quota.
  const { verdict, notes } = judgeRepeat(point, figures, sum(tabs.map((t) => t.end.open)), meta.device?.throttle === 'browser' ? 1 : meta.cores);
  if (meta.device) notes.push(deviceNote(meta.device));
  const fellBack = rfc8441FallbackNote(point, figures.wire ?? null);
  if (fellBack) notes.push(fellBack);
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

/**
 * The window's WindowTrend: the backlog of the tab that ended furthest behind (and its start),
 * and the mean latency of each half over every tab, from the snapshot half-way (whose latency
 * was not reset, so the second half is the end's sum less the middle's). Null when the pages
 * said none of it (before version 4).
 */
function windowTrend(start: readonly TabSample[], end: readonly TabSample[], mid: readonly PageSnapshot[] | undefined): WindowTrend | null {
  if (end.some((t) => t.page.backlogMs === undefined)) return null;
  const worst = end.reduce((w, t, i) => ((t.page.backlogMs ?? -1) > (end[w].page.backlogMs ?? -1) ? i : w), 0);
  const halves = (() => {
    if (!mid || mid.length !== end.length) return { first: null, second: null };
    const total = (ls: readonly LatencySummary[]) => ({ n: sum(ls.map((l) => l.count)), sumMs: sum(ls.map((l) => (l.meanMs ?? 0) * l.count)) });
    const m = total(mid.map((s) => s.latency));
    const e = total(end.map((t) => t.page.latency));
    const second = { n: e.n - m.n, sumMs: e.sumMs - m.sumMs };
    return { first: m.n > 0 ? round(m.sumMs / m.n, 3) : null, second: second.n > 0 ? round(second.sumMs / second.n, 3) : null };
  })();
  return {
    backlogStartMs: start[worst]?.page.backlogMs ?? null,
    backlogEndMs: end[worst].page.backlogMs ?? null,
    firstHalfMeanMs: halves.first,
    secondHalfMeanMs: halves.second,
  };
}

/**
 * How the first tab answered the driver's input over the window: its probe's figures (reset at
 * the window's start with its latency) and what was sent. Null for a page without the probe.
 */
export function inputFigures(end: PageSnapshot, sent: SummaryMeta['input'], firefox = false): InputFigures | null {
  const page = end.input;
  if (!page) return null;
  // Firefox stamps BiDi input after the wait (FIREFOX_DELAY_SOURCE): the driver's round trip holds it.
  const driver = firefox && sent?.roundTrip !== undefined;
  const f: InputFigures = {
    sent: sent?.sent ?? 0,
    handled: page.handled,
    delayMs: driver ? sent.roundTrip! : page.delay,
    nextFrameMs: page.nextFrame,
    longFrames: page.longFrames,
  };
  if (page.longFramesUnavailable !== undefined) f.longFramesUnavailable = page.longFramesUnavailable;
  if (sent?.unavailable) f.unavailable = sent.unavailable;
  // The input the window ended on, still unanswered: its wait so far counts (a lower bound).
  else if (typeof sent?.unansweredMs === 'number') f.unansweredMs = round(sent.unansweredMs, 1);
  if (sent?.roundTrip) f.roundTripMs = sent.roundTrip;
  if (driver) {
    f.delaySource = FIREFOX_DELAY_SOURCE;
    f.pageDelayMs = page.delay;
  }
  return f;
}

/**
 * Why a Firefox repeat's input delay is the driver's round trip: measured on this VM, a click
 * sent while the page's main thread was blocked for 600 ms took 611 ms to dispatch, and the page
 * read its delay from `event.timeStamp` as 5 ms (Chrome, the same: 466 ms and 455 ms).
 */
export const FIREFOX_DELAY_SOURCE =
  "the driver's round trip (send → Firefox dispatched it): Firefox stamps input sent over WebDriver BiDi when its content process dispatches it, after any wait for the main thread, so the page's own figure (pageDelayMs) leaves the wait out";

/**
 * `ws-h2` is a WebSocket over HTTP/2 (RFC 8441) only when the browser speaks it: one that
 * does not (an engine without extended CONNECT) opens it over HTTP/1.1, and the point then
 * measured a plain WebSocket. Said in words, from the server's view of the streams.
 */
export function rfc8441FallbackNote(point: Pick<Point, 'transport' | 'engine'>, wire: WireFigures | null): string | null {
  if (point.transport !== 'ws-h2' || !wire || wire.http.h1 === 0) return null;
  return `ws-h2: ${wire.http.h1} of ${wire.http.h1 + wire.http.h2} WebSocket(s) arrived over HTTP/1.1: ${point.engine ?? 'chrome'} did not speak RFC 8441 (WebSockets over HTTP/2) here, so this point measured WebSockets over HTTP/1.1`;
}

/** One tab of a multi-tab point: its own rates, counters, latency, CPU and streams. */
function tabFigures(point: Point, t: TabWindow, server: Sample['server'], tabCount: number): TabFigures {
  return {
    client: t.end.client ?? null,
    windowSec: round(t.windowSec, 3),
    eventsPerSec: Math.round(t.eventsPerSec),
    batchesPerSec: round(t.batches / t.windowSec),
    megabytesPerSec: round(t.bytes / t.windowSec / 1e6, 2),
    deliveredRatio: round(t.eventsPerSec / (point.offeredEventsPerSec / tabCount), 4),
    page: { events: t.events, batches: t.batches, bytes: t.bytes, ...t.counters, perConnectionBatchesPerSec: spread(t.perConn) },
    latency: t.end.latency,
    cpu: { tabProcess: t.process === null ? null : round(t.process), tabMainThread: t.mainThread === null ? null : round(t.mainThread) },
    wire: wireFigures([t.end], server, point.concurrency),
  };
}

/**
 * What compressing did to the page's streams over the window, from the server's per-stream
 * counts (the page only sees decoded bytes): bytes on the wire, and bytes in and out of the
 * compressor of the streams that were compressed.
 */
export function compressionFigures(
  point: Point,
  clients: readonly (string | null)[],
  start: Sample['server'],
  end: Sample['server'],
  serverWallSec: number,
): CompressionFigures {
  const tags = new Set(clients.filter((c): c is string => c !== null));
  const before = new Map(start.connections.map((c) => [c.id, c]));
  const mine = end.connections.filter((c) => c.client !== null && tags.has(c.client));
  const compressed = mine.filter((c) => c.compression !== null);
  const delta = (f: (c: (typeof mine)[number]) => number) => sum(mine.map((c) => f(c) - (before.has(c.id) ? f(before.get(c.id)!) : 0)));
  const inOut = (k: 'inputBytes' | 'outputBytes') => sum(compressed.map((c) => c.compression![k] - (before.get(c.id)?.compression?.[k] ?? 0)));
  const wireBytes = delta((c) => c.bytes);
  const inputBytes = inOut('inputBytes');
  const outputBytes = inOut('outputBytes');
  return {
    kind: point.compression!,
    streams: mine.length,
    compressedStreams: compressed.length,
    wireBytes,
    wireMegabytesPerSec: round(wireBytes / serverWallSec / 1e6, 2),
    inputBytes,
    outputBytes,
    ratio: inputBytes > 0 ? round(outputBytes / inputBytes, 4) : null,
  };
}

/**
 * The page's streams in the server's `/stats` at the end of the window (every tab's, found by
 * their client tags): their HTTP versions, the TCP connections they share, the ones stalled.
 */
export function wireFigures(ends: readonly Pick<PageSnapshot, 'client' | 'open'>[], server: Sample['server'], concurrency: number): WireFigures | null {
  const tags = new Set(ends.map((e) => e.client));
  if (tags.has(undefined)) return null;
  const mine = server.connections.filter((c) => c.client !== null && tags.has(c.client));
  return {
    http: { h1: mine.filter((c) => c.http === 'h1').length, h2: mine.filter((c) => c.http === 'h2').length },
    tcpConnections: new Set(mine.map((c) => c.socket)).size,
    stalled: sum(ends.map((e) => Math.max(0, concurrency - e.open))),
  };
}

/** The tab's renderer is the one that burned the most CPU in the window: the page under load. */
function tabThreads(a: Sample, b: Sample, wallSeconds: number): TabThreadsCpu | null {
  if (!a.chrome || !b.chrome) return null;
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
