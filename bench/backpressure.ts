/**
 * `npm run bench:backpressure`: where the backlog of a page that falls behind waits, for each
 * transport (issue 36: WebSocketStream's stated motivation is a tab that cannot keep up filling
 * its memory). The lab page streams an offer it cannot take (by default 400 rows × 10
 * connections every 1 ms, table and charts drawn) for `--seconds`, sampled every second: the
 * tab's JS heap (Performance.getMetrics JSHeapUsedSize, no forced GC while streaming, one forced
 * GC at the end), what the server holds queued for the page's streams (`/stats` bufferedBytes,
 * against its send bound) and the batches it shed, and how far behind the stream the page is
 * (its backlogMs: now minus the newest `sentAt` it took). A transport whose backlog waits on the
 * server shows a full server queue and shedding with a flat heap; one whose backlog waits in the
 * tab shows a growing heap and a growing backlogMs with less queued on the server.
 *
 * Each round runs every transport once in a fresh tab of one Chrome, the order reversed every
 * round; the table gives the median over rounds and the range.
 */
import type { CDPSession } from 'puppeteer-core';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import type { PageConfig, PageSnapshot } from '../protocol/page-api.js';
import type { ServerStats } from '../protocol/server-stats.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS, type Transport } from '../protocol/wire.js';
import { median } from '../results/stats.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { openLabPage } from '../puppeteer/measure/page.js';
import { startServer } from '../puppeteer/measure/server-process.js';

