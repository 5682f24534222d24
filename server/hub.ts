/**
 * The hub owns every open stream and one timer that paces them all. Transports only
 * provide a Sink (how to write one batch, how much is queued); the hub decides when to
 * write, when to shed, and keeps the counters `/stats` reports.
 *
 * A batch is shed when its stream's queue is over `sendBufferLimitBytes`, or its TCP
 * connection's (every stream of an HTTP/2 session shares one) is over
 * `connectionBufferLimitBytes`, or the whole hub's is over `processBufferLimitBytes`: many
 * zero-window streams on one session, or many sessions, add up to no more than these.
 */
import { performance } from 'node:perf_hooks';
import { Histogram } from '../protocol/histogram.js';
import type { ServerConnectionStats, ServerStats } from '../protocol/server-stats.js';
import { SentAtFormatter, type StreamParams, type Transport } from '../protocol/wire.js';
import { maxBurst } from '../protocol/pacing.js';
import { batchesThisTick, shouldShed } from './pacer.js';
import { CATCH_UP_MS } from '../protocol/pacing.js';
import { recordedSchedule, steadySchedule, type Schedule } from '../protocol/pace.js';
import { createClock, type ClockKind, type WakeClock } from './clock.js';
import { deadPeers } from './liveness.js';
import { RowPool } from './rows.js';
import { SERVER_CODECS } from './codecs/index.js';
import { encodingOf } from '../protocol/encodings.js';
import { MIB, SERVER_DEFAULTS } from './defaults.js';
import type { MessageCompressor } from './compress.js';

export interface Sink {
  readonly transport: Transport;
  /** 'h1' or 'h2'. */
  readonly http: string;
  /** The TCP connection it is carried on (sockets.ts), for counting connections per page. */
  readonly socket: number;
  /** Bytes queued towards the client and not yet handed to the kernel. */
  bufferedBytes(): number;
  /**
   * Writes batch `seq` (rows from `pool`, which owns the bytes); returns the bytes written.
   * `sentAt` (the write) and `dueAt` (when the batch was due by its schedule, the birth of its
   * newest event: protocol/age.ts) are epoch ms to the µs, already JSON text; the stream's codec
   * carries both.
   */
  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number;
  /** Ends the stream at once, even if the client stopped reading (used at shutdown). */
  close(): void;
  /**
   * True once the connection under the stream is gone (stream, HTTP/2 session or socket
   * destroyed or closed). Checked every tick: a close event that was missed or came before
   * its listener must not leave a stream being paced into nothing.
   */
  isGone(): boolean;
  /** The stream's compressor when its messages are compressed (compress.ts); absent or null when not. */
  readonly compressor?: MessageCompressor | null;
  /** The queue this sink must be allowed whatever the send bound (poll's batches wait for the next poll); absent: the bound alone. */
  readonly queueFloorBytes?: number;
}

export interface HubOptions {
  /** Shed batches for a client once this many bytes are queued for it. */
  sendBufferLimitBytes: number;
  /** Shed batches for every stream of a TCP connection (Sink.socket) once this many bytes are queued on it in all; default SERVER_DEFAULTS'. */
  connectionBufferLimitBytes?: number;
  /** Shed batches for every stream once this many bytes are queued in the whole hub; default SERVER_DEFAULTS'. */
  processBufferLimitBytes?: number;
  /** What wakes the pacing loop (see clock.ts); default `timer`, which fake timers in tests also drive. */
  clock?: ClockKind;
  /** The rows to cut batches from; default a pool of its own. Tests share one: each costs ~0.6 s to build. */
  pool?: RowPool;
}

/** The first multiple of `grid` at or after `t`. */
export function alignUp(t: number, grid: number): number {
  return Math.ceil(t / grid - 1e-9) * grid;
}

