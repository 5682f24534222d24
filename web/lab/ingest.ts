/**
 * The per-message path, the same on the main thread and in a Worker, and for every encoding:
 * decode (the stream's codec, codecs/), count, keep the rows the table may show, fold the chart's
 * aggregates. Nothing else runs per message, and nothing here allocates beyond what the decoder
 * returns.
 */
import { batchAgeRangeUs } from '../../protocol/age.js';
import { Histogram } from '../../protocol/histogram.js';
import type { RenderBatch } from '../../protocol/render-module.js';
import type { StreamParams } from '../../protocol/wire.js';
import type { TableRow } from './row-format.js';
import { Counters, stallAfterMs } from './counters.js';
import { RowRing } from './table.js';
import { loadCodec, type AnyPageCodec, type BatchSink, type ChartColumn } from './codecs/index.js';
import type { RowKeeper } from './codecs/codec.js';
import type { ConnectionHandlers } from './transports/index.js';

export interface IngestOptions {
  connections: number;
  /** Rows to keep for the table (0: the table is off, keep none). */
  keepRows: number;
  /** Fold the chart's aggregates (recent event age, and the max of the chart's field per second). */
  aggregate: boolean;
  /** The field the chart plots (protocol/event-view.ts), or null when the events have no numeric one. */
  chart: ChartColumn | null;
  /**
   * The streams' tick, ms: a batch's events are born over the interval before it was due
   * (protocol/age.ts), and batches due while a connection was down count as lost (counters.ts).
   */
  intervalMs: number;
  /** `poll`'s request interval, ms. */
  pollMs?: number;
  /** A render module's view: every batch's rows go to it, as the codecs hand them to the table's ring. */
  render?: (batch: RenderBatch<TableRow>) => void;
}

/** Max of the chart's field (the car rows' speed) per 1 s tumbling window, keyed by epoch second of receipt. */
export interface SpeedWindow {
  second: number;
  max: number;
}

// Read once: timeOrigin is a getter into the browser, and this runs once per message.
const ORIGIN = performance.timeOrigin;
const epochNow = () => ORIGIN + performance.now();

export class Ingest {
  readonly counters: Counters;
  readonly ring: RowRing | null;
  /** Where each batch's rows go besides the ring: a render module's view, or null. */
  private readonly keeper: RowKeeper | null;
  /** Event age since the last chart point, for the live p50/p99 series. */
  readonly recent: Histogram | null;
  private window: SpeedWindow = { second: -1, max: -Infinity };
  /** Windows that have closed since the last `takeClosedWindows()`. */
  private closed: SpeedWindow[] = [];
  /** The newest `sentAt` received, ms since the epoch (0 before any): now minus it is the page's backlog. */
  newestSentAtMs = 0;
  /** The newest `dueAt` received, ms since the epoch (0 before any): now minus it is the age of the newest event. */
  newestDueAtMs = 0;

  constructor(readonly options: IngestOptions) {
    const intervalMs = options.intervalMs ?? 0;
    this.counters = new Counters(options.connections, {
      intervalMs,
      stallAfterMs: stallAfterMs(intervalMs, options.pollMs ?? 0),
      clock: epochNow,
    });
    this.ring = options.keepRows > 0 ? new RowRing(options.keepRows) : null;
    this.keeper = options.render ? renderKeeper(options.render) : null;
    this.recent = options.aggregate ? new Histogram() : null;
  }

  /**
   * What connection `conn` is given: a decoder per stream (codecs/, by `params.encoding`) whose
   * batches come here, and the counters its transport keeps. `activity` runs after each batch.
   */
  handlers(conn: number, params: Pick<StreamParams, 'encoding'>, activity?: () => void): ConnectionHandlers {
    return {
      decoder: () => loadCodec(params).then((codec) => codec.open(this.sink(conn, codec, activity))),
      onBytes: (n) => (this.counters.bytes += n),
      onReconnect: (seqRestarts) => this.counters.reconnected(conn, seqRestarts, epochNow()),
      onDown: () => this.counters.down(conn, epochNow()),
      onOpen: () => this.counters.opened(conn, epochNow()),
    };
  }

  /** Where connection `conn`'s decoded batches go. */
  private sink(conn: number, codec: AnyPageCodec, activity?: () => void): BatchSink<unknown> {
    const counters = this.counters;
    return {
      batch: activity
        ? (b) => {
            this.batch(conn, codec, b);
            activity();
          }
        : (b) => this.batch(conn, codec, b),
      bytes: (n) => (counters.bytes += n),
      undecodable: () => counters.errors++,
    };
  }

  /** Handles one decoded batch: counted, its rows kept for the table, the chart's aggregate folded. */
  batch(conn: number, codec: AnyPageCodec, b: unknown): void {
    const now = this.arrived(conn, codec.seq(b), codec.count(b), codec.sentAt(b), codec.dueAt(b));
    if (this.ring) codec.keep(this.ring, b);
    if (this.keeper) codec.keep(this.keeper, b);
    const chart = this.options.chart;
    if (this.recent && chart) {
      const window = this.windowAt(now);
      window.max = codec.chartMax(b, chart, window.max);
    }
  }

  /**
   * Counts a batch, its transit and its events' ages (and the recent ages, when drawing); returns
   * the receive time, ms since the epoch.
   */
  private arrived(conn: number, seq: number, rows: number, sentAt: number, dueAt: number): number {
    const now = epochNow();
    const { lowUs, highUs } = batchAgeRangeUs(now, dueAt, this.options.intervalMs, rows);
    // Bytes are counted apart (BatchSink.bytes), as the encoding and the transport count them.
    this.counters.batch(conn, seq, rows, 0, (now - sentAt) * 1000, lowUs, highUs, sentAt, now);
    if (sentAt > this.newestSentAtMs) this.newestSentAtMs = sentAt;
    if (dueAt > this.newestDueAtMs) this.newestDueAtMs = dueAt;
    this.recent?.recordSpread(lowUs, highUs, rows);
    return now;
  }

  /** The chart's per-second window `now` falls in, closing the last one once its second has passed. */
  private windowAt(now: number): SpeedWindow {
    const second = Math.floor(now / 1000);
    if (second !== this.window.second) {
      if (this.window.second >= 0) this.closed.push(this.window);
      this.window = { second, max: -Infinity };
    }
    return this.window;
  }

  takeClosedWindows(): SpeedWindow[] {
    const out = this.closed;
    this.closed = [];
    return out;
  }
}

/**
 * Hands each batch to a render module the way a codec hands it to the table's ring: rows as
 * they were decoded, an Arrow batch as the batch (its rows made only when the module reads them).
 */
function renderKeeper(render: (batch: RenderBatch<TableRow>) => void): RowKeeper {
  return {
    push: (rows) => render({ kind: 'rows', rows }),
    pushColumns: (batch) => render({ kind: 'columns', numRows: batch.numRows, row: (i) => batch.row(i) }),
  };
}
