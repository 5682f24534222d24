/**
 * The two push transports behind one shape: open N connections, call `onMessage` with
 * the raw text of each message. Parsing and counting are the caller's, so both transports
 * cost the page exactly the same above the browser's own transport work.
 */
import { streamPath, type StreamParams, type Transport } from '../../protocol/wire.js';
import { WS_BACKOFF, wsBackoffMs } from './backoff.js';

export interface Connection {
  /** Resolves when the connection is open; rejects if it fails first. */
  readonly opened: Promise<void>;
  readonly isOpen: () => boolean;
  close(): void;
}

export interface ConnectionHandlers {
  onMessage(data: string): void;
  /**
   * The connection was re-established after it had been open. `seqRestarts`: the new stream
   * counts seq from 0 again (a new WebSocket), so the page must not read that as duplicates;
   * EventSource resumes after its Last-Event-ID instead, so its seq carries on.
   */
  onReconnect(seqRestarts: boolean): void;
}

/** The wss:// (or ws://) URL of a stream path on this page's origin. */
export function wsUrl(path: string): string {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * A WebSocket that reconnects by itself once it has been open, with bounded exponential
 * backoff (EventSource does this natively; a WebSocket does not). The first open is not
 * retried: a point that cannot connect should fail, not wait.
 */
function openWs(path: string, h: ConnectionHandlers): Connection {
  let open = false;
  let everOpened = false;
  let stopped = false;
  let failures = 0;
  let ws: WebSocket;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let settle: { resolve: () => void; reject: (err: Error) => void };
  const opened = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const connect = () => {
    ws = new WebSocket(wsUrl(path));
    ws.onopen = () => {
      open = true;
      failures = 0;
      if (everOpened) h.onReconnect(true);
      everOpened = true;
      settle.resolve();
    };
    ws.onclose = (e) => {
      open = false;
      if (stopped) return;
      if (!everOpened) return settle.reject(new Error(`WebSocket ${path} closed before opening (code ${e.code})`));
      if (failures >= WS_BACKOFF.maxAttempts) return;
      retry = setTimeout(connect, wsBackoffMs(failures++));
    };
    ws.onmessage = (e: MessageEvent<string>) => h.onMessage(e.data);
  };
  connect();
  return {
    opened,
    isOpen: () => open,
    close: () => {
      stopped = true;
      clearTimeout(retry);
      ws.close();
    },
  };
}

function openSse(path: string, h: ConnectionHandlers): Connection {
  const es = new EventSource(path);
  let open = false;
  let everOpened = false;
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => {
      if (everOpened) h.onReconnect(false);
      open = everOpened = true;
      resolve();
    };
    es.onerror = () => {
      open = false;
      // CLOSED means the browser gave up (e.g. a 400); CONNECTING means it will retry.
      if (es.readyState === EventSource.CLOSED) reject(new Error(`EventSource ${path} failed to open`));
    };
  });
  es.onmessage = (e: MessageEvent<string>) => h.onMessage(e.data);
  return { opened, isOpen: () => open, close: () => es.close() };
}

export function openConnection(transport: Transport, params: StreamParams, h: ConnectionHandlers): Connection {
  const path = streamPath(transport, params);
  return transport === 'ws' ? openWs(path, h) : openSse(path, h);
}
