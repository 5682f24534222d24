/**
 * A point's verdict, defined once: where the limit was. Three callers judge with it, with the
 * same thresholds, in the same order, ending in the one decision `findLimit`:
 *
 * - one repeat's measured window (`judgeRepeat`; results/summarise.ts);
 * - a point over its repeats (`majorityVerdict`; results/point-summary.ts, results/advice-figures.ts);
 * - the lab page's live window of the last seconds (`judgeLiveWindow`; web/lab/health.ts).
 *
 * Pure, no Node or DOM: the lab page imports it.
 */
import type { TabThreadsCpu } from '../protocol/page-api.js';
import type { MeasuredRepeat, RepeatFigures, Verdict } from '../protocol/repeat-figures.js';
import type { Point } from '../protocol/scenario.js';
import { maxBurst } from '../protocol/pacing.js';
import { streamsOf, TRANSPORT_INFO, type ParseMode, type Transport } from '../protocol/wire.js';
import { maxOf } from './stats.js';
import { LINK_AT_RATE } from '../protocol/link.js';

/** Delivered below this share of the offered rate, a point did not keep up. */
export const KEPT_UP_RATIO = 0.97;
/** The server fell behind its own schedule below this share (issue: 99% of nominal). */
export const PACING_OK_RATIO = 0.99;
/** A thread or host this busy (share of its capacity) is called saturated. */
export const SATURATED = 0.9;

/**
 * Connections that stalled behind the browser's per-host cap (HTTP/1.1's 6): not open while
 * the cap's worth are. Those never reached the server, so nothing was due on them. One rule for
 * the sweep's judge and the lab's live verdict.
 */
export function stalledBehindCap(transport: Transport, streams: number, open: number): LimitInput['stalled'] {
  const cap = TRANSPORT_INFO[transport].perHostCap;
  // The cap said is the one measured, what this browser opened (Chrome's and Firefox's are both
  // 6 by default, but a Firefox preference can change its own); the usual 6 only tells a cap
  // from connections that failed.
  return cap !== undefined && open >= cap && open < streams ? { connections: streams - open, of: streams, cap: open } : null;
}

/** What the decision looks at; CPU figures in % of one core, null where unknown. */
export interface LimitInput {
  deliveredRatio: number;
  /** Connections the browser never opened because of its per-host cap (HTTP/1.1: 6); null when none. */
  stalled?: { connections: number; of: number; cap: number } | null;
  parse: ParseMode;
  /** Parsing Workers asked for (parse mode worker). */
  workers: number;
  cores: number;
  /**
   * A whole-browser device class (protocol/device.ts): `cores` is its one core, the browser's
   * quota, and saturating it is the device's CPU at its end, not this machine's. Absent: none.
   */
  device?: string;
  server: {
    /** Batches generated ÷ batches due. */
    pacingRatio: number;
    /** Batches due but not generated at the end, over all connections. */
    batchesBehind: number;
    /** More behind than one tick's catch-up on every connection: the schedule slipped. */
    slipped: boolean;
    shed: number;
    cpu: number | null;
  };
  cpu: {
    /** The tab's main thread busy time. */
    tabMainThread: number | null;
    /** The tab's renderer process. */
    tabProcess: number | null;
    tabThreads: TabThreadsCpu | null;
    host: number | null;
    network: number | null;
    browser: number | null;
    /**
     * Every Chrome process together (CDP). Where the host's CPU cannot be read (a remote
     * browser), Chrome alone at the host's saturation still makes a point host-bound: it is a
     * lower bound of the host's CPU.
     */
    chromeTotal?: number | null;
  };
  /**
   * A capped link's share of its rate carried over the window (LinkFigures.atRate): at
   * LINK_AT_RATE or more while the server shed and nothing saturated, the link was the limit.
   * Absent: no link, or unlimited.
   */
  linkAtRate?: number | null;
}

export interface Limit {
  verdict: Exclude<Verdict, 'failed'>;
  /** The reason in the sweep notes' words; null when the point kept up. */
  note: string | null;
  /** The reason as a short phrase for a live line ("the tab's main thread is at 98%"); null when it kept up. */
  why: string | null;
}

const pct = (x: number) => `${Math.round(x)}%`;

export function hostSaturated(host: number | null, cores: number): boolean {
  return host !== null && host >= SATURATED * 100 * cores;
}

/**
 * Connections the browser's per-host cap kept from opening come first, then the server's
 * pacing (a server that fell behind without having to shed was itself the limit), then the
 * tab's main thread (the single-thread ceiling the reference
 * found), then parsing Workers, then the host as a whole.
 */
