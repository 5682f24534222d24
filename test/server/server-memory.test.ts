/**
 * Issue 31, class 2: a client cannot grow the server's memory without bound or freeze it.
 * - Arrow sizes: many new `batch` values with `encoding=arrow` cost a bounded cache (an LRU of
 *   a few sizes, a byte budget), and their builds run in slices, so the event loop never
 *   stalls long and other streams keep flowing; a batch below the Arrow minimum is refused.
 * - Zero-window HTTP/2 streams: 250 on one connection hold no more than the per-connection
 *   budget, where they held 1.4 GB (250 × the 4 MiB per-stream bound and a message).
 * The server runs in this process, so the stall probe (a 10 ms interval's longest gap) and RSS
 * are the server's own (and the client's, which holds little: it reads one message per stream).
 */
import { Code, createClient, type ConnectError } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ServerStats } from '../../protocol/server-stats.js';
import WebSocket from 'ws';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { ARROW_BATCH, STREAM_LIMITS, type ServerOrigins, type StreamParams, type Transport } from '../../protocol/wire.js';
import { ArrowCache, estimatedBytes, tableRows } from '../../server/arrow.js';
import { ARROW_CACHE, MIB, SERVER_DEFAULTS } from '../../server/defaults.js';
import { Hub, type Sink } from '../../server/hub.js';
import { POOL_ROWS, RowPool, SPEED_EPOCHS } from '../../server/rows.js';
import { h2get } from '../helpers/h2-get.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The longest gap between the ticks of a 10 ms interval since start(): how long the event loop was held at once. */
class StallProbe {
  private last = performance.now();
  longestMs = 0;
  private readonly timer = setInterval(() => {
    const now = performance.now();
    this.longestMs = Math.max(this.longestMs, now - this.last - 10);
    this.last = now;
  }, 10);
  stop(): void {
    clearInterval(this.timer);
  }
}

const rss = () => process.memoryUsage.rss();

