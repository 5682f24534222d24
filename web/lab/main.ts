/**
 * The lab page: a control form, live charts and the streaming table, and
 * `window.pushlab`, the surface the driver (and the browser console) uses.
 * URL parameters (`?transport=sse&batch=50&concurrency=10&intervalMs=1&render=full&autostart=1`)
 * pre-fill the form and can start a run on load.
 */
import type { EventView } from '../../protocol/event-view.js';
import type { CpuReading, PageConfig, PushlabApi, RecordedPoint } from '../../protocol/page-api.js';
import type { LiveCharts } from './chart.js';
import { CpuView } from './cpu-view.js';
import { validatePageConfig } from './config.js';
import { parseCeiling } from './ceiling.js';
import { fillFormFields } from './form-fields.js';
import { Lab, type LiveFigures } from './lab.js';
import { linesOf } from './row-format.js';
import { StreamingTable } from './table.js';
import { loadRenderModule, mountRenderModule } from './render-module.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>('controls');
fillFormFields(form);
const status = $<HTMLParagraphElement>('status');
const stopButton = $<HTMLButtonElement>('stop');
const recordButton = $<HTMLButtonElement>('record');
const recorded = $<HTMLElement>('recorded');
const live = {
  offered: $<HTMLElement>('live-offered'),
  received: $<HTMLElement>('live-received'),
  delivered: $<HTMLElement>('live-delivered'),
  backlog: $<HTMLElement>('live-backlog'),
  gaps: $<HTMLElement>('live-gaps'),
  shed: $<HTMLElement>('live-shed'),
  verdict: $<HTMLElement>('live-verdict'),
  inputDelay: $<HTMLElement>('live-input-delay'),
  longFrames: $<HTMLElement>('live-long-frames'),
};
let charts: Promise<LiveCharts> | null = null;
/**
 * The live charts, loaded (chart.js and its four charts) the first time a run draws them.
 * Render mode `none` never does: chart.js's objects doubled the page's live heap (3.0 MB
 * against the bare page's 1.5 MB), which every major GC marks again, and a count-only run
 * must cost the tab what the bare page does (issue 22).
 */
function liveCharts(): Promise<LiveCharts> {
  charts ??= import('./chart.js').then(({ LiveCharts }) => {
    // Shown only once there is something to draw: four empty frames read as a broken page in
    // mode `none`. Shown before chart.js sizes its canvases, which it cannot do while hidden.
    $<HTMLElement>('charts').hidden = false;
    return new LiveCharts({
      throughput: $<HTMLCanvasElement>('chart-throughput'),
      latency: $<HTMLCanvasElement>('chart-latency'),
      speed: $<HTMLCanvasElement>('chart-speed'),
      cpu: $<HTMLCanvasElement>('chart-cpu'),
    });
  });
  return charts;
}
const cpuView = new CpuView($<HTMLElement>('cpu-numbers'), liveCharts);
const tableHost = $<HTMLElement>('table');

let lab: Lab | null = null;

/**
 * What the server's events are (protocol/event-view.ts): the table's columns and the chart's
 * field. Asked at each run's start, not once per page: a server restarted with another --rows
 * file serves other events to the same open page.
 */
async function askEventView(): Promise<EventView> {
  const r = await fetch(new URL('/events-view', location.href), { cache: 'no-store' });
  if (!r.ok) throw new Error(`/events-view answered ${r.status}: is this an older pushlab server?`);
  return (await r.json()) as EventView;
}

function showStatus(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle('error', error);
}

