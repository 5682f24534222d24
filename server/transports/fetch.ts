/**
 * `GET /ndjson`: the `fetch` transport. One response per connection that never ends, read by the
 * page with `fetch()` and `response.body.getReader()`: one JSON document per line per batch
 * (NDJSON), or another encoding's messages back to back (each says where it ends). No event
 * framing and no ids: the cheapest thing a browser can stream over HTTP, and what EventSource
 * adds is measured against it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import type { Hub, Sink } from '../hub.js';
import { watchHttp2Session, type Heartbeat } from '../liveness.js';
import { validateStreamQuery, withCompressionOf, withStreamReady } from '../params.js';
import { GZIP_HEADER, MessageCompressor } from '../compress.js';
import type { RowPool } from '../rows.js';
import { socketId } from '../sockets.js';
import { writeMessage } from '../write-message.js';
import { streamEncoder, type SendMessage, type StreamEncoder } from '../codecs/index.js';

/** Where a response's bytes go: the HTTP/2 stream, or the HTTP/1.1 response. */
export interface ResponseOut {
  out: Writable;
  http: 'h1' | 'h2';
  socket: number;
  isGone(): boolean;
  close(): void;
  h2session: http2.Http2Session | undefined;
}

/** The writable side of a hijacked response, and how to tell that its connection is gone. */
export function responseOut(res: ServerResponse | Http2ServerResponse): ResponseOut {
  if ('stream' in res) {
    const s = res.stream;
    return {
      out: s,
      http: 'h2',
      socket: socketId(s.session?.socket),
      isGone: () => s.destroyed || s.closed || s.session === undefined || s.session.destroyed || s.session.socket?.destroyed !== false,
      close: () => s.close(http2.constants.NGHTTP2_CANCEL),
      h2session: s.session,
    };
  }
  return {
    out: res,
    http: 'h1',
    socket: socketId(res.socket),
    isGone: () => res.destroyed || res.socket?.destroyed !== false,
    close: () => res.destroy(),
    h2session: undefined,
  };
}

class NdjsonSink implements Sink {
  readonly transport = 'fetch' as const;
  readonly http: string;
  readonly socket: number;
  readonly close: () => void;
  readonly isGone: () => boolean;

  private readonly send: SendMessage;

  constructor(
    private readonly o: ResponseOut,
    /** The stream's encoder (codecs/), for a byte stream: its messages say where they end. */
    private readonly encoder: StreamEncoder,
    /** Set for `compression=gzip`: every batch is written compressed (compress.ts). */
    readonly compressor: MessageCompressor | null,
  ) {
    this.http = o.http;
    this.socket = o.socket;
    this.close = o.close;
    this.isGone = o.isGone;
    this.send = (head, body, tail) => writeMessage(o.out, head, body, tail, undefined, compressor);
  }

  bufferedBytes(): number {
    return this.o.out.writableLength;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    // A destroyed stream keeps its writableLength: without this it would be shed for good.
    if (this.o.out.destroyed) throw new Error('NDJSON response destroyed');
    return this.encoder.write(seq, sentAt, dueAt, pool, batch, this.send);
  }
}

export default fp<{ hub: Hub; heartbeat: Heartbeat }>(
  async function ndjsonTransport(app: FastifyInstance, { hub, heartbeat }) {
    app.get('/ndjson', { preValidation: withStreamReady(hub, withCompressionOf('fetch', validateStreamQuery)) }, async (request, reply) => {
      reply.hijack();
      const res = reply.raw as ServerResponse | Http2ServerResponse;
      const o = responseOut(res);
      // no-transform: a proxy that buffers to compress would hold the stream back.
      const encoder = streamEncoder(request.stream, 'stream');
      const gzip = request.stream.compression === 'gzip';
      res.writeHead(200, {
        'content-type': encoder.info.contentType,
        'cache-control': 'no-store, no-transform',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      if (gzip) o.out.write(GZIP_HEADER);
      if (o.isGone()) return;
      const stream = hub.open(new NdjsonSink(o, encoder, gzip ? new MessageCompressor('gzip') : null), request.stream);
      o.out.once('close', stream.close);
      o.out.once('error', stream.close);
      if (o.h2session) watchHttp2Session(o.h2session, heartbeat);
    });
  },
  { name: 'pushlab-ndjson' },
);
