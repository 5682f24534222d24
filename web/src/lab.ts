/**
 * One run of the lab page: N connections of one transport, every message parsed and
 * counted, and (by render mode) a streaming table and live charts redrawn at most every
 * `renderEveryMs`. The driver and the console use it through `window.pushlab`.
 */
import type { PageConfig, PageSnapshot } from '../../protocol/report.js';
import { DEFAULT_TABLE_ROWS, validatePageConfig } from './config.js';
import { SPEED_COLUMN, type BatchMessage } from '../../protocol/wire.js';
import { Histogram } from '../../protocol/histogram.js';
import type { LiveCharts } from './chart.js';
import { Counters } from './counters.js';
import { RowRing, type StreamingTable } from './table.js';
import { Throttle } from './throttle.js';
import { openConnection, type Connection } from './transports.js';

export interface Views {
  table: (ring: RowRing) => StreamingTable;
  charts: LiveCharts;
  status: (text: string) => void;
}

interface ConnState {
  conn: Connection;
  openedAt: number;
  closedAt: number;
}

const epochNow = () => performance.timeOrigin + performance.now();

export class Lab {
  readonly config: Required<PageConfig>;
  readonly counters: Counters;
  private readonly conns: ConnState[] = [];
  private readonly ring: RowRing | null;
  private readonly table: StreamingTable | null;
  private readonly charts: LiveCharts | null;
  private readonly throttle: Throttle;
  /** Latency since the last chart point (the live p50/p99 series). */
  private readonly recent = new Histogram();
  private readonly startedAt = performance.now();
  private lastPoint = { t: performance.now(), events: 0, bytes: 0 };
  private speedWindow = { second: -1, max: -Infinity };
  private stopped = false;

  constructor(config: PageConfig, private readonly views: Views) {
    this.config = validatePageConfig(config);
    const { render, concurrency } = this.config;
    this.counters = new Counters(concurrency);
    this.ring = render === 'full' ? new RowRing(DEFAULT_TABLE_ROWS) : null;
    this.table = this.ring ? views.table(this.ring) : null;
    this.charts = render === 'none' ? null : views.charts;
    this.charts?.clear();
    this.throttle = new Throttle(this.config.renderEveryMs, this.draw);
  }

  /** Opens every connection; resolves once all are open, so no warm-up runs while some are pending. */
  async start(): Promise<{ opened: number; openMs: number }> {
    const t0 = performance.now();
    const { transport, batch, intervalMs, concurrency, openTimeoutMs } = this.config;
    for (let i = 0; i < concurrency; i++) {
      const state: ConnState = { conn: null as unknown as Connection, openedAt: NaN, closedAt: NaN };
      state.conn = openConnection(transport, { batch, interval: intervalMs }, {
        onMessage: this.onMessage(i),
        onReconnect: () => this.counters.reconnects++,
      });
      state.conn.opened.then(() => (state.openedAt = performance.now()), () => undefined);
      this.conns.push(state);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const open = this.conns.filter((c) => c.conn.isOpen()).length;
        // HTTP/1.1 EventSource stops at 6 per host; the 7th never opens and never errors.
        reject(new Error(`only ${open} of ${concurrency} ${transport} connections opened within ${openTimeoutMs} ms`));
      }, openTimeoutMs);
    });
    try {
      await Promise.race([Promise.all(this.conns.map((c) => c.conn.opened)), timeout]);
    } finally {
      clearTimeout(timer);
    }
    this.tickStatus();
    return { opened: this.conns.length, openMs: performance.now() - t0 };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const now = performance.now();
    for (const c of this.conns) {
      c.conn.close();
      if (Number.isNaN(c.closedAt)) c.closedAt = now;
    }
    this.throttle.cancel();
    this.draw();
  }

  snapshot(resetLatency = false): PageSnapshot {
    const now = performance.now();
    let openSeconds = 0;
    let open = 0;
    for (const c of this.conns) {
      if (c.conn.isOpen()) open++;
      if (!Number.isNaN(c.openedAt)) openSeconds += ((Number.isNaN(c.closedAt) ? now : c.closedAt) - c.openedAt) / 1000;
    }
    const snap: PageSnapshot = {
      atMs: performance.timeOrigin + now,
      transport: this.config.transport,
      concurrency: this.config.concurrency,
      open,
      counters: this.counters.totals(),
      batchesPerConnection: Array.from(this.counters.batchesPerConnection),
      openSeconds,
      latency: this.counters.latency.summary(),
    };
    if (resetLatency) this.counters.latency.reset();
    return snap;
  }

  /** The per-message path: parse, count, hand rows to the views. Nothing else runs per message. */
  private onMessage(conn: number): (data: string) => void {
    return (data) => {
      let msg: BatchMessage;
      try {
        msg = JSON.parse(data) as BatchMessage;
      } catch {
        this.counters.errors++;
        return;
      }
      const rows = msg.rows;
      const latencyUs = (epochNow() - msg.sentAt) * 1000;
      this.counters.batch(conn, msg.seq, rows.length, data.length, latencyUs);
      if (this.charts) {
        this.recent.record(latencyUs);
        this.aggregateSpeed(rows);
        this.throttle.request();
      }
      this.ring?.push(rows);
    };
  }

  /** The reference's live-chart aggregate: max speed per 1 s tumbling window (by receive time). */
  private aggregateSpeed(rows: BatchMessage['rows']): void {
    const second = Math.floor((performance.now() - this.startedAt) / 1000);
    const w = this.speedWindow;
    if (second !== w.second) {
      if (w.second >= 0 && w.max > -Infinity) this.charts?.addSpeed(w.second + 1, w.max);
      w.second = second;
      w.max = -Infinity;
    }
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i][SPEED_COLUMN];
      if (v > w.max) w.max = v;
    }
  }

  private readonly draw = (): void => {
    const now = performance.now();
    const dt = (now - this.lastPoint.t) / 1000;
    if (this.charts && dt > 0) {
      const { events, bytes } = this.counters;
      const latency = this.recent.summary();
      this.recent.reset();
      this.charts.add({
        tSec: (now - this.startedAt) / 1000,
        eventsPerSec: (events - this.lastPoint.events) / dt,
        megabytesPerSec: (bytes - this.lastPoint.bytes) / dt / 1e6,
        p50Ms: latency.p50Ms,
        p99Ms: latency.p99Ms,
      });
      this.lastPoint = { t: now, events, bytes };
      this.charts.draw();
    }
    this.table?.draw();
  };

  /** A plain-text status line, once a second: cheap enough for render mode `none`. */
  private tickStatus(): void {
    let last = { t: performance.now(), events: 0 };
    const tick = () => {
      if (this.stopped) return;
      const now = performance.now();
      const c = this.counters;
      const eps = ((c.events - last.events) * 1000) / (now - last.t);
      last = { t: now, events: c.events };
      this.views.status(
        `${Math.round(eps).toLocaleString()} events/s · ${c.events.toLocaleString()} events · ${c.batches.toLocaleString()} batches · gaps ${c.gaps} · duplicates ${c.duplicates} · reconnects ${c.reconnects}`,
      );
      setTimeout(tick, 1000);
    };
    setTimeout(tick, 1000);
  }
}
