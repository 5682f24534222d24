/**
 * The memory and stall probes of issue 31 (class 2) against a server in its own process, for
 * `npm run bench:faults -- --only arrow,zero-window`: what a client that names many Arrow batch
 * sizes, or opens many zero-window HTTP/2 streams on one connection, costs the server in RSS
 * (its own /stats) and in event-loop stall. The stall is read from outside: a GET /stats every
 * 10 ms, one at a time, on a session of its own; the longest round trip bounds the longest time
 * the server's loop was held (a stalled loop answers nothing).
 */
import http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { h2get } from '../cli/h2-get.js';
import type { ServerStats } from '../protocol/server-stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (n: number) => (n / 2 ** 20).toFixed(0);

/** GET /stats one after another until stop(): the longest round trip, and the highest RSS the server reported. */
function stallProbe(session: { get(path: string): Promise<{ status: number; body: string }> }): {
  stop(): Promise<{ longestMs: number; peakRssBytes: number }>;
} {
  let running = true;
  let longestMs = 0;
  let peakRssBytes = 0;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const s = JSON.parse((await session.get('/stats')).body) as ServerStats;
        peakRssBytes = Math.max(peakRssBytes, s.rssBytes);
      } catch {
        // The server ended the session (its heartbeat, after a stall): the next request opens another.
      }
      longestMs = Math.max(longestMs, performance.now() - t);
      await sleep(10);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { longestMs, peakRssBytes };
    },
  };
}

const connect = (url: string, settings?: http2.Settings) => http2.connect(url, { rejectUnauthorized: false, ...(settings ? { settings } : {}) });

/**
 * A session for the probes' own requests, opened again when the server ends it: the server
 * sends GOAWAY after 1,000 streams on a session (SERVER_DEFAULTS.maxStreamsPerSession), which a
 * /stats every 10 ms reaches in 10 s.
 */
class Watcher {
  private session: http2.ClientHttp2Session;
  constructor(private readonly url: string) {
    this.session = this.open();
  }
  private open(): http2.ClientHttp2Session {
    const s = connect(this.url);
    s.on('error', () => {});
    s.on('goaway', () => {
      if (this.session === s) this.session = this.open();
    });
    return s;
  }
  get(path: string): Promise<{ status: number; body: string }> {
    if (this.session.closed || this.session.destroyed) this.session = this.open();
    return h2get(this.session, path);
  }
  close(): void {
    this.session.close();
  }
}

/** Opens `path`, waits for the status and the first bytes (or the body of a refusal), then cancels it. */
function firstBytes(session: http2.ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = session.request({ ':path': path });
    let status = 0;
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', () => {
      if (status === 200) req.close(http2.constants.NGHTTP2_CANCEL);
    });
    req.on('close', () => resolve(status));
    // A session the server ended (its heartbeat, when a build held the loop past its deadline): no status.
    req.on('error', () => resolve(0));
  });
}

/** `sizes` new Arrow batch sizes asked for one after another over /ndjson, each until its first message. */
export async function arrowSizes(url: string, sizes: readonly number[]): Promise<string> {
  const watcher = new Watcher(url);
  try {
    const before = JSON.parse((await watcher.get('/stats')).body) as ServerStats;
    const probe = stallProbe(watcher);
    const t0 = performance.now();
    const statuses: number[] = [];
    for (const b of sizes) {
      // A session per size: one the server ends takes only its own request with it.
      const client = connect(url);
      client.on('error', () => {});
      statuses.push(await firstBytes(client, `/ndjson?batch=${b}&encoding=arrow`));
      client.destroy();
    }
    const wallSec = (performance.now() - t0) / 1000;
    await sleep(1000);
    const { longestMs, peakRssBytes } = await probe.stop();
    const after = JSON.parse((await watcher.get('/stats')).body) as ServerStats;
    const count = (s: number) => statuses.filter((x) => x === s).length;
    return `arrow: ${sizes.length} new sizes (batch ${sizes[0]}…${sizes[sizes.length - 1]}) one after another in ${wallSec.toFixed(1)} s: ${count(200)} served, ${count(400)} refused (400), ${count(503)} busy (503), ${count(0)} lost with their session; server RSS ${mib(before.rssBytes)} MiB before, peak ${mib(peakRssBytes)}, ${mib(after.rssBytes)} after; longest /stats round trip (event-loop stall) ${longestMs.toFixed(0)} ms`;
  } finally {
    watcher.close();
  }
}

/** `streams` streams on one HTTP/2 connection that never open their window, for `seconds`. */
export async function zeroWindow(url: string, streams: number, batch: number, seconds: number): Promise<string> {
  const watcher = new Watcher(url);
  const flood = connect(url, { initialWindowSize: 0 });
  flood.on('error', () => {});
  try {
    const before = JSON.parse((await watcher.get('/stats')).body) as ServerStats;
    const probe = stallProbe(watcher);
    for (let i = 0; i < streams; i++) flood.request({ ':path': `/ndjson?batch=${batch}&interval=1&client=zero-window` }).on('error', () => {});
    let queued = 0;
    for (let t = 0; t < seconds * 2; t++) {
      await sleep(500);
      const s = JSON.parse((await watcher.get('/stats')).body) as ServerStats;
      queued = Math.max(
        queued,
        s.connections.filter((c) => c.client === 'zero-window').reduce((n, c) => n + c.bufferedBytes, 0),
      );
    }
    const { longestMs, peakRssBytes } = await probe.stop();
    const after = JSON.parse((await watcher.get('/stats')).body) as ServerStats;
    return `zero-window: ${streams} streams of batch ${batch} on one HTTP/2 connection for ${seconds} s: most queued ${mib(queued)} MiB; server RSS ${mib(before.rssBytes)} MiB before, peak ${mib(peakRssBytes)} (growth ${mib(peakRssBytes - before.rssBytes)}); shed ${after.batchesShed - before.batchesShed} batches; longest /stats round trip ${longestMs.toFixed(0)} ms`;
  } finally {
    flood.destroy();
    watcher.close();
  }
}