/** One request's answer: its status, and its body when it is not a stream (else the first chunk's size). */
function firstChunk(session: http2.ClientHttp2Session, path: string, timeoutMs: number): Promise<{ status: number; body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let status = 0;
    let body = '';
    const timer = setTimeout(() => {
      req.close(http2.constants.NGHTTP2_CANCEL);
      reject(new Error(`${path}: nothing within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (d: Buffer) => {
      if (status === 200) {
        clearTimeout(timer);
        req.close(http2.constants.NGHTTP2_CANCEL);
        resolve({ status, body: '', bytes: d.length });
      } else body += d.toString('utf8');
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve({ status, body, bytes: 0 });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

const stats = async (session: http2.ClientHttp2Session): Promise<ServerStats> => JSON.parse((await h2get(session, '/stats')).body) as ServerStats;

describe('Arrow batch sizes a client names', () => {
  let server: TestServer;
  let session: http2.ClientHttp2Session;

  beforeAll(async () => {
    server = await startTestServer();
    session = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
  }, 60_000);

  afterAll(async () => {
    session?.close();
    await server?.close();
  }, 60_000);

  it('a batch below the Arrow minimum is refused with a 400 naming batch, the value and the range', async () => {
    for (const batch of [ARROW_BATCH.min - 1, 1]) {
      const r = await firstChunk(session, `/ndjson?batch=${batch}&encoding=arrow`, 60_000);
      expect(r.status, `batch ${batch}`).toBe(400);
      const body = JSON.parse(r.body) as { error: string; param: string; value: string; allowed: string; message: string };
      expect(body).toMatchObject({ error: 'bad-parameter', param: 'batch', value: String(batch) });
      expect(body.allowed).toContain(`from ${ARROW_BATCH.min} to ${ARROW_BATCH.max}`);
      expect(body.message).toContain('encoding=arrow');
    }
    // The same batch without Arrow is fine.
    expect((await firstChunk(session, '/ndjson?batch=1', 10_000)).status).toBe(200);
  }, 120_000);

  it('every route that carries Arrow refuses a batch below the minimum, before any stream or upgrade', async () => {
    const origins = JSON.parse((await h2get(session, '/origins')).body) as ServerOrigins;
    const main = `https://127.0.0.1:${server.port}`;
    const query = `?batch=${ARROW_BATCH.min - 1}&encoding=arrow`;
    // ws: an HTTP/1.1 upgrade on the main origin.
    const ws = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(`${main.replace('https:', 'wss:')}/ws${query}`, { rejectUnauthorized: false });
      socket.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      socket.on('open', () => reject(new Error('/ws opened')));
      socket.on('error', reject);
    });
    // ws-h2: an extended CONNECT on the connect origin.
    const connect = http2.connect(origins.connect!, { rejectUnauthorized: false });
    await new Promise((resolve) => connect.once('remoteSettings', resolve));
    const stream = connect.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': `/ws${query}`, 'sec-websocket-version': '13' });
    const h2status = await new Promise<number>((resolve) => stream.once('response', (h) => resolve(Number(h[':status']))));
    let h2body = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (h2body += d));
    await new Promise((resolve) => stream.once('close', resolve));
    connect.close();
    for (const [route, r] of [
      ['ws', ws],
      ['ws-h2', { status: h2status, body: h2body }],
    ] as const) {
      expect(r.status, route).toBe(400);
      expect(JSON.parse(r.body), route).toMatchObject({ error: 'bad-parameter', param: 'batch', value: String(ARROW_BATCH.min - 1) });
    }
    // grpc-web: InvalidArgument naming batch.
    const client = createClient(PushService, createGrpcWebTransport({ baseUrl: main, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } }));
    const refusal = await (async () => {
      try {
        for await (const _ of client.stream({ batch: ARROW_BATCH.min - 1, intervalMs: 1, encoding: 'arrow' })) return null;
      } catch (e) {
        return e as ConnectError;
      }
      return null;
    })();
    expect(refusal?.code).toBe(Code.InvalidArgument);
    expect(refusal?.rawMessage).toContain('batch must be');
  }, 120_000);

  it('many new sizes: RSS and the longest event-loop stall stay bounded, other streams keep flowing, and what does not fit gets a 503', async () => {
    // A session of its own: the test before may leave the shared one dead (on the base, its stall outlived the heartbeat).
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
    onTestFinished(() => session.destroy());
    // A stream that is not Arrow, counting what it gets while the sizes are built.
    const bystander = session.request({ ':path': '/ndjson?batch=10&interval=5' });
    let bystanderBytes = 0;
    bystander.on('data', (d: Buffer) => (bystanderBytes += d.length));
    await new Promise((r) => setTimeout(r, 300));
    const before = rss();
    const probe = new StallProbe();
    const gotBefore = bystanderBytes;
    // Small sizes cost the most (one 720-byte header per 16 rows): each took the base 1-5 s and 20-30 MB.
    const sizes = Array.from({ length: 10 }, (_, i) => ARROW_BATCH.min + 3 * i);
    const t0 = performance.now();
    const answers = await Promise.all(sizes.map((b) => firstChunk(session, `/ndjson?batch=${b}&encoding=arrow`, 100_000)));
    const wallMs = performance.now() - t0;
    probe.stop();
    const grown = rss() - before;
    const gotDuring = bystanderBytes - gotBefore;
    bystander.close(http2.constants.NGHTTP2_CANCEL);
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    console.log(
      `${sizes.length} Arrow sizes in ${(wallMs / 1000).toFixed(1)} s: ${served.length} served, ${refused.length} refused; RSS +${(grown / MIB).toFixed(0)} MiB; longest stall ${probe.longestMs.toFixed(0)} ms; bystander got ${gotDuring} bytes`,
    );
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(ARROW_CACHE.maxSizes);
    for (const a of refused) {
      expect(a.status).toBe(503);
      expect(JSON.parse(a.body)).toMatchObject({ error: 'busy', param: 'batch' });
    }
    // Bounds well above the fix's (the cache's 128 MiB and the 15 MB table; 8 ms slices) and
    // well below the base's (RSS +250-400 MB for these sizes; a 4-7 s stall for the table alone).
    // The stall bound leaves room for the scheduler: with six test runs on 2 cores (load average
    // 20) a 10 ms interval alone saw gaps of 600 ms.
    expect(grown).toBeLessThan(300 * MIB);
    expect(probe.longestMs).toBeLessThan(2000);
    expect(gotDuring).toBeGreaterThan(0);
  }, 300_000);
});

