/**
 * `GET /poll`: the `poll` transport, the pull model push replaces. The first request
 * (`/poll?batch=…&interval=…`) opens a stream in the hub, paced like every other, whose
 * batches wait on the server; its response names the stream in the `pushlab-poll-id` header and
 * carries no batch. Each later request (`/poll?id=…`) takes every batch waiting, one JSON
 * document per line. A batch is written into the poll's buffer when it falls due (its `sentAt`,
 * beside its `dueAt`, as on every transport), so the page's transit and its event age both
 * include the wait for the next poll: that wait is the price of pulling. What waits is bounded like any
 * send buffer, by the larger of the send bound and SERVER_DEFAULTS.pollWaitBytes: past it,
 * batches are shed and counted.
 *
 * A poll belongs to the connection that opened it. Its id is 144 random bits (it was 1, 2, 3, …,
 * and another client read someone's batches, and ended their stream, by counting), and a request
 * for it is served only on the HTTP/2 session (or, over HTTP/1.1, the TLS socket) that owns it.
 * The owner moves only when its connection is closing or gone: the server closes each HTTP/2
 * session gracefully after SERVER_DEFAULTS.maxStreamsPerSession streams (a page polling every
 * 1 ms per connection reaches that within a second), and the page's next poll then comes on
 * the browser's new connection; a client's GOAWAY or a dead connection does the same. Any
 * other request for the id gets the answer an id that never existed gets (404): it learns
 * nothing about which ids are open.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Http2ServerResponse } from 'node:http2';
import { compressionMismatch, echoValue, paramError, parseStreamParams, POLL_ID_HEADER, type ParamError, type StreamParams } from '../../protocol/wire.js';
import type { Hub, Sink } from '../hub.js';
import type { RowPool } from '../rows.js';
import { encodingNotCarried, poolMismatch } from '../params.js';
import { socketId } from '../sockets.js';
import { streamEncoder, type SendMessage, type StreamEncoder } from '../codecs/index.js';
import { SERVER_DEFAULTS } from '../defaults.js';

/** A poll stream nobody asked for in this long is gone: its page closed or stopped polling. */
export const POLL_IDLE_MS = 10_000;

class PollSink implements Sink {
  readonly transport = 'poll' as const;
  http = 'h2';
  socket = 0;
  private parts: Buffer[] = [];
  private bytes = 0;
  private lastPollMs = performance.now();
  private closed = false;
  readonly queueFloorBytes = SERVER_DEFAULTS.pollWaitBytes;

  /** The stream's encoder (codecs/), as lines: only the default encoding fits (TRANSPORT_INFO.poll.carriage). */
  private readonly encoder: StreamEncoder;

  constructor(
    private readonly forget: () => void,
    params: StreamParams,
  ) {
    this.encoder = streamEncoder(params, 'lines');
  }

  /** The pool's bytes never change, so a batch waits as three references, not a copy. */
  private readonly keep: SendMessage = (head, body, tail) => {
    const h = typeof head === 'string' ? Buffer.from(head, 'latin1') : head;
    this.parts.push(h, body, tail);
    const n = h.length + body.length + tail.length;
    this.bytes += n;
    return n;
  };

  bufferedBytes(): number {
    return this.bytes;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    return this.encoder.write(seq, sentAt, dueAt, pool, batch, this.keep);
  }

  /** Everything waiting, as one body; the request's connection becomes the stream's. */
  take(http: string, socket: number): Buffer {
    this.lastPollMs = performance.now();
    this.http = http;
    this.socket = socket;
    const body = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return body;
  }

  close(): void {
    this.closed = true;
    this.parts = [];
    this.bytes = 0;
    this.forget();
  }

  isGone(): boolean {
    if (!this.closed && performance.now() - this.lastPollMs > POLL_IDLE_MS) this.close();
    return this.closed;
  }
}

/** The connection a request came on: its HTTP/2 session, or its socket for HTTP/1.1. */
interface Connection {
  http: string;
  socket: number;
  /** What owns a poll opened on it: the session or the socket itself, compared by identity. */
  owner: object | null;
  /** Whether that owner takes no more requests: a session closing (a GOAWAY either way) or destroyed, a socket destroyed. */
  done: () => boolean;
}

