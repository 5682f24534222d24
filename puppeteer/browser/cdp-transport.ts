/**
 * The WebSocket a remote browser (`--browser`) is driven over, in place of Puppeteer's own.
 * Puppeteer's transport hands every message to a JSON.parse nothing catches, so an endpoint
 * that answers with anything but CDP (an echo server, a proxy's HTML, a WebDriver BiDi
 * browser) crashed the sweep with an uncaught SyntaxError; and its connect error is ws's event
 * object, which printed as "[object Object]". Here each message is checked before Puppeteer
 * sees it (one that is not CDP closes the connection, with the reason kept in `problem`), and a
 * failed connect says why in words.
 */
import type { ConnectionTransport } from 'puppeteer-core';
import WebSocket from 'ws';
import { connectFailureText } from './endpoint.js';

/** The largest message taken, as Puppeteer's own transport (a screenshot can be large). */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** What notCdpBecause says of a WebDriver BiDi endpoint (remote.ts then connects over BiDi: a Firefox). */
export const SPEAKS_BIDI = 'it speaks WebDriver BiDi (a Firefox), not CDP';

/** Why `text` is not a CDP message, or null when it is one: a response (`id` with `result` or `error`) or an event (`method`). */
export function notCdpBecause(text: string): string | null {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return `it sent '${quoteStart(text)}', which is not JSON`;
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return `it sent '${quoteStart(text)}', which is not a CDP message`;
  const o = m as Record<string, unknown>;
  // WebDriver BiDi's messages carry a `type`; CDP's never do.
  if (o.type === 'success' || o.type === 'error' || o.type === 'event') return SPEAKS_BIDI;
  if (typeof o.method === 'string') return null;
  if (typeof o.id === 'number' && ('result' in o || 'error' in o)) return null;
  return `it sent '${quoteStart(text)}', which is not a CDP message`;
}

/** The start of a message, printable and short, for an error line. */
function quoteStart(text: string): string {
  const printable = text.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');
  return text.length > 60 ? `${printable}…` : printable;
}

export class CdpTransport implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  /** Why the connection was dropped from this side: what the endpoint sent was not CDP. Null while all was. */
  problem: string | null = null;
  /** The endpoint answered in WebDriver BiDi: a Firefox, which remote.ts drives over BiDi instead. */
  speaksBidi = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly cdpOnly: boolean,
  ) {
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (this.problem !== null) return;
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data).toString('utf8');
      const why = isBinary ? 'it sent a binary message, and CDP messages are text' : this.cdpOnly ? notCdpBecause(text) : null;
      if (why !== null) {
        this.speaksBidi = why === SPEAKS_BIDI;
        this.problem = `not a Chrome DevTools (CDP) endpoint: ${why}`;
        ws.terminate();
        return;
      }
      this.onmessage?.(text);
    });
    ws.on('close', () => this.onclose?.());
    // After the connection opened, an error is followed by 'close', which is what Puppeteer hears.
    ws.on('error', () => undefined);
  }

  /**
   * Opens the WebSocket; rejects with the cause in words (certificate, refused, HTTP answer,
   * timeout). `cdpOnly` false: a WebDriver BiDi connection (a Firefox), whose messages Puppeteer's
   * BiDi layer reads; it is ours so that a connect that never finishes can be closed.
   */
  static open(url: string, timeoutMs: number, cdpOnly = true): Promise<CdpTransport> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, [], {
        followRedirects: true,
        perMessageDeflate: false,
        // As Puppeteer's transport: each message in its own task, as a browser delivers them.
        allowSynchronousEvents: false,
        maxPayload: MAX_MESSAGE_BYTES,
        handshakeTimeout: timeoutMs,
      });
      const fail = (why: string) => {
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(new Error(why));
      };
      ws.once('open', () => {
        ws.removeAllListeners();
        resolve(new CdpTransport(ws, cdpOnly));
      });
      ws.once('unexpected-response', (_req, res) =>
        fail(`it answered HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''} instead of opening a WebSocket`),
      );
      ws.once('error', (err) => fail(connectFailureText(err)));
    });
  }

  send(message: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(message);
  }

  close(): void {
    this.ws.close();
  }
}
