/**
 * The bare reference page for `npm run bench:page`: the least a page can do with the
 * stream (open, JSON.parse, count rows), behind the same `window.pushlab` surface as the
 * lab page so the same driver measures both. The lab page in render mode `none` must
 * reach at least 97% of this page's EPS.
 */
import { Histogram } from '../../protocol/histogram.js';
import type { PageConfig, PageSnapshot, PushlabApi } from '../../protocol/page-api.js';
import { DEFAULT_POLL_MS } from '../../protocol/wire.js';
import { DEFAULT_ENCODING } from '../../protocol/encodings.js';
import { openConnection, type Connection } from '../lab/transports/index.js';
import { loadCodec, type AnyPageCodec } from '../lab/codecs/index.js';

let sockets: Connection[] = [];
let events = 0;
let batches = 0;
let bytes = 0;
let config: PageConfig | null = null;
/** `dueAt` of the newest batch: one store per message, so the driver can see a backlog. */
let newestDueAt = Number.NaN;

/** A decoded batch, counted (its bytes are counted as its encoding and transport count them). */
function countBatch(codec: AnyPageCodec, b: unknown): void {
  events += codec.count(b);
  newestDueAt = codec.dueAt(b);
  batches++;
}

/**
 * The age of the newest event at this moment (from its batch's due time), as a one-sample latency. The driver waits
 * until it is small before opening a window; without it, a backlog from the warm-up drained
 * inside the bare page's window and it showed more events per second than were offered.
 */
function newestAge(): PageSnapshot['latency'] {
  const h = new Histogram();
  if (!Number.isNaN(newestDueAt)) h.record((performance.timeOrigin + performance.now() - newestDueAt) * 1000);
  return h.summary();
}

const api: PushlabApi = {
  async start(c) {
    api.stop();
    config = c;
    events = batches = bytes = 0;
    newestDueAt = Number.NaN;
    // The same transport and decoding code as the lab page: what differs between the pages is
    // only what they do with a batch.
    const countBytes = (n: number) => (bytes += n);
    for (let i = 0; i < c.concurrency; i++) {
      const params = { batch: c.batch, interval: c.intervalMs, ...(c.encoding && c.encoding !== DEFAULT_ENCODING ? { encoding: c.encoding } : {}) };
      const handlers = {
        decoder: () => loadCodec(params).then((codec) => codec.open({ batch: (b) => countBatch(codec, b), bytes: countBytes, undecodable: () => undefined })),
        onBytes: countBytes,
        onReconnect: () => undefined,
      };
      sockets.push(openConnection(c.transport, params, handlers, { pollMs: c.pollMs ?? DEFAULT_POLL_MS, origins: c.origins ?? 1 }, i));
    }
    const opened = sockets.map((s) => s.opened);
    const t0 = performance.now();
    await Promise.all(opened);
    return { opened: c.concurrency, openMs: performance.now() - t0 };
  },
  stop() {
    for (const s of sockets) s.close();
    sockets = [];
  },
  parseCeiling() {
    return Promise.reject(new Error('the bare page does not measure the parse ceiling; use the lab page'));
  },
  async snapshot(): Promise<PageSnapshot | null> {
    if (!config) return null;
    const n = config.concurrency;
    return {
      atMs: performance.timeOrigin + performance.now(),
      transport: config.transport,
      concurrency: n,
      open: sockets.filter((s) => s.isOpen()).length,
      // Only what the bare page counts; the rest is reported as zero, not measured.
      counters: { events, batches, bytes, gaps: 0, duplicates: 0, reconnects: 0, errors: 0 },
      batchesPerConnection: new Array<number>(n).fill(batches / n),
      latency: newestAge(),
    };
  },
};
window.pushlab = api;
