/**
 * Where messages are received and parsed: on the page's main thread, or in k dedicated
 * Workers (parse mode `worker`). Either way the lab sees the same thing: exact counters on
 * request, and between draws the rows and aggregates the views need.
 */
import { Histogram, sparseOf, tailSummary } from '../../protocol/histogram.js';
import type { PageCounters, PageSnapshot } from '../../protocol/page-api.js';
import type { StreamParams, Transport } from '../../protocol/wire.js';
import { Ingest, type IngestOptions, type SpeedWindow } from './ingest.js';
import type { ChartColumn } from './codecs/index.js';
import { RowRing } from './table.js';
import { openConnections, type Connection, type TransportOptions } from './transports/index.js';
import type { FromWorker, ToWorker, WorkerCounts } from './worker-protocol.js';

export type SourceSnapshot = Omit<PageSnapshot, 'atMs' | 'transport' | 'concurrency' | 'displayAge'>;

export interface SourceOptions {
  transport: Transport;
  params: StreamParams;
  concurrency: number;
  keepRows: number;
  aggregate: boolean;
  /** The field the chart plots, or null when the events have none (IngestOptions.chart). */
  chart: ChartColumn | null;
  /** Called when new data is there to draw (per message on the main thread, per update from Workers). */
  onActivity: () => void;
  updateEveryMs: number;
  transportOptions: TransportOptions;
  /** `poll`'s request interval, ms (what a silent connection is judged against: counters.ts stallAfterMs). */
  pollMs?: number;
  /** A render module's view, given every batch (the main thread only: validatePageConfig refuses Workers with it). */
  render?: IngestOptions['render'];
}

export interface Source {
  /** Rows for the table, or null when it is off. */
  readonly ring: RowRing | null;
  /** Event age since the last draw (reset by the caller), or null when charts are off. */
  readonly recent: Histogram | null;
  /** Resolves once every connection is open. */
  start(): Promise<void>;
  stop(): void;
  openCount(): number;
  /** Counters as of now on the main thread, or as of the last update from Workers. */
  live(): PageCounters;
  /** Speed windows that closed since the last call. */
  takeSpeed(): SpeedWindow[];
  /** The newest `sentAt` received, ms since the epoch (0 before any; from Workers, as of their last update). */
  newestSentAtMs(): number;
  /** The newest `dueAt` received, ms since the epoch (0 before any; from Workers, as of their last update): the birth of the newest event shown. */
  newestDueAtMs(): number;
  /** Exact counters; event age and transit since the last reset. */
  snapshot(resetLatency: boolean): Promise<SourceSnapshot>;
}

export class MainThreadSource implements Source {
  private readonly ingest: Ingest;
  private readonly conns: Connection[] = [];
  /** Aborted by stop(): connections still waiting their turn to open never start. */
  private readonly stopped = new AbortController();
  readonly ring: RowRing | null;
  readonly recent: Histogram | null;

  constructor(private readonly o: SourceOptions) {
    this.ingest = new Ingest({
      connections: o.concurrency,
      keepRows: o.keepRows,
      aggregate: o.aggregate,
      chart: o.chart,
      intervalMs: o.params.interval,
      pollMs: o.pollMs,
      render: o.render,
    });
    this.ring = this.ingest.ring;
    this.recent = this.ingest.recent;
  }

  async start(): Promise<void> {
    const ingest = this.ingest;
    const activity = this.o.onActivity;
    const all = Array.from({ length: this.o.concurrency }, (_, i) => i);
    await openConnections(this.o.transport, this.o.params, (i) => ingest.handlers(i, this.o.params, activity), this.o.transportOptions, all, this.conns, {
      signal: this.stopped.signal,
    });
  }

  stop(): void {
    this.stopped.abort();
    for (const c of this.conns) c.close();
  }

  openCount(): number {
    return this.conns.filter((c) => c.isOpen()).length;
  }

  live(): PageCounters {
    return this.ingest.counters.totals();
  }

  takeSpeed(): SpeedWindow[] {
    return this.ingest.takeClosedWindows();
  }

  newestSentAtMs(): number {
    return this.ingest.newestSentAtMs;
  }

  newestDueAtMs(): number {
    return this.ingest.newestDueAtMs;
  }

  async snapshot(resetLatency: boolean): Promise<SourceSnapshot> {
    const c = this.ingest.counters;
    const snap: SourceSnapshot = {
      open: this.openCount(),
      counters: c.totals(),
      batchesPerConnection: Array.from(c.batchesPerConnection),
      latency: c.latency.summary(),
      latencyHistogram: sparseOf(c.latency),
      backlogMs: backlogAt(this.ingest.newestSentAtMs),
      transit: tailSummary(c.transit),
    };
    if (resetLatency) {
      c.latency.reset();
      c.transit.reset();
    }
    return snap;
  }
}

/** Connections are dealt round-robin: connection i lives in Worker i mod k. */
export class WorkerSource implements Source {
  private readonly workers: Worker[] = [];
  private readonly latest: (WorkerCounts | null)[];
  private readonly pending = new Map<number, (m: Extract<FromWorker, { type: 'snapshot' }>) => void>();
  private readonly speed = new Map<number, number>();
  private nextId = 1;
  readonly ring: RowRing | null;
  readonly recent: Histogram | null;

