/**
 * `GET /sse`: one EventSource stream per connection (HTTP/2 in Chrome, since the page is
 * served over TLS with h2), one event per batch with `id:` set to the seq.
 *
 * better-sse owns the session: response head, retry hint, keep-alive comments,
 * Last-Event-ID and disconnect detection. How a batch is written is a measured choice
 * (`npm run bench:server -- --server-args "--sse-writer …"`):
 * - `bytes` (default): the event as pre-encoded bytes (`id: n\ndata: {head`, the shared row
 *   bytes, `]}\n\n`) on the stream the session writes to (`writeMessage`: one buffer when
 *   small, else a corked writev that never copies the rows).
 * - `push`: better-sse's `session.push(text, 'message', id)` with pass-through serialiser
 *   and sanitiser (the JSON holds no newlines).
 * - `batch`: better-sse's batch API, one EventBuffer per batch.
 */
import { createEventBuffer, createSession, type Session } from 'better-sse';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import http2, { type Http2ServerResponse } from 'node:http2';
import type { Writable } from 'node:stream';
import { MESSAGE_TAIL, messageHead } from '../../protocol/wire.js';
import type { Hub, Sink } from '../hub.js';
import { withCompressionOf, withEncodingsOf, withPoolOf } from '../params.js';
import { GZIP_HEADER, MessageCompressor } from '../compress.js';
import { watchHttp2Session, type Heartbeat } from '../liveness.js';
import type { RowPool } from '../rows.js';
import { socketId } from '../sockets.js';
import { writeMessage } from '../write-message.js';
import type { SseWriter } from '../defaults.js';

const TAIL = Buffer.from(`${MESSAGE_TAIL}\n\n`, 'latin1');
const asIs = (data: unknown) => data as string;

class SseSink implements Sink {
  readonly transport = 'sse' as const;
  constructor(
    readonly http: string,
    readonly socket: number,
    private readonly out: Writable,
    /** better-sse's session, for the `push` and `batch` writers; null for a gzip stream, which has none. */
    private readonly session: Session | null,
    private readonly writer: SseWriter,
    /** Ends the stream without waiting for the client to read what is queued. */
    readonly close: () => void,
    readonly isGone: () => boolean,
    /** Set for `compression=gzip`: the events are written compressed, always as bytes. */
    readonly compressor: MessageCompressor | null = null,
  ) {}

  bufferedBytes(): number {
    // Includes writes handed to nghttp2 but not yet sent (their callbacks are pending), which
    // is where data waits when the client's flow-control window is closed.
    return this.out.writableLength;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    // A destroyed stream keeps its writableLength, so without this check it would look like a
    // slow client forever and be shed instead of dropped.
    if (this.out.destroyed) throw new Error('SSE stream destroyed');
    // A gzip stream has no better-sse session: its events always go out as bytes, compressed.
    if (this.writer === 'bytes' || !this.session) {
      return writeMessage(this.out, `id: ${seq}\ndata: ${messageHead(seq, sentAt, dueAt)}`, pool.rows(seq, batch), TAIL, undefined, this.compressor);
    }
    const data = messageHead(seq, sentAt, dueAt) + pool.rowsText(seq, batch) + MESSAGE_TAIL;
    if (this.writer === 'push') {
      this.session.push(data, 'message', String(seq));
    } else {
      const buffer = createEventBuffer({ serializer: asIs, sanitizer: asIs });
      buffer.push(data, 'message', String(seq));
      void this.session.batch(buffer);
    }
    return data.length; // the event's framing is not counted for these writers
  }
}

/**
 * The seq to continue from after an EventSource reconnect: its `Last-Event-ID` + 1, or 'bad'.
 * Only a plain non-negative integer whose successor is still a safe integer is accepted:
 * `99999999999999999999` would start a schedule that never falls due (the stream counted open,
 * silent for good), `9007199254740991` would give every event the same id (n + 1 === n), and
 * `1e3`, `0x10`, ` 5` are numbers to `Number()` but were never ids we sent. A bad one starts
 * from 0 and is counted (`badLastEventIds` in /stats). No header at all is a first connect.
 */
