/**
 * How the page opens each transport: a Record<Transport, …>, so a transport the page cannot open
 * is a compile error. What each one is: TRANSPORT_INFO in protocol/wire.ts.
 */
import { streamPath, TRANSPORT_INFO, type StreamParams, type Transport } from '../../../protocol/wire.js';
import { originBase, type Connection, type ConnectionHandlers, type OpenConnection, type TransportOptions } from './connection.js';
import { openFetch } from './fetch.js';
import { openGrpcWeb } from './grpc-web.js';
import { openPoll } from './poll.js';
import { openSse } from './sse.js';
import { openWsH2 } from './ws-h2.js';
import { openWsStream } from './ws-stream.js';
import { openWs } from './ws.js';

export type { Connection, ConnectionHandlers, TransportOptions } from './connection.js';
export { wsUrl } from './ws.js';

export const PAGE_TRANSPORTS: Record<Transport, OpenConnection> = {
  ws: openWs,
  'ws-h2': openWsH2,
  'ws-stream': openWsStream,
  sse: openSse,
  // EventSource like `sse`, on the h1 origin (TRANSPORT_INFO['sse-h1'].origin).
  'sse-h1': openSse,
  fetch: openFetch,
  'grpc-web': openGrpcWeb,
  poll: openPoll,
};

/** Opens connection number `index` of a page (its origin depends on it: TransportOptions.origins). */
export function openConnection(transport: Transport, params: StreamParams, handlers: ConnectionHandlers, options: TransportOptions, index: number): Connection {
  const info = TRANSPORT_INFO[transport];
  const path = streamPath(transport, params);
  const base = originBase(info.origin, info.origin === 'main' ? index % options.origins : 0);
  // Nobody may be awaiting `base` yet; its failure is reported through `opened`.
  base.catch(() => undefined);
  const url = base.then((b) => new URL(path, b).href);
  // Nobody may be awaiting `url` yet; its failure is reported through `opened`.
  url.catch(() => undefined);
  return PAGE_TRANSPORTS[transport]({ url, base, name: `${info.label} ${path}`, params, handlers, options });
}

/**
 * Opens the page's connections numbered `indexes` (this Worker's share, or all of them), pushing
 * each onto `into` as it starts; resolves once every one is open, rejects when one fails first.
 * A transport with `openAtOnce` keeps that many opening at a time, split over the `sharers`
 * Workers of one page (they share its renderer, and so Chrome's WebSocket throttle:
 * protocol/wire.ts WEBSOCKET_OPEN_AT_ONCE); once `signal` aborts (the page stopped), no further
 * one starts.
 */
export async function openConnections(
  transport: Transport,
  params: StreamParams,
  handlers: (local: number) => ConnectionHandlers,
  options: TransportOptions,
  indexes: readonly number[],
  into: Connection[],
  o: { sharers?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const atOnce = TRANSPORT_INFO[transport].openAtOnce;
  const lanes = atOnce === undefined ? indexes.length : Math.max(1, Math.floor(atOnce / (o.sharers ?? 1)));
  let next = 0;
  const lane = async () => {
    while (next < indexes.length && !o.signal?.aborted) {
      const local = next++;
      const conn = openConnection(transport, params, handlers(local), options, indexes[local]);
      into.push(conn);
      await conn.opened;
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, indexes.length) }, lane));
}
