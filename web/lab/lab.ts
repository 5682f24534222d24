/**
 * One run of the lab page: N connections of one transport, every message parsed and
 * counted (on the main thread or in Workers), and by render mode a streaming table and live
 * charts redrawn at most every `renderEveryMs`. The driver and the console use it through
 * `window.pushlab`.
 */
import { fieldKey, type EventView } from '../../protocol/event-view.js';
import type { CpuReading, PageConfig, PageSnapshot } from '../../protocol/page-api.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { offeredEventsPerSec, TRANSPORT_INFO } from '../../protocol/wire.js';
import type { TableRow } from './row-format.js';
import type { RenderBatch, RenderPage, RenderView } from '../../protocol/render-module.js';
import { Histogram, tailSummary, type HistogramData } from '../../protocol/histogram.js';
import type { LiveCharts } from './chart.js';
import type { ChartColumn } from './codecs/index.js';
import { validatePageConfig } from './config.js';
import { JUDGE_WINDOW_SEC, stalledBehindCap, type LimitInput } from '../../results/verdict.js';
import { judgeHealth, RunServerTally, type Health, type RunServer } from './health.js';
import { MainThreadSource, WorkerSource, type Source } from './sources.js';
import type { RowRing, StreamingTable } from './table.js';
import { Throttle } from './throttle.js';
import { InputProbe } from './input-probe.js';

/** The column the chart plots, as a batch is read for it; null when the events have no numeric field. */
function chartColumn(events: EventView): ChartColumn | null {
  const name = events.chartField;
  return name === null ? null : { name, key: fieldKey(events, name) };
}

/** With a transport's per-host cap open, how long nothing more must open before the rest count as stalled. */
const STALL_GRACE_MS = 2000;

/** What the lab shows once a second, whatever the render mode. */
export interface LiveFigures {
  offeredEventsPerSec: number;
  receivedEventsPerSec: number;
  health: Health;
  backlogMs: number | null;
  counters: ReturnType<Source['live']>;
  parsedIn: string;
  /** Inputs handled in the last JUDGE_WINDOW_SEC s, their worst input delay (ms), and long frames' blocking time per s (null where not available). */
  input: { handled: number; maxDelayMs: number | null; blockingMsPerSec: number | null; longFramesUnavailable: string | null };
}

export interface Views {
  /** What the server's events are: the table's columns and the chart's field (GET /events-view). */
  events: EventView;
  table: (ring: RowRing) => StreamingTable;
  /** The live charts, or null for render mode `none`, which never loads them (see main.ts). */
  charts: LiveCharts | null;
  live: (f: LiveFigures) => void;
  /** The latest CPU reading `npm run lab` pushed, or null. */
  cpu: () => CpuReading | null;
  /**
   * A team's render module, loaded (config.renderModule): mounts it, in place of the table and
   * the charts. Null when the config names none.
   */
  render: ((page: RenderPage) => RenderView<TableRow>) | null;
}

export class Lab {
  readonly config: ReturnType<typeof validatePageConfig>;
  /** Tags this run's connections in the server's `/stats`, so the shed count is this run's alone. */
  readonly client = `lab-${Math.random().toString(36).slice(2, 10)}`;
  private readonly source: Source;
  private readonly table: StreamingTable | null;
  private readonly charts: LiveCharts | null;
  private readonly throttle: Throttle | null;
  /** The render module's view, when one draws instead of the table and the charts. */
  private readonly view: RenderView<TableRow> | null;
  private readonly startedAt = performance.now();
  private readonly startedAtEpoch = performance.timeOrigin + this.startedAt;
  private stopped = false;
  /** Input delay and long frames: the page answering while it streams (input-probe.ts). */
  private readonly input = new InputProbe();
  /**
   * Display age since the last reset: at each draw of the table or the charts, the age of the
   * newest event it shows. Per frame, not per event: at a high rate most events are never on
   * screen, and what a user sees is how stale the screen is.
   */
  private readonly display = new Histogram();
  /** `visibilitychange` events since this run started: a hidden-tab repeat checks its window saw none (protocol/tab-state.ts). */
  private visibilityChanges = 0;
  private readonly onVisibility = () => this.visibilityChanges++;