class Stream {
  generated = 0;
  sent = 0;
  shed = 0;
  /** Bytes written (what write() returned), for `/stats`. */
  bytes = 0;
  readonly lateness = new Histogram();
  readonly burst: number;
  /** Bytes this stream may queue before its batches are shed: the send bound, or its sink's floor where that is higher. */
  readonly queueBoundBytes: number;
  constructor(
    readonly id: number,
    readonly sink: Sink,
    readonly params: StreamParams,
    /** When its batches fall due after t0: a steady tick, or a recording's times (protocol/pace.ts). */
    readonly schedule: Schedule,
    /** When seq 0 was (or would have been) due: the schedule's origin. */
    readonly t0: number,
    readonly openedAt: number,
    sendBufferLimitBytes: number,
  ) {
    this.burst = maxBurst(params.interval);
    this.queueBoundBytes = Math.max(sendBufferLimitBytes, sink.queueFloorBytes ?? 0);
  }
}

export class Hub {
  private readonly streams = new Set<Stream>();
  private readonly pool: RowPool;
  private readonly sentAt = new SentAtFormatter();
  private readonly dueAt = new SentAtFormatter();
  private readonly clock: WakeClock;
  private nextId = 1;
  private readonly totals = { batchesSent: 0, eventsSent: 0, bytesSent: 0, batchesShed: 0, connections: 0, writeErrors: 0, goneDropped: 0, badLastEventIds: 0 };
  private lastWriteError: string | null = null;

  /** Bytes queued per TCP connection (Sink.socket) at this tick, kept up to date as the tick writes. */
  private readonly queuedOn = new Map<number, number>();
  private readonly connectionLimit: number;
  private readonly processLimit: number;

  constructor(readonly options: HubOptions) {
    this.pool = options.pool ?? new RowPool();
    this.clock = createClock(options.clock ?? 'timer', this.tick);
    this.connectionLimit = options.connectionBufferLimitBytes ?? SERVER_DEFAULTS.connectionBufferLimitBytes;
    this.processLimit = options.processBufferLimitBytes ?? SERVER_DEFAULTS.processBufferLimitBytes;
    // Off the start-up's path: the server listens while its rows are still being serialised,
    // and the first stream to write finishes whatever is left.
    void this.pool.buildInSlices();
  }

  /** True when the batches are a file's events (`--rows`), not the car rows: a transport whose own rows are the car row's shape (grpc-web's protobuf) refuses its default encoding then. */
  get rowsFromFile(): boolean {
    return this.pool.events !== null;
  }

  /**
   * What a stream needs before it opens: whatever its encoding's codec prepares (for
   * `encoding=arrow`, its size's batches, built in slices, sharing a build under way, when not
   * held). Rejects with StreamBusy when the codec cannot serve it now; the route answers 503.
   */
  async prepare(params: StreamParams): Promise<void> {
    const encoding = encodingOf(params);
    // Waits for the rows without stalling streams already open (none are, while they build).
    await this.pool.buildInSlices();
    const sizesInUse = () => new Set([...this.streams].filter((s) => encodingOf(s.params) === encoding).map((s) => s.params.batch));
    await SERVER_CODECS[encoding].prepare?.(this.pool, params.batch, sizesInUse);
  }

  /** Starts pacing a stream; `firstSeq` lets an SSE reconnect continue its sequence. */
  open(sink: Sink, params: StreamParams, firstSeq = 0): { close: () => void } {
    // The schedule starts after the rows are built: a stream opened just after start-up (SSE
    // and poll do not go through prepare) waits here once, not in its first tick.
    this.pool.finishBuild();
    const now = performance.now();
    // Streams start on a shared grid (whole ms, or the interval when shorter), so streams of
    // whole-ms intervals fall due together and one wake-up serves them all. Shift t0 back so
    // that seq firstSeq is the first due: the schedule stays one formula.
    const start = alignUp(now, Math.min(1, params.interval));
    const schedule = this.scheduleFor(params);
    const stream = new Stream(this.nextId++, sink, params, schedule, start - schedule.dueMs(firstSeq), now, this.options.sendBufferLimitBytes);
    stream.generated = firstSeq;
    this.streams.add(stream);
    this.totals.connections++;
    this.wakeAt(start);
    return { close: () => this.streams.delete(stream) };
  }

  /**
   * Why a stream's `pace` cannot be kept (a recorded pace over rows with no recorded times), in
   * words the route answers with a 400; null when it can.
   */
  paceRefusal(params: StreamParams): string | null {
    if (params.pace !== 'recorded') return null;
    const r = this.pool.recording;
    return 'why' in r ? `pace=recorded replays a --rows file's recorded times, and ${r.why}` : null;
  }

