/**
 * How the server serves each transport (protocol/wire.ts TRANSPORT_INFO says what each is). A
 * Record<Transport, …>, so a transport the server does not serve is a compile error, not a 404
 * found by a sweep; app.ts registers what it names and nothing else.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { Transport } from '../../protocol/wire.js';
import fetchTransport from './fetch.js';
import grpcWebTransport from './grpc-web.js';
import pollTransport from './poll.js';
import sseTransport from './sse.js';
import type { ConnectHandler, ConnectTransport, TransportDeps } from './deps.js';
import { wsOverHttp2 } from './ws-h2.js';
import wsTransport from './ws.js';

export type ServerTransport =
  /**
   * Routes of the main app, which the h1 origin and the main origin's replicas route into too, so
   * one plugin serves its path on every origin but `connect`.
   */
  | { routes: FastifyPluginCallback<TransportDeps> }
  /** For the transports on the connect origin, which routes nothing into the app. */
  | { connect: ConnectTransport };

export const SERVER_TRANSPORTS: Record<Transport, ServerTransport> = {
  ws: { routes: wsTransport },
  'ws-h2': { connect: wsOverHttp2 },
  // The same `/ws`: a WebSocketStream is a WebSocket on the wire (TRANSPORT_INFO['ws-stream']), so
  // the server cannot tell the two apart, and its streams show as `ws` in /stats.
  'ws-stream': { routes: wsTransport },
  sse: { routes: sseTransport },
  // The same `/sse`, reached on the h1 origin (TRANSPORT_INFO['sse-h1'].origin).
  'sse-h1': { routes: sseTransport },
  fetch: { routes: fetchTransport },
  'grpc-web': { routes: grpcWebTransport },
  poll: { routes: pollTransport },
};

/**
 * The app's route plugins, each once: several transports may share one (`sse` and `sse-h1`), and
 * registering a plugin twice would declare its routes twice.
 */
export function routePlugins(): FastifyPluginCallback<TransportDeps>[] {
  return [...new Set(Object.values(SERVER_TRANSPORTS).flatMap((s) => ('routes' in s ? [s.routes] : [])))];
}

/** The connect origin's handlers by `:protocol`. */
export function connectHandlers(deps: TransportDeps): Map<string, ConnectHandler> {
  const handlers = new Map<string, ConnectHandler>();
  for (const s of Object.values(SERVER_TRANSPORTS)) {
    if ('connect' in s) handlers.set(s.connect.protocol, (stream, headers) => s.connect.open(stream, headers, deps));
  }
  return handlers;
}
