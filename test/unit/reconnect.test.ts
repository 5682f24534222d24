/** The page's WebSocket reconnect backoff and how a reconnect is counted. */
import { describe, expect, it } from 'vitest';
import { Counters, stallAfterMs } from '../../web/lab/counters.js';
import { WS_BACKOFF, wsBackoffMs } from '../../web/lab/backoff.js';

describe('WebSocket reconnect backoff', () => {
  it('doubles from 100 ms and stops growing at 5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(wsBackoffMs)).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  });

  it('is bounded in attempts: at most about a minute and a half of trying', () => {
    let total = 0;
    for (let k = 0; k < WS_BACKOFF.maxAttempts; k++) total += wsBackoffMs(k);
    expect(total).toBeLessThan(100_000);
  });
});

describe('Counters.reconnected', () => {
  it('a WebSocket that comes back restarts its seq: no duplicates, no gaps', () => {
    const c = new Counters(2);
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0, 0, 0);
    c.reconnected(0, true);
    for (let s = 0; s < 3; s++) c.batch(0, s, 1, 10, 0, 0, 0, 0, 0);
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 0, duplicates: 0, batches: 8 });
  });

  it('an EventSource that resumes keeps its seq, so a batch the server did not resend is a gap', () => {
    const c = new Counters(1);
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0, 0, 0);
    c.reconnected(0, false);
    c.batch(0, 7, 1, 10, 0, 0, 0, 0, 0);
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 2, duplicates: 0 });
  });

  it('a WebSocket that comes back carries its numbering on: the batches due while it was down are gaps (issue 33)', () => {
    let now = 0;
    const c = new Counters(1, { intervalMs: 10, clock: () => now });
    // seq 0..4 sent at 1000..1040 ms; the socket drops at 1045 and comes back at 1195.
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0, 1000 + 10 * s, 1001 + 10 * s);
    c.down(0, 1045);
    c.reconnected(0, true, 1195);
    // The new stream counts from 0 again; its first batch was sent at 1200: 15 batches (1050…1190) never came.
    for (let s = 0; s < 3; s++) c.batch(0, s, 1, 10, 0, 0, 0, 1200 + 10 * s, 1201 + 10 * s);
    now = 1300;
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 15, duplicates: 0, batches: 8, closedMs: 150 });
    // And it goes on counting in the old numbering: seq 3 of the new stream is 23.
    expect(c.nextSeq[0]).toBe(23);
  });

  it('an EventSource that resumes counts the time-based loss too when it exceeds the seqs skipped', () => {
    const c = new Counters(1, { intervalMs: 10, clock: () => 2000 });
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0, 1000 + 10 * s, 1001 + 10 * s);
    c.down(0, 1045);
    c.reconnected(0, false, 1500);
    // The server resumed at seq 5 (Last-Event-ID 4) but paced it from now: 45 batches were never generated.
    c.batch(0, 5, 1, 10, 0, 0, 0, 1500, 1501);
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 45, duplicates: 0, closedMs: 455 });
  });

  it('counts a connection closed at any time, outages under way included, and silences past the stall threshold', () => {
    let now = 0;
    const c = new Counters(2, { intervalMs: 10, stallAfterMs: stallAfterMs(10), clock: () => now });
    c.batch(0, 0, 1, 10, 0, 0, 0, 100, 100);
    c.batch(1, 0, 1, 10, 0, 0, 0, 100, 100);
    c.down(1, 200);
    c.batch(0, 1, 1, 10, 0, 0, 0, 1600, 1600); // 1.5 s of silence on connection 0: 0.5 s past the threshold
    now = 1700;
    expect(c.totals()).toMatchObject({ closedMs: 1500, stalledMs: 500 });
    now = 2900; // connection 0 silent again for 1.3 s, still under way
    expect(c.totals()).toMatchObject({ closedMs: 2700, stalledMs: 800 });
  });

  it('counts a connection that reopens, or first opens, and then receives nothing as stalled', () => {
    let now = 0;
    const c = new Counters(2, { intervalMs: 10, stallAfterMs: stallAfterMs(10), clock: () => now });
    c.opened(1, 50);
    c.batch(0, 0, 1, 10, 0, 0, 0, 100, 100);
    c.down(0, 200);
    c.reconnected(0, true, 300);
    now = 1800; // connection 0 silent 1.5 s since it reopened, connection 1 for 1.75 s since it opened
    expect(c.totals()).toMatchObject({ reconnects: 1, closedMs: 100, stalledMs: 500 + 750 });
  });

  it('stalls only past a second, or four ticks or polls when those are longer', () => {
    expect([stallAfterMs(1), stallAfterMs(50), stallAfterMs(500), stallAfterMs(1, 400)]).toEqual([1000, 1000, 2000, 1600]);
  });
});
