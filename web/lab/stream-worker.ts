/**
 * A stream Worker (parse mode `worker`): opens its share of the connections, parses and
 * counts every message off the main thread, and posts compact counters and the rows to
 * display at most every `updateEveryMs`. Exact snapshots are answered on request.
 */
import type { TableRow } from './row-format.js';
import { Ingest } from './ingest.js';
import { openConnections, type Connection } from './transports/index.js';
import type { FromWorker, ToWorker, WorkerCounts } from './worker-protocol.js';

declare const self: DedicatedWorkerGlobalScope;

let ingest: Ingest | null = null;
let conns: Connection[] = [];
/** Aborted at `stop`: connections still waiting their turn to open never start. */
const stopped = new AbortController();
let timer: ReturnType<typeof setInterval> | undefined;
let rowsSent = 0;

const post = (m: FromWorker, transfer: Transferable[] = []) => self.postMessage(m, transfer);

function counts(): WorkerCounts {
  const c = ingest!.counters;
  return {
    counters: c.totals(),
    batchesPerConnection: Array.from(c.batchesPerConnection),
    open: conns.filter((x) => x.isOpen()).length,
    newestSentAtMs: ingest!.newestSentAtMs,
    newestDueAtMs: ingest!.newestDueAtMs,
  };
}

function newRows(): TableRow[] {
  const ring = ingest!.ring;
  if (!ring) return [];
  const fresh = Math.min(ring.total - rowsSent, ring.capacity);
  rowsSent = ring.total;
  const out: TableRow[] = new Array<TableRow>(fresh);
  for (let i = 0; i < fresh; i++) out[fresh - 1 - i] = ring.newest(i)!;
  return out;
}

function update(): void {
  const recent = ingest!.recent?.data() ?? null;
  ingest!.recent?.reset();
  post({ type: 'update', counts: counts(), recent, rows: newRows(), speed: ingest!.takeClosedWindows() }, recent ? [recent.counts.buffer] : []);
}

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === 'start') {
    ingest = new Ingest({
      connections: m.connections.length,
      keepRows: m.keepRows,
      aggregate: m.aggregate,
      chart: m.chart,
      intervalMs: m.params.interval,
      pollMs: m.pollMs,
    });
    const ing = ingest;
    openConnections(m.transport, m.params, (local) => ing.handlers(local, m.params), m.transportOptions, m.connections, conns, {
      sharers: m.sharers,
      signal: stopped.signal,
    }).then(
      () => post({ type: 'opened' }),
      (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    timer = setInterval(update, m.updateEveryMs);
  } else if (m.type === 'snapshot') {
    const c = ingest!.counters;
    const latency = c.latency.data();
    const transit = c.transit.data();
    if (m.resetLatency) {
      c.latency.reset();
      c.transit.reset();
    }
    post({ type: 'snapshot', id: m.id, counts: counts(), latency, transit }, [latency.counts.buffer, transit.counts.buffer]);
  } else {
    clearInterval(timer);
    stopped.abort();
    for (const c of conns) c.close();
    conns = [];
  }
};