export function findLimit(i: LimitInput): Limit {
  const { server, cpu } = i;
  const hostLoad = cpu.host ?? cpu.chromeTotal ?? null;
  const host = hostSaturated(hostLoad, i.cores);
  // The browser's connection cap comes before anything else: what never opened was never
  // offered to the page, however idle its threads were, and a window that opened on a backlog
  // can still deliver its share of the load from the connections that did open.
  if (i.stalled) {
    const { connections, of, cap } = i.stalled;
    return {
      verdict: 'client-bound',
      note: `${connections} of ${of} connections never opened: the browser allows ${cap} per host over HTTP/1.1`,
      why: `${connections} of ${of} connections stalled behind the browser's ${cap} per host`,
    };
  }
  if (i.deliveredRatio >= KEPT_UP_RATIO) return { verdict: 'ok', note: null, why: null };
  if ((server.pacingRatio < PACING_OK_RATIO || server.slipped) && server.shed === 0) {
    return {
      // A server starved of CPU by a saturated host is the host's limit, not the server's.
      verdict: host ? 'host-bound' : 'server-bound',
      note: `server generated only ${(server.pacingRatio * 100).toFixed(1)}% of scheduled batches without shedding, ${server.batchesBehind} behind at the end (server CPU ${server.cpu ?? '?'}%)`,
      why: `the server generated only ${(server.pacingRatio * 100).toFixed(1)}% of its schedule${server.cpu === null ? '' : ` at ${pct(server.cpu)} CPU`}${host ? `, ${hostText(cpu, i.device)} at ${pct(hostLoad!)} of ${i.cores * 100}%` : ''}`,
    };
  }
  if (cpu.tabMainThread !== null && cpu.tabMainThread >= SATURATED * 100) {
    return {
      verdict: 'client-bound',
      note: `tab main thread ${cpu.tabMainThread}% busy: the page could not take more`,
      why: `the tab's main thread is at ${pct(cpu.tabMainThread)}`,
    };
  }
  // In parse mode worker the main thread idles and the Workers do the work, each on at most
  // one core: judged by their own CPU where the kernel exposes threads, else by the process.
  if (i.parse === 'worker') {
    const workers = cpu.tabThreads?.workers ?? [];
    if (workers.length && maxOf(workers) >= SATURATED * 100) {
      const list = workers.map((w) => `${w}%`).join(', ');
      return {
        verdict: 'client-bound',
        note: `parsing Workers at ${list} of a core: the Workers could not take more`,
        why: `parsing Workers at ${list} of a core`,
      };
    }
    if (!cpu.tabThreads && cpu.tabProcess !== null && cpu.tabProcess >= SATURATED * 100 * Math.min(i.workers, i.cores) && !host) {
      return {
        verdict: 'client-bound',
        note: `tab process ${cpu.tabProcess}% with ${i.workers} parsing Worker(s): the Workers could not take more`,
        why: `the tab's process is at ${pct(cpu.tabProcess)} with ${i.workers} parsing Worker(s)`,
      };
    }
  }
  if (host) return { verdict: 'host-bound', note: null, why: `${hostText(cpu, i.device)} is at ${pct(hostLoad!)} of ${i.cores * 100}%` };
  // Nothing saturated, the server had to shed, and the link carried its cap: the bytes could not
  // leave faster. Without this the point would read as client-bound (the page idled).
  if (i.linkAtRate != null && i.linkAtRate >= LINK_AT_RATE && server.shed > 0) {
    return {
      verdict: 'network-bound',
      note: `the link carried ${pct(i.linkAtRate * 100)} of its cap while the server shed ${server.shed} batches, with no thread at ${SATURATED * 100}%: the network was the limit`,
      why: `the link ran at ${pct(i.linkAtRate * 100)} of its cap and the server shed`,
    };
  }
  const busiest = busiestTabThread(cpu.tabThreads);
  const threadText = busiest ? `busiest tab thread: ${busiest.name} at ${busiest.percent}%, ` : '';
  return {
    verdict: 'client-bound',
    note: `delivered ${(i.deliveredRatio * 100).toFixed(1)}% with no thread at ${SATURATED * 100}% (${threadText}network service ${cpu.network ?? '?'}%, browser ${cpu.browser ?? '?'}%)`,
    why:
      cpu.tabMainThread === null && !busiest
        ? `delivered ${(i.deliveredRatio * 100).toFixed(1)}% of offered`
        : `no thread at ${SATURATED * 100}%${busiest ? ` (busiest: ${busiest.name} at ${pct(busiest.percent)})` : cpu.tabMainThread !== null ? ` (main thread at ${pct(cpu.tabMainThread)})` : ''}`,
  };
}

