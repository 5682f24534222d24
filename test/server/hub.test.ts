import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOCKS, WorkerClock } from '../../server/clock.js';
import { MESSAGE_TAIL, type Row, type StreamParams, type Transport, messageHead } from '../../protocol/wire.js';
import { RowPool } from '../../server/rows.js';
import { Hub, type Sink } from '../../server/hub.js';

/**
 * One pool for every Hub here: building one takes ~0.6 s (10,000 rows × 30 speed epochs), and
 * a pool is seeded, so each would hold the same bytes. Its only state, the epoch, the hub sets at
 * every tick before it writes, so nothing passes from one test to the next.
 */
const POOL = new RowPool();

interface Write {
  seq: number;
  sentAt: string;
  dueAt: string;
  rows: Buffer;
  /** What bufferedBytes() reported just before this write. */
  queuedBefore: number;
  bytes: number;
}

/** A transport stand-in: records every write; its queue is set by the test or grows with writes. */
class FakeSink implements Sink {
  readonly http: string;
  readonly socket = 1;
  queued = 0;
  closed = false;
  readonly writes: Write[] = [];

  close(): void {
    this.closed = true;
  }

  gone = false;
  isGone(): boolean {
    return this.gone;
  }

  constructor(
    readonly transport: Transport = 'ws',
    /** When true, every write stays queued (a client that never reads). */
    private readonly neverDrains = false,
  ) {
    this.http = transport === 'ws' ? 'h1' : 'h2';
  }

  bufferedBytes(): number {
    return this.queued;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    const rows = pool.rows(seq, batch);
    const bytes = messageHead(seq, sentAt, dueAt).length + rows.length + MESSAGE_TAIL.length;
    this.writes.push({ seq, sentAt, dueAt, rows, queuedBefore: this.queued, bytes });
    if (this.neverDrains) this.queued += bytes;
    return bytes;
  }

  get seqs(): number[] {
    return this.writes.map((w) => w.seq);
  }

  get bytesWritten(): number {
    return this.writes.reduce((n, w) => n + w.bytes, 0);
  }
}