  /**
   * Why a stream's batch cannot be cut from this hub's pool in one piece (a --rows file whose
   * events are too large for a tail of that many: rows.ts filePoolShape), in words the route
   * answers with a 400; null when it can. The car rows serve every batch the stream limits allow.
   */
  batchRefusal(params: StreamParams): string | null {
    const max = this.pool.maxBatch;
    if (params.batch <= max) return null;
    const part = this.pool.filePartMaxBytes;
    const bound = part >= MIB ? `${part / MIB} MiB` : `${part} bytes`;
    return `batch must be at most ${max} with this server's --rows file: the pool keeps at most ${bound} of its events past their cycle, so a batch is one slice (docs/your-stream.md); got '${params.batch}'`;
  }

  /** The largest batch this hub's pool serves (RowPool.maxBatch). */
  get maxBatch(): number {
    return this.pool.maxBatch;
  }

  private scheduleFor(params: StreamParams): Schedule {
    const r = params.pace === 'recorded' ? this.pool.recording : null;
    if (r === null) return steadySchedule(params.interval);
    if ('why' in r) throw new Error(this.paceRefusal(params)!);
    return recordedSchedule(r.recording, params.batch, params.interval);
  }

  /** Counts an SSE reconnect whose Last-Event-ID was refused (see transports/sse.ts); reported in /stats. */
  countBadLastEventId(): void {
    this.totals.badLastEventIds++;
  }

  get openCount(): number {
    return this.streams.size;
  }

  /** Stops the clock and ends every stream: streams never end by themselves. */
  shutdown(): void {
    this.clock.close();
    for (const s of this.streams) s.sink.close();
    this.streams.clear();
  }

  /**
   * Ends every open stream at once, as a network drop would, and goes on pacing: the pages
   * reconnect by their own path (a soak's forced reconnect, puppeteer/soak/). Each stream leaves
   * the hub when its connection is gone, as any other does. Returns how many were ended.
   */
  dropAll(): number {
    const open = [...this.streams];
    for (const s of open) s.sink.close();
    return open.length;
  }

  /** Drops a stream whose connection is gone, counting it; true when dropped. */
  private dropIfGone(s: Stream): boolean {
    if (!s.sink.isGone()) return false;
    this.streams.delete(s);
    this.totals.goneDropped++;
    return true;
  }

  /** Asks for one tick at about `atMs` (performance.now() time); a request replaces the last. */
  private wakeAt(atMs: number): void {
    if (this.streams.size) this.clock.wakeAt(atMs);
    else this.clock.cancel();
  }

