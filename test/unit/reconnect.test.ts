/** The page's WebSocket reconnect backoff and how a reconnect is counted. */
import { describe, expect, it } from 'vitest';
import { Counters } from '../../web/lab/counters.js';
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
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0);
    c.reconnected(0, true);
    for (let s = 0; s < 3; s++) c.batch(0, s, 1, 10, 0, 0, 0);
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 0, duplicates: 0, batches: 8 });
  });

  it('an EventSource that resumes keeps its seq, so a batch the server did not resend is a gap', () => {
    const c = new Counters(1);
    for (let s = 0; s < 5; s++) c.batch(0, s, 1, 10, 0, 0, 0);
    c.reconnected(0, false);
    c.batch(0, 7, 1, 10, 0, 0, 0);
    expect(c.totals()).toMatchObject({ reconnects: 1, gaps: 2, duplicates: 0 });
  });
});
