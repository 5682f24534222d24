/**
 * The page's exact counters. Everything here runs once per message, so it does integer
 * arithmetic on preallocated arrays and allocates nothing.
 *
 * Loss is counted whatever its cause (issue 33, "loss that counts"): a seq the page never saw
 * is a gap, including across a reconnect. A new WebSocket (fetch, poll) stream counts its seq
 * from 0 again and the server paces it from the moment it opens, so the batches that fell due
 * while the connection was down were never even generated: the page carries the old stream's
 * numbering on, and counts as gaps the batches its schedule put between the last batch before
 * the drop and the first after it (their `sentAt`s are both the server's clock, so the page's
 * clock offset cancels). Time a connection spent closed, and silences longer than
 * `stallAfterMs` on an open one, are summed in connection-ms, so a window's share is the
 * difference of two snapshots like every other counter.
 */
import { Histogram } from '../../protocol/histogram.js';
import type { PageCounters } from '../../protocol/page-api.js';

/**
 * A connection that receives nothing for longer than this is stalled, ms: a second, or four
 * of its due gaps (its tick, or poll's request interval) when those are longer. A second is
 * well above any tick or poll a point runs and a GC pause here (tens of ms), and far below
 * what a user reads as a frozen stream.
 */
export function stallAfterMs(intervalMs: number, pollMs = 0): number {
  return Math.max(1000, 4 * Math.max(intervalMs, pollMs));
}

export interface CountersOptions {
  /** The stream's tick, ms: how many batches fell due while a connection was down. 0: not counted. */
  intervalMs?: number;
  /** See stallAfterMs; absent: silences are not counted. */
  stallAfterMs?: number;
  /** The clock `now` is read from, ms since the epoch (tests give their own). */
  clock?: () => number;
}

const NONE = 0;
const RESTARTED = 1;
const RESUMED = 2;

export class Counters implements PageCounters {
  events = 0;
  batches = 0;
  bytes = 0;
  gaps = 0;
  duplicates = 0;
  reconnects = 0;
  errors = 0;
  /** Connection-ms spent closed (since start), finished outages only: totals() adds the open ones. */
  private closedDoneMs = 0;
  /** Connection-ms of silence beyond stallAfterMs, finished silences only. */
  private stalledDoneMs = 0;
  /** Next seq expected per connection, in the numbering of the connection's first stream. */
  readonly nextSeq: Float64Array;
  readonly batchesPerConnection: Float64Array;
  /**
   * Event age since the last reset (snapshots reset it to delimit a measured window): every
   * event with its own age, from its birth to this handler (protocol/age.ts). The figure that decides.
   */
  readonly latency = new Histogram();
  /** What to add to a stream's seq to number it like the connection's first stream. */
  private readonly seqOffset: Float64Array;
  /** The server's `sentAt` of the last batch per connection, ms (0 before any). */
  private readonly lastSentAt: Float64Array;
  /** When the last batch arrived per connection, ms since the epoch (0: none since it opened). */
  private readonly lastArrival: Float64Array;
  /** When each connection went down, ms since the epoch (NaN while it is up). */
  private readonly downSince: Float64Array;
  /** Per connection: a reconnect whose first batch has not come yet (RESTARTED or RESUMED). */
  private readonly pending: Uint8Array;
  private readonly intervalMs: number;
  private readonly stallMs: number;
  private readonly clock: () => number;
  /** Transit since the last reset: handler time minus the server's write (`sentAt`), one per batch. A diagnostic. */
  readonly transit = new Histogram();

  constructor(
    readonly connections: number,
    options: CountersOptions = {},
  ) {
    this.nextSeq = new Float64Array(connections);
    this.batchesPerConnection = new Float64Array(connections);
    this.seqOffset = new Float64Array(connections);
    this.lastSentAt = new Float64Array(connections);
    this.lastArrival = new Float64Array(connections);
    this.downSince = new Float64Array(connections).fill(Number.NaN);
    this.pending = new Uint8Array(connections);
    this.intervalMs = options.intervalMs ?? 0;
    this.stallMs = options.stallAfterMs ?? Number.POSITIVE_INFINITY;
    this.clock = options.clock ?? (() => performance.timeOrigin + performance.now());
  }

