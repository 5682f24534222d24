/** When the page's WebSocket tries again (transports/); no DOM, so tests import it. */

/**
 * WebSocket reconnect backoff: 100 ms, doubling to at most 5 s, reset by a successful open;
 * given up after `maxAttempts` failed attempts in a row (about 1.5 minutes).
 */
export const WS_BACKOFF = { firstMs: 100, maxMs: 5000, maxAttempts: 20 } as const;

/** The delay before reconnect attempt `attempt` (0-based) of a run of failures. */
export function wsBackoffMs(attempt: number): number {
  return Math.min(WS_BACKOFF.maxMs, WS_BACKOFF.firstMs * 2 ** attempt);
}
