/** `ws`: a WebSocket over an HTTP/1.1 upgrade, reconnecting with backoff (ws-h2.ts opens the same way). */
import { decode } from '@msgpack/msgpack';
import type { BatchMessage, StreamParams } from '../../../protocol/wire.js';
import { decodeFramed, deliverArrow, loadArrow } from '../arrow-batch.js';
import { reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** The wss:// (or ws://) URL of an http(s) URL. */
export function wsUrl(href: string): string {
  const url = new URL(href, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/** A msgpack batch: its bytes, then the decoded message. */
function onMsgpack(h: ConnectionHandlers, bytes: Uint8Array): void {
  h.onBytes(bytes.byteLength);
  h.onBatch(decode(bytes) as BatchMessage);
}

export function wsAttempt(url: Promise<string>, params: StreamParams, h: ConnectionHandlers, before?: (url: string) => Promise<void>): Attempt {
  return (up, down) => {
    let ws: WebSocket | null = null;
    let cancelled = false;
    url
      .then(async (u) => {
        await before?.(u);
        // Arrow: a decoder per attempt, as each new socket is a new IPC stream with its own schema.
        const arrow = params.encoding === 'arrow' ? (await loadArrow())() : null;
        if (cancelled) return;
        ws = new WebSocket(wsUrl(u));
        // msgpack batches come as binary frames; JSON as text frames, which stay strings.
        ws.binaryType = 'arraybuffer';
        ws.onopen = up;
        ws.onclose = (e) => down(`closed${e.code ? ` (code ${e.code})` : ''}`);
        ws.onmessage = arrow
          ? (e: MessageEvent<ArrayBuffer>) => {
              h.onBytes(e.data.byteLength);
              deliverArrow(() => decodeFramed(arrow, new Uint8Array(e.data)), h.onArrow, h.onUndecodable);
            }
          : (e: MessageEvent<string | ArrayBuffer>) => (typeof e.data === 'string' ? h.onMessage(e.data) : onMsgpack(h, new Uint8Array(e.data)));
      })
      .catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
      ws?.close();
    };
  };
}

export const openWs: OpenConnection = (r) => reconnecting(r.name, r.handlers, wsAttempt(r.url, r.params, r.handlers));
