/**
 * One run of the lab page: N connections of one transport, every message parsed and
 * counted (on the main thread or in Workers), and by render mode a streaming table and live
 * charts redrawn at most every `renderEveryMs`. The driver and the console use it through
 * `window.pushlab`.
 */
import type { PageConfig, PageSnapshot, ServerStats } from '../../protocol/report.js';
import type { LiveCharts } from './chart.js';
import { validatePageConfig } from './config.js';
import { MainThreadSource, WorkerSource, type Source } from './sources.js';
import type { RowRing, StreamingTable } from './table.js';
import { Throttle } from './throttle.js';

export interface Views {
  table: (ring: RowRing) => StreamingTable;
  charts: LiveCharts;
  status: (text: string) => void;
}

export class Lab {
  readonly config: Required<PageConfig>;
  private readonly source: Source;
  private readonly table: StreamingTable | null;
  private readonly charts: LiveCharts | null;
  private readonly throttle: Throttle;
  private readonly startedAt = performance.now();
  private readonly startedAtEpoch = performance.timeOrigin + this.startedAt;
  private lastPoint = { t: performance.now(), events: 0, bytes: 0 };
  private stopped = false;

  constructor(
    config: Partial<Record<keyof PageConfig, unknown>>,
    private readonly views: Views,
  ) {
    this.config = validatePageConfig(config);
    const c = this.config;
    this.throttle = new Throttle(c.renderEveryMs, this.draw);
    const options = {
      transport: c.transport,
      params: { batch: c.batch, interval: c.intervalMs },
      concurrency: c.concurrency,
      keepRows: c.render === 'full' ? c.tableRows : 0,
      aggregate: c.render !== 'none',
      onActivity: c.render === 'none' ? () => undefined : () => this.throttle.request(),
      updateEveryMs: c.renderEveryMs,
    };
    this.source = c.parse === 'worker' ? new WorkerSource(options, Math.min(c.workers, c.concurrency)) : new MainThreadSource(options);
    this.table = this.source.ring ? views.table(this.source.ring) : null;
    this.charts = c.render === 'none' ? null : views.charts;
    this.charts?.clear();
  }

  /** Opens every connection; resolves once all are open, so no warm-up runs while some are pending. */
  async start(): Promise<{ opened: number; openMs: number }> {
    const t0 = performance.now();
    const { transport, concurrency, openTimeoutMs } = this.config;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // HTTP/1.1 EventSource stops at 6 per host; the 7th never opens and never errors.
        reject(new Error(`only ${this.source.openCount()} of ${concurrency} ${transport} connections opened within ${openTimeoutMs} ms`));
      }, openTimeoutMs);
    });
    try {
      await Promise.race([this.source.start(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.tickStatus();
    return { opened: concurrency, openMs: performance.now() - t0 };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.source.stop();
    this.throttle.cancel();
    this.draw();
  }

  async snapshot(resetLatency = false): Promise<PageSnapshot> {
    const before = performance.now();
    const s = await this.source.snapshot(resetLatency);
    // Worker replies arrive over a few ms; date the snapshot at the middle of that span.
    const at = (before + performance.now()) / 2;
    return { atMs: performance.timeOrigin + at, transport: this.config.transport, concurrency: this.config.concurrency, ...s };
  }

  private readonly draw = (): void => {
    const now = performance.now();
    const dt = (now - this.lastPoint.t) / 1000;
    const charts = this.charts;
    if (charts && dt > 0) {
      const { events, bytes } = this.source.live();
      const recent = this.source.recent;
      const latency = recent ? recent.summary() : null;
      recent?.reset();
      charts.add({
        tSec: (now - this.startedAt) / 1000,
        eventsPerSec: (events - this.lastPoint.events) / dt,
        megabytesPerSec: (bytes - this.lastPoint.bytes) / dt / 1e6,
        p50Ms: latency?.p50Ms ?? null,
        p99Ms: latency?.p99Ms ?? null,
      });
      for (const w of this.source.takeSpeed()) charts.addSpeed((w.second * 1000 + 1000 - this.startedAtEpoch) / 1000, w.max);
      this.lastPoint = { t: now, events, bytes };
      charts.draw();
    }
    this.table?.draw();
  };

  /**
   * A plain-text status line, once a second: cheap enough for render mode `none`. When the
   * page renders, it also shows the batches the server shed for slow clients next to the
   * gaps the page saw (from /stats: one small request a second, skipped in mode `none`).
   */
  private tickStatus(): void {
    let last = { t: performance.now(), events: 0 };
    const shed = this.config.render === 'none' ? null : new ServerShed();
    const tick = () => {
      if (this.stopped) return;
      const now = performance.now();
      const c = this.source.live();
      const eps = ((c.events - last.events) * 1000) / (now - last.t);
      last = { t: now, events: c.events };
      const where = this.config.parse === 'worker' ? ` · parsed in ${Math.min(this.config.workers, this.config.concurrency)} worker(s)` : '';
      const shedText = shed?.text() ?? '';
      this.views.status(
        `${Math.round(eps).toLocaleString()} events/s · ${c.events.toLocaleString()} events · ${c.batches.toLocaleString()} batches · gaps ${c.gaps}${shedText} · duplicates ${c.duplicates} · reconnects ${c.reconnects}${where}`,
      );
      void shed?.refresh();
      setTimeout(tick, 1000);
    };
    void shed?.refresh();
    setTimeout(tick, 1000);
  }
}

/** Batches the server shed since this run started, from `/stats` (all its streams are this page's). */
class ServerShed {
  private base: number | null = null;
  private latest = 0;

  async refresh(): Promise<void> {
    try {
      const stats = (await (await fetch('/stats')).json()) as ServerStats;
      this.base ??= stats.batchesShed;
      this.latest = stats.batchesShed;
    } catch {
      // The status line is a convenience; a failed poll just keeps the last figure.
    }
  }

  text(): string {
    return this.base === null ? '' : ` (server shed ${(this.latest - this.base).toLocaleString()})`;
  }
}
