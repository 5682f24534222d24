/**
 * `npm run bench:page`: the lab page in render mode `none` against the bare page (open,
 * JSON.parse, count), at the same points, in the same browser, in pairs whose order
 * alternates so drift on a noisy machine hits both alike. Prints EPS per page with its range,
 * the median of the paired lab/bare ratios (the lab page should reach ≥ 97%), and each page's
 * renderer CPU per million events: on a host both pages saturate, that cost is the steadier
 * figure, since EPS also moves with whatever share of the 2 cores the server took.
 * With `none` and other render modes in --render, it also prints each mode's render cost: its
 * main-thread CPU minus `none`'s, paired per repeat (the budget: ≤ 5 points at SSE 20 × 10).
 */
import os from 'node:os';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import { expandScenario, type Point } from '../protocol/scenario.js';
import { median } from '../results/stats.js';
import { RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { RepeatMeasurer } from '../puppeteer/measure/repeat.js';
import { startServer } from '../puppeteer/measure/server-process.js';

const FLAGS = {
  transport: { type: 'list', default: TRANSPORTS, choices: TRANSPORTS, help: 'transports' },
  batch: { type: 'list', default: ['50', '400'], integers: LIMITS.batch, help: 'batch sizes' },
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  render: { type: 'list', default: ['none'], choices: RENDER_MODES, help: 'lab page render modes to compare with the bare page' },
  repeats: { type: 'integer', default: 2, min: 1, max: 10, help: 'interleaved repeats per point' },
  'measure-sec': { type: 'number', default: 5, min: 1, max: 60, help: 'window length' },
  'interval-ms': { type: 'number', default: 1, min: 0.05, max: 60_000, help: 'ms between batches per connection' },
  bare: { type: 'boolean', default: true, help: 'also run the bare page (--bare=false to compare render modes only)' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:page');
exitOnStopRequest('bench:page');
const flags = commandLineFlags(FLAGS, 'bench:page');
const server = await startServer();
const chrome = await launchChrome({ headless: true });
const browserSession = await chrome.browser.target().createCDPSession();
const browser = {
  browser: () => chrome.browser,
  session: () => browserSession,
  newPage: () => chrome.browser.newPage(),
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
const pp = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;

interface Run {
  eps: number;
  /** Renderer CPU per million events, ms: the page's cost, whatever share of the host it got. */
  cpuMsPerMillion: number;
  /** The same for the renderer's main thread alone (kernel thread CPU), or NaN off Linux. */
  mainCpuMsPerMillion: number;
  /** Main-thread busy time (TaskDuration), % of one core. */
  main: number;
  /** Main-thread CPU from the kernel, % of one core, or NaN off Linux. */
  mainKernel: number;
  /** Main-thread busy time per million events, ms. */
  mainBusyMsPerMillion: number;
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
    mainKernel: res.cpu.tabThreads?.main ?? Number.NaN,
    mainBusyMsPerMillion: perMillion(res.cpu.tabMainThread),
  };
}

const header = [
  '| transport | batch × conns | lab render | bare EPS (M) | lab EPS (M) | lab / bare EPS, median of pairs (range) | renderer CPU ms / 1M events, bare / lab (range) | of which main thread, bare / lab | main thread busy, bare / lab |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|',
];
const costHeader = [
  '| transport | batch × conns × interval | render | main thread busy, render − none, pp: median (range) | main thread CPU (kernel), render − none, pp: median (range) | main thread busy: none / render, median | main thread busy ms / 1M events: none / render, median (render ÷ none per repeat, median (range)) |',
  '|---|---|---|---:|---:|---:|---:|',
];
const rows: string[] = [];
const costRows: string[] = [];
const renders = flags.render as Point['render'][];
// With `none` and another mode in --render, the lab page's render cost is the difference in
// main-thread CPU between them, paired per repeat: both modes run back to back in each repeat.
const withCost = renders.includes('none') && renders.length > 1;
const pages = [...(flags.bare ? ['bare'] : []), ...renders.map((r) => `lab-${r}`)];
process.stderr.write(
  `bench:page — Chrome ${chrome.version}, ${os.cpus().length} cores, ${flags.repeats} repeats of ${pages.join(', ')} (order reverses every repeat), ${flags['measure-sec']} s windows, interval ${flags['interval-ms']} ms\n`,
);
try {
  for (const transport of flags.transport) {
    for (const batch of flags.batch.map(Number)) {
      const point = (page: string, render: Point['render']): Point =>
        expandScenario({
          id: `bench-${page}`,
          transport: transport as Point['transport'],
          batch,
          concurrency: flags.concurrency,
          intervalMs: flags['interval-ms'],
          render,
          warmupSec: 2,
          measureSec: flags['measure-sec'],
        })[0];
      const runs = new Map<string, Run[]>(pages.map((p) => [p, []]));
      for (let r = 0; r < flags.repeats; r++) {
        // Reversing the order every repeat cancels a steady drift of the host within a repeat.
        const order = r % 2 ? [...pages].reverse() : pages;
        for (const name of order) {
          const render = name === 'bare' ? 'none' : (name.slice(4) as Point['render']);
          runs.get(name)!.push(await once(name === 'bare' ? bare : lab, point(name, render), r));
        }
      }
      const col = (page: string, k: keyof Run) => runs.get(page)!.map((x) => x[k]);
      if (flags.bare) {
        for (const render of renders) {
          const name = `lab-${render}`;
          const ratios = col(name, 'eps').map((l, i) => l / col('bare', 'eps')[i]);
          const [eps, cost, mainCost, main] = (['eps', 'cpuMsPerMillion', 'mainCpuMsPerMillion', 'main'] as const).map((k) => ({ bare: col('bare', k), lab: col(name, k) }));
          rows.push(
            `| ${transport} | ${batch} × ${flags.concurrency} | ${render} | ${meps(median(eps.bare))} (${spread(eps.bare, meps)}) | ${meps(median(eps.lab))} (${spread(eps.lab, meps)}) | ` +
              `${pct(median(ratios))} (${spread(ratios, pct)}) | ${Math.round(median(cost.bare))} (${spread(cost.bare, ms)}) / ${Math.round(median(cost.lab))} (${spread(cost.lab, ms)}), lab ${pct(median(cost.lab) / median(cost.bare))} of bare | ` +
              `${Math.round(median(mainCost.bare))} / ${Math.round(median(mainCost.lab))} | ${median(main.bare)}% / ${median(main.lab)}% |`,
          );
        }
      }
      if (withCost) {
        for (const render of renders.filter((r) => r !== 'none')) {
          const diff = (k: 'main' | 'mainKernel') => col(`lab-${render}`, k).map((x, i) => x - col('lab-none', k)[i]);
          const busy = diff('main');
          const kernel = diff('mainKernel');
          // Once the main thread saturates (on a loaded host even at 20 × 10), busy % cannot
          // rise: the render cost then shows as fewer events for the same busy time.
          const perEvent = { none: col('lab-none', 'mainBusyMsPerMillion'), render: col(`lab-${render}`, 'mainBusyMsPerMillion') };
          const perEventRatio = perEvent.render.map((x, i) => x / perEvent.none[i]);
          costRows.push(
            `| ${transport} | ${batch} × ${flags.concurrency} × ${flags['interval-ms']} ms | ${render} | ${pp(median(busy))} (${spread(busy, pp)}) | ${kernel.every(Number.isFinite) ? `${pp(median(kernel))} (${spread(kernel, pp)})` : 'n/a'} | ` +
              `${median(col('lab-none', 'main')).toFixed(1)}% / ${median(col(`lab-${render}`, 'main')).toFixed(1)}% | ` +
              `${ms(median(perEvent.none))} / ${ms(median(perEvent.render))} (${pct(median(perEventRatio))} (${spread(perEventRatio, pct)})) |`,
          );
        }
      }
      process.stderr.write(`${[...(flags.bare ? [...header, ...rows] : []), ...(withCost ? ['', 'render cost (paired per repeat):', ...costHeader, ...costRows] : [])].join('\n')}\n`);
    }
  }
} finally {
  await chrome.browser.close();
  await server.stop();
}
process.stdout.write([...(flags.bare ? [...header, ...rows] : []), ...(withCost ? [...costHeader, ...costRows] : [])].join('\n') + '\n');
