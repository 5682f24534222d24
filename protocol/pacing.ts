/**
 * How far the server's pacing loop may catch up in one tick. The server paces by it
 * (server/pacer.ts) and the driver judges a point by it (results/summarise.ts: a server
 * further behind than one burst per connection did not keep its schedule), so it lives here.
 */

/** How much schedule one tick may catch up on: about 4 ms of batches, never fewer than 4. */
export const CATCH_UP_MS = 4;

/** Batches one tick may send one connection at this interval. */
export function maxBurst(intervalMs: number): number {
  return Math.max(4, Math.ceil(CATCH_UP_MS / intervalMs));
}