function connectionOf(res: ServerResponse | Http2ServerResponse): Connection {
  if ('stream' in res) {
    const session = res.stream.session;
    return { http: 'h2', socket: socketId(session?.socket), owner: session ?? null, done: () => !session || session.closed || session.destroyed };
  }
  const socket = res.socket;
  return { http: 'h1', socket: socketId(socket), owner: socket, done: () => !socket || socket.destroyed };
}

/** 18 random bytes (144 bits) as base64url: 24 characters, nothing to count or guess. */
const POLL_ID_BYTES = 18;
const POLL_ID_FORM = /^[A-Za-z0-9_-]{24}$/;
const POLL_ID_ALLOWED =
  'the id this server gave in pushlab-poll-id (24 characters of A-Z, a-z, 0-9, - and _), alone; batch and interval belong to the first request';

async function badParameter(reply: FastifyReply, e: ParamError): Promise<void> {
  await reply.code(400).send({ error: 'bad-parameter', ...e });
}

export default fp<{ hub: Hub }>(
  async function pollTransport(app: FastifyInstance, { hub }) {
    const polls = new Map<string, { sink: PollSink; owner: Connection }>();
    app.get('/poll', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      void reply.header('cache-control', 'no-store');
      if (query.id === undefined) {
        const parsed = parseStreamParams(query);
        if (!parsed.ok) return badParameter(reply, parsed.error);
        if (parsed.value.encoding) return badParameter(reply, encodingNotCarried('poll', parsed.value.encoding));
        const mismatch = compressionMismatch('poll', parsed.value.compression) ?? poolMismatch(hub, parsed.value);
        if (mismatch) return badParameter(reply, mismatch);
        const id = randomBytes(POLL_ID_BYTES).toString('base64url');
        const conn = connectionOf(reply.raw);
        const sink = new PollSink(() => polls.delete(id), parsed.value);
        polls.set(id, { sink, owner: conn });
        hub.open(sink, parsed.value);
        sink.take(conn.http, conn.socket);
        return reply.header(POLL_ID_HEADER, id).type('application/x-ndjson').send('');
      }
      const sink = await openSink(query, reply);
      if (!sink) return reply;
      const { http, socket } = connectionOf(reply.raw);
      return reply.type('application/x-ndjson').send(sink.take(http, socket));
    });
    // The page ends its stream when it stops, so the stream stops generating now rather than
    // after POLL_IDLE_MS: an orphan would fill the next point's server figures for 10 s.
    app.delete('/poll', async (request, reply) => {
      const sink = await openSink(request.query as Record<string, unknown>, reply);
      if (!sink) return reply;
      sink.close();
      return reply.code(204).send();
    });

    /**
     * The open stream `?id=…` names, if this request's connection owns it (or may take it over: see
     * the top of this file); else null once the reply was sent: a 400 for a malformed id, one 404
     * for every other.
     */
    async function openSink(query: Record<string, unknown>, reply: FastifyReply): Promise<PollSink | null> {
      const text = Array.isArray(query.id) ? query.id.map(String).join(',') : String(query.id);
      const extra = Object.keys(query).find((k) => k !== 'id');
      if (extra)
        return badParameter(
          reply,
          paramError(extra, String(query[extra]), POLL_ID_ALLOWED, (_v, name) => `${name} cannot be given with id: id must be ${POLL_ID_ALLOWED}`),
        ).then(() => null);
      if (!POLL_ID_FORM.test(text))
        return badParameter(
          reply,
          paramError('id', text, POLL_ID_ALLOWED, (v) => `id must be ${POLL_ID_ALLOWED}; got '${v}'`),
        ).then(() => null);
      const entry = polls.get(text);
      const here = connectionOf(reply.raw);
      if (entry && here.owner !== null && entry.owner.owner !== here.owner && entry.owner.done()) entry.owner = here;
      if (!entry || here.owner === null || entry.owner.owner !== here.owner || entry.sink.isGone()) {
        // One answer for an id never given, one closed or idle, and one another connection owns.
        await reply.code(404).send({
          error: 'poll-not-found',
          message: `no poll ${echoValue(text)} open on this connection (closed, idle for over ${POLL_IDLE_MS / 1000} s, opened on another connection, or the server restarted): start a new one with /poll?batch=…`,
        });
        return null;
      }
      return entry.sink;
    }
    app.addHook('preClose', async () => {
      for (const { sink } of polls.values()) sink.close();
    });
  },
  { name: 'pushlab-poll' },
);
