/**
 * `sse` and `sse-h1`: EventSource, which reconnects by itself and resumes after its
 * Last-Event-ID; the two differ only in their origin (TRANSPORT_INFO).
 */
import type { Connection, ConnectionHandlers, OpenConnection } from './connection.js';

function eventSource(url: Promise<string>, name: string, h: ConnectionHandlers): Connection {
  let es: EventSource | null = null;
  let closed = false;
  let open = false;
  let everOpened = false;
  const opened = Promise.all([url, h.decoder()]).then(
    ([u, decoder]) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error(`${name}: closed before opening`));
        const source = new EventSource(u);
        es = source;
        source.onopen = () => {
          if (everOpened) h.onReconnect(false);
          open = everOpened = true;
          resolve();
        };
        source.onerror = () => {
          if (open && !closed) h.onDown?.();
          open = false;
          // CLOSED means the browser gave up (e.g. a 400); CONNECTING means it will retry.
          if (source.readyState === EventSource.CLOSED) reject(new Error(`${name} failed to open`));
        };
        source.onmessage = (e: MessageEvent<string>) => decoder.message(e.data);
      }),
  );
  return {
    opened,
    isOpen: () => open,
    close: () => {
      closed = true;
      es?.close();
    },
  };
}

export const openSse: OpenConnection = (r) => eventSource(r.url, r.name, r.handlers);
