/**
 * The report viewer's entry. Two ways in:
 * - a self-contained report.html (written by every sweep and by `npm run report`) carries its
 *   report in `<script type="application/json" id="report-data">`, and shows it with no
 *   server and no network;
 * - served (`npm run report -- --serve`, or the main server's /report.html), it lists the runs
 *   under /reports/ and opens `?run=A`, or `?run=B&compare=A` for two runs compared.
 * Either way `?scenarios=a,b` adds the comparison of two scenarios of the shown run.
 */
import { compareReports, compareScenarios, type Comparison } from '../../results/compare.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { parseReportText } from '../../protocol/report-check.js';
import { parseJsonText } from '../../protocol/json-text.js';
import type { Report } from '../../protocol/report.js';
import type { ChartOptions } from './chart-configs.js';
import { inert } from './inert.js';
import {
  embeddedReadable,
  LISTING_URL,
  readableReport,
  runEntry,
  runNamesFromListing,
  runReportUrl,
  viewRequest,
  type Readable,
  type RunEntry,
} from './load.js';
import { appendAll, comparisonSection, h, renderReport, unreadableNote, type Rendered } from './render.js';

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`report.html has no <${type.name}> #${id}`);
  return node;
}

const ui = {
  allRuns: byId('all-runs', HTMLAnchorElement),
  file: byId('file-input', HTMLInputElement),
  compareFile: byId('compare-input', HTMLInputElement),
  csvPoints: byId('csv-points', HTMLButtonElement),
  csvRepeats: byId('csv-repeats', HTMLButtonElement),
  reference: byId('toggle-reference', HTMLInputElement),
  logX: byId('toggle-logx', HTMLInputElement),
  status: byId('status', HTMLDivElement),
  comparison: byId('comparison', HTMLElement),
  report: byId('report', HTMLElement),
};

