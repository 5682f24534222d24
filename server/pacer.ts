/**
 * Drift-free pacing arithmetic. Batches are due by their stream's schedule (protocol/pace.ts:
 * t0, t0 + interval, t0 + 2·interval, … on the steady tick) on a monotonic clock; a tick sends
 * whatever is due, so a late timer (Node's 1 ms timers fire 1–2 ms apart, and GC pauses happen)
 * is made up on the next tick instead of slowing the rate. Catch-up is bounded: one tick never
 * sends a connection more than `maxBurst` batches (protocol/pacing.ts), or a recorded burst that
 * fell due within CATCH_UP_MS when it is larger, so a stall turns into a few slightly larger
 * writes, not a flood.
 */

/** Batches to generate this tick. */
export function batchesThisTick(generated: number, due: number, burst: number): number {
  const behind = due - generated;
  return behind <= 0 ? 0 : behind < burst ? behind : burst;
}

/**
 * Whether to shed a batch instead of writing it: the client's queue is already over the
 * bound. One batch may overshoot the bound, so memory per connection stays under
 * `limit + one batch`.
 */
export function shouldShed(bufferedBytes: number, limitBytes: number): boolean {
  return bufferedBytes > limitBytes;
}
