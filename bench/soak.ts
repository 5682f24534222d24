/**
 * `npm run bench:soak`: one lab page streaming for a long time, sampled at intervals, to
 * show whether throughput, latency or memory drift (the table's ring and the charts' 60 s
 * windows are meant to keep the page's footprint flat). EPS and latency p99 are judged start
 * against end (bench/drift.ts): drift under 5% passes.
 */
import { readFile } from 'node:fs/promises';
import type { CDPSession } from 'puppeteer-core';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import type { PageConfig, PageSnapshot } from '../protocol/page-api.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { openLabPage } from '../puppeteer/measure/page.js';
import { startServer } from '../puppeteer/measure/server-process.js';
import { drift, DRIFT_WINDOW_SHARE, driftLine } from './drift.js';

const FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport' },
  batch: rangeFlag(LIMITS.batch, 20, 'rows per batch'),
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'render mode' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse mode' },
  minutes: { type: 'number', default: 10, min: 0.5, max: 24 * 60, help: 'how long to stream' },
  'sample-sec': { type: 'number', default: 30, min: 1, max: 3600, help: 'seconds between samples' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:soak');
exitOnStopRequest('bench:soak');
const flags = commandLineFlags(FLAGS, 'bench:soak');

interface SoakSample {
  minutes: number;
  /** Events received per second over the interval since the previous sample. */
  eps: number;
  /** Latency p99 over that interval, ms; null when no event arrived in it. */
  p99Ms: number | null;
  heapMb: number;
  rendererRssMib: number | null;
  domNodes: number;
  serverRssMib: number;
}

/** Least-squares slope of y over minutes, per hour. */
function slopePerHour(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? (num / den) * 60 : 0;
}

async function rssMib(pid: number): Promise<number | null> {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null; // not Linux, or the process is gone
  }
}

/** The tab's renderer: the renderer process that burned the most CPU over `ms` while it streams. */
async function busiestRenderer(browserSession: CDPSession, ms: number): Promise<number> {
  type Info = { id: number; type: string; cpuTime: number };
  const read = async () => ((await browserSession.send('SystemInfo.getProcessInfo')).processInfo as Info[]).filter((p) => p.type === 'renderer');
  const a = new Map((await read()).map((p) => [p.id, p.cpuTime]));
  await new Promise((r) => setTimeout(r, ms));
  const b = await read();
  b.sort((x, y) => y.cpuTime - (a.get(y.id) ?? 0) - (x.cpuTime - (a.get(x.id) ?? 0)));
  if (!b.length) throw new Error('SystemInfo.getProcessInfo listed no renderer process');
  return b[0].id;
}