describe('zero-window HTTP/2 streams on one connection', () => {
  let server: TestServer;
  let watcher: http2.ClientHttp2Session;
  let flood: http2.ClientHttp2Session | null = null;

  beforeAll(async () => {
    server = await startTestServer();
    watcher = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
  }, 60_000);

  afterEach(() => {
    flood?.destroy();
    flood = null;
  });

  afterAll(async () => {
    watcher?.close();
    await server?.close();
  }, 60_000);

  it('250 streams that never open their window hold at most the per-connection budget, and are counted as shed', async () => {
    const STREAMS = 250;
    const limit = SERVER_DEFAULTS.connectionBufferLimitBytes;
    const before = rss();
    const shedBefore = (await stats(watcher)).batchesShed;
    // initialWindowSize 0: the server may send nothing on any stream; what it writes stays queued.
    flood = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false, settings: { initialWindowSize: 0 } });
    for (let i = 0; i < STREAMS; i++) flood.request({ ':path': '/ndjson?batch=10000&interval=1&client=zero-window' }).on('error', () => {});
    // Until every stream is open and the queues have stopped growing (bounded: 60 s).
    let queued = 0;
    let peakRss = 0;
    let last = -1;
    for (let waited = 0; waited < 60_000; waited += 500) {
      await new Promise((r) => setTimeout(r, 500));
      const s = await stats(watcher);
      const mine = s.connections.filter((c) => c.client === 'zero-window');
      queued = mine.reduce((n, c) => n + c.bufferedBytes, 0);
      peakRss = Math.max(peakRss, rss());
      // The base grows past the bound: stop as soon as it is plainly exceeded.
      if (queued > limit * 2 || peakRss - before > 600 * MIB) break;
      if (mine.length === STREAMS && queued === last) break;
      last = queued;
    }
    const s = await stats(watcher);
    console.log(
      `${STREAMS} zero-window streams: ${(queued / MIB).toFixed(1)} MiB queued (budget ${limit / MIB} MiB), RSS +${((peakRss - before) / MIB).toFixed(0)} MiB, shed ${s.batchesShed - shedBefore}`,
    );
    // One message (about 1.3 MB at batch 10,000) may overshoot the budget.
    expect(queued).toBeLessThan(limit + 8 * MIB);
    expect(peakRss - before).toBeLessThan(300 * MIB);
    expect(s.batchesShed - shedBefore).toBeGreaterThan(0);
  }, 120_000);
});

/**
 * The bounds docs/limits.md states for the largest batch (issue 34): the pool stays 10,000 rows an
 * epoch with a 100,000-row tail, not 100,000 rows an epoch (about 400 MB), and an Arrow size of
 * 100,000 rows holds no more rows than the pool's epochs, so four of them fit the cache's budget.
 */
describe('the row pool and the Arrow cache at the largest batch', () => {
  it('the car pool: 10,000 rows an epoch and a tail of the largest batch, within 60 MB of text and 160 MiB of RSS', () => {
    const before = rss();
    const pool = new RowPool();
    pool.finishBuild();
    const grown = rss() - before;
    const text = pool.firstRowsBytes(pool.chainRows);
    console.log(`car pool: ${pool.chainRows} chain rows, ${(text / 1e6).toFixed(1)} MB of text, RSS +${(grown / MIB).toFixed(0)} MiB`);
    expect(pool.chainRows).toBe(SPEED_EPOCHS * POOL_ROWS + STREAM_LIMITS.batch.max);
    expect(text).toBeLessThan(60e6);
    expect(grown).toBeLessThan(160 * MIB);
  }, 120_000);

  it('a 100,000-row Arrow size holds at most the epochs’ rows: four such sizes fit the cache’s budget', async () => {
    const pool = new RowPool();
    const cache = new ArrowCache(pool, ARROW_CACHE);
    const before = rss();
    const built = await cache.load(STREAM_LIMITS.batch.max);
    const grown = rss() - before;
    console.log(
      `Arrow batch ${STREAM_LIMITS.batch.max}: ${(built.byteLength / 1e6).toFixed(1)} MB held (estimated ${(estimatedBytes(pool, STREAM_LIMITS.batch.max) / 1e6).toFixed(1)}), table of ${tableRows(pool)} rows; RSS +${(grown / MIB).toFixed(0)} MiB`,
    );
    expect(tableRows(pool)).toBe(SPEED_EPOCHS * POOL_ROWS);
    expect(built.byteLength).toBeLessThanOrEqual(estimatedBytes(pool, STREAM_LIMITS.batch.max) * 1.1);
    expect(4 * built.byteLength).toBeLessThan(ARROW_CACHE.maxBytes);
    // The pool's chain, its Arrow table and the size: the table and the size about 15 MB each.
    expect(grown).toBeLessThan(250 * MIB);
  }, 120_000);
});

