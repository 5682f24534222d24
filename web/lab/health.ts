/**
 * Is the page keeping up? Once a second the lab gathers the last seconds' figures: what the
 * server offered and the page received, how old the newest batch is, what the server shed and
 * generated for this run's connections (from `/stats`, by the run's `client` tag), and the CPU
 * readings `npm run lab` pushes when there are any. The judgement itself is the sweep's
 * (results/verdict.ts, judgeLiveWindow); this file gathers its figures and words the line.
 */
import type { CpuReading } from '../../protocol/page-api.js';
import type { ServerConnectionStats, ServerStats } from '../../protocol/server-stats.js';
import { judgeLiveWindow, type Limit, type LimitInput } from '../../results/verdict.js';
import { fellBehind } from '../../results/sustains.js';
import type { ParseMode } from '../../protocol/wire.js';

/** A CPU reading older than this is not used, ms (the driver pushes one a second). */
const READING_FRESH_MS = 3000;

/** This run's server-side figures, cumulative, summed over its connections. */
export interface RunServer {
  atMs: number;
  generated: number;
  shed: number;
  behind: number;
  /** Batches due per second over the run's open connections. */
  duePerSec: number;
  cpuUs: number;
}

/** Sums `/stats` over the connections tagged with this run (each id once, however often seen). */
export class RunServerTally {
  private readonly seen = new Map<number, ServerConnectionStats>();

  constructor(private readonly client: string) {}

  add(stats: ServerStats): RunServer {
    let behind = 0;
    let duePerSec = 0;
    for (const c of stats.connections) {
      if (c.client !== this.client) continue;
      this.seen.set(c.id, c);
      behind += c.behind;
      duePerSec += 1000 / c.intervalMs;
    }
    // Closed connections (an SSE reconnect) keep what they last showed.
    let generated = 0;
    let shed = 0;
    for (const c of this.seen.values()) {
      generated += c.generated;
      shed += c.shed;
    }
    return { atMs: stats.nowMs, generated, shed, behind, duePerSec, cpuUs: stats.cpuUserUs + stats.cpuSystemUs };
  }
}

/** One second's view of the run. */
export interface HealthInput {
  offeredEventsPerSec: number;
  /** Events received in the last second, per second. */
  receivedEventsPerSec: number;
  /** Events received over the judging window and its length, s (shorter right after the start). */
  windowEvents: number;
  windowSec: number;
  /** Now minus the newest batch's sentAt, ms; null before any batch. */
  backlogMs: number | null;
  /** The same at the start of the judging window, and the stream's tick, ms (the falling-behind clause). */
  backlogStartMs?: number | null;
  intervalMs?: number;
  /**
   * The judging window's event age p99, ms: a backlog read at one moment moves with the age of
   * the batch it read, and the rule allows for it (results/sustains.ts SustainsTrend.jitterMs).
   * Absent: 0 (render mode none keeps no live ages).
   */
  jitterMs?: number;
  /** Server figures at the start of the run, at the start of the judging window, and now; null without /stats. */
  server: { first: RunServer; windowStart: RunServer; now: RunServer } | null;
  cpu: CpuReading | null;
  /** Connections stalled behind the browser's per-host cap; null when none. */
  stalled: LimitInput['stalled'];
  parse: ParseMode;
  workers: number;
  /** Seconds since the run started. */
  runSec: number;
}

export interface Health {
  deliveredRatio: number;
  behind: boolean;
  /** Shed for this run so far; null without /stats. */
  shedThisRun: number | null;
  limit: Limit | null;
  /** The sentence the page shows. */
  text: string;
}

const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export function judgeHealth(h: HealthInput, nowMs: number): Health {
  const deliveredRatio = h.windowSec > 0 ? h.windowEvents / (h.offeredEventsPerSec * h.windowSec) : 1;
  const s = h.server;
  const shedThisRun = s ? s.now.shed - s.first.shed : null;
  const cpu = h.cpu && nowMs - h.cpu.atMs < READING_FRESH_MS ? h.cpu : null;
  const serverSec = s ? (s.now.atMs - s.windowStart.atMs) / 1000 : 0;
  const due = s ? s.now.duePerSec * serverSec : 0;
  // The sustains rule's clause: the backlog may move by a tick, not grow.
  const rising =
    h.backlogStartMs === undefined
      ? null
      : fellBehind({
          backlogStartMs: h.backlogStartMs,
          backlogEndMs: h.backlogMs,
          firstHalfMeanMs: null,
          secondHalfMeanMs: null,
          intervalMs: h.intervalMs ?? 0,
          ...(h.jitterMs !== undefined ? { jitterMs: h.jitterMs } : {}),
        });
  const { judged, behind, backlogBehind, limit } = judgeLiveWindow({
    deliveredRatio,
    backlogMs: h.backlogMs,
    fellBehind: rising,
    shed: s ? s.now.shed - s.windowStart.shed : 0,
    runSec: h.runSec,
    server: {
      pacingRatio: s && due > 0 ? (s.now.generated - s.windowStart.generated) / due : 1,
      batchesBehind: s?.now.behind ?? 0,
      cpu: s && serverSec > 0 ? Math.round((s.now.cpuUs - s.windowStart.cpuUs) / 1e4 / serverSec) : null,
    },
    cpu: {
      tabMainThread: cpu?.mainThreadBusy ?? null,
      tabProcess: cpu?.renderer ?? null,
      tabThreads: cpu?.threads ?? null,
      host: cpu?.host ?? null,
      network: cpu?.network ?? null,
      browser: cpu?.browser ?? null,
    },
    cores: cpu?.cores ?? 1,
    stalled: h.stalled,
    parse: h.parse,
    workers: h.workers,
  });
  if (!limit) return { deliveredRatio, behind, shedThisRun, limit: null, text: judged ? 'keeping up' : 'starting…' };
  const facts = [
    limit.why,
    shedThisRun ? `the server shed ${compact.format(shedThisRun)} batches` : null,
    backlogBehind ? `the newest batch is ${(h.backlogMs! / 1000).toFixed(1)} s old` : null,
    rising && !backlogBehind ? `over the last ${Math.round(h.windowSec)} s, ${rising}` : null,
    cpu ? null : 'CPU readings need `npm run lab` to say more',
  ].filter(Boolean);
  return { deliveredRatio, behind, shedThisRun, limit, text: `falling behind — ${limit.verdict}: ${facts.join(', ')}` };
}
