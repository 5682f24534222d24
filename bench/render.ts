/**
 * `npm run bench:render`: what the lab page's rendering costs its main thread, measured
 * directly rather than as a difference. `bench:page` subtracts `none`'s main-thread CPU from
 * `full`'s, two runs whose own CPU moves by ±10 points on a shared 2-core host, so a cost of a
 * few points drowns. Here a Chrome trace of the streaming page attributes the main thread's
 * CPU (thread time, so time the thread spent preempted does not count) to the render work
 * itself:
 * - `TimerFire`: the page's timers, i.e. the table's throttled redraw and the once-a-second
 *   tick that updates the live figures and redraws the charts (the per-message path runs in
 *   message events, not timers);
 * - `ProxyMain::BeginMainFrame`: Blink's frame on the main thread: style, layout, paint,
 *   commit of whatever the timers changed.
 * Each mode runs in a fresh Chrome (one tab, one renderer), modes interleaved, order reversed
 * every repeat. The trace adds its own overhead alike to every mode.
 */
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import { median } from '../results/stats.js';
import { RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { openLabPage } from '../puppeteer/measure/page.js';
import { startServer } from '../puppeteer/measure/server-process.js';

const FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport' },
  batch: rangeFlag(LIMITS.batch, 20, 'rows per batch'),
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  'interval-ms': { type: 'number', default: 1, min: 0.05, max: 60_000, help: 'ms between batches per connection' },
  render: { type: 'list', default: [...RENDER_MODES], choices: RENDER_MODES, help: 'render modes (include none to get each mode minus none)' },
  repeats: { type: 'integer', default: 3, min: 1, max: 20, help: 'interleaved repeats per mode' },
  'warmup-sec': { type: 'number', default: 4, min: 1, max: 60, help: 'streaming before the trace starts' },
  'trace-sec': { type: 'number', default: 8, min: 2, max: 60, help: 'trace length' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:render');
exitOnStopRequest('bench:render');
const flags = commandLineFlags(FLAGS, 'bench:render');

/** One trace's figures, per second of trace, ms of main-thread CPU (thread time). */
interface RenderWork {
  frames: number;
  timersMs: number;
  frameMs: number;
  allTasksMs: number;
}

interface TraceEvent {
  ph: string;
  name: string;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/** Sums the renderer main threads' CPU by event name; events of these names do not nest in each other. */
function renderWork(events: TraceEvent[], seconds: number): RenderWork {
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const on = events.filter((e) => e.ph === 'X' && mains.has(`${e.pid}:${e.tid}`));
  const cpuMs = (name: string) => on.filter((e) => e.name === name).reduce((a, e) => a + (e.tdur ?? e.dur ?? 0), 0) / 1000 / seconds;
  return {
    frames: on.filter((e) => e.name === 'ProxyMain::BeginMainFrame').length / seconds,
    timersMs: cpuMs('TimerFire'),
    frameMs: cpuMs('ProxyMain::BeginMainFrame'),
    allTasksMs: cpuMs('ThreadControllerImpl::RunTask'),
  };
}

const server = await startServer();
const query = new URLSearchParams({
  transport: flags.transport,
  batch: String(flags.batch),
  concurrency: String(flags.concurrency),
  intervalMs: String(flags['interval-ms']),
  autostart: '1',
});

async function once(render: string): Promise<RenderWork> {
  const chrome = await launchChrome({ headless: true });
  try {
    const page = await chrome.browser.newPage();
    await openLabPage(page, `${server.url}?${query}&render=${render}`);
    await new Promise((r) => setTimeout(r, flags['warmup-sec'] * 1000));
    await page.tracing.start({ categories: ['toplevel', 'cc', 'blink', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await new Promise((r) => setTimeout(r, flags['trace-sec'] * 1000));
    const buffer = await page.tracing.stop();
    if (!buffer) throw new Error('the trace came back empty');
    const { traceEvents } = JSON.parse(Buffer.from(buffer).toString('utf8')) as { traceEvents: TraceEvent[] };
    return renderWork(traceEvents, flags['trace-sec']);
  } finally {
    await chrome.browser.close();
  }
}

const modes = flags.render;
const runs = new Map<string, RenderWork[]>(modes.map((m) => [m, []]));
process.stderr.write(
  `bench:render — ${flags.transport} ${flags.batch} × ${flags.concurrency} every ${flags['interval-ms']} ms, ${flags.repeats} repeats of ${modes.join(', ')} (order reverses every repeat), ` +
    `${flags['warmup-sec']} s warm-up, ${flags['trace-sec']} s trace, a fresh headless Chrome each\n`,
);
try {
  for (let r = 0; r < flags.repeats; r++) {
    for (const mode of r % 2 ? [...modes].reverse() : modes) {
      const w = await once(mode);
      runs.get(mode)!.push(w);
      process.stderr.write(
        `  repeat ${r + 1} ${mode}: ${w.frames.toFixed(1)} frames/s, timers ${w.timersMs.toFixed(1)} + frames ${w.frameMs.toFixed(1)} ms CPU/s, main thread ${w.allTasksMs.toFixed(0)} ms CPU/s\n`,
      );
    }
  }
} finally {
  await server.stop();
}

const f1 = (x: number) => x.toFixed(1);
const pp = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
const stat = (xs: number[], f: (x: number) => string) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${f(median(s))} (${f(s[0])}–${f(s.at(-1)!)})`;
};
/** Render work as % of one core: ms of CPU per second / 10. */
const work = (w: RenderWork) => (w.timersMs + w.frameMs) / 10;
const none = runs.get('none');
const lines = [
  '| render | frames/s | timers, ms CPU/s | frames (style, layout, paint), ms CPU/s | render work, % of one core | render work − none, pp (paired per repeat) | main thread, all tasks, % of one core |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...modes.map((mode) => {
    const ws = runs.get(mode)!;
    const minusNone =
      none && mode !== 'none'
        ? stat(
            ws.map((w, i) => work(w) - work(none[i])),
            pp,
          )
        : '–';
    return `| ${mode} | ${stat(
      ws.map((w) => w.frames),
      f1,
    )} | ${stat(
      ws.map((w) => w.timersMs),
      f1,
    )} | ${stat(
      ws.map((w) => w.frameMs),
      f1,
    )} | ${stat(ws.map(work), f1)} | ${minusNone} | ${stat(
      ws.map((w) => w.allTasksMs / 10),
      f1,
    )} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
