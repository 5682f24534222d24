/** `ws-h2`: a WebSocket over HTTP/2 (RFC 8441), on the connect origin. */
import { reconnecting, type OpenConnection } from './connection.js';
import { wsAttempt } from './ws.js';

let connectWarm: Promise<void> | null = null;

/**
 * Chrome runs a WebSocket over HTTP/2 only on an HTTP/2 connection it already has to that
 * origin (one whose SETTINGS allowed extended CONNECT): one credentialed request opens it, in
 * the same connection pool the WebSocket uses.
 */
function warmConnectOrigin(base: string): Promise<void> {
  connectWarm ??= fetch(base, { credentials: 'include', cache: 'no-store' }).then(
    () => undefined,
    (err: unknown) => {
      connectWarm = null;
      throw new Error(`could not reach the connect origin ${base}: ${err instanceof Error ? err.message : String(err)}`);
    },
  );
  return connectWarm;
}

export const openWsH2: OpenConnection = (r) =>
  reconnecting(
    r.name,
    r.handlers,
    wsAttempt(r.url, r.handlers, (u) => warmConnectOrigin(new URL('/', u).href)),
  );
