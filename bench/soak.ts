/**
 * `npm run bench:soak`: one lab page streaming for a long time, sampled at intervals, to
 * show whether throughput, latency or memory drift (the table's ring and the charts' 60 s
 * windows are meant to keep the page's footprint flat).
 */
import { commandLineFlags, type FlagSpec } from '../protocol/flags.js';
import type { PageConfig, PageSnapshot, PushlabApi } from '../protocol/report.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/chrome.js';
import { openLabPage } from '../puppeteer/runner.js';
import { startServer } from '../puppeteer/server-process.js';

const FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport' },
  batch: { type: 'integer', default: 20, min: 1, max: 10_000, help: 'rows per batch' },
  concurrency: { type: 'integer', default: 10, min: 1, max: 500, help: 'connections' },
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'render mode' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse mode' },
  minutes: { type: 'number', default: 10, min: 0.5, max: 24 * 60, help: 'how long to stream' },
  'sample-sec': { type: 'number', default: 30, min: 1, max: 3600, help: 'seconds between samples' },
} as const satisfies Record<string, FlagSpec>;

const flags = commandLineFlags(FLAGS, 'bench:soak');
const server = await startServer();
const chrome = await launchChrome({ headless: true });
const page = await chrome.browser.newPage();
const session = await page.createCDPSession();
try {
  await session.send('Performance.enable');
  await openLabPage(page, server.url);
  const config: PageConfig = { transport: flags.transport as PageConfig['transport'], batch: flags.batch, intervalMs: 1, concurrency: flags.concurrency, render: flags.render as PageConfig['render'], parse: flags.parse as PageConfig['parse'] };
  await page.evaluate((c) => (globalThis as unknown as { pushlab: PushlabApi }).pushlab.start(c).then(() => undefined), config);
  const offered = flags.batch * flags.concurrency * 1000;
  process.stdout.write(`soak: ${flags.transport} ${flags.batch} × ${flags.concurrency} (${offered.toLocaleString()} EPS offered), render ${flags.render}, parse ${flags.parse}, ${flags.minutes} min\n\n`);
  process.stdout.write('| t (min) | EPS | p50 ms | p99 ms | gaps | JS heap MB | DOM nodes | server RSS MiB |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  const snap = () => page.evaluate(() => (globalThis as unknown as { pushlab: PushlabApi }).pushlab.snapshot({ resetLatency: true })) as Promise<PageSnapshot>;
  let last = await snap();
  const t0 = Date.now();
  while (Date.now() - t0 < flags.minutes * 60_000) {
    await new Promise((r) => setTimeout(r, flags['sample-sec'] * 1000));
    await session.send('HeapProfiler.collectGarbage');
    const [s, m, st] = await Promise.all([snap(), session.send('Performance.getMetrics'), server.stats()]);
    const metric = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? Number.NaN;
    const eps = ((s.counters.events - last.counters.events) * 1000) / (s.atMs - last.atMs);
    process.stdout.write(
      `| ${((Date.now() - t0) / 60_000).toFixed(1)} | ${Math.round(eps).toLocaleString()} | ${s.latency.p50Ms ?? '–'} | ${s.latency.p99Ms ?? '–'} | ${s.counters.gaps - last.counters.gaps} | ${(metric('JSHeapUsedSize') / 1e6).toFixed(1)} | ${metric('Nodes')} | ${(st.rssBytes / 2 ** 20).toFixed(0)} |\n`,
    );
    last = s;
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}