/** A sink whose queue the test sets; counts what it was given. */
class QueueSink implements Sink {
  readonly transport: Transport = 'fetch';
  readonly http = 'h2';
  writes = 0;
  constructor(
    readonly socket: number,
    readonly queued: number,
  ) {}
  bufferedBytes(): number {
    return this.queued;
  }
  write(_seq: number, _sentAt: string, _dueAt: string, _pool: RowPool, _batch: number): number {
    this.writes++;
    return 100;
  }
  close(): void {}
  isGone(): boolean {
    return false;
  }
}

describe('the shed decision with connection and process budgets', () => {
  const params: StreamParams = { batch: 10, interval: 1 };
  const perStream = SERVER_DEFAULTS.sendBufferLimitBytes;
  let hub: Hub | null = null;
  afterEach(() => hub?.shutdown());

  /** Opens the sinks, lets the hub tick for 100 ms, and returns them. */
  async function run(sinks: QueueSink[], options: { connectionBufferLimitBytes?: number; processBufferLimitBytes?: number } = {}): Promise<QueueSink[]> {
    hub = new Hub({ sendBufferLimitBytes: perStream, ...options });
    for (const s of sinks) hub.open(s, params);
    await new Promise((r) => setTimeout(r, 100));
    return sinks;
  }

  it('a page of 30 streams on one session, each a whole per-stream bound behind, is not shed by the connection budget', async () => {
    const sinks = await run(Array.from({ length: 30 }, () => new QueueSink(1, perStream)));
    expect(30 * perStream).toBeLessThan(SERVER_DEFAULTS.connectionBufferLimitBytes);
    for (const s of sinks) expect(s.writes).toBeGreaterThan(0);
    expect(hub!.stats().batchesShed).toBe(0);
  });

  it('streams of a connection over its budget are shed; a stream on another connection is not', async () => {
    const limit = 10 * MIB;
    const sinks = await run([...Array.from({ length: 4 }, () => new QueueSink(1, 3 * MIB)), new QueueSink(2, 0)], { connectionBufferLimitBytes: limit });
    for (const s of sinks.slice(0, 4)) expect(s.writes).toBe(0);
    expect(sinks[4].writes).toBeGreaterThan(0);
    expect(
      hub!
        .stats()
        .connections.slice(0, 4)
        .every((c) => c.shed > 0),
    ).toBe(true);
  });

  it('every stream is shed once the process is over its budget, though each connection is under its own', async () => {
    const sinks = await run(
      Array.from({ length: 5 }, (_, i) => new QueueSink(i + 1, 3 * MIB)),
      { connectionBufferLimitBytes: 4 * MIB, processBufferLimitBytes: 12 * MIB },
    );
    for (const s of sinks) expect(s.writes).toBe(0);
    expect(hub!.stats().batchesShed).toBeGreaterThan(0);
  });

  it('a message larger than the send bound goes out whole when the queue is empty, counted once; the next waits until it drains', async () => {
    const big = 13 * MIB;
    /** A sink whose queue holds what it was given, like a socket that has not drained. */
    class Undrained extends QueueSink {
      held = 0;
      override bufferedBytes(): number {
        return this.held;
      }
      override write(): number {
        this.writes++;
        this.held += big;
        return big;
      }
    }
    const sink = new Undrained(1, 0);
    hub = new Hub({ sendBufferLimitBytes: perStream, pool: new RowPool(10, undefined, 1) });
    hub.open(sink, { batch: STREAM_LIMITS.batch.max, interval: 1 });
    await new Promise((r) => setTimeout(r, 100));
    const s = hub.stats();
    expect(sink.writes).toBe(1);
    expect([s.batchesSent, s.eventsSent, s.bytesSent]).toEqual([1, STREAM_LIMITS.batch.max, big]);
    expect(s.batchesShed).toBeGreaterThan(0);
  });

  it('writes count against the budgets within a tick: a connection under its budget takes no more than one message past it', async () => {
    // 3 streams at 0 queued, a budget of 150 bytes, 100-byte writes that stay queued in the count: the third write of a tick is shed.
    const sinks = await run([new QueueSink(1, 0), new QueueSink(1, 0), new QueueSink(1, 0)], { connectionBufferLimitBytes: 150 });
    expect(sinks.reduce((n, s) => n + s.writes, 0)).toBeGreaterThan(0);
    expect(hub!.stats().batchesShed).toBeGreaterThan(0);
  });
});
