/**
 * `GET /poll`: the `poll` transport, the pull model push replaces. The first request
 * (`/poll?batch=…&interval=…`) opens a stream in the hub, paced like every other, whose
 * batches wait on the server; its response names the stream in the `pushlab-poll-id` header and
 * carries no batch. Each later request (`/poll?id=N`) takes every batch waiting, one JSON
 * document per line. A batch's `sentAt` is when it was due, so the page's latency includes the
 * wait for the next poll: that wait is the price of pulling. What waits is bounded like any
 * send buffer: past it, batches are shed and counted.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { compressionMismatch, MESSAGE_TAIL, messageHead, paramError, parseStreamParams, POLL_ID_HEADER, type ParamError } from '../../protocol/wire.js';
import type { Hub, Sink } from '../hub.js';
import type { RowPool } from '../rows.js';
import { encodingNotCarried } from '../params.js';
import { socketId } from '../sockets.js';

const TAIL = Buffer.from(`${MESSAGE_TAIL}\n`, 'latin1');

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

  constructor(private readonly forget: () => void) {}

  bufferedBytes(): number {
    return this.bytes;
  }

  write(seq: number, sentAt: string, pool: RowPool, batch: number): number {
    // The pool's bytes never change, so a batch waits as three references, not a copy.
    const head = Buffer.from(messageHead(seq, sentAt), 'latin1');
    const rows = pool.rows(seq, batch);
    this.parts.push(head, rows, TAIL);
    const n = head.length + rows.length + TAIL.length;
    this.bytes += n;
    return n;
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

function connectionOf(res: ServerResponse | Http2ServerResponse): { http: string; socket: number } {
  return 'stream' in res ? { http: 'h2', socket: socketId(res.stream.session?.socket) } : { http: 'h1', socket: socketId(res.socket) };
}

async function badParameter(reply: FastifyReply, e: ParamError): Promise<void> {
  await reply.code(400).send({ error: 'bad-parameter', ...e });
}

export default fp<{ hub: Hub }>(
  async function pollTransport(app: FastifyInstance, { hub }) {
    const polls = new Map<number, PollSink>();
    let nextId = 1;
    app.get('/poll', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      void reply.header('cache-control', 'no-store');
      if (query.id === undefined) {
        const parsed = parseStreamParams(query);
        if (!parsed.ok) return badParameter(reply, parsed.error);
        if (parsed.value.encoding) return badParameter(reply, encodingNotCarried('poll', parsed.value.encoding));
        const mismatch = compressionMismatch('poll', parsed.value.compression);
        if (mismatch) return badParameter(reply, mismatch);
        const id = nextId++;
        const sink = new PollSink(() => polls.delete(id));
        polls.set(id, sink);
        hub.open(sink, parsed.value);
        sink.take(connectionOf(reply.raw).http, connectionOf(reply.raw).socket);
        return reply.header(POLL_ID_HEADER, String(id)).type('application/x-ndjson').send('');
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

    /** The open stream `?id=N` names, or null once the reply was sent: a 400 for a bad id, a 410 for one not open. */
    async function openSink(query: Record<string, unknown>, reply: FastifyReply): Promise<PollSink | null> {
      const allowed = `a poll id this server gave, alone (a positive integer); batch and interval belong to the first request`;
      const text = Array.isArray(query.id) ? query.id.map(String).join(',') : String(query.id);
      const extra = Object.keys(query).find((k) => k !== 'id');
      if (extra) return badParameter(reply, paramError(extra, String(query[extra]), allowed, (_v, name) => `${name} cannot be given with id: ${allowed}`)).then(() => null);
      if (!/^[1-9][0-9]{0,15}$/.test(text)) return badParameter(reply, paramError('id', text, allowed, (v) => `id must be ${allowed}; got '${v}'`)).then(() => null);
      const sink = polls.get(Number(text));
      if (!sink || sink.isGone()) {
        await reply.code(410).send({ error: 'poll-gone', message: `poll ${text} is not open (closed, idle for over ${POLL_IDLE_MS / 1000} s, or the server restarted): start a new one with /poll?batch=…` });
        return null;
      }
      return sink;
    }
    app.addHook('preClose', async () => {
      for (const sink of polls.values()) sink.close();
    });
  },
  { name: 'pushlab-poll' },
);
