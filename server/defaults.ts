/** The server's defaults: buildServer (tests, benches) and `npm run server`'s flags both take them from here. */
import type { ClockKind } from './clock.js';
import type { SseWriter } from './transports/sse.js';

export const MIB = 1024 * 1024;

/**
 * Options every HTTP/2 listener shares (the main origin, the connect origin, the replicas):
 * - noDelay: net.Server leaves Nagle on, which may hold a small event back until the last one
 *   is ACKed; ws turns it off on its sockets, so HTTP/2 streams are sent the same way. (The
 *   extra latency SSE shows in Chrome over HTTP/2 is not this: a Node HTTP/2 client reads the
 *   same events at p50 0.15 ms either way, and Chrome over HTTP/1.1 at 0.3–0.4 ms.)
 * - maxSessionMemory: many streams share one session; when the client lags, Node refuses every
 *   new stream on it past the 10 MB default (a lagging `ws-h2` point left Chrome's pooled
 *   session to the connect origin refusing the next pages' requests: "Failed to fetch").
 *   Memory is bounded per stream by shedding instead.
 */
export const H2_LISTENER_OPTIONS = { noDelay: true, maxSessionMemory: 1024 } as const;

export const SERVER_DEFAULTS: { sendBufferLimitBytes: number; clock: ClockKind; sseWriter: SseWriter; maxStreamsPerSession: number } = {
  /** Shed batches for a client once this much is queued for it. */
  sendBufferLimitBytes: 4 * MIB,
  /** Node timers: the cheaper wake-up (see clock.ts). */
  clock: 'timer',
  /** Pre-encoded bytes measured fastest (see transports/sse.ts). */
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

/**
 * zlib level of the `compression` factor (permessage-deflate and gzip): 1, the fastest, as
 * nginx's `gzip_comp_level` default. Every message is compressed on its own (see compress.ts),
 * so the level buys little ratio here and costs the server per batch.
 */
export const COMPRESSION_LEVEL = 1;
