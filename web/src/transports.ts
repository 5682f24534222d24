/**
 * The two push transports behind one shape: open N connections, call `onMessage` with
 * the raw text of each message. Parsing and counting are the caller's, so both transports
 * cost the page exactly the same above the browser's own transport work.
 */
import { streamPath, type StreamParams, type Transport } from '../../protocol/wire.js';

export interface Connection {
  /** Resolves when the connection is open; rejects if it fails first. */
  readonly opened: Promise<void>;
  readonly isOpen: () => boolean;
  close(): void;
}

export interface ConnectionHandlers {
  onMessage(data: string): void;
  /** The transport reconnected by itself (EventSource does, with Last-Event-ID). */
  onReconnect(): void;
}

/** The wss:// (or ws://) URL of a stream path on this page's origin. */
export function wsUrl(path: string): string {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

function openWs(path: string, h: ConnectionHandlers): Connection {
  const ws = new WebSocket(wsUrl(path));
  let open = false;
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => {
      open = true;
      resolve();
    };
    ws.onclose = (e) => {
      open = false;
      reject(new Error(`WebSocket ${path} closed before opening (code ${e.code})`));
    };
  });
  ws.onmessage = (e: MessageEvent<string>) => h.onMessage(e.data);
  return { opened, isOpen: () => open, close: () => ws.close() };
}

function openSse(path: string, h: ConnectionHandlers): Connection {
  const es = new EventSource(path);
  let open = false;
  let everOpened = false;
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => {
      if (everOpened) h.onReconnect();
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
