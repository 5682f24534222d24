/**
 * What a transport is given and what a connect-origin transport provides: apart from the index
 * that lists the transports, so a transport file imports these without importing the list.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Hub } from '../hub.js';
import type { Heartbeat } from '../liveness.js';
import type { SseWriter } from '../defaults.js';

/** What every transport is given; each takes the part it needs. */
export interface TransportDeps {
  hub: Hub;
  /** Finds dead peers (liveness.ts). */
  heartbeat: Heartbeat;
  /** How SSE batches are written (sse.ts). */
  sseWriter: SseWriter;
}

/** What the connect origin (origins.ts) calls with an extended CONNECT stream of one `:protocol`. */
export type ConnectHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void;

/** Extended CONNECT streams (RFC 8441) of one `:protocol`, on the connect origin (origins.ts). */
export interface ConnectTransport {
  protocol: string;
  open(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, deps: TransportDeps): void;
}