const FLAGS = {
  transport: { type: 'list', default: ['ws', 'ws-stream'], choices: TRANSPORTS, help: 'transports, each once a round' },
  batch: rangeFlag(LIMITS.batch, 400, 'rows per batch'),
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  'interval-ms': rangeFlag(LIMITS.intervalMs, 1, 'ms between batches per connection'),
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'what the page draws' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse on the main thread or in a Worker' },
  seconds: { type: 'number', default: 20, min: 3, max: 600, help: 'how long each transport streams a round' },
  repeats: { type: 'integer', default: 3, min: 1, max: 20, help: 'rounds, the order of the transports reversed every round' },
  'server-args': { type: 'string', default: '', help: "extra flags for pushlab's server, space-separated (e.g. --send-buffer-mib 4)" },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:backpressure');
exitOnStopRequest('bench:backpressure');
const flags = commandLineFlags(FLAGS, 'bench:backpressure');
const transports = [...new Set(flags.transport as Transport[])];

/** One transport's run in one round. */
interface Run {
  /** Events the page counted per second over the second half of the run. */
  eps: number;
  /** JS heap used at the end (no forced GC), and the most seen at any sample, MB. */
  heapEndMb: number;
  heapMaxMb: number;
  /** JS heap used after a forced GC at the end, MB: what the page holds, garbage aside. */
  heapAfterGcMb: number;
  /** Bytes the server held queued for the page's streams at the end, the mean per stream, KiB; and the most any stream held at any sample. */
  queuedPerStreamKib: number;
  queuedMaxKib: number;
  /** Batches the server shed for the page per second over the second half. */
  shedPerSec: number;
  /** How far behind the stream the page was at the end: now minus the newest `sentAt` it took, ms. */
  backlogMs: number;
}

const server = await startServer(flags['server-args'].split(' ').filter(Boolean));
const bound = (await server.stats()).sendBufferLimitBytes;
const chrome = await launchChrome({ headless: true });

const ofPage = (s: ServerStats, client: string | undefined) => s.connections.filter((c) => c.client === client);

async function runOnce(transport: Transport): Promise<Run> {
  const page = await chrome.browser.newPage();
  const session: CDPSession = await page.createCDPSession();
  try {
    await session.send('Performance.enable');
    const api = await openLabPage(page, server.url);
    const config: PageConfig = {
      transport,
      batch: flags.batch,
      intervalMs: flags['interval-ms'],
      concurrency: flags.concurrency,
      render: flags.render as PageConfig['render'],
      parse: flags.parse as PageConfig['parse'],
      ...(flags.parse === 'worker' ? { workers: 1 } : {}),
    };
    await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
    const snap = async () => {
      const s = await api.evaluate((p) => p.snapshot({ resetLatency: true }));
      if (!s) throw new Error(`${transport}: the page is not streaming`);
      return s as PageSnapshot;
    };
    const heap = async () => ((await session.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN) / 1e6;
    let heapMaxMb = 0;
    let queuedMax = 0;
    let half: { snap: PageSnapshot; shed: number } | null = null;
    let last: { snap: PageSnapshot; stats: ServerStats; heapMb: number } | null = null;
    for (let second = 1; second <= flags.seconds; second++) {
      await new Promise((r) => setTimeout(r, 1000));
      const [s, stats, heapMb] = await Promise.all([snap(), server.stats(), heap()]);
      const mine = ofPage(stats, s.client);
      heapMaxMb = Math.max(heapMaxMb, heapMb);
      for (const c of mine) queuedMax = Math.max(queuedMax, c.bufferedBytes);
      if (second === Math.ceil(flags.seconds / 2)) half = { snap: s, shed: mine.reduce((n, c) => n + c.shed, 0) };
      last = { snap: s, stats, heapMb };
    }
    const end = last!;
    const mine = ofPage(end.stats, end.snap.client);
    const from = half!;
    const sec = (end.snap.atMs - from.snap.atMs) / 1000;
    await api.evaluate((p) => p.stop());
    await session.send('HeapProfiler.collectGarbage');
    return {
      eps: (end.snap.counters.events - from.snap.counters.events) / sec,
      heapEndMb: end.heapMb,
      heapMaxMb,
      heapAfterGcMb: await heap(),
      queuedPerStreamKib: mine.reduce((n, c) => n + c.bufferedBytes, 0) / Math.max(1, mine.length) / 1024,
      queuedMaxKib: queuedMax / 1024,
      shedPerSec: (mine.reduce((n, c) => n + c.shed, 0) - from.shed) / sec,
      backlogMs: end.snap.backlogMs ?? Number.NaN,
    };
  } finally {
    await page.close();
  }
}

const runs = new Map<Transport, Run[]>(transports.map((t) => [t, []]));
const offered = (flags.batch * flags.concurrency * 1000) / flags['interval-ms'];
process.stderr.write(
  `bench:backpressure — Chrome ${chrome.version}: ${transports.join(', ')} at ${flags.batch} rows × ${flags.concurrency} connections every ${flags['interval-ms']} ms ` +
    `(${offered.toLocaleString('en-US')} events/s offered), render ${flags.render}, parse ${flags.parse}, ${flags.seconds} s each, ${flags.repeats} rounds; server send bound ${bound / 2 ** 20} MiB per stream\n`,
);
try {
  for (let round = 0; round < flags.repeats; round++) {
    const order = round % 2 === 0 ? transports : [...transports].reverse();
    for (const t of order) {
      const r = await runOnce(t);
      runs.get(t)!.push(r);
      process.stderr.write(
        `  round ${round + 1} ${t}: ${Math.round(r.eps).toLocaleString('en-US')} EPS, heap ${r.heapEndMb.toFixed(0)} MB (max ${r.heapMaxMb.toFixed(0)}, ${r.heapAfterGcMb.toFixed(0)} after GC), ` +
          `server queue ${r.queuedPerStreamKib.toFixed(0)} KiB per stream (max ${r.queuedMaxKib.toFixed(0)}), shed ${r.shedPerSec.toFixed(0)} batches/s, page ${Math.round(r.backlogMs)} ms behind\n`,
      );
    }
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}

const cell = (xs: number[], digits = 0) => {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${f(median(xs))} (${f(s[0])}–${f(s.at(-1)!)})`;
};
process.stdout.write(
  [
    `Median (min–max) over ${flags.repeats} rounds; the server's send bound is ${bound / 1024} KiB per stream.`,
    '| transport | EPS | JS heap at end, MB | JS heap max, MB | JS heap after GC, MB | server queue per stream at end, KiB | server queue max, KiB | shed batches/s | page behind the stream at end, ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...transports.map((t) => {
      const rs = runs.get(t)!;
      const col = (f: (r: Run) => number, digits = 0) => cell(rs.map(f), digits);
      return `| ${t} | ${col((r) => r.eps)} | ${col((r) => r.heapEndMb)} | ${col((r) => r.heapMaxMb)} | ${col((r) => r.heapAfterGcMb)} | ${col((r) => r.queuedPerStreamKib)} | ${col((r) => r.queuedMaxKib)} | ${col((r) => r.shedPerSec)} | ${col((r) => r.backlogMs)} |`;
    }),
    '',
  ].join('\n'),
);