/** What the host figure was: the host itself, Chrome alone where the host is unavailable, or a device class's one core. */
function hostText(cpu: LimitInput['cpu'], device?: string): string {
  if (device !== undefined) return `the ${device} device's one core (the browser's CPU quota)`;
  return cpu.host !== null ? 'the host' : 'Chrome alone (host CPU unavailable)';
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

// ----------------------------------------------------------------------------------------------
// One repeat

/**
 * One repeat's verdict from its figures over the measured window, with the notes that explain
 * it: connections that never opened, compression or HTTP versions other than asked for,
 * reconnects, gaps, unfair connections and a saturated host, then the decision's own reason.
 * `open`: connections open at the end of the window (every tab's); `cores`: the browser host's.
 */
export function judgeRepeat(point: Point, r: RepeatFigures, open: number, cores: number): { verdict: Exclude<Verdict, 'failed'>; notes: string[] } {
  const notes: string[] = [];
  const { cpu, server, page } = r;
  const streams = streamsOf(point);
  // The cap is per host for the whole browser: several tabs share it.
  const stalled = stalledBehindCap(point.transport, streams, open);
  if (open < streams) {
    const why = stalled ? ` (the others stalled behind the browser's ${stalled.cap} connections per host over HTTP/1.1)` : '';
    notes.push(`only ${open} of ${streams} connections were open at the end of the window${why}`);
  }
  const c = r.compression;
  if (c && c.compressedStreams < c.streams) {
    notes.push(
      `compression ${c.kind} was asked for, but the server compressed ${c.compressedStreams} of the page's ${c.streams} streams (the browser did not negotiate it on the others)`,
    );
  }
  const wire = r.wire;
  const expected = TRANSPORT_INFO[point.transport].http;
  if (wire && wire.http[expected === 'h1' ? 'h2' : 'h1'] > 0) {
    notes.push(
      `${point.transport} is expected over ${expected === 'h1' ? 'HTTP/1.1' : 'HTTP/2'}, but the server saw ${wire.http.h1} stream(s) over HTTP/1.1 and ${wire.http.h2} over HTTP/2`,
    );
  }
  if (page.reconnects > 0) notes.push(`${page.reconnects} reconnect(s) during the point: its connections were interrupted`);
  if (page.duplicates > 0) notes.push(`${page.duplicates} duplicate batches`);
  if (page.gaps > 0) notes.push(`${page.gaps} batches missing at the page; the server shed ${server.batchesShed} in the window`);
  if (page.perConnectionBatchesPerSec.min < 0.5 * page.perConnectionBatchesPerSec.max) {
    notes.push(`unfair connections: ${page.perConnectionBatchesPerSec.min}–${page.perConnectionBatchesPerSec.max} batches/s per connection`);
  }
  const device = point.device !== undefined && point.throttle === undefined ? point.device : undefined;
  if (hostSaturated(cpu.host, cores)) notes.push(`host CPU ${cpu.host}% of ${cores * 100}%: the machine was saturated`);
  else if (device !== undefined && hostSaturated(cpu.chrome.total, cores)) {
    notes.push(`the browser used ${cpu.chrome.total}% of the ${device} device's one core (its CPU quota): the device was saturated`);
  } else if (cpu.host === null && hostSaturated(cpu.chrome.total, cores)) {
    notes.push(`host CPU unavailable, but Chrome alone used ${cpu.chrome.total}% of the browser host's ${cores * 100}%: its machine was saturated`);
  }

  const limit = findLimit({
    deliveredRatio: r.deliveredRatio,
    stalled,
    parse: point.parse,
    workers: point.workers,
    cores,
    ...(device !== undefined ? { device } : {}),
    ...(r.link ? { linkAtRate: r.link.atRate } : {}),
    server: {
      pacingRatio: server.pacingRatio,
      batchesBehind: server.batchesBehind,
      // Behind by more than one tick's catch-up on every connection: the schedule slipped.
      slipped: server.batchesBehind > streams * maxBurst(point.intervalMs),
      shed: server.batchesShed,
      cpu: cpu.server,
    },
    cpu: {
      tabMainThread: cpu.tabMainThread,
      tabProcess: cpu.tabProcess,
      tabThreads: cpu.tabThreads ?? null,
      host: cpu.host,
      network: cpu.chrome.network,
      browser: cpu.chrome.browser,
      chromeTotal: cpu.chrome.total,
    },
  });
  if (limit.note) notes.push(limit.note);
  return { verdict: limit.verdict, notes };
}

// ----------------------------------------------------------------------------------------------
// A point over its repeats

/** Verdicts from best to worst: a tie between repeats goes to the worse one. */
const VERDICT_SEVERITY: readonly Verdict[] = ['ok', 'client-bound', 'network-bound', 'server-bound', 'host-bound', 'failed'];

/** The verdict most measured repeats reached; a tie goes to the worse one; 'failed' when none measured. */
export function majorityVerdict(measured: readonly Pick<MeasuredRepeat, 'verdict'>[]): Verdict {
  if (!measured.length) return 'failed';
  const counts = new Map<Verdict, number>();
  for (const r of measured) counts.set(r.verdict, (counts.get(r.verdict) ?? 0) + 1);
  const most = maxOf(counts.values());
  return [...VERDICT_SEVERITY].reverse().find((v) => counts.get(v) === most)!;
}

// ----------------------------------------------------------------------------------------------
// The lab page's live window

/** Seconds the lab's delivered share and shed count are judged over: one second is too noisy. */
export const JUDGE_WINDOW_SEC = 5;
/** The lab does not judge its first seconds: they carry connection set-up and JIT warm-up. */
export const LIVE_GRACE_SEC = 2;
/** The page counts as behind when its newest batch is older than this, ms (normal: a few ms). */
export const BACKLOG_BEHIND_MS = 1000;

/** The lab's last seconds, as figures; what the page can see of the server comes from `/stats`. */
export interface LiveWindow {
  /** Events received over the window ÷ events offered over it. */
  deliveredRatio: number;
  /** Now minus the newest batch's sentAt, ms; null before any batch. */
  backlogMs: number | null;
  /** Batches the server shed for this run within the window (0 without `/stats`). */
  shed: number;
  /** Seconds since the run started. */
  runSec: number;
  /** Batches generated ÷ due over the window, behind now, and the server's CPU (% of one core). */
  server: { pacingRatio: number; batchesBehind: number; cpu: number | null };
  /** The latest CPU reading, when one is fresh; every figure null without. */
  cpu: LimitInput['cpu'];
  cores: number;
  stalled: LimitInput['stalled'];
  parse: ParseMode;
  workers: number;
  /**
   * How the page fell further behind over the window, in the sustains rule's words
   * (results/sustains.ts fellBehind, the one clause for the sweep, the advisor and the lab); null
   * or absent when it did not.
   */
  fellBehind?: string | null;
}

export interface LiveVerdict {
  /** Past the first seconds (LIVE_GRACE_SEC). */
  judged: boolean;
  behind: boolean;
  /** The newest batch is older than BACKLOG_BEHIND_MS. */
  backlogBehind: boolean;
  /** Where the limit is; null while the page keeps up. */
  limit: Limit | null;
}

/**
 * Is the page keeping up, and if not, where is the limit? Behind: delivering below
 * KEPT_UP_RATIO, a newest batch older than BACKLOG_BEHIND_MS, a backlog that grew over the
 * window (the sustains rule's falling-behind clause), or anything shed in the window.
 */
export function judgeLiveWindow(w: LiveWindow): LiveVerdict {
  const backlogBehind = w.backlogMs !== null && w.backlogMs > BACKLOG_BEHIND_MS;
  const judged = w.runSec >= LIVE_GRACE_SEC;
  const rising = !!w.fellBehind;
  const behind = judged && (w.deliveredRatio < KEPT_UP_RATIO || backlogBehind || rising || w.shed > 0);
  if (!behind) return { judged, behind, backlogBehind, limit: null };
  const limit = findLimit({
    // A page with a backlog is behind even while it delivers the rate: judge it as not keeping up.
    deliveredRatio: Math.min(w.deliveredRatio, backlogBehind || rising || w.shed > 0 ? KEPT_UP_RATIO - 0.01 : 1),
    stalled: w.stalled,
    parse: w.parse,
    workers: w.workers,
    cores: w.cores,
    server: {
      ...w.server,
      // The page sees per-connection debt but not the server's catch-up allowance; pacing decides.
      slipped: false,
      shed: w.shed,
    },
    cpu: w.cpu,
  });
  return { judged, behind, backlogBehind, limit };
}