const seqRange = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('Hub (fake clock)', () => {
  // vi.useFakeTimers can fake `performance`, but it does so by replacing globalThis.performance;
  // the hub imports `performance` from node:perf_hooks, which stays the real object. So the test
  // fakes setTimeout/clearTimeout and owns the clock: perf_hooks' performance.now() is stubbed
  // and moved in step with the fake timers, one millisecond at a time, as Node's 1 ms timers do.
  let nowMs = 0;
  let hub: Hub;

  /** Runs the tick open() schedules with delay 0. */
  const start = () => vi.advanceTimersByTime(0);
  /** Lets `ms` milliseconds pass, firing due timers each millisecond. */
  const advance = (ms: number) => {
    for (let i = 0; i < ms; i++) {
      nowMs += 1;
      vi.advanceTimersByTime(1);
    }
  };
  /** Moves the clock without firing any timer: a GC pause or a blocked event loop. */
  const stall = (ms: number) => {
    nowMs += ms;
  };
  const open = (sink: Sink, params: StreamParams, firstSeq?: number) => hub.open(sink, params, firstSeq);

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    nowMs = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => nowMs);
    hub = new Hub({ sendBufferLimitBytes: 50_000, pool: POOL });
  });

  afterEach(() => {
    hub.shutdown();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('gives a sink under the limit every batch, in order, from seq 0', () => {
    const sink = new FakeSink();
    open(sink, { batch: 10, interval: 1 });
    start();
    advance(99);
    expect(sink.seqs).toEqual(seqRange(0, 99));
    // On schedule: batch seq is written at t0 + seq ms, stamped with the epoch time to the µs.
    sink.writes.forEach((w) => {
      expect(Number(w.sentAt)).toBe(Math.round((performance.timeOrigin + 1000 + w.seq) * 1000) / 1000);
      expect(w.dueAt).toBe(w.sentAt);
    });
  });

  it('stamps each batch with when it was due, so a late write ages its events, and keeps the write in sentAt', () => {
    const sink = new FakeSink();
    open(sink, { batch: 10, interval: 10 });
    start();
    // The loop is blocked for 35 ms, then its 10 ms timer fires: the batches due meanwhile go out together, late.
    stall(35);
    advance(10);
    const due = (seq: number) => Math.round((performance.timeOrigin + 1000 + seq * 10) * 1000) / 1000;
    expect(sink.seqs).toEqual([0, 1, 2, 3, 4]);
    for (const w of sink.writes) expect(Number(w.dueAt)).toBe(due(w.seq));
    const late = sink.writes.slice(1);
    for (const w of late) expect(Number(w.sentAt)).toBe(Math.round((performance.timeOrigin + 1045) * 1000) / 1000);
  });

  it('writes batch seq as rows (seq·batch) mod 10000 onwards, valid JSON with the head and tail', () => {
    const sink = new FakeSink();
    open(sink, { batch: 3, interval: 1 });
    start();
    advance(4);
    for (const w of sink.writes) {
      const message = JSON.parse(messageHead(w.seq, w.sentAt, w.dueAt) + w.rows.toString('latin1') + MESSAGE_TAIL) as {
        seq: number;
        rows: Row[];
      };
      expect(message.seq).toBe(w.seq);
      expect(message.rows.map((r) => r[0])).toEqual([0, 1, 2].map((k) => w.seq * 3 + k));
    }
    expect(sink.writes).toHaveLength(5);
  });

  it('reports totals that agree with what the sink received', () => {
    const ws = new FakeSink('ws');
    const sse = new FakeSink('sse');
    open(ws, { batch: 10, interval: 1 });
    open(sse, { batch: 7, interval: 2 });
    start();
    advance(20);
    expect(ws.writes).toHaveLength(21);
    expect(sse.writes).toHaveLength(11);
    const stats = hub.stats();
    expect(stats).toMatchObject({
      batchesSent: 32,
      eventsSent: 21 * 10 + 11 * 7,
      bytesSent: ws.bytesWritten + sse.bytesWritten,
      batchesShed: 0,
      batchesBehind: 0,
      connectionsOpen: 2,
      connectionsTotal: 2,
      sendBufferLimitBytes: 50_000,
    });
    expect(stats.connections).toMatchObject([
      { id: 1, transport: 'ws', http: 'h1', batch: 10, intervalMs: 1, generated: 21, sent: 21, shed: 0, bufferedBytes: 0 },
      { id: 2, transport: 'sse', http: 'h2', batch: 7, intervalMs: 2, generated: 11, sent: 11, shed: 0, bufferedBytes: 0 },
    ]);
    expect(stats.connections[0].openSec).toBeCloseTo(0.02, 9);
    expect(stats.connections[0].latenessMs).toEqual({ p50: 0, p99: 0, max: 0 });
  });

  it('sheds while the sink is over the limit; seq keeps counting, so the writes skip exactly the shed seqs', () => {
    const sink = new FakeSink();
    open(sink, { batch: 10, interval: 1 });
    start();
    advance(4); // seqs 0..4 written
    sink.queued = 50_001;
    advance(5); // seqs 5..9 shed
    expect(hub.stats().connections[0]).toMatchObject({ generated: 10, sent: 5, shed: 5 });
    sink.queued = 50_000; // at the limit is not over it
    advance(5); // seqs 10..14 written
    expect(sink.seqs).toEqual([...seqRange(0, 4), ...seqRange(10, 14)]);
    const stats = hub.stats();
    expect(stats.connections[0]).toMatchObject({ generated: 15, sent: 10, shed: 5, bufferedBytes: 50_000 });
    expect(stats).toMatchObject({ batchesSent: 10, batchesShed: 5, eventsSent: 100, bytesSent: sink.bytesWritten });
  });

  it('lets a sink that never drains overshoot the limit by one batch, then sheds everything', () => {
    hub = new Hub({ sendBufferLimitBytes: 30_000, pool: POOL });
    const sink = new FakeSink('ws', true);
    open(sink, { batch: 100, interval: 1 }); // about 13 kB per batch
    start();
    advance(19);
    expect(sink.seqs).toEqual([0, 1, 2]);
    expect(sink.writes.every((w) => w.queuedBefore <= 30_000)).toBe(true);
    expect(sink.queued).toBeGreaterThan(30_000);
    expect(sink.queued).toBeLessThanOrEqual(30_000 + Math.max(...sink.writes.map((w) => w.bytes)));
    expect(hub.stats().connections[0]).toMatchObject({ generated: 20, sent: 3, shed: 17 });
  });

  it("holds a sink's queue floor past the send bound (poll's batches wait for the next poll), and sheds past the floor", () => {
    hub = new Hub({ sendBufferLimitBytes: 30_000, pool: POOL });
    const sink = Object.assign(new FakeSink('poll'), { queueFloorBytes: 60_000 });
    open(sink, { batch: 10, interval: 1 });
    start();
    sink.queued = 59_999;
    advance(2);
    expect(hub.stats().connections[0]).toMatchObject({ generated: 3, sent: 3, shed: 0 });
    sink.queued = 60_001;
    advance(2);
    expect(hub.stats().connections[0]).toMatchObject({ generated: 5, sent: 3, shed: 2 });
  });

  it('paces each stream at its own interval from one timer', () => {
    const fast = new FakeSink();
    const half = new FakeSink();
    const slow = new FakeSink();
    open(fast, { batch: 1, interval: 1 });
    open(half, { batch: 1, interval: 0.5 });
    open(slow, { batch: 1, interval: 50 });
    start();
    advance(100);
    expect(fast.seqs).toEqual(seqRange(0, 100));
    expect(half.seqs).toEqual(seqRange(0, 200));
    expect(slow.seqs).toEqual([0, 1, 2]);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('sleeps until the next batch is due when every stream is slow', () => {
    const slow = new FakeSink();
    open(slow, { batch: 1, interval: 50 });
    start();
    advance(49);
    expect(slow.seqs).toEqual([0]);
    advance(1);
    expect(slow.seqs).toEqual([0, 1]);
  });

  it('catches up after a stall at most maxBurst (4) batches per tick, without shedding', () => {
    const sink = new FakeSink();
    open(sink, { batch: 1, interval: 1 });
    start();
    advance(1); // seqs 0, 1
    stall(20);
    advance(1); // now 22 ms after t0: 23 batches due, 2 generated; the burst allows 4
    expect(sink.seqs).toEqual(seqRange(0, 5));
    const behind = hub.stats();
    expect(behind.batchesBehind).toBe(17);
    // seq 2 was due at 2 ms and written at 22 ms.
    expect(behind.connections[0].latenessMs.max).toBe(20);
    advance(6); // 4, 4, 4, 4, 4 and the last 3
    expect(sink.seqs).toEqual(seqRange(0, 28));
    expect(hub.stats()).toMatchObject({ batchesBehind: 0, batchesShed: 0, batchesSent: 29 });
  });

  it('continues from firstSeq', () => {
    const sink = new FakeSink();
    open(sink, { batch: 5, interval: 1 }, 1000);
    start();
    advance(9);
    expect(sink.seqs).toEqual(seqRange(1000, 1009));
    const firstRows = JSON.parse(`[${sink.writes[0].rows.toString('latin1')}]`) as Row[];
    expect(firstRows.map((r) => r[0])).toEqual([5000, 5001, 5002, 5003, 5004]);
    const stats = hub.stats();
    expect(stats.connections[0]).toMatchObject({ generated: 1010, sent: 10, shed: 0 });
    expect(stats.connections[0].latenessMs.max).toBe(0);
    expect(stats).toMatchObject({ batchesSent: 10, eventsSent: 50, batchesBehind: 0 });
  });

  // open() shifts the schedule's origin back by firstSeq·interval; rates must still count
  // from when the stream really opened.
  it('reports openSec and batchesPerSec from when a resumed stream opened', () => {
    const sink = new FakeSink();
    open(sink, { batch: 5, interval: 1 }, 1000);
    start();
    advance(9);
    const c = hub.stats().connections[0];
    expect(c.openSec).toBeCloseTo(0.009, 9);
    expect(c.batchesPerSec).toBeCloseTo(10 / 0.009, 6);
  });

  it('drops a stream whose transport throws, counts it, and keeps pacing the others', () => {
    const broken = new FakeSink();
    const healthy = new FakeSink();
    broken.write = () => {
      throw new Error('stream destroyed');
    };
    open(broken, { batch: 1, interval: 1 });
    open(healthy, { batch: 1, interval: 1 });
    start();
    advance(9);
    expect(healthy.seqs).toEqual(seqRange(0, 9));
    expect(hub.openCount).toBe(1);
    expect(hub.stats()).toMatchObject({ writeErrors: 1, lastWriteError: 'stream destroyed', connectionsOpen: 1 });
  });

  it('stops writing to a closed stream; the others and the totals carry on', () => {
    const closing = new FakeSink();
    const staying = new FakeSink();
    const handle = open(closing, { batch: 2, interval: 1 });
    open(staying, { batch: 2, interval: 1 });
    start();
    advance(9);
    handle.close();
    advance(10);
    expect(closing.seqs).toEqual(seqRange(0, 9));
    expect(staying.seqs).toEqual(seqRange(0, 19));
    expect(hub.openCount).toBe(1);
    const stats = hub.stats();
    expect(stats).toMatchObject({ connectionsOpen: 1, connectionsTotal: 2, batchesSent: 30, eventsSent: 60 });
    expect(stats.connections.map((c) => c.id)).toEqual([2]);
  });

  it('drops a stream whose connection is gone without a close event, counts it, and keeps pacing the others', () => {
    const orphan = new FakeSink('sse', true);
    const healthy = new FakeSink();
    open(orphan, { batch: 1, interval: 1 });
    open(healthy, { batch: 1, interval: 1 });
    start();
    advance(4);
    orphan.gone = true; // its session died and no listener heard it
    advance(5);
    expect(orphan.seqs).toEqual(seqRange(0, 4));
    expect(healthy.seqs).toEqual(seqRange(0, 9));
    const stats = hub.stats();
    expect(stats).toMatchObject({ connectionsOpen: 1, goneStreamsDropped: 1, batchesBehind: 0 });
  });

  it('/stats never counts a gone stream as open, even between ticks', () => {
    const orphan = new FakeSink();
    open(orphan, { batch: 1, interval: 1 });
    start();
    advance(2);
    orphan.gone = true;
    expect(hub.stats()).toMatchObject({ connectionsOpen: 0, goneStreamsDropped: 1 });
  });

  it('stops its timer once the last stream closes', () => {
    const sink = new FakeSink();
    const handle = open(sink, { batch: 1, interval: 1 });
    start();
    advance(3);
    handle.close();
    advance(1); // the pending tick finds no streams and does not reschedule
    expect(vi.getTimerCount()).toBe(0);
    expect(sink.seqs).toEqual(seqRange(0, 3));
    expect(hub.openCount).toBe(0);
  });

  it('shutdown() stops the timer and every stream at once', () => {
    const sink = new FakeSink();
    open(sink, { batch: 1, interval: 1 });
    start();
    advance(2);
    hub.shutdown();
    expect(sink.closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    advance(10);
    expect(sink.seqs).toEqual([0, 1, 2]);
    expect(hub.openCount).toBe(0);
  });
});

describe('Hub (real clock)', () => {
  it.each(CLOCKS)('generates batches at the requested rate, woken by the %s clock', async (clock) => {
    const hub = new Hub({ sendBufferLimitBytes: 1 << 30, clock, pool: POOL });
    const sink = new FakeSink();
    // As a route does: what the stream needs (its rows, built in slices after start-up) first.
    await hub.prepare({ batch: 10, interval: 1 });
    const t0 = performance.now();
    hub.open(sink, { batch: 10, interval: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const elapsed = performance.now() - t0;
    const stats = hub.stats();
    hub.shutdown();
    // Drift-free pacing: what was generated tracks the elapsed time, not the number of timer wake-ups.
    expect(stats.connections[0].generated).toBeGreaterThanOrEqual(elapsed * 0.9);
    expect(stats.connections[0].generated).toBeLessThanOrEqual(elapsed * 1.1 + 1);
    expect(sink.seqs).toEqual(seqRange(0, sink.writes.length - 1));
    expect(stats.batchesSent).toBe(sink.writes.length);
    // Nothing is left that would fire: the count stays put after shutdown.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.writes.length).toBe(stats.batchesSent);
  });

  it('the worker clock wakes once per request, and not after a cancel', async () => {
    let ticks = 0;
    const c = new WorkerClock(() => ticks++);
    try {
      c.wakeAt(performance.now() + 2);
      c.wakeAt(performance.now() + 3); // replaces the first
      // A Worker takes tens of ms to start on a busy machine; wait for the wake-up, not a fixed time.
      const deadline = performance.now() + 10_000;
      while (ticks === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(ticks).toBe(1);
      c.wakeAt(performance.now() + 5);
      c.cancel();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(ticks).toBe(1);
    } finally {
      c.close();
    }
  });
});
