/** The server's defaults: buildServer (tests, benches) and `npm run server`'s flags both take them from here. */
import type { ClockKind } from './clock.js';
import type { SseWriter } from './sse.js';

export const MIB = 1024 * 1024;

export const SERVER_DEFAULTS: { sendBufferLimitBytes: number; clock: ClockKind; sseWriter: SseWriter; maxStreamsPerSession: number } = {
  /** Shed batches for a client once this much is queued for it. */
  sendBufferLimitBytes: 4 * MIB,
  /** Node timers: the cheaper wake-up (see clock.ts). */
  clock: 'timer',
  /** Pre-encoded bytes measured fastest (see sse.ts). */
  sseWriter: 'bytes',
  /**
   * Streams one HTTP/2 session serves before the server asks the client (graceful GOAWAY) to
   * open a new connection for further requests, as nginx's keepalive_requests does. Chrome
   * keeps one session per origin for a whole sweep; in a 14-minute timeplus run that session
   * ended up refusing every new request (ERR_HTTP2_PROTOCOL_ERROR on each page load of the
   * last round), so no per-session state may live that long. Streams already open go on.
   */
  maxStreamsPerSession: 1000,
};