const server = await startServer();
const chrome = await launchChrome({ headless: true });
const page = await chrome.browser.newPage();
const session = await page.createCDPSession();
const browserSession = await chrome.browser.target().createCDPSession();
const samples: SoakSample[] = [];
try {
  await session.send('Performance.enable');
  const api = await openLabPage(page, server.url);
  const config: PageConfig = {
    transport: flags.transport as PageConfig['transport'],
    batch: flags.batch,
    intervalMs: 1,
    concurrency: flags.concurrency,
    render: flags.render as PageConfig['render'],
    parse: flags.parse as PageConfig['parse'],
  };
  await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
  const renderer = await busiestRenderer(browserSession, 1000);
  const offered = flags.batch * flags.concurrency * 1000;
  // The table is the data (stdout); what it is and what it shows are for people (stderr).
  process.stderr.write(
    `soak: ${flags.transport} ${flags.batch} × ${flags.concurrency} (${offered.toLocaleString()} EPS offered), render ${flags.render}, parse ${flags.parse}, ${flags.minutes} min, Chrome ${chrome.version}\n\n`,
  );
  process.stdout.write(
    '| t (min) | EPS | p50 ms | p99 ms | gaps | shed | main-thread JS heap after GC, MB | renderer RSS MiB | DOM nodes | server RSS MiB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  const snap = () => api.evaluate((p) => p.snapshot({ resetLatency: true })) as Promise<PageSnapshot>;
  let last = await snap();
  let lastShed = (await server.stats()).batchesShed;
  const t0 = Date.now();
  while (Date.now() - t0 < flags.minutes * 60_000) {
    await new Promise((r) => setTimeout(r, flags['sample-sec'] * 1000));
    await session.send('HeapProfiler.collectGarbage');
    const [s, m, st, rss] = await Promise.all([snap(), session.send('Performance.getMetrics'), server.stats(), rssMib(renderer)]);
    const metric = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? Number.NaN;
    const eps = ((s.counters.events - last.counters.events) * 1000) / (s.atMs - last.atMs);
    const sample: SoakSample = {
      minutes: (Date.now() - t0) / 60_000,
      eps,
      p99Ms: s.latency.p99Ms,
      heapMb: metric('JSHeapUsedSize') / 1e6,
      rendererRssMib: rss,
      domNodes: metric('Nodes'),
      serverRssMib: st.rssBytes / 2 ** 20,
    };
    samples.push(sample);
    process.stdout.write(
      `| ${sample.minutes.toFixed(1)} | ${Math.round(eps).toLocaleString()} | ${s.latency.p50Ms?.toFixed(1) ?? '–'} | ${s.latency.p99Ms?.toFixed(1) ?? '–'} | ${s.counters.gaps - last.counters.gaps} | ${st.batchesShed - lastShed} | ` +
        `${sample.heapMb.toFixed(1)} | ${rss === null ? '–' : rss.toFixed(0)} | ${sample.domNodes} | ${sample.serverRssMib.toFixed(0)} |\n`,
    );
    last = s;
    lastShed = st.batchesShed;
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}

// Throughput and latency: start against end, each judged against the 5% bound.
const p99s = samples.map((s) => s.p99Ms).filter((x): x is number => x !== null);
process.stderr.write(`\nstart vs end (${DRIFT_WINDOW_SHARE * 100}% of the samples at each end):\n`);
process.stderr.write(`${driftLine('EPS', drift(samples.map((s) => s.eps)), (x) => Math.round(x).toLocaleString('en-US'), samples.length)}\n`);
process.stderr.write(
  p99s.length === samples.length
    ? `${driftLine('latency p99, ms', drift(p99s), (x) => x.toFixed(2), samples.length)}\n`
    : `latency p99, ms: ${samples.length - p99s.length} of ${samples.length} samples received no event; drift under 5%: fail\n`,
);

// Memory drift, from the second sample on (the first still holds start-up allocations).
const steady = samples.slice(1);
if (steady.length >= 3) {
  const xs = steady.map((s) => s.minutes);
  const line = (name: string, unit: string, ys: number[]) =>
    `${name}: ${ys[0].toFixed(1)} → ${ys.at(-1)!.toFixed(1)} ${unit} (min ${Math.min(...ys).toFixed(1)}, max ${Math.max(...ys).toFixed(1)}), trend ${slopePerHour(xs, ys).toFixed(2)} ${unit}/h`;
  process.stderr.write(`\ndrift over ${(xs.at(-1)! - xs[0]).toFixed(1)} min (least-squares trend):\n`);
  process.stderr.write(
    `${line(
      'main-thread JS heap after GC',
      'MB',
      steady.map((s) => s.heapMb),
    )}\n`,
  );
  if (steady.every((s) => s.rendererRssMib !== null))
    process.stderr.write(
      `${line(
        'renderer RSS',
        'MiB',
        steady.map((s) => s.rendererRssMib!),
      )}\n`,
    );
  process.stderr.write(
    `${line(
      'DOM nodes',
      'nodes',
      steady.map((s) => s.domNodes),
    )}\n`,
  );
  process.stderr.write(
    `${line(
      'server RSS',
      'MiB',
      steady.map((s) => s.serverRssMib),
    )}\n`,
  );
}
