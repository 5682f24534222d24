/**
 * `ws-stream`: the `ws` endpoint opened with WebSocketStream (Chrome 124+) instead of WebSocket.
 * The wire is the same RFC 6455 socket; what differs is who decides when a message is taken. A
 * WebSocket hands every message to an event the page must take whenever it arrives; here the
 * page's read loop pulls the next message only once it has decoded the last, and while it does
 * not pull, Chrome stops reading the socket: TCP's window closes and the backlog waits on the
 * server (its send bound, where shedding is counted), not in the tab.
 */
import { reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';
import { wsUrl } from './ws.js';

/**
 * What the page uses of WebSocketStream (WHATWG's WebSockets standard; TypeScript's DOM
 * library has no type for it yet). A text message is read as a string, a binary one as an
 * ArrayBuffer in Chrome (the explainer's; a Uint8Array is taken too).
 */
interface WebSocketStreamLike {
  readonly opened: Promise<{ readable: ReadableStream<string | ArrayBuffer | Uint8Array>; extensions: string }>;
  readonly closed: Promise<{ closeCode?: number; reason?: string }>;
  close(info?: { closeCode?: number; reason?: string }): void;
}
type WebSocketStreamConstructor = new (url: string) => WebSocketStreamLike;

/** Why a page without the API cannot open this transport: said once the first connection fails, so the point fails naming it. */
export const NO_WEBSOCKETSTREAM =
  'this browser has no WebSocketStream (Chrome and Edge have it from version 124; Firefox and Safari do not), so it cannot open ws-stream; measure ws instead';

/** The page's WebSocketStream, or null where the browser has none (Firefox, Safari, Chrome before 124). */
function webSocketStream(): WebSocketStreamConstructor | null {
  return (globalThis as { WebSocketStream?: WebSocketStreamConstructor }).WebSocketStream ?? null;
}

/**
 * A message as the codecs take it: a string, or an ArrayBuffer (what a WebSocket with binaryType
 * 'arraybuffer' gives, and Chrome's WebSocketStream too). A view is taken as its own buffer when
 * it covers it all, else copied.
 */
function messageOf(value: string | ArrayBuffer | Uint8Array): string | ArrayBuffer {
  if (typeof value === 'string' || value instanceof ArrayBuffer) return value;
  const whole = value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer;
  return whole ? (value.buffer as ArrayBuffer) : (value.slice().buffer as ArrayBuffer);
}

function wsStreamAttempt(url: Promise<string>, h: ConnectionHandlers): Attempt {
  return (up, down) => {
    let socket: WebSocketStreamLike | null = null;
    let cancelled = false;
    const read = async () => {
      const Api = webSocketStream();
      if (Api === null) return down(NO_WEBSOCKETSTREAM);
      const u = await url;
      // A decoder per attempt: each new socket is a new stream (Arrow's schema comes again).
      const decoder = await h.decoder();
      if (cancelled) return;
      socket = new Api(wsUrl(u));
      const { readable } = await socket.opened;
      up();
      const reader = readable.getReader();
      // The backpressure is here: the next read is asked for only after this message is decoded
      // and counted, and Chrome reads the socket only as far as the stream's small queue allows.
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        decoder.message(messageOf(value));
      }
      const closed = await socket.closed;
      down(`closed${closed.closeCode ? ` (code ${closed.closeCode})` : ''}`);
    };
    read().catch((err: unknown) => down(err instanceof Error && err.message ? err.message : `closed (${String(err)})`));
    return () => {
      cancelled = true;
      socket?.close();
    };
  };
}

export const openWsStream: OpenConnection = (r) => reconnecting(r.name, r.handlers, wsStreamAttempt(r.url, r.handlers));
