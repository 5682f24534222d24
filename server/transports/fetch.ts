/**
 * `GET /ndjson`: the `fetch` transport. One response per connection that never ends, one JSON
 * document per line per batch (NDJSON), read by the page with `fetch()` and
 * `response.body.getReader()`. No event framing and no ids: the cheapest thing a browser can
 * stream over HTTP, and what EventSource adds is measured against it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import { MESSAGE_TAIL, messageHead, type BinaryEncoding, type Encoding } from '../../protocol/wire.js';
import type { Hub, Sink } from '../hub.js';
import { watchHttp2Session, type Heartbeat } from '../liveness.js';
import { validateStreamQuery, withCompressionOf, withStreamReady } from '../params.js';
import { GZIP_HEADER, MessageCompressor } from '../compress.js';
import type { RowPool } from '../rows.js';
import { socketId } from '../sockets.js';
import { msgpackHead, msgpackRows } from '../msgpack.js';
import { ArrowStream } from '../arrow.js';
import { writeMessage } from '../write-message.js';

const TAIL = Buffer.from(`${MESSAGE_TAIL}\n`, 'latin1');
const NO_TAIL = Buffer.alloc(0);
/** Arrow's is pushlab's own framing of IPC messages (protocol/arrow.ts), not a bare IPC stream. */
const CONTENT_TYPES: Record<Encoding, string> = { json: 'application/x-ndjson', msgpack: 'application/vnd.msgpack', arrow: 'application/vnd.pushlab.arrow-frames' };

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

  constructor(
    private readonly o: ResponseOut,
    private readonly encoding: BinaryEncoding | undefined,
    /** Set for `compression=gzip`: every batch is written compressed (compress.ts). */
    readonly compressor: MessageCompressor | null,
  ) {
    this.http = o.http;
    this.socket = o.socket;
    this.close = o.close;
    this.isGone = o.isGone;
  }

  private readonly arrow = new ArrowStream();

  bufferedBytes(): number {
    return this.o.out.writableLength;
  }

  write(seq: number, sentAt: string, pool: RowPool, batch: number): number {
    // A destroyed stream keeps its writableLength: without this it would be shed for good.
    if (this.o.out.destroyed) throw new Error('NDJSON response destroyed');
    // MessagePack is self-delimiting: the batches follow one another with nothing between.
    if (this.encoding === 'msgpack') return writeMessage(this.o.out, msgpackHead(seq, Number(sentAt), batch), msgpackRows(pool, seq, batch), NO_TAIL, undefined, this.compressor);
    // Arrow: each head says how many IPC bytes follow it, so the page cuts the stream into messages.
    if (this.encoding === 'arrow') return this.arrow.write(seq, sentAt, pool, batch, (head, body) => writeMessage(this.o.out, head, body, NO_TAIL, undefined, this.compressor));
    return writeMessage(this.o.out, messageHead(seq, sentAt), pool.rows(seq, batch), TAIL, undefined, this.compressor);
  }
}

export default fp<{ hub: Hub; heartbeat: Heartbeat }>(
  async function ndjsonTransport(app: FastifyInstance, { hub, heartbeat }) {
    app.get('/ndjson', { preValidation: withStreamReady(hub, withCompressionOf('fetch', validateStreamQuery)) }, async (request, reply) => {
      reply.hijack();
      const res = reply.raw as ServerResponse | Http2ServerResponse;
      const o = responseOut(res);
      // no-transform: a proxy that buffers to compress would hold the stream back.
      const encoding = request.stream.encoding;
      const gzip = request.stream.compression === 'gzip';
      res.writeHead(200, {
        'content-type': CONTENT_TYPES[encoding ?? 'json'],
        'cache-control': 'no-store, no-transform',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      if (gzip) o.out.write(GZIP_HEADER);
      if (o.isGone()) return;
      const stream = hub.open(new NdjsonSink(o, encoding, gzip ? new MessageCompressor('gzip') : null), request.stream);
      o.out.once('close', stream.close);
      o.out.once('error', stream.close);
      if (o.h2session) watchHttp2Session(o.h2session, heartbeat);
    });
  },
  { name: 'pushlab-ndjson' },
);
