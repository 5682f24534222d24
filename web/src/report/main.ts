/**
 * The report viewer's entry: picks a report (the `?report=` URL, else a run from the
 * `/reports/` listing, else a local file), fetches it, checks it once and renders it.
 */
import type { Report } from '../../../protocol/report.js';
import type { ChartOptions } from './charts.js';
import { LISTING_URL, parseReport, ReportError, reportUrlFromSearch, runNamesFromListing, runReportUrl } from './load.js';
import { renderReport, type RenderedReport } from './render.js';

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`report.html has no <${type.name}> #${id}`);
  return node;
}

const ui = {
  picker: byId('run-picker', HTMLSelectElement),
  file: byId('file-input', HTMLInputElement),
  reference: byId('toggle-reference', HTMLInputElement),
  logX: byId('toggle-logx', HTMLInputElement),
  status: byId('status', HTMLDivElement),
  report: byId('report', HTMLElement),
};

const LOCAL_OPTION = '';

let rendered: RenderedReport | null = null;
// Loads can overlap (a slow fetch, then a quick pick): only the latest one may render.
let loadToken = 0;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function showStatus(text: string, kind: 'info' | 'error'): void {
  ui.status.textContent = text;
  ui.status.className = `status ${kind}`;
  ui.status.hidden = false;
  ui.status.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

function clearStatus(): void {
  ui.status.hidden = true;
  ui.status.textContent = '';
}

function chartOptions(): ChartOptions {
  return { reference: ui.reference.checked, logX: ui.logX.checked };
}

/** Fetches and parses JSON; every failure names the URL and what went wrong. */
async function fetchJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    // Runs are rewritten while a sweep is going; never show a cached copy.
    response = await fetch(url, { cache: 'no-store' });
  } catch (error) {
    throw new ReportError(`${url}: network error (${message(error)})`);
  }
  if (!response.ok) throw new ReportError(`${url}: HTTP ${response.status} ${response.statusText}`.trim());
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ReportError(`${url}: not JSON (${message(error)})`);
  }
}

function show(report: Report, source: string): void {
  rendered?.destroy();
  rendered = null;
  clearStatus();
  document.title = `pushlab report · ${report.runId}`;
  ui.report.dataset.source = source;
  rendered = renderReport(ui.report, report, chartOptions());
}

async function load(url: string): Promise<void> {
  const token = ++loadToken;
  showStatus(`Loading ${url} …`, 'info');
  try {
    const report = parseReport(await fetchJson(url), url);
    if (token === loadToken) show(report, url);
  } catch (error) {
    if (token !== loadToken) return;
    rendered?.destroy();
    rendered = null;
    showStatus(`Could not show ${error instanceof ReportError ? message(error) : `${url}: ${message(error)}`}`, 'error');
  }
}

async function openFile(file: File): Promise<void> {
  const token = ++loadToken;
  try {
    let data: unknown;
    try {
      data = JSON.parse(await file.text());
    } catch (error) {
      throw new ReportError(`${file.name}: not JSON (${message(error)})`);
    }
    const report = parseReport(data, file.name);
    if (token !== loadToken) return;
    // The URL no longer describes what is shown; drop ?report= so a reload does not mislead.
    history.replaceState(null, '', location.pathname);
    ui.picker.value = LOCAL_OPTION;
    show(report, file.name);
  } catch (error) {
    if (token === loadToken) showStatus(`Could not open ${error instanceof ReportError ? message(error) : `${file.name}: ${message(error)}`}`, 'error');
  }
}

/** Fills the run picker; returns the run names, newest first. */
async function loadRuns(): Promise<string[]> {
  const names = runNamesFromListing(await fetchJson(LISTING_URL));
  const placeholder = new Option(names.length ? '— choose a run —' : '— no runs in /reports/ —', LOCAL_OPTION);
  ui.picker.replaceChildren(placeholder, ...names.map((n) => new Option(n, runReportUrl(n))));
  ui.picker.disabled = names.length === 0;
  return names;
}

function selectInPicker(url: string): void {
  const match = [...ui.picker.options].find((o) => o.value === url);
  ui.picker.value = match ? url : LOCAL_OPTION;
}

/** `report.html?report=/reports/<run>/report.json`, left readable: '/' is legal in a query. */
function urlWithReport(url: string): string {
  return `${location.pathname}?report=${url.replace(/[%&#+ ]/g, (c) => encodeURIComponent(c))}`;
}

async function start(): Promise<void> {
  let explicit: string | null = null;
  try {
    explicit = reportUrlFromSearch(location.search, location.href);
  } catch (error) {
    showStatus(message(error), 'error');
    return;
  }
  const runs = loadRuns();
  if (explicit !== null) {
    void load(explicit);
    // The listing only fills the picker here; the report asked for is what matters.
    runs.then(() => selectInPicker(explicit), (error: unknown) => {
      ui.picker.disabled = true;
      ui.picker.title = message(error);
    });
    return;
  }
  let names: string[];
  try {
    names = await runs;
  } catch (error) {
    ui.picker.disabled = true;
    showStatus(`Could not list runs: ${message(error)}. Open a report.json with the file button, or pass ?report=<url>.`, 'error');
    return;
  }
  if (names.length === 0) {
    showStatus(`${LISTING_URL} lists no runs yet. Run a sweep, or open a report.json with the file button.`, 'info');
    return;
  }
  // Newest first, so the default is the run just made.
  const url = runReportUrl(names[0]);
  ui.picker.value = url;
  history.replaceState(null, '', urlWithReport(url));
  await load(url);
}

ui.picker.addEventListener('change', () => {
  const url = ui.picker.value;
  if (url === LOCAL_OPTION) return;
  history.pushState(null, '', urlWithReport(url));
  void load(url);
});

ui.file.addEventListener('change', () => {
  const file = ui.file.files?.[0];
  if (file) void openFile(file);
  // Choosing the same file again should reload it.
  ui.file.value = '';
});

for (const toggle of [ui.reference, ui.logX]) {
  toggle.addEventListener('change', () => rendered?.redraw(chartOptions()));
}

window.addEventListener('popstate', () => {
  try {
    const url = reportUrlFromSearch(location.search, location.href);
    if (url !== null) {
      selectInPicker(url);
      void load(url);
    }
  } catch (error) {
    showStatus(message(error), 'error');
  }
});

void start();
