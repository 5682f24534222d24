/**
 * `npm run bench:page`: the lab page in render mode `none` against the bare page (open,
 * JSON.parse, count), at the same points, in the same browser, interleaved so drift on a
 * noisy machine hits both alike. Prints EPS per page and the ratio; the lab page should
 * reach ≥ 97% of the bare page.
 */
import os from 'node:os';
import { commandLineFlags, type FlagSpec } from '../protocol/flags.js';
import type { PointResult } from '../protocol/report.js';
import { expandScenario, type Point } from '../protocol/scenario.js';
import { RENDER_MODES, STREAM_LIMITS, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/chrome.js';
import { Runner } from '../puppeteer/runner.js';
import { startServer } from '../puppeteer/server-process.js';

const FLAGS = {
  transport: { type: 'list', default: ['ws', 'sse'], choices: TRANSPORTS, help: 'transports' },
  batch: { type: 'list', default: ['50', '400'], integers: STREAM_LIMITS.batch, help: 'batch sizes' },
  concurrency: { type: 'integer', default: 10, min: 1, max: 500, help: 'connections' },
  render: { type: 'list', default: ['none'], choices: RENDER_MODES, help: 'lab page render modes to compare with the bare page' },
  repeats: { type: 'integer', default: 2, min: 1, max: 10, help: 'interleaved repeats per point' },
  'measure-sec': { type: 'number', default: 5, min: 1, max: 60, help: 'window length' },
} as const satisfies Record<string, FlagSpec>;

const flags = commandLineFlags(FLAGS, 'bench:page');
const server = await startServer();
const chrome = await launchChrome({ headless: true });
const browserSession = await chrome.browser.target().createCDPSession();
const base = { browser: chrome.browser, browserSession, server, cores: os.cpus().length, retries: 0 };
const lab = new Runner(base);
const bare = new Runner({ ...base, pagePath: 'bench/bare.html' });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (n: number) => `${(n / 1e6).toFixed(3)} M`;
const rows: string[] = [];
process.stderr.write(`bench:page — Chrome ${chrome.version}, ${os.cpus().length} cores, ${flags.repeats} interleaved repeats, ${flags['measure-sec']} s windows\n`);
try {
  for (const transport of flags.transport) {
    for (const batch of flags.batch.map(Number)) {
      for (const render of flags.render) {
        const point = (page: string): Point =>
          expandScenario({ id: `bench-${page}`, transport: transport as Point['transport'], batch, concurrency: flags.concurrency, render: render as Point['render'], warmupSec: 2, measureSec: flags['measure-sec'] })[0];
        const eps = { lab: [] as number[], bare: [] as number[] };
        const main = { lab: [] as number[], bare: [] as number[] };
        for (let r = 0; r < flags.repeats; r++) {
          for (const [name, runner] of [['bare', bare], ['lab', lab]] as const) {
            const [res] = await runner.run([point(name)], async () => undefined);
            const ok = (x: PointResult) => x.status === 'ok';
            if (!ok(res)) throw new Error(`${res.point.id}: ${res.error}`);
            eps[name].push(res.eventsPerSec!);
            main[name].push(res.cpu!.tabMainThread);
          }
        }
        const ratio = median(eps.lab) / median(eps.bare);
        rows.push(`| ${transport} | ${batch} × ${flags.concurrency} | ${render} | ${fmt(median(eps.bare))} | ${fmt(median(eps.lab))} | ${(ratio * 100).toFixed(1)}% | ${median(main.bare)}% / ${median(main.lab)}% |`);
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}
process.stdout.write(['| transport | batch × conns | lab render | bare EPS | lab EPS | lab / bare | main thread bare / lab |', '|---|---|---|---:|---:|---:|---:|', ...rows].join('\n') + '\n');
