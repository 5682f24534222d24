/**
 * The per-message path, the same on the main thread and in a Worker: parse, count, keep the
 * rows the table may show, fold the chart's aggregates. Nothing else runs per message, and
 * nothing here allocates beyond what JSON.parse returns.
 */
import { Histogram } from '../../protocol/histogram.js';
import { SPEED_COLUMN, type BatchMessage } from '../../protocol/wire.js';
import { Counters } from './counters.js';
import type { ArrowBatch } from './arrow-batch.js';
import { RowRing } from './table.js';

export interface IngestOptions {
  connections: number;
  /** Rows to keep for the table (0: the table is off, keep none). */
  keepRows: number;
  /** Fold the chart's aggregates (recent latency, max speed per second). */
  aggregate: boolean;
  /** The stream is Arrow: the table keeps rows by reference to their batch (RowRing columnar). */
  columnar?: boolean;
}

/** Max of the speed column per 1 s tumbling window, keyed by epoch second of receipt. */
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
  /** Latency since the last chart point, for the live p50/p99 series. */
  readonly recent: Histogram | null;
  private window: SpeedWindow = { second: -1, max: -Infinity };
  /** Windows that have closed since the last `takeClosedWindows()`. */
  private closed: SpeedWindow[] = [];
  /** The newest `sentAt` received, ms since the epoch (0 before any): now minus it is the page's backlog. */
  newestSentAtMs = 0;

  constructor(readonly options: IngestOptions) {
    this.counters = new Counters(options.connections);
    this.ring = options.keepRows > 0 ? new RowRing(options.keepRows, options.columnar) : null;
    this.recent = options.aggregate ? new Histogram() : null;
  }

  /** Handles one message's text from connection `conn`. */
  message(conn: number, data: string): void {
    let msg: BatchMessage;
    try {
      msg = JSON.parse(data) as BatchMessage;
    } catch {
      this.counters.errors++;
      return;
    }
    this.batch(conn, msg, data.length);
  }

  /**
   * Handles one batch a binary transport decoded (`grpc-web`); `bytes` is its size on the wire
   * when the transport knows it per message, else 0 and the bytes are counted as they arrive.
   */
  batch(conn: number, msg: BatchMessage, bytes: number): void {
    const rows = msg.rows;
    const now = this.arrived(conn, msg.seq, rows.length, bytes, msg.sentAt);
    this.ring?.push(rows);
    if (this.recent) {
      const window = this.windowAt(now);
      let max = window.max;
      for (let i = 0; i < rows.length; i++) if (rows[i][SPEED_COLUMN] > max) max = rows[i][SPEED_COLUMN];
      window.max = max;
    }
  }

  /**
   * Handles one decoded Arrow batch (its bytes were counted as they arrived): the same as
   * batch(), with the aggregate read from the speed column and the rows kept by reference.
   */
  arrow(conn: number, b: ArrowBatch): void {
    const now = this.arrived(conn, b.seq, b.numRows, 0, b.sentAt);
    this.ring?.pushArrow(b);
    if (this.recent) {
      const window = this.windowAt(now);
      window.max = b.maxSpeed(window.max);
    }
  }

  /** Counts a batch and its latency (and the recent latency, when drawing); returns the receive time, ms since the epoch. */
  private arrived(conn: number, seq: number, rows: number, bytes: number, sentAt: number): number {
    const now = epochNow();
    const latencyUs = (now - sentAt) * 1000;
    this.counters.batch(conn, seq, rows, bytes, latencyUs);
    if (sentAt > this.newestSentAtMs) this.newestSentAtMs = sentAt;
    this.recent?.record(latencyUs);
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
