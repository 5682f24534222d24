/**
 * `GET /sse`: one EventSource stream per connection (HTTP/2 in Chrome, since the page is
 * served over TLS with h2), one event per batch with `id:` set to the seq.
 *
 * better-sse owns the session: response head, retry hint, keep-alive comments,
 * Last-Event-ID and disconnect detection. Batches bypass its serialiser: the event is
 * written as pre-encoded bytes (`id: n\ndata: {head`, the shared rows, `]}\n\n`) to the
 * same stream the session writes to, corked into one writev, so the rows are never copied
 * or re-encoded in JavaScript.
 */
import { createSession } from 'better-sse';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import { MESSAGE_TAIL, messageHead } from '../protocol/wire.js';
import type { Hub, Sink } from './hub.js';
import { validateStreamQuery } from './params.js';

const TAIL = Buffer.from(`${MESSAGE_TAIL}\n\n`, 'latin1');

class SseSink implements Sink {
  readonly transport = 'sse' as const;
  constructor(
    readonly http: string,
    private readonly out: Writable,
    /** Ends the stream without waiting for the client to read what is queued. */
    readonly close: () => void,
  ) {}

  bufferedBytes(): number {
    // Includes writes handed to nghttp2 but not yet sent (their callbacks are pending), which
    // is where data waits when the client's flow-control window is closed.
    return this.out.writableLength;
  }

  write(seq: number, sentAt: number, rows: Buffer): number {
    const head = `id: ${seq}\ndata: ${messageHead(seq, sentAt)}`;
    this.out.cork();
    this.out.write(head, 'latin1');
    this.out.write(rows);
    this.out.write(TAIL);
    this.out.uncork();
    return head.length + rows.length + TAIL.length;
  }
}

/** The seq to continue from after an EventSource reconnect (its Last-Event-ID). */
function resumeSeq(lastId: string): number {
  const n = Number(lastId);
  return lastId !== '' && Number.isInteger(n) && n >= 0 ? n + 1 : 0;
}

export default fp<{ hub: Hub }>(
  async function sseTransport(app: FastifyInstance, { hub }) {
    app.get('/sse', { preValidation: validateStreamQuery }, async (request, reply) => {
      reply.hijack();
      const res = reply.raw as ServerResponse | Http2ServerResponse;
      const h2 = 'stream' in res;
      const session = await createSession(request.raw, res as ServerResponse, {
        // HTTP/2 forbids connection-specific headers; Node warns and drops them.
        headers: h2 ? { Connection: undefined } : {},
        keepAlive: 10_000,
      });
      const out: Writable = h2 ? (res as Http2ServerResponse).stream : (res as ServerResponse);
      const close = h2 ? () => (res as Http2ServerResponse).stream.close(http2.constants.NGHTTP2_CANCEL) : () => (res as ServerResponse).destroy();
      const stream = hub.open(new SseSink(h2 ? 'h2' : 'h1', out, close), request.stream, resumeSeq(session.lastId));
      session.once('disconnected', stream.close);
    });
  },
  { name: 'pushlab-sse' },
);
