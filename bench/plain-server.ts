/**
 * The plain reference server of `npm run bench:page` (issue 22): what a careful but ordinary
 * setup does, so pushlab's own server can be measured against it with the same page. fastify 5
 * on node:http2 with HTTP/1.1 allowed and TLS, Nagle off on every socket, maxSessionMemory
 * 256 MB; `/ws` sends each batch with @fastify/websocket's `ws.send(buffer)` (as a text frame), `/sse` with
 * better-sse's `session.batch`, one message per batch, every `interval` ms per connection,
 * and skips a send while more than 1 MiB is queued for that connection. The messages are
 * byte for byte pushlab's (the same row pool, head and `id:`), so the page parses the same
 * text from both servers and only how it is written differs. It serves the built pages
 * (dist/web: the bare page is /bench/bare.html) and a `/stats` with the few figures the
 * driver reads. Flags: --port (0: a free one), --exit-with-stdin; prints its URL as
 * server/main.ts does.
 */
import fastifyStatic from '@fastify/static';
import websocket from '@fastify/websocket';
import { createSession } from 'better-sse';
import Fastify from 'fastify';
import type { Http2ServerResponse } from 'node:http2';
import path from 'node:path';
import type { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { ROOT } from '../cli/root.js';
import type { ServerStats } from '../protocol/server-stats.js';
import { MESSAGE_TAIL, messageHead, parseStreamParams, SentAtFormatter, type StreamParams } from '../protocol/wire.js';
import { loadOrCreateCert } from '../server/cert.js';
import { RowPool } from '../server/rows.js';

const QUEUE_LIMIT = 1024 * 1024;
/** Batches one timer callback may catch up per connection (Node's 1 ms timers fire late, pitfall 15). */
const MAX_CATCH_UP = 8;

const { values: flags } = parseArgs({ options: { port: { type: 'string', default: '0' }, 'exit-with-stdin': { type: 'boolean', default: false } } });
const pool = new RowPool();
const stamp = new SentAtFormatter();
const due = new SentAtFormatter();
const totals = { sent: 0, events: 0, bytes: 0, shed: 0 };
/** Every open stream's pacing debt, for `/stats` (the driver waits until it is small). */
const streams = new Set<{ behind: () => number }>();

/** Calls `send(seq)` on schedule (every `interval` ms from now) until the returned stop is called. */
function pace(batch: number, interval: number, queued: () => number, send: (seq: number, text: string) => void): () => void {
  const t0 = performance.now();
  let seq = 0;
  const stream = { behind: (now = performance.now()) => Math.max(0, Math.floor((now - t0) / interval) + 1 - seq) };
  streams.add(stream);
  const timer = setInterval(
    () => {
      const now = performance.now();
      pool.useEpochAt(performance.timeOrigin + now);
      const sentAt = stamp.format(performance.timeOrigin + now);
      // Due by `now`, the clock sentAt is written from: a later reading could send a batch due
      // after its own sentAt (a tick that crosses an interval boundary while it formats).
      for (let n = Math.min(stream.behind(now), MAX_CATCH_UP); n > 0; n--, seq++) {
        if (queued() > QUEUE_LIMIT) {
          totals.shed++;
          continue;
        }
        const text = messageHead(seq, sentAt, due.format(performance.timeOrigin + t0 + seq * interval)) + pool.rowsText(seq, batch) + MESSAGE_TAIL;
        send(seq, text);
        totals.sent++;
        totals.events += batch;
        totals.bytes += text.length;
      }
    },
    Math.max(1, Math.floor(interval)),
  );
  return () => (clearInterval(timer), streams.delete(stream));
}

/** The stream query, checked as pushlab checks it; what this server does not do (msgpack, compression) is refused too. */
const streamOf = new WeakMap<object, StreamParams>();
async function validateQuery(req: { query: unknown }, reply: { code(status: number): { send(body: object): unknown } }): Promise<void> {
  const parsed = parseStreamParams(req.query as Record<string, unknown>);
  if (!parsed.ok) return void (await reply.code(400).send({ error: 'bad-parameter', ...parsed.error }));
  const { encoding, compression } = parsed.value;
  if (encoding || compression) {
    const param = encoding ? 'encoding' : 'compression';
    return void (await reply.code(400).send({
      error: 'bad-parameter',
      param,
      value: encoding ?? compression,
      allowed: 'absent',
      message: `the plain server sends uncompressed JSON only; drop ${param}`,
    }));
  }
  streamOf.set(req, parsed.value);
}
const query = (req: object) => streamOf.get(req)!;

const app = Fastify({ http2: true, https: { ...(await loadOrCreateCert(path.join(ROOT, '.cert'))), allowHTTP1: true, maxSessionMemory: 256 } });
app.server.on('secureConnection', (s: Socket) => s.setNoDelay(true));
await app.register(websocket);
app.get('/ws', { websocket: true, preValidation: validateQuery }, (ws, req) => {
  const { batch, interval } = query(req);
  const stop = pace(
    batch,
    interval,
    () => ws.bufferedAmount,
    (_, text) => ws.send(Buffer.from(text, 'latin1'), { binary: false }),
  );
  ws.on('close', stop);
});
app.get('/sse', { preValidation: validateQuery }, async (req, reply) => {
  const { batch, interval } = query(req);
  reply.hijack();
  const res = reply.raw as Http2ServerResponse;
  // HTTP/2 forbids connection-specific headers (pitfall 5).
  const session = await createSession(req.raw, res, { headers: { Connection: undefined }, serializer: (d) => d as string, sanitizer: (d) => d });
  const stop = pace(
    batch,
    interval,
    () => res.stream.writableLength,
    (seq, text) => void session.batch((b) => void b.push(text, 'message', String(seq))),
  );
  session.once('disconnected', stop);
});
app.get('/stats', async (): Promise<Partial<ServerStats>> => {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  let behind = 0;
  for (const s of streams) behind += s.behind();
  return {
    nowMs: performance.now(),
    pid: process.pid,
    cpuUserUs: cpu.user,
    cpuSystemUs: cpu.system,
    eventLoopActiveMs: elu.active,
    eventLoopIdleMs: elu.idle,
    rssBytes: process.memoryUsage.rss(),
    batchesSent: totals.sent,
    eventsSent: totals.events,
    bytesSent: totals.bytes,
    batchesShed: totals.shed,
    batchesBehind: behind,
    latenessMs: { p50: null, p99: null, max: null },
    connectionsOpen: streams.size,
    sendBufferLimitBytes: QUEUE_LIMIT,
    connections: [],
  };
});
await app.register(fastifyStatic, { root: path.join(ROOT, 'dist/web') });
await app.listen({ host: '127.0.0.1', port: Number(flags.port) });
const addr = app.server.address();
process.stdout.write(`plain reference server listening on https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : flags.port}/\n`);
// Streams never end by themselves, so a graceful close would wait for good: just exit.
const stop = () => process.exit(0);
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
if (flags['exit-with-stdin']) process.stdin.once('end', stop).once('close', stop).resume();
