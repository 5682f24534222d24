/**
 * Clients that stop reading beside clients that keep reading, on one server: what the stalled
 * ones cost the server (RSS, batches shed) and whether the readers still get every batch.
 * Used by `npm run bench:faults` (full length, figures) and test/server/faults.test.ts (short, asserted).
 *
 * Stalled streams ask for big batches (400 rows, ~55 KB each, every 1 ms) so their queues reach
 * the shedding bound within a second; readers ask for small ones, the rate a busy page keeps up
 * with, so a reader that loses a batch shows a fault of the server, not of this process.
 */
import http2 from 'node:http2';
import WebSocket from 'ws';
import type { ServerStats } from '../protocol/server-stats.js';

export interface StallOptions {
  seconds: number;
  stats: () => Promise<ServerStats>;
  /** Stalled streams per transport. */
  stalled?: number;
  /** Reading streams per transport. */
  readers?: number;
}

export interface ReaderFigures {
  transport: 'ws' | 'sse';
  batches: number;
  /** Batches missing from the seq sequence this reader saw. */
  gaps: number;
  batchesPerSec: number;
}

export interface StallResult {
  rssBeforeBytes: number;
  rssPeakBytes: number;
  /** Batches shed for the stalled streams while they stalled. */
  shedStalled: number;
  /** Batches shed for the readers (0 when the server keeps them whole). */
  shedReaders: number;
  /** Largest queue any stalled stream had, bytes, and the bound. */
  maxQueuedBytes: number;
  boundBytes: number;
  readers: ReaderFigures[];
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const READER_BATCH = 5;
const STALLED_BATCH = 400;

/** Counts seq gaps in a stream of messages whose JSON starts with {"seq":n. */
class SeqCounter {
  batches = 0;
  gaps = 0;
  private last = -1;
  see(text: string): void {
    const seq = Number(/"seq":(\d+)/.exec(text)?.[1]);
    if (this.last >= 0 && seq > this.last + 1) this.gaps += seq - this.last - 1;
    this.last = seq;
    this.batches++;
  }
}

export async function runStall(base: string, options: StallOptions): Promise<StallResult> {
  const nStalled = options.stalled ?? 5;
  const nReaders = options.readers ?? 2;
  const wsBase = base.replace(/^https/, 'wss').replace(/\/$/, '');
  const closers: (() => void)[] = [];
  const open: Promise<unknown>[] = [];
  const stalledIds = new Set<number>();
  const readerCounters: { transport: 'ws' | 'sse'; c: SeqCounter }[] = [];

  const before = await options.stats();
  const firstId = before.connectionsTotal + 1;
  // Stalled WS: paused sockets (TCP stops being read, the kernel buffers fill, then ws's queue).
  for (let i = 0; i < nStalled; i++) {
    const ws = new WebSocket(`${wsBase}/ws?batch=${STALLED_BATCH}`, { rejectUnauthorized: false, perMessageDeflate: false });
    ws.on('error', () => undefined);
    open.push(new Promise((r) => ws.once('open', () => r(ws.pause()))));
    closers.push(() => ws.terminate());
  }
  // Stalled SSE over HTTP/2, on a session of their own whose streams are never read.
  const stalledSession = http2.connect(base, { rejectUnauthorized: false });
  stalledSession.on('error', () => undefined);
  for (let i = 0; i < nStalled; i++) {
    const req = stalledSession.request({ ':path': `/sse?batch=${STALLED_BATCH}` });
    req.on('error', () => undefined);
    open.push(new Promise((r) => req.once('response', () => r(req.pause()))));
  }
  closers.push(() => stalledSession.destroy());
  await Promise.all(open);
  const mid = await options.stats();
  for (const c of mid.connections) if (c.id >= firstId) stalledIds.add(c.id);

  // Readers: WS and SSE over another HTTP/2 session, reading everything.
  const readerSession = http2.connect(base, { rejectUnauthorized: false });
  readerSession.on('error', () => undefined);
  closers.push(() => readerSession.destroy());
  for (let i = 0; i < nReaders; i++) {
    const w = { transport: 'ws' as const, c: new SeqCounter() };
    const ws = new WebSocket(`${wsBase}/ws?batch=${READER_BATCH}`, { rejectUnauthorized: false, perMessageDeflate: false });
    ws.on('message', (d: Buffer) => w.c.see(d.toString('latin1', 0, 40)));
    ws.on('error', () => undefined);
    closers.push(() => ws.terminate());
    readerCounters.push(w);
    const s = { transport: 'sse' as const, c: new SeqCounter() };
    const req = readerSession.request({ ':path': `/sse?batch=${READER_BATCH}` });
    let pending = '';
    req.setEncoding('latin1');
    req.on('data', (d: string) => {
      pending += d;
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        s.c.see(pending.slice(0, end));
        pending = pending.slice(end + 2);
      }
    });
    req.on('error', () => undefined);
    readerCounters.push(s);
  }

  let peak = mid.rssBytes;
  let maxQueued = 0;
  const startedAt = performance.now();
  const startBatches = readerCounters.map((r) => r.c.batches);
  const deadline = startedAt + options.seconds * 1000;
  while (performance.now() < deadline) {
    await sleep(Math.min(500, Math.max(0, deadline - performance.now())));
    const s = await options.stats();
    peak = Math.max(peak, s.rssBytes);
    for (const c of s.connections) if (stalledIds.has(c.id)) maxQueued = Math.max(maxQueued, c.bufferedBytes);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const end = await options.stats();
  for (const close of closers) close();
  let shedStalled = 0;
  let shedReaders = 0;
  for (const c of end.connections) {
    if (stalledIds.has(c.id)) shedStalled += c.shed;
    else if (c.id >= firstId) shedReaders += c.shed;
  }
  return {
    rssBeforeBytes: before.rssBytes,
    rssPeakBytes: peak,
    shedStalled,
    shedReaders,
    maxQueuedBytes: maxQueued,
    boundBytes: end.sendBufferLimitBytes,
    readers: readerCounters.map((r, i) => ({
      transport: r.transport,
      batches: r.c.batches,
      gaps: r.c.gaps,
      batchesPerSec: (r.c.batches - startBatches[i]!) / seconds,
    })),
    seconds,
  };
}

/** One paragraph of figures for bench:faults. */
export function describeStall(r: StallResult): string {
  const mib = (n: number) => (n / 2 ** 20).toFixed(1);
  const readers = r.readers.map((x) => `${x.transport} ${x.batchesPerSec.toFixed(0)}/s (${x.gaps} gaps)`).join(', ');
  return [
    `stall: WS and SSE clients stop reading (batch ${STALLED_BATCH}, every 1 ms) for ${r.seconds.toFixed(1)} s beside readers (batch ${READER_BATCH}, 1,000 batches/s offered each):`,
    `  server RSS ${mib(r.rssBeforeBytes)} MiB before, peak ${mib(r.rssPeakBytes)} MiB; largest stalled queue ${mib(r.maxQueuedBytes)} MiB (bound ${mib(r.boundBytes)} MiB); shed ${r.shedStalled} batches for the stalled, ${r.shedReaders} for the readers`,
    `  readers: ${readers}`,
  ].join('\n');
}
