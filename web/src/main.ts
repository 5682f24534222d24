/**
 * The lab page: a control form, live charts and the streaming table, and
 * `window.pushlab`, the surface the driver (and the browser console) uses.
 * URL parameters (`?transport=sse&batch=50&concurrency=10&intervalMs=1&render=full&autostart=1`)
 * pre-fill the form and can start a run on load.
 */
import type { PageConfig, PushlabApi } from '../../protocol/report.js';
import { LiveCharts } from './chart.js';
import { validatePageConfig } from './config.js';
import { parseCeiling } from './ceiling.js';
import { fillFormFields } from './form-fields.js';
import { Lab } from './lab.js';
import { StreamingTable } from './table.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>('controls');
fillFormFields(form);
const status = $<HTMLParagraphElement>('status');
const stopButton = $<HTMLButtonElement>('stop');
const charts = new LiveCharts({
  throughput: $<HTMLCanvasElement>('chart-throughput'),
  latency: $<HTMLCanvasElement>('chart-latency'),
  speed: $<HTMLCanvasElement>('chart-speed'),
});
const tableHost = $<HTMLElement>('table');

let lab: Lab | null = null;

function showStatus(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle('error', error);
}

const api: PushlabApi = {
  async start(config) {
    api.stop();
    tableHost.replaceChildren();
    lab = new Lab(config, {
      table: (ring) => new StreamingTable(tableHost, ring),
      charts,
      status: (t) => showStatus(t),
    });
    stopButton.disabled = false;
    // The form shows what runs, whoever started it (the driver, the console or the form).
    for (const [key, value] of Object.entries(lab.config)) {
      const field = form.elements.namedItem(key);
      if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = String(value);
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
  },
  async snapshot(options) {
    return lab ? lab.snapshot(options?.resetLatency ?? false) : null;
  },
  parseCeiling,
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

const params = new URLSearchParams(location.search);
for (const [key, value] of params) {
  const field = form.elements.namedItem(key);
  if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = value;
}
if (params.get('autostart') === '1') form.requestSubmit();