export function resumeSeq(header: string | string[] | undefined): number | 'bad' {
  if (header === undefined) return 0;
  if (typeof header !== 'string' || !/^[0-9]{1,16}$/.test(header)) return 'bad';
  const n = Number(header);
  return n + 1 <= Number.MAX_SAFE_INTEGER ? n + 1 : 'bad';
}

export default fp<{ hub: Hub; sseWriter: SseWriter; heartbeat: Heartbeat }>(
  async function sseTransport(app: FastifyInstance, { hub, sseWriter: writer, heartbeat }) {
    // `/sse` serves both `sse` (main origin) and `sse-h1` (the h1 origin routes here): gzip for both.
    app.get('/sse', { preValidation: withPoolOf(hub, withCompressionOf('sse', withEncodingsOf('sse'))) }, async (request, reply) => {
      reply.hijack();
      const res = reply.raw as ServerResponse | Http2ServerResponse;
      const h2stream = 'stream' in res ? res.stream : undefined;
      const out: Writable = h2stream ?? (res as ServerResponse);
      let resume = resumeSeq(request.headers['last-event-id']);
      if (resume === 'bad') {
        hub.countBadLastEventId();
        resume = 0;
      }
      // Listen for the end BEFORE awaiting the session: a client that goes away while better-sse
      // sets up (it sends the head on the next turn) fires 'close' before anyone would listen,
      // and its stream would be paced into nothing for good.
      let handle: { close: () => void } | undefined;
      let closed = false;
      const onEnd = () => {
        closed = true;
        handle?.close();
      };
      out.once('close', onEnd);
      out.once('error', onEnd);
      const isGone = h2stream
        ? () =>
            h2stream.destroyed ||
            h2stream.closed ||
            h2stream.session === undefined ||
            h2stream.session.destroyed ||
            h2stream.session.socket?.destroyed !== false
        : () => out.destroyed || (res as ServerResponse).socket?.destroyed !== false;
      const socket = socketId(h2stream ? h2stream.session?.socket : (res as ServerResponse).socket);
      const close = h2stream ? () => h2stream.close(http2.constants.NGHTTP2_CANCEL) : () => (res as ServerResponse).destroy();
      if (request.stream.compression === 'gzip') {
        // better-sse writes its own head, retry hint and keep-alive comments straight to the
        // response, which would break the gzip stream; a compressed stream needs none of them
        // (a batch goes out every interval), so it is written here, every byte compressed.
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'content-encoding': 'gzip' });
        out.write(GZIP_HEADER);
        if (closed || isGone()) return;
        handle = hub.open(
          new SseSink(h2stream ? 'h2' : 'h1', socket, out, null, 'bytes', close, isGone, new MessageCompressor('gzip')),
          request.stream,
          resume,
        );
        if (h2stream?.session) watchHttp2Session(h2stream.session, heartbeat);
        return;
      }
      const session = await createSession(request.raw, res as ServerResponse, {
        // HTTP/2 forbids connection-specific headers; Node warns and drops them.
        headers: h2stream ? { Connection: undefined } : {},
        keepAlive: 10_000,
        serializer: asIs,
        sanitizer: asIs,
        // The Last-Event-ID is checked above; better-sse would also take it from the query string.
        trustClientEventId: false,
      });
      session.once('disconnected', onEnd);
      if (closed || isGone()) return;
      handle = hub.open(new SseSink(h2stream ? 'h2' : 'h1', socket, out, session, writer, close, isGone), request.stream, resume);
      // A dead client's session can go unnoticed while its streams are blocked: the heartbeat
      // finds it, and destroying the session closes these streams.
      if (h2stream?.session) watchHttp2Session(h2stream.session, heartbeat);
    });
  },
  { name: 'pushlab-sse' },
);