const api: PushlabApi = {
  async start(config) {
    api.stop();
    tableHost.replaceChildren();
    // Checked here first only to know what this run draws; Lab checks it again.
    const checked = validatePageConfig(config);
    // A render module draws in place of the table and the charts: chart.js is not loaded then.
    const drawsCharts = checked.render !== 'none' && !checked.renderModule;
    const module = checked.renderModule ? await loadRenderModule(checked.renderModule) : null;
    const events = await askEventView();
    lab = new Lab(config, {
      events,
      table: (ring) => new StreamingTable(tableHost, ring, linesOf(events)),
      charts: drawsCharts ? await liveCharts() : null,
      live: showLive,
      cpu: () => cpuView.latest,
      render: module ? (page) => mountRenderModule(module, tableHost, page) : null,
    });
    stopButton.disabled = false;
    // The form shows what runs, whoever started it (the driver, the console or the form).
    for (const [key, value] of Object.entries(lab.config)) {
      const field = form.elements.namedItem(key);
      // A setting at its default is absent from the config (pace steady): the choice's first, the default.
      if (field instanceof HTMLSelectElement && value === undefined) field.selectedIndex = 0;
      else if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = String(value);
    }
    showStatus(`opening ${lab.config.concurrency} ${lab.config.transport} connections…`);
    try {
      const r = await lab.start();
      showStatus(`${r.opened} connections open in ${Math.round(r.openMs)} ms`);
      return r;
    } catch (err) {
      api.stop();
      showStatus(String(err instanceof Error ? err.message : err), true);
      throw err;
    }
  },
  stop() {
    lab?.stop();
    stopButton.disabled = true;
    live.verdict.classList.remove('behind');
  },
  async snapshot(options) {
    return lab ? lab.snapshot(options?.resetLatency ?? false) : null;
  },
  parseCeiling,
  cpuReadings(reading: CpuReading) {
    cpuView.show(reading);
  },
  async record() {
    if (!window.pushlabRecord) throw new Error('recording a point needs `npm run lab` (it measures from the driver, as a sweep does)');
    const running = lab !== null && !lab.isStopped;
    const config = running && lab ? lab.config : formConfig();
    // The point is measured on a fresh tab, as a sweep does; this tab's stream would compete for the same cores.
    api.stop();
    recordButton.disabled = true;
    recorded.textContent = `recording ${config.transport} ${config.batch} × ${config.concurrency} every ${config.intervalMs} ms, ${config.render}: warm-up, settle, window…`;
    try {
      const r = await window.pushlabRecord(config);
      recorded.replaceChildren(
        `recorded: ${r.line} — `,
        Object.assign(document.createElement('a'), { href: r.viewerUrl, textContent: r.reportPath, target: '_blank' }),
      );
      return r;
    } catch (err) {
      recorded.textContent = `recording failed: ${err instanceof Error ? err.message : String(err)}`;
      throw err;
    } finally {
      recordButton.disabled = false;
      if (running) void api.start(config).catch(() => undefined);
    }
  },
};
window.pushlab = api;

function formConfig(): PageConfig {
  const data = Object.fromEntries(new FormData(form).entries());
  // Fields the form has no input for (renderEveryMs, tableRows, …) may come from the URL.
  for (const [k, v] of new URLSearchParams(location.search)) if (!(k in data)) data[k] = v;
  return validatePageConfig(data);
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  try {
    void api.start(formConfig()).catch(() => undefined);
  } catch (err) {
    showStatus(String(err instanceof Error ? err.message : err), true);
  }
});
stopButton.addEventListener('click', () => api.stop());
recordButton.addEventListener('click', () => void api.record!().catch(() => undefined));

const count = new Intl.NumberFormat();
function showLive(f: LiveFigures): void {
  live.offered.textContent = count.format(Math.round(f.offeredEventsPerSec));
  live.received.textContent = count.format(Math.round(f.receivedEventsPerSec));
  live.delivered.textContent = `${(f.health.deliveredRatio * 100).toFixed(1)}%`;
  live.backlog.textContent = f.backlogMs === null ? '–' : f.backlogMs < 1000 ? `${Math.round(f.backlogMs)} ms` : `${(f.backlogMs / 1000).toFixed(1)} s`;
  live.gaps.textContent = count.format(f.counters.gaps);
  live.shed.textContent = f.health.shedThisRun === null ? '–' : count.format(f.health.shedThisRun);
  // Input comes from the driver (npm run lab sends a few a second) or from whoever clicks or types here.
  live.inputDelay.textContent = f.input.maxDelayMs === null ? '–' : `${Math.round(f.input.maxDelayMs)} ms`;
  live.inputDelay.title = `${f.input.handled} input(s) handled in the last 5 s; the worst one waited this long for its handler`;
  live.longFrames.textContent = f.input.blockingMsPerSec === null ? 'n/a' : `${Math.round(f.input.blockingMsPerSec)} ms/s`;
  live.longFrames.title = f.input.longFramesUnavailable ?? "long animation frames' blocking time (past 50 ms each), per second over the last 5 s";
  live.verdict.textContent = f.health.text;
  live.verdict.classList.toggle('behind', f.health.behind);
  showStatus(
    `${count.format(f.counters.events)} events · ${count.format(f.counters.batches)} batches · duplicates ${f.counters.duplicates} · reconnects ${f.counters.reconnects} · parsed on ${f.parsedIn}`,
  );
}
if (!window.pushlabRecord) recordButton.title = 'needs `npm run lab`';

const params = new URLSearchParams(location.search);
for (const [key, value] of params) {
  const field = form.elements.namedItem(key);
  if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = value;
}
if (params.get('autostart') === '1') form.requestSubmit();