  /**
   * Records one batch: `transitUs` is receive time minus the server's `sentAt`; its `rows` events'
   * ages spread evenly over [ageLowUs, ageHighUs] (protocol/age.ts batchAgeRangeUs). `sentAtMs`
   * and `nowMs` (ms since the epoch; 0: not known) let a reconnect's lost batches and a stall be
   * counted. Every argument is required: two sets of timings in one list of numbers, so a call
   * that leaves some out is a compile error, not a misread.
   */
  batch(conn: number, seq: number, rows: number, bytes: number, transitUs: number, ageLowUs: number, ageHighUs: number, sentAtMs: number, nowMs: number): void {
    this.events += rows;
    this.batches++;
    this.bytes += bytes;
    this.batchesPerConnection[conn]++;
    if (nowMs > 0) {
      const last = this.lastArrival[conn];
      if (last > 0 && nowMs - last > this.stallMs) this.stalledDoneMs += nowMs - last - this.stallMs;
      this.lastArrival[conn] = nowMs;
    }
    if (this.pending[conn] !== NONE) this.firstAfterReconnect(conn, seq, sentAtMs);
    const s = seq + this.seqOffset[conn];
    const expected = this.nextSeq[conn];
    if (s === expected) {
      this.nextSeq[conn] = s + 1;
    } else if (s > expected) {
      // Batches the server generated but this page never got: shed by the server or lost.
      this.gaps += s - expected;
      this.nextSeq[conn] = s + 1;
    } else {
      this.duplicates++;
    }
    if (sentAtMs > 0) this.lastSentAt[conn] = sentAtMs;
    this.latency.recordSpread(ageLowUs, ageHighUs, rows);
    this.transit.record(transitUs);
  }

  /**
   * The first batch of a stream that replaced a dropped one: the batches due between the last
   * batch before the drop and this one (by the server's schedule), or the seqs skipped when the
   * stream resumed (EventSource), whichever is more, are gaps; the new stream's seq is shifted
   * to continue the old numbering.
   */
  private firstAfterReconnect(conn: number, seq: number, sentAtMs: number): void {
    const before = this.lastSentAt[conn];
    const dueBetween = this.intervalMs > 0 && before > 0 && sentAtMs > before ? Math.max(0, Math.round((sentAtMs - before) / this.intervalMs) - 1) : 0;
    const expected = this.nextSeq[conn];
    const skipped = this.pending[conn] === RESUMED ? Math.max(0, seq + this.seqOffset[conn] - expected) : 0;
    this.seqOffset[conn] = expected + Math.max(dueBetween, skipped) - seq;
    this.pending[conn] = NONE;
  }

  /** Connection `conn` went down (it may come back: reconnected()). */
  down(conn: number, nowMs = this.clock()): void {
    if (!Number.isNaN(this.downSince[conn])) return;
    const last = this.lastArrival[conn];
    if (last > 0 && nowMs - last > this.stallMs) this.stalledDoneMs += nowMs - last - this.stallMs;
    this.lastArrival[conn] = 0;
    this.downSince[conn] = nowMs;
  }

  /**
   * Connection `conn` came back. `seqRestarts`: a new WebSocket (fetch, poll) counts from 0
   * again; otherwise (EventSource's Last-Event-ID) the sequence goes on. Either way its first
   * batch settles what was lost meanwhile (firstAfterReconnect).
   */
  reconnected(conn: number, seqRestarts: boolean, nowMs = this.clock()): void {
    this.reconnects++;
    if (!Number.isNaN(this.downSince[conn])) this.closedDoneMs += Math.max(0, nowMs - this.downSince[conn]);
    this.downSince[conn] = Number.NaN;
    // Silence is timed from the reopening: a connection that comes back and then receives
    // nothing is stalled (with 0 here it was neither closed nor stalled, and lost nothing).
    this.lastArrival[conn] = nowMs;
    this.pending[conn] = seqRestarts ? RESTARTED : RESUMED;
  }

  /** Connection `conn` first opened: its silence from now on is timed, as after a reconnect. */
  opened(conn: number, nowMs = this.clock()): void {
    if (this.lastArrival[conn] === 0) this.lastArrival[conn] = nowMs;
  }

  /** Connection-ms spent closed since start, counting outages still under way. */
  get closedMs(): number {
    const now = this.clock();
    let open = 0;
    for (let i = 0; i < this.connections; i++) if (!Number.isNaN(this.downSince[i])) open += Math.max(0, now - this.downSince[i]);
    return this.closedDoneMs + open;
  }

  /** Connection-ms of silence beyond stallAfterMs since start, counting silences under way. */
  get stalledMs(): number {
    if (!Number.isFinite(this.stallMs)) return 0;
    const now = this.clock();
    let open = 0;
    for (let i = 0; i < this.connections; i++) {
      const last = this.lastArrival[i];
      if (last > 0 && now - last > this.stallMs) open += now - last - this.stallMs;
    }
    return this.stalledDoneMs + open;
  }

  totals(): PageCounters {
    const { events, batches, bytes, gaps, duplicates, reconnects, errors } = this;
    return { events, batches, bytes, gaps, duplicates, reconnects, errors, closedMs: Math.round(this.closedMs), stalledMs: Math.round(this.stalledMs) };
  }
}
