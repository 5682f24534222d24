/** `ws`: a WebSocket over an HTTP/1.1 upgrade, reconnecting with backoff (ws-h2.ts opens the same way). */
import { reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** The wss:// (or ws://) URL of an http(s) URL. */
export function wsUrl(href: string): string {
  const url = new URL(href, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

export function wsAttempt(url: Promise<string>, h: ConnectionHandlers, before?: (url: string) => Promise<void>): Attempt {
  return (up, down) => {
    let ws: WebSocket | null = null;
    let cancelled = false;
    url
      .then(async (u) => {
        await before?.(u);
        // A decoder per attempt: each new socket is a new stream (Arrow's schema comes again).
        const decoder = await h.decoder();
        if (cancelled) return;
        ws = new WebSocket(wsUrl(u));
        // Binary frames come as bytes; text frames stay strings.
        ws.binaryType = 'arraybuffer';
        ws.onopen = up;
        ws.onclose = (e) => down(`closed${e.code ? ` (code ${e.code})` : ''}`);
        ws.onmessage = (e: MessageEvent<string | ArrayBuffer>) => decoder.message(e.data);
      })
      .catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
      ws?.close();
    };
  };
}

export const openWs: OpenConnection = (r) => reconnecting(r.name, r.handlers, wsAttempt(r.url, r.handlers));
