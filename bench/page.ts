/**
 * `npm run bench:page`: the lab page in render mode `none` against the bare page (open,
 * JSON.parse, count), at the same points, in the same browser, in pairs whose order
 * alternates so drift on a noisy machine hits both alike. Prints EPS per page with its range,
 * the median of the paired lab/bare ratios (the lab page should reach ≥ 97%), and each page's
 * renderer CPU per million events: on a host both pages saturate, that cost is the steadier
 * figure, since EPS also moves with whatever share of the 2 cores the server took.
 */
import os from 'node:os';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import { expandScenario, type Point } from '../protocol/scenario.js';
import { median } from '../protocol/stats.js';
import { RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/chrome.js';
import { RepeatMeasurer } from '../puppeteer/repeat.js';
import { startServer } from '../puppeteer/server-process.js';

const FLAGS = {
  transport: { type: 'list', default: TRANSPORTS, choices: TRANSPORTS, help: 'transports' },
  batch: { type: 'list', default: ['50', '400'], integers: LIMITS.batch, help: 'batch sizes' },
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  render: { type: 'list', default: ['none'], choices: RENDER_MODES, help: 'lab page render modes to compare with the bare page' },
  repeats: { type: 'integer', default: 2, min: 1, max: 10, help: 'interleaved repeats per point' },
  'measure-sec': { type: 'number', default: 5, min: 1, max: 60, help: 'window length' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:page');
const flags = commandLineFlags(FLAGS, 'bench:page');
const server = await startServer();
const chrome = await launchChrome({ headless: true });
const browserSession = await chrome.browser.target().createCDPSession();
const browser = {
  browser: () => chrome.browser,
  session: () => browserSession,
  relaunch: () => Promise.reject(new Error('bench:page does not relaunch a crashed browser')),
};
const base = { browser, server, cores: os.cpus().length, retries: 0 };
const lab = new RepeatMeasurer(base);
const bare = new RepeatMeasurer({ ...base, pagePath: 'bench/bare.html' });

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const spread = (xs: number[], f: (x: number) => string) => `${f(sorted(xs)[0])}–${f(sorted(xs).at(-1)!)}`;
const meps = (n: number) => (n / 1e6).toFixed(3);
const ms = (x: number) => String(Math.round(x));
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

interface Run {
  eps: number;
  /** Renderer CPU per million events, ms: the page's cost, whatever share of the host it got. */
  cpuMsPerMillion: number;
  /** The same for the renderer's main thread alone (kernel thread CPU), or NaN off Linux. */
  mainCpuMsPerMillion: number;
  main: number;
}

async function once(measurer: RepeatMeasurer, point: Point, round: number): Promise<Run> {
  const res = await measurer.measure(point, { round, ceilingEventsPerSec: null });
  if (res?.status !== 'ok') throw new Error(`${point.id}: ${res?.error ?? 'interrupted'}`);
  const eps = res.eventsPerSec;
  const perMillion = (pct: number) => ((pct / 100) * 1e9) / eps;
  return {
    eps,
    cpuMsPerMillion: perMillion(res.cpu.tabProcess),
    mainCpuMsPerMillion: perMillion(res.cpu.tabThreads?.main ?? Number.NaN),
    main: res.cpu.tabMainThread,
  };
}

const header = [
  '| transport | batch × conns | lab render | bare EPS (M) | lab EPS (M) | lab / bare EPS, median of pairs (range) | renderer CPU ms / 1M events, bare / lab (range) | of which main thread, bare / lab | main thread busy, bare / lab |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|',
];
const rows: string[] = [];
process.stderr.write(`bench:page — Chrome ${chrome.version}, ${os.cpus().length} cores, ${flags.repeats} paired repeats (order alternates), ${flags['measure-sec']} s windows\n${header.join('\n')}\n`);
try {
  for (const transport of flags.transport) {
    for (const batch of flags.batch.map(Number)) {
      for (const render of flags.render) {
        const point = (page: string): Point =>
          expandScenario({ id: `bench-${page}`, transport: transport as Point['transport'], batch, concurrency: flags.concurrency, render: render as Point['render'], warmupSec: 2, measureSec: flags['measure-sec'] })[0];
        const runs = { lab: [] as Run[], bare: [] as Run[] };
        for (let r = 0; r < flags.repeats; r++) {
          // Alternating which page goes first cancels a steady drift of the host within a pair.
          const order = r % 2 ? (['lab', 'bare'] as const) : (['bare', 'lab'] as const);
          for (const name of order) runs[name].push(await once(name === 'lab' ? lab : bare, point(name), r));
        }
        const ratios = runs.lab.map((l, i) => l.eps / runs.bare[i].eps);
        const col = (k: keyof Run) => ({ bare: runs.bare.map((x) => x[k]), lab: runs.lab.map((x) => x[k]) });
        const eps = col('eps');
        const cost = col('cpuMsPerMillion');
        const mainCost = col('mainCpuMsPerMillion');
        const main = col('main');
        rows.push(
          `| ${transport} | ${batch} × ${flags.concurrency} | ${render} | ${meps(median(eps.bare))} (${spread(eps.bare, meps)}) | ${meps(median(eps.lab))} (${spread(eps.lab, meps)}) | ` +
            `${pct(median(ratios))} (${spread(ratios, pct)}) | ${Math.round(median(cost.bare))} (${spread(cost.bare, ms)}) / ${Math.round(median(cost.lab))} (${spread(cost.lab, ms)}), lab ${pct(median(cost.lab) / median(cost.bare))} of bare | ` +
            `${Math.round(median(mainCost.bare))} / ${Math.round(median(mainCost.lab))} | ${median(main.bare)}% / ${median(main.lab)}% |`,
        );
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}
process.stdout.write([...header, ...rows].join('\n') + '\n');
