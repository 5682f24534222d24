/**
 * `npm run bench:page`: what pushlab itself costs the tab it measures (issue 22), in two parts,
 * printed every run:
 * - the page part: the lab page in render mode `none` ÷ the bare page (web/bench/bare.ts: open,
 *   JSON.parse, count), both on pushlab's server;
 * - the server part: the bare page on pushlab's server ÷ the bare page on a plain reference
 *   server (bench/plain-server.ts: fastify + @fastify/websocket `ws.send` + better-sse
 *   `session.batch`, the same message bytes), both driven alike;
 * and their product, the lab on pushlab ÷ the bare page on the plain server (the goal: ≥ 97% of
 * the EPS, renderer CPU per event within 5%); and (issue 37) the sweep's own cost: the point
 * through `npm run sweep` itself, a process with its own server and Chrome, ÷ a plain setup
 * started from nothing the same way (bench/instrument.ts; the goal: ≥ 97% of the EPS). The
 * parts above all run in this bench's one browser and driver, which is why they cannot see it. Each figure is EPS (events the page counted per
 * second over the window) and renderer CPU per event (the tab's renderer process CPU time over
 * the window ÷ its events); each ratio is taken per round (the setups of one round run back to
 * back), and the median of the rounds is printed with their range. The setups run in the same
 * browser, their order reversed every round so a steady drift of the host hits all alike.
 * With other render modes in --render, it also prints each mode's render cost: its
 * main-thread CPU minus `none`'s, paired per round (the budget: ≤ 5 points at SSE 20 × 10).
 * With --input-probe, it also runs each render mode with the input probe off (no input sent, no
 * listeners or long-frame observer on the page: `lab-<render>-noprobe`) beside the lab page as
 * measured (input sent every 250 ms and timed), and prints the probe's cost: renderer CPU per
 * event, with ÷ without, per round (the budget: ≤ 102%, issue 33).
 */
import os from 'node:os';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import type { MeasuredRepeat } from '../protocol/repeat-figures.js';
import { expandScenario, type Point } from '../protocol/scenario.js';
import { median } from '../results/stats.js';
import { CLASSIC_TRANSPORTS, RENDER_MODES, TRANSPORTS, type Transport } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { repeatSec } from '../puppeteer/sweep/estimate.js';
import { RepeatMeasurer } from '../puppeteer/measure/repeat.js';
import { startServer } from '../puppeteer/measure/server-process.js';
import { benchSlot, INGREDIENTS, plainRun, sweepRun, type CountOnlyPoint, type Ingredient, type InstrumentRun } from './instrument.js';

/** The transports the plain reference server serves: the two the reference experiment compared. */
const PLAIN_TRANSPORTS: readonly Transport[] = CLASSIC_TRANSPORTS;