  constructor(
    config: Partial<Record<keyof PageConfig, unknown>>,
    private readonly views: Views,
  ) {
    this.config = validatePageConfig(config);
    const c = this.config;
    this.view = c.renderModule ? this.mountView(views) : null;
    const view = this.view;
    // A render module replaces the table and the charts: pushlab keeps no rows and no chart aggregates then.
    const keepRows = c.render === 'full' && !view ? c.tableRows : 0;
    // Only the table redraws at renderEveryMs; the charts take one point a second (tickLive).
    this.throttle = keepRows
      ? new Throttle(c.renderEveryMs, () => {
          this.table?.draw();
          this.drew();
        })
      : null;
    const throttle = this.throttle;
    const options = {
      transport: c.transport,
      pollMs: c.pollMs,
      params: {
        batch: c.batch,
        interval: c.intervalMs,
        client: this.client,
        ...(c.encoding !== 'json' ? { encoding: c.encoding } : {}),
        ...(c.compression ? { compression: c.compression } : {}),
        ...(c.pace ? { pace: c.pace } : {}),
      },
      concurrency: c.concurrency,
      keepRows,
      aggregate: c.render !== 'none' && !view,
      chart: chartColumn(views.events),
      onActivity: throttle ? () => throttle.request() : () => undefined,
      updateEveryMs: c.renderEveryMs,
      transportOptions: { pollMs: c.pollMs, origins: c.origins },
      ...(view ? { render: (b: RenderBatch<TableRow>) => view.batch(b) } : {}),
    };
    this.source = c.parse === 'worker' ? new WorkerSource(options, Math.min(c.workers, c.concurrency)) : new MainThreadSource(options);
    this.table = this.source.ring ? views.table(this.source.ring) : null;
    this.charts = c.render === 'none' || view ? null : views.charts;
    this.charts?.clear();
    this.charts?.plotField(views.events);
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  /** Mounts the render module: it tells the lab when it drew, as the table's redraw does. */
  private mountView(views: Views): RenderView<TableRow> {
    if (!views.render) throw new Error(`renderModule ${this.config.renderModule} is set, but the page loaded no module`);
    // The events' own fields: a --rows file's, or the car rows' names (GET /events-view).
    return views.render({ drawn: () => this.drew(), columns: views.events.fields, encoding: this.config.encoding });
  }

  /**
   * Opens every connection; resolves once all are open, so no warm-up runs while some are
   * pending. Over a transport with a per-host cap (`sse-h1`: HTTP/1.1's 6) the connections past
   * it wait for good, neither opening nor failing: once the cap is open and nothing more has
   * opened for STALL_GRACE_MS, it resolves with the ones open, and the rest are measured as
   * stalled instead of failing the point.
   */
  async start(): Promise<{ opened: number; openMs: number }> {
    const t0 = performance.now();
    if (this.config.inputProbe) this.input.start();
    const { transport, concurrency, openTimeoutMs } = this.config;
    const cap = TRANSPORT_INFO[transport].perHostCap;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let watch: ReturnType<typeof setInterval> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`only ${this.source.openCount()} of ${concurrency} ${transport} connections opened within ${openTimeoutMs} ms`));
      }, openTimeoutMs);
    });
    const stalled = new Promise<void>((resolve) => {
      if (cap === undefined || concurrency <= cap) return;
      let last = -1;
      let since = performance.now();
      watch = setInterval(() => {
        const n = this.source.openCount();
        if (n !== last) [last, since] = [n, performance.now()];
        else if (n >= cap && performance.now() - since >= STALL_GRACE_MS) resolve();
      }, 100);
    });
    try {
      await Promise.race([this.source.start(), timeout, stalled]);
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
    }
    this.tickLive();
    return { opened: this.source.openCount(), openMs: performance.now() - t0 };
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.input.stop();
    this.source.stop();
    this.throttle?.cancel();
    this.table?.draw();
    this.view?.unmount?.();
  }

  async snapshot(resetLatency = false): Promise<PageSnapshot> {
    const before = performance.now();
    const s = await this.source.snapshot(resetLatency);
    // Worker replies arrive over a few ms; date the snapshot at the middle of that span.
    const at = (before + performance.now()) / 2;
    // Render mode `none` draws nothing, so it has no display age (null, not 0).
    const displayAge = this.config.render === 'none' ? null : tailSummary(this.display);
    if (resetLatency) this.display.reset();
    return {
      atMs: performance.timeOrigin + at,
      transport: this.config.transport,
      concurrency: this.config.concurrency,
      client: this.client,
      ...s,
      displayAge,
      ...(this.config.inputProbe ? { input: this.input.snapshot(resetLatency) } : {}),
      visibility: document.visibilityState === 'hidden' ? 'hidden' : 'visible',
      visibilityChanges: this.visibilityChanges,
    };
  }

  /** After a view drew: the age of the newest event it shows (its batch's due time, the newest birth in it). */
  private drew(): void {
    // A render module may call drawn() from mount, before the source exists.
    if (!this.source) return;
    const newest = this.source.newestDueAtMs();
    if (this.stopped || newest <= 0) return;
    this.display.record((performance.timeOrigin + performance.now() - newest) * 1000);
  }

  /**
   * Once a second, in every render mode: offered vs received, the backlog, this run's shed
   * count and pacing from `/stats` (one small request a second), the verdict line, and the
   * charts' points. Plain text and one chart update a second keep mode `none` cheap.
   */
  private tickLive(): void {
    const c = this.config;
    const offered = offeredEventsPerSec({ batch: c.batch, interval: c.intervalMs }) * c.concurrency;
    const tally = new RunServerTally(this.client);
    /** One entry a second: events received and this run's server figures, for the judging window. */
    const history: { t: number; events: number; bytes: number; server: RunServer | null; backlogMs: number | null }[] = [];
    /** One entry a second: inputs handled, their worst delay and long frames' blocking time. */
    const inputs: ReturnType<InputProbe['takeRecent']>[] = [];
    /**
     * One entry a second: the events' ages received in it (the chart's recent histogram, read
     * before the chart resets it), so the judging window's event age p99 gives the backlog clause
     * the rule's jitter allowance. Null entries: nothing draws, so the page keeps no live ages.
     */
    const ages: (HistogramData | null)[] = [];
    let firstServer: RunServer | null = null;
    let latestServer: RunServer | null = null;
    const poll = async () => {
      try {
        latestServer = tally.add((await (await fetch('/stats')).json()) as ServerStats);
        firstServer ??= latestServer;
      } catch {
        // The line is a convenience: a failed poll keeps the last figures.
      }
    };
    // Judged from when every connection was open: opening them is not falling behind.
    const openedAt = performance.now();
    const start = this.source.live();
    const parsedIn = c.parse === 'worker' ? `${Math.min(c.workers, c.concurrency)} Worker(s)` : 'the main thread';
    const tick = () => {
      if (this.stopped) return;
      const now = performance.now();
      const counters = this.source.live();
      const last = history.at(-1) ?? { t: openedAt, events: start.events, bytes: start.bytes, server: null, backlogMs: null };
      const newest = this.source.newestSentAtMs();
      const backlogMs = newest > 0 ? performance.timeOrigin + now - newest : null;
      history.push({ t: now, events: counters.events, bytes: counters.bytes, server: latestServer, backlogMs });
      while (history.length > JUDGE_WINDOW_SEC + 1) history.shift();
      ages.push(this.source.recent?.data() ?? null);
      while (ages.length > JUDGE_WINDOW_SEC) ages.shift();
      inputs.push(this.input.takeRecent());
      while (inputs.length > JUDGE_WINDOW_SEC) inputs.shift();
      const handled = inputs.reduce((a, x) => a + x.handled, 0);
      const input = {
        handled,
        maxDelayMs: handled ? Math.max(...inputs.map((x) => x.maxDelayMs)) : null,
        blockingMsPerSec: this.input.longFramesUnavailable === null ? inputs.reduce((a, x) => a + (x.blockingMs ?? 0), 0) / inputs.length : null,
        longFramesUnavailable: this.input.longFramesUnavailable,
      };
      const dt = (now - last.t) / 1000;
      const receivedEventsPerSec = dt > 0 ? (counters.events - last.events) / dt : 0;
      const from = history.length > JUDGE_WINDOW_SEC ? history[0] : { t: openedAt, events: start.events, server: firstServer, backlogMs: null };
      const health = judgeHealth(
        {
          offeredEventsPerSec: offered,
          receivedEventsPerSec,
          windowEvents: counters.events - from.events,
          windowSec: (now - from.t) / 1000,
          backlogMs,
          // Judged over a full window only: the first seconds carry set-up.
          // From Workers the newest sentAt is as of their last update: the backlog moves by up to that as well.
          ...(history.length > JUDGE_WINDOW_SEC
            ? {
                backlogStartMs: from.backlogMs,
                intervalMs: c.parse === 'worker' ? Math.max(c.intervalMs, c.renderEveryMs) : c.intervalMs,
                ...windowP99(ages),
              }
            : {}),
          server: firstServer && latestServer ? { first: firstServer, windowStart: from.server ?? firstServer, now: latestServer } : null,
          cpu: this.views.cpu(),
          stalled: this.stalled(),
          parse: c.parse,
          workers: c.workers,
          runSec: (now - openedAt) / 1000,
        },
        performance.timeOrigin + now,
      );
      this.views.live({ offeredEventsPerSec: offered, receivedEventsPerSec, health, backlogMs, counters, parsedIn, input });
      this.addChartPoint(now, dt, receivedEventsPerSec, (counters.bytes - last.bytes) / dt / 1e6, offered);
      void poll();
      setTimeout(tick, 1000);
    };
    void poll();
    setTimeout(tick, 1000);
  }

  /** Connections past the transport's per-host cap that never opened, as the verdict takes them. */
  private stalled(): LimitInput['stalled'] {
    return stalledBehindCap(this.config.transport, this.config.concurrency, this.source.openCount());
  }

  private addChartPoint(now: number, dt: number, eventsPerSec: number, megabytesPerSec: number, offered: number): void {
    const charts = this.charts;
    if (!charts || dt <= 0) return;
    const recent = this.source.recent;
    const latency = recent ? recent.summary() : null;
    recent?.reset();
    charts.add({ tSec: (now - this.startedAt) / 1000, eventsPerSec, megabytesPerSec, p50Ms: latency?.p50Ms ?? null, p99Ms: latency?.p99Ms ?? null }, offered);
    for (const w of this.source.takeSpeed()) charts.addSpeed((w.second * 1000 + 1000 - this.startedAtEpoch) / 1000, w.max);
    charts.draw();
    this.drew();
  }
}

/**
 * The event age p99 over the judging window's seconds, as `jitterMs` (the sustains rule's
 * falling-behind clause reads the window's p99 the same way: results/sustains.ts fellBehind);
 * nothing when a second kept no ages (render mode none) or none arrived.
 */
function windowP99(seconds: readonly (HistogramData | null)[]): { jitterMs?: number } {
  if (!seconds.length || seconds.some((d) => d === null)) return {};
  const h = new Histogram();
  for (const d of seconds) h.add(d!);
  const p99Ms = h.summary().p99Ms;
  return p99Ms === null ? {} : { jitterMs: p99Ms };
}