  private readonly tick = (): void => {
    const origin = performance.timeOrigin;
    let nextDue = Infinity;
    this.pool.useEpochAt(origin + performance.now());
    // What is queued per connection and in all, read once per tick and then kept up to date
    // with what the tick writes, so the shed decision costs a map lookup per batch.
    const queuedOn = this.queuedOn;
    queuedOn.clear();
    let queued = 0;
    for (const s of this.streams) {
      const b = s.sink.bufferedBytes();
      queuedOn.set(s.sink.socket, (queuedOn.get(s.sink.socket) ?? 0) + b);
      queued += b;
    }
    for (const s of this.streams) {
      if (this.dropIfGone(s)) continue;
      const { batch } = s.params;
      const now = performance.now();
      const due = s.schedule.dueBy(now - s.t0);
      // At most a burst a tick, or, where more fell due in the last CATCH_UP_MS (a recorded burst),
      // all of those: the steady tick never has more due in that time than its burst.
      const n = batchesThisTick(s.generated, due, Math.max(s.burst, due - s.schedule.dueBy(now - s.t0 - CATCH_UP_MS)));
      // One clock read per stream per tick: its batches go out within microseconds of it, and
      // the stamp is only needed to the µs against latencies of milliseconds. Each batch also
      // carries when it was due, so a late write ages its events (protocol/age.ts), while
      // `sentAt` keeps the write for transit.
      const sentAt = n > 0 ? this.sentAt.format(origin + now) : '';
      for (let k = 0; k < n; k++) {
        const seq = s.generated++;
        const dueAt = s.t0 + s.schedule.dueMs(seq);
        s.lateness.record((now - dueAt) * 1000);
        const onConnection = queuedOn.get(s.sink.socket) ?? 0;
        if (shouldShed(s.sink.bufferedBytes(), s.queueBoundBytes) || shouldShed(onConnection, this.connectionLimit) || shouldShed(queued, this.processLimit)) {
          s.shed++;
          this.totals.batchesShed++;
          continue;
        }
        let written: number;
        try {
          written = s.sink.write(seq, sentAt, this.dueAt.format(origin + dueAt), this.pool, batch);
        } catch (err) {
          // A transport that throws (its connection died under it) loses its stream, not the
          // pacing loop that every other stream depends on.
          this.streams.delete(s);
          this.totals.writeErrors++;
          this.lastWriteError = err instanceof Error ? err.message : String(err);
          break;
        }
        queuedOn.set(s.sink.socket, onConnection + written);
        queued += written;
        s.sent++;
        s.bytes += written;
        this.totals.batchesSent++;
        this.totals.eventsSent += batch;
        this.totals.bytesSent += written;
      }
      const next = s.t0 + s.schedule.dueMs(s.generated);
      if (next < nextDue) nextDue = next;
    }
    // Sleeping until the earliest due batch keeps slow streams (interval 50 ms) from costing a
    // wake-up every millisecond.
    this.wakeAt(nextDue);
  };

  /**
   * Cumulative counters, plus tick lateness since the last call that reset it (so a driver
   * can read lateness over exactly its window).
   */
  stats(resetLateness = false): ServerStats {
    const now = performance.now();
    const lateness = new Histogram();
    const cpu = process.cpuUsage();
    const elu = performance.eventLoopUtilization();
    const connections: ServerConnectionStats[] = [];
    let behind = 0;
    for (const s of this.streams) this.dropIfGone(s);
    for (const s of this.streams) {
      const openSec = (now - s.openedAt) / 1000;
      const debt = Math.max(0, s.schedule.dueBy(now - s.t0) - s.generated);
      behind += debt;
      lateness.add(s.lateness);
      const q = (x: number) => (s.lateness.count ? Math.round(s.lateness.quantile(x)) / 1000 : null);
      connections.push({
        id: s.id,
        transport: s.sink.transport,
        http: s.sink.http,
        socket: s.sink.socket,
        batch: s.params.batch,
        intervalMs: s.params.interval,
        client: s.params.client ?? null,
        openSec,
        generated: s.generated,
        sent: s.sent,
        shed: s.shed,
        behind: debt,
        batchesPerSec: openSec > 0 ? s.sent / openSec : 0,
        latenessMs: { p50: q(0.5), p99: q(0.99), max: s.lateness.count ? Math.round(s.lateness.max) / 1000 : null },
        bufferedBytes: s.sink.bufferedBytes(),
        bytes: s.bytes,
        compression: s.sink.compressor?.stats() ?? null,
      });
      if (resetLateness) s.lateness.reset();
    }
    const all = lateness.summary();
    return {
      nowMs: now,
      pid: process.pid,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
      eventLoopActiveMs: elu.active,
      eventLoopIdleMs: elu.idle,
      rssBytes: process.memoryUsage.rss(),
      batchesSent: this.totals.batchesSent,
      eventsSent: this.totals.eventsSent,
      bytesSent: this.totals.bytesSent,
      batchesShed: this.totals.batchesShed,
      batchesBehind: behind,
      latenessMs: { p50: all.p50Ms, p99: all.p99Ms, max: all.maxMs },
      connectionsOpen: this.streams.size,
      connectionsTotal: this.totals.connections,
      writeErrors: this.totals.writeErrors,
      goneStreamsDropped: this.totals.goneDropped,
      badLastEventIds: this.totals.badLastEventIds,
      deadPeersDropped: deadPeers.dropped,
      lastWriteError: this.lastWriteError,
      sendBufferLimitBytes: this.options.sendBufferLimitBytes,
      connections,
    };
  }
}