const FLAGS = {
  transport: { type: 'list', default: CLASSIC_TRANSPORTS, choices: TRANSPORTS, help: `transports (the plain server serves ${PLAIN_TRANSPORTS.join(', ')})` },
  batch: { type: 'list', default: ['400'], integers: LIMITS.batch, help: 'batch sizes' },
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  render: { type: 'list', default: ['none'], choices: RENDER_MODES, help: 'lab page render modes to compare with the bare page' },
  repeats: { type: 'integer', default: 5, min: 1, max: 20, help: 'rounds: each runs every setup once, the order reversed every round' },
  'measure-sec': { type: 'number', default: 5, min: 1, max: 60, help: 'window length' },
  'warmup-sec': { type: 'number', default: 2, min: 1, max: 60, help: 'longest warm-up before the window (at least 1 s, then until settled)' },
  'interval-ms': { type: 'number', default: 1, min: 0.05, max: 60_000, help: 'ms between batches per connection' },
  bare: { type: 'boolean', default: true, help: 'also run the bare page (--bare=false to compare render modes only)' },
  plain: { type: 'boolean', default: true, help: 'also run the bare page on the plain reference server (the server part of the tax)' },
  'input-probe': {
    type: 'boolean',
    default: false,
    help: "also run each render mode with the input probe off, and print the probe's cost (renderer CPU per event, with ÷ without)",
  },
  'server-args': { type: 'string', default: '', help: "extra flags for pushlab's server, space-separated (e.g. --send-buffer-mib 1)" },
  sweep: {
    type: 'boolean',
    default: true,
    help: "also run the count-only point through `npm run sweep` itself and on a plain setup (bench/instrument.ts), and print the sweep's own cost (--sweep=false to skip)",
  },
  'sweep-args': { type: 'string', default: '', help: 'extra flags for the sweep of --sweep, space-separated' },
  ingredients: {
    type: 'list',
    default: [],
    choices: INGREDIENTS,
    help: "with --sweep: also run the plain setup with each of these parts of the sweep in place of its own, one at a time, and print each one's cost (bench/instrument.ts)",
  },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:page');
exitOnStopRequest('bench:page');
const flags = commandLineFlags(FLAGS, 'bench:page');
const server = await startServer(flags['server-args'].split(' ').filter(Boolean));
const plain = flags.plain && flags.bare ? await startServer([], 30_000, [], 'bench/plain-server.ts') : null;
/** What each server sheds at: a deeper queue only adds latency once the page is the limit (see docs/limits.md). */
const bounds = `send bound: pushlab ${(await server.stats()).sendBufferLimitBytes / 2 ** 20} MiB${plain ? `, plain ${(await plain.stats()).sendBufferLimitBytes / 2 ** 20} MiB` : ''}`;
const chrome = await launchChrome({ headless: true });
const browser = await benchSlot(chrome.browser, 'bench:page');
const base = { browser, server, cores: os.cpus().length, retries: 0 };
const lab = new RepeatMeasurer(base);
const labNoProbe = new RepeatMeasurer({ ...base, input: false });
const bareOnPushlab = new RepeatMeasurer({ ...base, pagePath: 'bench/bare.html' });
const bareOnPlain = plain ? new RepeatMeasurer({ ...base, server: plain, pagePath: 'bench/bare.html' }) : null;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const spread = (xs: number[], f: (x: number) => string) => `${f(sorted(xs)[0])}–${f(sorted(xs).at(-1)!)}`;
const meps = (n: number) => (n / 1e6).toFixed(3);
const ms = (x: number) => (Number.isFinite(x) ? String(Math.round(x)) : 'n/a');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
const withRange = (xs: number[], f: (x: number) => string) => `${f(median(xs))} (${spread(xs, f)})`;

interface Run {
  eps: number;
  /** Renderer process CPU per million events, ms: the page's cost, whatever share of the host it got. */
  cpuMsPerMillion: number;
  /** The same for the renderer's main thread alone (kernel thread CPU), or NaN off Linux. */
  mainCpuMsPerMillion: number;
  /** The renderer's IO thread (IPC from the network service), per million events, or NaN off Linux. */
  ioCpuMsPerMillion: number;
  /** Chrome's network service per million events. */
  networkCpuMsPerMillion: number;
  /** The server process per million events. */
  serverCpuMsPerMillion: number;
  /** Whole host (/proc/stat), % of one core. */
  host: number;
  /** Main-thread busy time (TaskDuration), % of one core. */
  main: number;
  /** Main-thread CPU from the kernel, % of one core, or NaN off Linux. */
  mainKernel: number;
  /** Main-thread busy time per million events, ms. */
  mainBusyMsPerMillion: number;
  /** Batches the server skipped in the window (its queue for the connection was over its bound). */
  shed: number;
  /** The page's latency p50 at the end of the window, ms: how deep the queues were (the bare page: its newest batch's age). */
  p50Ms: number;
}

async function once(measurer: RepeatMeasurer, point: Point, round: number): Promise<Run> {
  const res = await measurer.measure(point, { round, ceilingEventsPerSec: null });
  if (res?.status !== 'ok') throw new Error(`${point.id}: ${res?.error ?? 'interrupted'}`);
  const r: MeasuredRepeat = res;
  const eps = r.eventsPerSec;
  // The bench runs Chrome, whose CPU figures are always read; a null would be a NaN here.
  const perMillion = (pct: number | null) => (((pct ?? Number.NaN) / 100) * 1e9) / eps;
  return {
    eps,
    cpuMsPerMillion: perMillion(r.cpu.tabProcess),
    mainCpuMsPerMillion: perMillion(r.cpu.tabThreads?.main ?? Number.NaN),
    ioCpuMsPerMillion: perMillion(r.cpu.tabThreads?.io ?? Number.NaN),
    networkCpuMsPerMillion: perMillion(r.cpu.chrome.network),
    serverCpuMsPerMillion: perMillion(r.cpu.server),
    host: r.cpu.host ?? Number.NaN,
    main: r.cpu.tabMainThread ?? Number.NaN,
    mainKernel: r.cpu.tabThreads?.main ?? Number.NaN,
    mainBusyMsPerMillion: perMillion(r.cpu.tabMainThread),
    shed: r.server.batchesShed,
    p50Ms: r.latency.p50Ms ?? Number.NaN,
  };
}

/** One page on one server, measured by this bench's driver, or a whole setup run from nothing (`run`). */
interface Setup {
  name: string;
  measurer?: RepeatMeasurer;
  run?: (p: CountOnlyPoint) => Promise<InstrumentRun>;
  render: Point['render'];
}

/** A run of `npm run sweep` or of the plain setup: only EPS and renderer CPU per event are read there. */
function instrumentRun(r: InstrumentRun): Run {
  const none = Number.NaN;
  return {
    eps: r.eps,
    cpuMsPerMillion: r.cpuMsPerMillion,
    mainCpuMsPerMillion: none,
    ioCpuMsPerMillion: none,
    networkCpuMsPerMillion: none,
    serverCpuMsPerMillion: none,
    host: none,
    main: none,
    mainKernel: none,
    mainBusyMsPerMillion: none,
    shed: none,
    p50Ms: none,
  };
}

const renders = flags.render as Point['render'][];
const sweepArgs = flags['sweep-args'].split(' ').filter(Boolean);
const ingredients = flags.ingredients as Ingredient[];
const setupsFor = (transport: Transport): Setup[] => [
  ...(flags.sweep && PLAIN_TRANSPORTS.includes(transport)
    ? [
        { name: 'sweep', run: (p: CountOnlyPoint) => sweepRun(p, sweepArgs), render: 'none' as const },
        { name: 'plain', run: (p: CountOnlyPoint) => plainRun(p), render: 'none' as const },
        ...ingredients.map((i) => ({ name: `plain+${i}`, run: (p: CountOnlyPoint) => plainRun(p, new Set([i])), render: 'none' as const })),
      ]
    : []),
  ...(bareOnPlain && PLAIN_TRANSPORTS.includes(transport) ? [{ name: 'bare@plain', measurer: bareOnPlain, render: 'none' as const }] : []),
  ...(flags.bare ? [{ name: 'bare@pushlab', measurer: bareOnPushlab, render: 'none' as const }] : []),
  ...renders.map((render) => ({ name: `lab-${render}@pushlab`, measurer: lab, render })),
  ...(flags['input-probe'] ? renders.map((render) => ({ name: `lab-${render}-noprobe@pushlab`, measurer: labNoProbe, render })) : []),
];

const runsHeader = [
  '| transport | batch × conns × interval | page @ server | EPS, M events/s | renderer CPU, ms / 1M events | main thread (kernel) | IO thread | network service | server | main thread busy % | host CPU % | shed batches | latency p50, ms |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const taxHeader = [
  '| transport | batch × conns × interval | part | ratio of | EPS ratio | renderer CPU / event ratio | main thread CPU / event ratio |',
  '|---|---|---|---|---:|---:|---:|',
];
const costHeader = [
  '| transport | batch × conns × interval | render | main thread busy, render − none, pp: median (range) | main thread CPU (kernel), render − none, pp: median (range) | main thread busy: none / render, median | main thread busy ms / 1M events: none / render, median (render ÷ none per round, median (range)) |',
  '|---|---|---|---:|---:|---:|---:|',
];
/** Issue 22's goal for the total: the lab's EPS at least this share of the bare page's on the plain server, its renderer CPU per event at most this. */
const GOAL = { eps: 0.97, cpuPerEvent: 1.05 };
/** Issue 33's budget for the input probe: renderer CPU per event with it at most this share of without. */
const PROBE_BUDGET = 1.02;
const runRows: string[] = [];
const summary: string[] = [];
const taxRows: string[] = [];
const costRows: string[] = [];
// With `none` and another mode in --render, the lab page's render cost is the difference in
// main-thread CPU between them, paired per round: both modes run back to back in each round.
const withCost = renders.includes('none') && renders.length > 1;

function output(): string {
  return [
    `bench:page, Chrome ${chrome.version}, ${os.cpus().length} cores, ${flags.repeats} rounds, ${flags['measure-sec']} s windows, ${bounds}.`,
    'Per setup, median (min–max) over rounds. EPS: events the page counted ÷ the window. CPU: CPU time over the window ÷ events counted (renderer: Performance.getMetrics ProcessTime; threads: /proc; network service: SystemInfo.getProcessInfo; server: its process.cpuUsage).',
    ...runsHeader,
    ...runRows,
    '',
    `The tax: per-round ratios, median (min–max). page = lab ÷ bare, both on pushlab's server; server = bare on pushlab's server ÷ bare on the plain one; total = lab on pushlab ÷ bare on plain (goal, ✓/✗: EPS ≥ ${pct(GOAL.eps)}, renderer CPU / event ≤ ${pct(GOAL.cpuPerEvent)}); sweep = \`npm run sweep\` ÷ the plain setup, each from nothing (goal: EPS ≥ ${pct(GOAL.eps)}); input probe = lab with ÷ without it (budget: renderer CPU / event ≤ ${pct(PROBE_BUDGET)}).`,
    ...taxHeader,
    ...taxRows,
    ...(withCost ? ['', 'render cost (paired per round):', ...costHeader, ...costRows] : []),
    '',
    'In short (medians of per-round ratios):',
    ...summary.map((l) => `- ${l}`),
  ].join('\n');
}

const transports = flags.transport as Transport[];
const describe = transports
  .map(
    (t) =>
      `${t}: ${setupsFor(t)
        .map((s) => s.name)
        .join(', ')}`,
  )
  .join('; ');
const repeatsToRun = transports.reduce((n, t) => n + setupsFor(t).length, 0) * flags.batch.length * flags.repeats;
const aboutSec =
  repeatsToRun *
  repeatSec(
    expandScenario({
      id: 'estimate',
      transport: 'ws',
      batch: 400,
      concurrency: flags.concurrency,
      intervalMs: flags['interval-ms'],
      render: 'none',
      warmupSec: flags['warmup-sec'],
      measureSec: flags['measure-sec'],
    })[0],
  );
process.stderr.write(
  `bench:page — Chrome ${chrome.version}, ${os.cpus().length} cores, ${flags.repeats} rounds of [${describe}] (order reverses every round), ` +
    `warm-up ≥ 1 s and ≤ ${flags['warmup-sec']} s + settle, ${flags['measure-sec']} s windows, ${flags.batch.join('/')} rows × ${flags.concurrency} connections every ${flags['interval-ms']} ms` +
    `${plain ? `; plain reference server ${plain.url}` : ''}; ${bounds}; ${repeatsToRun} repeats, about ${Math.ceil(aboutSec / 60)} min\n`,
);
try {
  for (const transport of transports) {
    for (const batch of flags.batch.map(Number)) {
      const setups = setupsFor(transport);
      const point = (s: Setup): Point =>
        expandScenario({
          id: `bench-${s.name}`,
          transport,
          batch,
          concurrency: flags.concurrency,
          intervalMs: flags['interval-ms'],
          render: s.render,
          warmupSec: flags['warmup-sec'],
          measureSec: flags['measure-sec'],
        })[0];
      const runs = new Map<string, Run[]>(setups.map((s) => [s.name, []]));
      for (let r = 0; r < flags.repeats; r++) {
        // Reversing the order every round cancels a steady drift of the host within a round.
        const order = r % 2 ? [...setups].reverse() : setups;
        for (const s of order) {
          const run = s.run
            ? instrumentRun(
                await s.run({
                  transport,
                  batch,
                  concurrency: flags.concurrency,
                  intervalMs: flags['interval-ms'],
                  warmupSec: flags['warmup-sec'],
                  measureSec: flags['measure-sec'],
                }),
              )
            : await once(s.measurer!, point(s), r);
          runs.get(s.name)!.push(run);
          process.stderr.write(
            `  ${transport} ${batch} × ${flags.concurrency} round ${r + 1}/${flags.repeats} ${s.name}: ${meps(run.eps)} M events/s, renderer ${ms(run.cpuMsPerMillion)} ms / 1M events\n`,
          );
        }
      }
      const at = `${batch} × ${flags.concurrency} × ${flags['interval-ms']} ms`;
      const col = (name: string, k: keyof Run) => runs.get(name)!.map((x) => x[k]);
      for (const s of setups) {
        const c = (k: keyof Run, f: (x: number) => string) => (col(s.name, k).every(Number.isFinite) ? withRange(col(s.name, k), f) : 'n/a');
        runRows.push(
          `| ${transport} | ${at} | ${s.name} | ${c('eps', meps)} | ${c('cpuMsPerMillion', ms)} | ${c('mainCpuMsPerMillion', ms)} | ${c('ioCpuMsPerMillion', ms)} | ${c('networkCpuMsPerMillion', ms)} | ${c('serverCpuMsPerMillion', ms)} | ` +
            `${c('main', (x) => x.toFixed(0))} | ${c('host', (x) => x.toFixed(0))} | ${c('shed', (x) => String(Math.round(x)))} | ${c('p50Ms', (x) => x.toFixed(0))} |`,
        );
      }
      /** Per-round ratios of setup `top` to setup `bottom`; a `goal` is checked on the medians. */
      /** `goal`: check the total's goal (EPS and CPU), or the probe's budget (CPU only). */
      const tax = (part: string, top: string, bottom: string, what: string, goal: false | 'total' | 'probe' | 'instrument' = false) => {
        if (!runs.has(top) || !runs.has(bottom)) return;
        const ratio = (k: keyof Run) => col(top, k).map((x, i) => x / col(bottom, k)[i]);
        const cell = (k: keyof Run) => (ratio(k).every(Number.isFinite) ? withRange(ratio(k), pct) : 'n/a');
        const met = (ok: boolean, checked: boolean) => (checked ? (ok ? ' ✓' : ' ✗') : '');
        const eps = median(ratio('eps'));
        const cpu = median(ratio('cpuMsPerMillion'));
        const cpuOk = goal === 'probe' ? cpu <= PROBE_BUDGET : cpu <= GOAL.cpuPerEvent;
        taxRows.push(
          `| ${transport} | ${at} | ${part} | ${what} | ${cell('eps')}${met(eps >= GOAL.eps, goal === 'total' || goal === 'instrument')} | ${cell('cpuMsPerMillion')}${met(cpuOk, goal === 'total' || goal === 'probe')} | ${cell('mainCpuMsPerMillion')} |`,
        );
        summary.push(`${transport} ${at}: ${part} ${pct(eps)} EPS, ${pct(cpu)} renderer CPU per event (${top} ÷ ${bottom})`);
      };
      for (const render of renders) {
        const labName = `lab-${render}@pushlab`;
        tax('page', labName, 'bare@pushlab', `lab (render ${render}) ÷ bare, on pushlab's server`);
      }
      tax('server', 'bare@pushlab', 'bare@plain', "bare on pushlab's server ÷ bare on the plain server");
      // Issue 37: what a user's figure carries, the whole sweep against the plain setup, each from nothing.
      tax('sweep', 'sweep', 'plain', '`npm run sweep` (lab page, render none) ÷ the plain setup (bench/instrument.ts)', 'instrument');
      for (const i of ingredients) tax(`sweep's ${i}`, `plain+${i}`, 'plain', `the plain setup with the sweep's ${i} ÷ without`);
      // The input probe's own cost (issue 33): the lab page as measured ÷ the same page with the probe off.
      if (flags['input-probe'])
        for (const render of renders)
          tax('input probe', `lab-${render}@pushlab`, `lab-${render}-noprobe@pushlab`, `lab (render ${render}) with ÷ without the input probe`, 'probe');
      for (const render of renders)
        tax(
          'total',
          `lab-${render}@pushlab`,
          'bare@plain',
          `lab (render ${render}) on pushlab's server ÷ bare on the plain server`,
          render === 'none' ? 'total' : false,
        );
      if (withCost) {
        for (const render of renders.filter((r) => r !== 'none')) {
          const name = `lab-${render}@pushlab`;
          const diff = (k: 'main' | 'mainKernel') => col(name, k).map((x, i) => x - col('lab-none@pushlab', k)[i]);
          const busy = diff('main');
          const kernel = diff('mainKernel');
          // Once the main thread saturates (on a loaded host even at 20 × 10), busy % cannot
          // rise: the render cost then shows as fewer events for the same busy time.
          const perEvent = { none: col('lab-none@pushlab', 'mainBusyMsPerMillion'), render: col(name, 'mainBusyMsPerMillion') };
          const perEventRatio = perEvent.render.map((x, i) => x / perEvent.none[i]);
          costRows.push(
            `| ${transport} | ${at} | ${render} | ${withRange(busy, pp)} | ${kernel.every(Number.isFinite) ? withRange(kernel, pp) : 'n/a'} | ` +
              `${median(col('lab-none@pushlab', 'main')).toFixed(1)}% / ${median(col(name, 'main')).toFixed(1)}% | ` +
              `${ms(median(perEvent.none))} / ${ms(median(perEvent.render))} (${withRange(perEventRatio, pct)}) |`,
          );
        }
      }
      process.stderr.write(`${output()}\n`);
    }
  }
} finally {
  await chrome.browser.close();
  await server.stop();
  await plain?.stop();
}
process.stdout.write(`${output()}\n`);