  constructor(
    private readonly o: SourceOptions,
    private readonly k: number,
  ) {
    this.ring = o.keepRows > 0 ? new RowRing(o.keepRows) : null;
    this.recent = o.aggregate ? new Histogram() : null;
    this.latest = new Array<WorkerCounts | null>(k).fill(null);
  }

  private share(w: number): number[] {
    const out: number[] = [];
    for (let i = w; i < this.o.concurrency; i += this.k) out.push(i);
    return out;
  }

  async start(): Promise<void> {
    const opened: Promise<void>[] = [];
    for (let w = 0; w < this.k; w++) {
      const worker = new Worker(new URL('./stream-worker.ts', import.meta.url), { type: 'module' });
      this.workers.push(worker);
      opened.push(
        new Promise((resolve, reject) => {
          worker.onmessage = (e: MessageEvent<FromWorker>) => {
            const m = e.data;
            if (m.type === 'opened') resolve();
            else if (m.type === 'error') reject(new Error(m.message));
            else if (m.type === 'update') this.onUpdate(w, m);
            else this.pending.get(m.id)?.(m);
          };
          worker.onerror = (e) => reject(new Error(`stream worker failed: ${e.message}`));
        }),
      );
      const start: ToWorker = {
        type: 'start',
        transport: this.o.transport,
        params: this.o.params,
        connections: this.share(w),
        keepRows: this.o.keepRows,
        aggregate: this.o.aggregate,
        chart: this.o.chart,
        pollMs: this.o.pollMs ?? 0,
        updateEveryMs: this.o.updateEveryMs,
        transportOptions: this.o.transportOptions,
        sharers: this.k,
      };
      worker.postMessage(start);
    }
    await Promise.all(opened);
  }

  private onUpdate(w: number, m: Extract<FromWorker, { type: 'update' }>): void {
    this.latest[w] = m.counts;
    if (this.ring && m.rows.length) this.ring.push(m.rows);
    if (this.recent && m.recent) this.recent.add(m.recent);
    for (const s of m.speed) this.speed.set(s.second, Math.max(this.speed.get(s.second) ?? -Infinity, s.max));
    this.o.onActivity();
  }

  stop(): void {
    for (const w of this.workers) {
      w.postMessage({ type: 'stop' } satisfies ToWorker);
      // Give the Worker a moment to close its connections cleanly, then end it.
      setTimeout(() => w.terminate(), 1000);
    }
  }

  openCount(): number {
    return this.latest.reduce((n, c) => n + (c?.open ?? 0), 0);
  }

  live(): PageCounters {
    return sumCounters(this.latest.map((c) => c?.counters ?? null));
  }

  newestSentAtMs(): number {
    return this.latest.reduce((m, c) => Math.max(m, c?.newestSentAtMs ?? 0), 0);
  }

  newestDueAtMs(): number {
    return this.latest.reduce((m, c) => Math.max(m, c?.newestDueAtMs ?? 0), 0);
  }

  takeSpeed(): SpeedWindow[] {
    // A second is complete once every Worker has moved past it; one second of slack covers the
    // update interval.
    const done = Math.floor((performance.timeOrigin + performance.now()) / 1000) - 2;
    const out: SpeedWindow[] = [];
    for (const [second, max] of this.speed) {
      if (second <= done) {
        out.push({ second, max });
        this.speed.delete(second);
      }
    }
    return out.sort((a, b) => a.second - b.second);
  }

  async snapshot(resetLatency: boolean): Promise<SourceSnapshot> {
    const replies = await Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<Extract<FromWorker, { type: 'snapshot' }>>((resolve) => {
            const id = this.nextId++;
            this.pending.set(id, (m) => (this.pending.delete(id), resolve(m)));
            worker.postMessage({ type: 'snapshot', id, resetLatency } satisfies ToWorker);
          }),
      ),
    );
    const latency = new Histogram();
    const transit = new Histogram();
    const perConnection = new Array<number>(this.o.concurrency).fill(0);
    replies.forEach((r, w) => {
      this.share(w).forEach((global, local) => (perConnection[global] = r.counts.batchesPerConnection[local]));
      latency.add(r.latency);
      transit.add(r.transit);
    });
    return {
      open: replies.reduce((n, r) => n + r.counts.open, 0),
      counters: sumCounters(replies.map((r) => r.counts.counters)),
      batchesPerConnection: perConnection,
      latency: latency.summary(),
      latencyHistogram: sparseOf(latency),
      // From the replies, not the last update: a Worker's update is up to updateEveryMs old.
      backlogMs: backlogAt(replies.reduce((m, r) => Math.max(m, r.counts.newestSentAtMs), 0)),
      transit: tailSummary(transit),
    };
  }
}

/** Now minus the newest `sentAt`, ms (to the µs); null before any batch. */
function backlogAt(newestSentAtMs: number): number | null {
  return newestSentAtMs > 0 ? Math.round((performance.timeOrigin + performance.now() - newestSentAtMs) * 1000) / 1000 : null;
}

function sumCounters(all: (PageCounters | null)[]): PageCounters {
  const out: Required<PageCounters> = { events: 0, batches: 0, bytes: 0, gaps: 0, duplicates: 0, reconnects: 0, errors: 0, closedMs: 0, stalledMs: 0 };
  for (const c of all) {
    if (!c) continue;
    for (const k of Object.keys(out) as (keyof PageCounters)[]) out[k] += c[k] ?? 0;
  }
  return out;
}
