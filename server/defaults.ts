/** The server's defaults: buildServer (tests, benches) and `npm run server`'s flags both take them from here. */
import type { ClockKind } from './clock.js';

export const MIB = 1024 * 1024;

/**
 * How the SSE transport writes a batch (transports/sse.ts says how each works). Here, beside the
 * default, so that the defaults, the flags and the transport all read it from one file that
 * imports no transport.
 */
export const SSE_WRITERS = ['bytes', 'push', 'batch'] as const;
export type SseWriter = (typeof SSE_WRITERS)[number];

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

export const SERVER_DEFAULTS: {
  sendBufferLimitBytes: number;
  connectionBufferLimitBytes: number;
  processBufferLimitBytes: number;
  pollWaitBytes: number;
  clock: ClockKind;
  sseWriter: SseWriter;
  maxStreamsPerSession: number;
} = {
  /**
   * Shed batches for a client once this much is queued for it. 1 MiB, as the plain reference
   * server (bench/plain-server.ts): the queue fills only once Chrome's own buffers are full (its
   * receive window and the kernel's, 3–4 MB per socket here), so the server's share is only
   * latency at saturation, and at 4 MiB it also cost SSE about a fifth of its EPS (docs/limits.md,
   * issue 37). At rates a page sustains, 1 MiB shed nothing where 4 MiB did not.
   */
  sendBufferLimitBytes: 1 * MIB,
  /**
   * Shed batches for every stream of one TCP connection (an HTTP/2 session's streams, a
   * WebSocket's socket) once this much is queued on it in all: 32 streams at poll's bound
   * (pollWaitBytes), 128 at the per-stream one. A page that keeps up holds a message or two per stream (at most about 2 MB at batch
   * 10,000), so the heaviest lab page on one session (30 connections of scenarios.json's
   * headline-connections) stays under it even with every stream a whole message behind; only a
   * page already shedding per stream reaches it. At the largest batch (100,000 rows, about 13 MB
   * of JSON a message) nine streams on one session each a whole message behind reach it, which is
   * more than the advisor's 8 connections a message each; a page that far behind is not
   * sustaining anyway. Without it, 250 zero-window streams on one connection held 1.4 GB (issue 31).
   */
  connectionBufferLimitBytes: 128 * MIB,
  /**
   * Shed batches for every stream once this much is queued in the whole server: the
   * connection bound of 4 connections. Many connections that each stay under their own bound
   * must not add up to the machine's memory; past it every stream with more queued sheds.
   */
  processBufferLimitBytes: 512 * MIB,
  /**
   * What a `poll` stream may hold between two polls before its batches are shed, when that is
   * more than the send bound: it holds everything that falls due between polls by design, and at
   * the page's 50 ms a 400-row stream gathers about 2.7 MB.
   */
  pollWaitBytes: 4 * MIB,
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

/**
 * The Arrow batches the server keeps encoded (server/arrow.ts), a least-recently-used cache of
 * batch sizes: every size in use costs its rows once more (300,000 rows at about 51 bytes, at
 * batch 100,000 as at 400: protocol/arrow.ts arrowTiling) and 720 bytes per record batch, 15 MB
 * at batch 400 and 100,000 and 28 MB at the smallest Arrow batch (16, protocol/wire.ts
 * ARROW_BATCH). A sweep or advise probe uses one size at a time, and scenarios.json three in all
 * (400, 4,000, 10,000); an advise headroom search a few more, one after another.
 * - maxSizes: 4 sizes, the lab's three and one more.
 * - maxBytes: 4 of the largest (28 MB each, 114 MB) fit; a fifth size evicts the least recently
 *   used size that no stream uses. When every held size is in use (or was used in the last
 *   pinMs), a new size is refused with a 503 rather than grow past the budget.
 * - pinMs: a size asked for this recently is not evicted, so the stream that waited for it
 *   starts (a WebSocket upgrades between the build and its first batch). Short, so a sweep
 *   that measures the parse ceilings of five Arrow sizes one after another (a second or more
 *   each) evicts the oldest instead of being refused.
 * - sliceMs: the build runs on the event loop in slices of this long, each followed by a
 *   setImmediate, so other streams' ticks wait at most about this long (a whole build took the
 *   loop for 31 s at batch 1 and 1-4 s at other sizes). The pool's Arrow table, built once
 *   before the first size (about 15 MB, kept), is built the same way.
 */
export const ARROW_CACHE = { maxSizes: 4, maxBytes: 128 * MIB, pinMs: 2000, sliceMs: 8 } as const;
