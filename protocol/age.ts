/**
 * Event age: how old an event is when the page's handler has it, counted from its birth. No
 * Node or DOM imports: the page records it, the docs and tests check the arithmetic here.
 *
 * A batch of `rows` events is due at `dueAtMs` (the server's schedule: seq × interval after its
 * stream's origin). Its events are born as a steady stream at the offered rate would bear them,
 * evenly over the interval before that: event k (0 = oldest) at
 * dueAt − interval·(rows − 1 − k)/rows, so the newest is born when its batch falls due and the
 * oldest nearly a whole interval before. An event's age at the handler is then the wait to fill
 * its batch, plus any lateness of the server's write, plus transit. A batch's ages span
 * [now − dueAt, now − dueAt + interval·(rows − 1)/rows], evenly: Histogram.recordSpread takes
 * that range, so every event counts with its own age.
 *
 * Worked example: 5000 rows every 50 ms on one connection, a transit of 4 ms. The oldest row of
 * a batch was born 49.99 ms before the batch was due, so at the write it is ~50 ms old and at
 * the handler ~54; the newest is 4 ms old. Ages spread evenly over [4, 53.99] ms: p50 ≈ 29 ms,
 * p99 ≈ 4 + 0.99 × 49.99 ≈ 53.5 ms (49.5 ms of batching plus transit).
 */

/** The ages of one batch's events at `receivedMs`, in µs, oldest last; see the module comment. */
export function batchAgeRangeUs(receivedMs: number, dueAtMs: number, intervalMs: number, rows: number): { lowUs: number; highUs: number } {
  // The newest event is born when its batch falls due; one row (or none) spans nothing.
  const newest = birthMs(dueAtMs, intervalMs, Math.max(1, rows), Math.max(1, rows) - 1);
  const oldest = rows > 1 ? birthMs(dueAtMs, intervalMs, rows, 0) : newest;
  return { lowUs: (receivedMs - newest) * 1000, highUs: (receivedMs - oldest) * 1000 };
}

/** When event k (0 = the oldest) of a batch of `rows` due at `dueAtMs` was born, ms. */
export function birthMs(dueAtMs: number, intervalMs: number, rows: number, k: number): number {
  return dueAtMs - (intervalMs * (rows - 1 - k)) / rows;
}
