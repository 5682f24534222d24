/**
 * Where the limit was: the one decision the sweep's verdicts (results/summarise.ts, over a
 * measured window) and the lab page's live "falling behind" line (over the last seconds)
 * both make, with the same thresholds and in the same order. Pure, no Node or DOM.
 */
import type { TabThreadsCpu, Verdict } from '../protocol/report.js';
import { TRANSPORT_INFO, type ParseMode, type Transport } from '../protocol/wire.js';

/** Delivered below this share of the offered rate, a point did not keep up. */
export const KEPT_UP_RATIO = 0.97;
/** The server fell behind its own schedule below this share (issue: 99% of nominal). */
export const PACING_OK_RATIO = 0.99;
/** A thread or host this busy (share of its capacity) is called saturated. */
export const SATURATED = 0.9;

/** What the decision looks at; CPU figures in % of one core, null where unknown. */
/**
 * Connections that stalled behind the browser's per-host cap (HTTP/1.1's 6): not open while
 * the cap's worth are. Those never reached the server, so nothing was due on them. One rule for
 * the sweep's judge and the lab's live verdict.
 */
export function stalledBehindCap(transport: Transport, streams: number, open: number): LimitInput['stalled'] {
  const cap = TRANSPORT_INFO[transport].perHostCap;
  return cap !== undefined && open >= cap && open < streams ? { connections: streams - open, of: streams, cap } : null;
}

export interface LimitInput {
  deliveredRatio: number;
  /** Connections the browser never opened because of its per-host cap (HTTP/1.1: 6); null when none. */
  stalled?: { connections: number; of: number; cap: number } | null;
  parse: ParseMode;
  /** Parsing Workers asked for (parse mode worker). */
  workers: number;
  cores: number;
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
  if (i.deliveredRatio >= KEPT_UP_RATIO) return { verdict: 'ok', note: null, why: null };
  // The browser's connection cap comes before any CPU: what never opened was never offered
  // to the page, however idle its threads were.
  if (i.stalled) {
    const { connections, of, cap } = i.stalled;
    return {
      verdict: 'client-bound',
      note: `${connections} of ${of} connections never opened: the browser allows ${cap} per host over HTTP/1.1`,
      why: `${connections} of ${of} connections stalled behind the browser's ${cap} per host`,
    };
  }
  if ((server.pacingRatio < PACING_OK_RATIO || server.slipped) && server.shed === 0) {
    return {
      // A server starved of CPU by a saturated host is the host's limit, not the server's.
      verdict: host ? 'host-bound' : 'server-bound',
      note: `server generated only ${(server.pacingRatio * 100).toFixed(1)}% of scheduled batches without shedding, ${server.batchesBehind} behind at the end (server CPU ${server.cpu ?? '?'}%)`,
      why: `the server generated only ${(server.pacingRatio * 100).toFixed(1)}% of its schedule${server.cpu === null ? '' : ` at ${pct(server.cpu)} CPU`}${host ? `, ${hostText(cpu)} at ${pct(hostLoad!)} of ${i.cores * 100}%` : ''}`,
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
    if (workers.length && Math.max(...workers) >= SATURATED * 100) {
      const list = workers.map((w) => `${w}%`).join(', ');
      return { verdict: 'client-bound', note: `parsing Workers at ${list} of a core: the Workers could not take more`, why: `parsing Workers at ${list} of a core` };
    }
    if (!cpu.tabThreads && cpu.tabProcess !== null && cpu.tabProcess >= SATURATED * 100 * Math.min(i.workers, i.cores) && !host) {
      return {
        verdict: 'client-bound',
        note: `tab process ${cpu.tabProcess}% with ${i.workers} parsing Worker(s): the Workers could not take more`,
        why: `the tab's process is at ${pct(cpu.tabProcess)} with ${i.workers} parsing Worker(s)`,
      };
    }
  }
  if (host) return { verdict: 'host-bound', note: null, why: `${hostText(cpu)} is at ${pct(hostLoad!)} of ${i.cores * 100}%` };
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

/** What the host figure was: the host itself, or Chrome alone where the host is unavailable. */
function hostText(cpu: LimitInput['cpu']): string {
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