let rendered: Rendered | null = null;
let current: Report | null = null;

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function showStatus(text: string, kind: 'info' | 'error'): void {
  // Error messages quote the file (an id, a value): inert, as every report string is.
  ui.status.textContent = inert(text);
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

function setReportControls(enabled: boolean): void {
  for (const b of [ui.csvPoints, ui.csvRepeats, ui.compareFile]) b.disabled = !enabled;
}

function showComparison(cmp: Comparison | null): void {
  ui.comparison.replaceChildren();
  if (!cmp) return;
  try {
    ui.comparison.append(comparisonSection(cmp));
  } catch (error) {
    ui.comparison.append(unreadableNote('the comparison', error));
  }
}

/** Compares, or says in place of the comparison why it could not: the report itself is still shown. */
function comparing(make: () => Comparison | null): Comparison | null {
  try {
    return make();
  } catch (error) {
    ui.comparison.replaceChildren(unreadableNote('the comparison', error));
    return null;
  }
}

function show({ report, refused }: Readable, comparison: Comparison | null = null): void {
  rendered?.destroy();
  clearStatus();
  current = report;
  document.title = inert(`pushlab report · ${report.runId}`, 200);
  if (comparison || !refused) showComparison(comparison);
  rendered = renderReport(ui.report, report, chartOptions(), refused);
  setReportControls(true);
}

function scenarioComparison(report: Report, scenarios: [string, string] | null): Comparison | null {
  if (!scenarios) return null;
  for (const s of scenarios)
    if (!report.points.some((p) => p.point.scenario === s))
      throw new Error(`?scenarios=: run ${report.runId} has no scenario '${s}'; it has ${report.scenarios.join(', ')}`);
  return compareScenarios(report, scenarios[0], scenarios[1]);
}

/** Fetches JSON; every failure names the URL and what went wrong. */
async function fetchJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    // Runs are rewritten while a sweep is going; never show a cached copy.
    response = await fetch(url, { cache: 'no-store' });
  } catch (error) {
    throw new Error(`${url}: network error (${message(error)})`);
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`.trim());
  try {
    return JSON.parse(await response.text());
  } catch (error) {
    throw new Error(`${url}: not JSON (${message(error)})`);
  }
}

async function fetchRun(name: string): Promise<Readable> {
  const url = runReportUrl(name);
  return readableReport(await fetchJson(url), url);
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = h('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The served viewer's front page: every run, newest first, to open one or compare two. */
function showIndex(entries: RunEntry[]): void {
  rendered?.destroy();
  rendered = null;
  current = null;
  setReportControls(false);
  showComparison(null);
  document.title = 'pushlab reports';
  const picked: string[] = [];
  const compareButton = h('button', { class: 'compare-button' }, 'Compare the two ticked runs');
  compareButton.type = 'button';
  compareButton.disabled = true;
  compareButton.addEventListener('click', () => {
    // The older run is A (the baseline), the newer B: the listing is newest first.
    const [b, a] = [...picked].sort((x, y) => entries.findIndex((e) => e.name === x) - entries.findIndex((e) => e.name === y));
    location.search = `?${new URLSearchParams({ run: b, compare: a }).toString()}`;
  });
  const body = h('tbody');
  const rows: HTMLElement[] = [];
  for (const e of entries) {
    const tick = h('input');
    tick.type = 'checkbox';
    tick.disabled = e.report === null;
    tick.addEventListener('change', () => {
      if (tick.checked) picked.push(e.name);
      else picked.splice(picked.indexOf(e.name), 1);
      compareButton.disabled = picked.length !== 2;
    });
    const link = h('a', {}, e.name);
    link.href = `?${new URLSearchParams({ run: e.name }).toString()}`;
    const tr = h(
      'tr',
      {},
      h('td', {}, tick),
      h('td', { class: 'col-pointId', title: e.name }, e.report ? link : e.name),
      h('td', {}, e.date),
      h('td', { title: e.scenarios }, e.scenarios),
      h('td', {}, e.chrome),
      h('td', { title: e.machine }, e.machine),
    );
    // A run that cannot be read is listed with why; it never hides the others.
    const why = e.report ? e.error : `unreadable: ${e.error ?? 'no report'}`;
    tr.append(why ? h('td', { class: 'error', title: why }, why) : h('td', { title: e.headline }, e.headline));
    if (e.report && e.error) tr.classList.add('partly-readable');
    rows.push(tr);
  }
  appendAll(body, rows);
  const head = h(
    'tr',
    {},
    h('th'),
    h('th', {}, 'run'),
    h('th', {}, 'started'),
    h('th', {}, 'scenarios'),
    h('th', {}, 'Chrome'),
    h('th', {}, 'machine'),
    h('th', {}, 'headline'),
  );
  ui.report.replaceChildren(
    h(
      'section',
      {},
      h('h2', {}, `Runs in ${LISTING_URL} (${entries.length})`),
      h('p', { class: 'muted' }, 'Open a run, or tick two and compare them (the older one is the baseline A).'),
      compareButton,
      h('div', { class: 'table-wrap' }, h('table', { class: 'points runs' }, h('thead', {}, head), body)),
    ),
  );
}

async function startServed(): Promise<void> {
  ui.allRuns.hidden = false;
  const req = viewRequest(location.search);
  if (req.run === null) {
    showStatus(`Loading ${LISTING_URL} …`, 'info');
    const names = runNamesFromListing(await fetchJson(LISTING_URL));
    // Each run on its own: one that cannot be fetched, parsed or listed is an entry saying why.
    const entries = await Promise.all(
      names.map((n) =>
        fetchRun(n).then(
          (r) => runEntry(n, r.report, r.refused),
          (err: unknown) => runEntry(n, null, message(err)),
        ),
      ),
    );
    clearStatus();
    if (!entries.length) showStatus(`${LISTING_URL} lists no runs yet. Run a sweep, or open a report.json with the file button.`, 'info');
    showIndex(entries);
    return;
  }
  showStatus(`Loading run ${req.run} …`, 'info');
  const shown = await fetchRun(req.run);
  let cmp = comparing(() => scenarioComparison(shown.report, req.scenarios));
  if (req.compare !== null) {
    const base = await fetchRun(req.compare);
    cmp = comparing(() => compareReports(base.report, shown.report));
  }
  show(shown, cmp);
}

/** A report.json the user picked: the one check, with syntax errors by line and values as written; a refused one shown as far as it reads. */
async function readFile(file: File): Promise<Readable> {
  const text = await file.text();
  try {
    return { report: parseReportText(text, file.name), refused: null };
  } catch (error) {
    // Not JSON: the check's words (the line and column) are the answer.
    const json = parseJsonText(text);
    if (!json.ok) throw error;
    return readableReport(json.value, file.name);
  }
}

ui.file.addEventListener('change', () => {
  const file = ui.file.files?.[0];
  ui.file.value = '';
  if (file)
    readFile(file).then(
      (r) => show(r),
      (error: unknown) => showStatus(`Could not open ${message(error)}`, 'error'),
    );
});

ui.compareFile.addEventListener('change', () => {
  const file = ui.compareFile.files?.[0];
  ui.compareFile.value = '';
  const shown = current;
  if (file && shown)
    readFile(file).then(
      (base) => showComparison(comparing(() => compareReports(base.report, shown))),
      (error: unknown) => showStatus(`Could not compare: ${message(error)}`, 'error'),
    );
});

ui.csvPoints.addEventListener('click', () => current && download(`${current.runId}-points.csv`, pointsCsv(current)));
ui.csvRepeats.addEventListener('click', () => current && download(`${current.runId}-repeats.csv`, repeatsCsv(current)));

for (const toggle of [ui.reference, ui.logX]) toggle.addEventListener('change', () => rendered?.redraw(chartOptions()));

function start(): void {
  setReportControls(false);
  try {
    const embedded = embeddedReadable(document.getElementById('report-data')?.textContent);
    if (embedded) {
      show(
        embedded,
        comparing(() => scenarioComparison(embedded.report, viewRequest(location.search).scenarios)),
      );
      return;
    }
  } catch (error) {
    showStatus(`Could not show this report: ${message(error)}`, 'error');
    return;
  }
  startServed().catch((error: unknown) => showStatus(`Could not show the report: ${message(error)}. Open a report.json with the file button.`, 'error'));
}

start();
