/**
 * Turns the views into DOM. Text from a report (ids, notes, errors, verdict lines) only ever
 * goes in through textContent and attribute setters, so a report cannot inject markup.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { formatRatioWithCi, VERDICT_WORDS, type Comparison } from '../../../results/compare.js';
import { formatEps, formatMsShort } from '../../../results/format.js';
import { speedChangeText, speedChanges } from '../../../results/machine-speed.js';
import type { KnobComparison, Report, Verdict } from '../../../protocol/report.js';
import { cpuChart, efficiencyChart, epsChart, type ChartOptions } from './chart-configs.js';
import { transportColor, VERDICT_COLORS, VERDICT_MEANING } from './palette.js';
import {
  adviceView,
  browserRows,
  failures,
  latencyBoxes,
  latencyTitle,
  logAxis,
  logPosition,
  noteLines,
  REPEAT_TABLE_COLUMNS,
  runHeader,
  pointsAndRepeats,
  runSummary,
  scenarioViews,
  sortRows,
  TABLE_COLUMNS,
  tableRows,
  type LatencyBox,
  type ScenarioView,
  type TableRow,
} from './views.js';

// Only what the charts use, so the one-file report stays small.
Chart.register(LineController, BarController, LineElement, PointElement, BarElement, LinearScale, LogarithmicScale, CategoryScale, Legend, Tooltip);

type Child = Node | string;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: { class?: string; title?: string } = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.title) node.title = props.title;
  node.append(...children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function verdictChip(v: Verdict, text: string = v): HTMLElement {
  return h('span', { class: `chip verdict-${v}`, title: VERDICT_MEANING[v] }, text);
}

function headerSection(report: Report): HTMLElement {
  const header = runHeader(report);
  const summary = runSummary(report);
  const fields = h('dl', { class: 'fields' });
  for (const f of header.fields) {
    const value = h('dd', f.warning ? { class: 'warning', title: f.warning } : {}, f.value);
    fields.append(h('div', {}, h('dt', {}, f.label), value));
  }
  const best = summary.best.map((b) => `${b.transport} ${formatEps(b.eventsPerSec.median)}`).join(', ');
  const line = h(
    'p',
    { class: 'summary' },
    pointsAndRepeats(report),
    summary.failedRepeats ? h('span', { class: 'failed-count' }, ` · ${summary.failedRepeats} of ${summary.repeats} repeats failed`) : '',
    // An advise run's answer is its headline; the best probe per transport would read as a rival one.
    best && !report.advice ? ` · best median: ${best}` : '',
  );
  const args = h('details', { class: 'launch-args' }, h('summary', {}, `Chrome launch args (${header.launchArgs.length})`));
  args.append(h('ul', {}, ...header.launchArgs.map((a) => h('li', {}, h('code', {}, a)))));
  const section = h('section', { class: 'run-header' }, h('h2', {}, 'Run ', h('code', {}, header.runId)), line);
  if (report.interrupted) section.append(h('p', { class: 'warning-box' }, `Interrupted before it finished${report.resumeCommand ? `; finish it with ${report.resumeCommand}` : ''}.`));
  for (const c of speedChanges(report.rounds)) section.append(h('p', { class: 'warning-box' }, `${speedChangeText(c).replace(/^u/, 'U')}.`));
  section.append(fields, args);
  return section;
}

/** `npm run advise`'s answer, first: the words it printed, then every candidate it tried (folded). */
function adviceSection(report: Report): HTMLElement | null {
  const v = adviceView(report);
  if (!v) return null;
  const section = h('section', { class: `advice advice-${v.state}` }, h('h2', {}, 'Advice'));
  if (v.caveat) section.append(h('p', { class: 'warning-box' }, v.caveat));
  section.append(h('p', { class: 'advice-headline' }, v.headline));
  if (v.details.length) section.append(h('ul', { class: 'advice-details' }, ...v.details.map((d) => h('li', {}, d))));
  if (v.machine) section.append(h('p', { class: 'muted' }, v.machine));
  if (v.tried.length) {
    const rows = v.tried.map((t) => h('tr', { class: `outcome-${t.outcome}` }, h('td', {}, h('code', {}, t.id)), h('td', {}, t.outcome), h('td', {}, t.why)));
    const table = h('table', { class: 'points advice-tried' }, h('thead', {}, h('tr', {}, h('th', {}, 'candidate'), h('th', {}, 'outcome'), h('th', {}, 'why'))), h('tbody', {}, ...rows));
    section.append(h('details', {}, h('summary', {}, `Every candidate measured (${v.tried.length}); their repeats are the points below`), h('div', { class: 'table-wrap' }, table)));
  }
  return section;
}

function failuresSection(report: Report): HTMLElement | null {
  const list = failures(report);
  if (!list.length) return null;
  return h(
    'section',
    { class: 'failures' },
    h('h2', {}, `Failures (${list.length})`),
    h('ul', {}, ...list.map((f) => h('li', {}, h('code', {}, f.pointId), ` round ${f.round}, ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: `, f.text))),
  );
}

/**
 * The browsers of a sweep that ran on several, or on a remote one: which machine each point's
 * figures come from, and what could not be read there (their CPU cells show —, never 0).
 */
function browsersSection(report: Report): HTMLElement | null {
  const rows = browserRows(report);
  if (!rows.length) return null;
  const heads = ['browser', 'endpoint', 'host', 'version', 'cores', 'CPU', 'per-thread and host CPU', 'server on its host', 'clock vs server', 'competed with', 'JSON.parse ceiling', 'points'];
  const body = rows.map((b) => {
    const tr = h(
      'tr',
      { title: b.lost ? `lost ${b.lost}` : '' },
      h('td', {}, h('code', {}, b.id)),
      h('td', {}, h('code', {}, b.where)),
      h('td', {}, b.host, ...(b.gridNode ? [h('br'), h('span', { class: 'muted' }, b.gridNode)] : [])),
      h('td', {}, b.version),
      h('td', { class: 'num' }, b.cores),
      h('td', {}, b.cpu),
      h('td', {}, b.procfs),
      h('td', {}, b.serverSharesHost),
      h('td', { title: "The browser's clock minus the server's, ± half the smallest round trip: taken off its latency figures, except on the server's own machine (one clock)" }, b.clock),
      h('td', b.competesWith ? { class: 'warning', title: 'Browsers on one host compete for its CPU: their figures are lower than either would measure alone' } : {}, b.competesWith || 'none'),
      h('td', {}, b.ceiling),
      h('td', { class: 'num' }, String(b.points)),
    );
    return tr;
  });
  const lost = rows.filter((b) => b.lost);
  return h(
    'section',
    { class: 'browsers' },
    h('h2', {}, `Browsers (${rows.length})`),
    h('p', { class: 'muted' }, "Each point's repeats ran on the browser in its host column; repeats from different kinds of host are never pooled in one figure."),
    h('div', { class: 'table-wrap' }, h('table', { class: 'points browser-table' }, h('thead', {}, h('tr', {}, ...heads.map((t, i) => h('th', { class: i === 4 || i === 10 ? 'num' : '' }, t)))), h('tbody', {}, ...body))),
    ...lost.map((b) => h('p', { class: 'warning-box' }, `Browser ${b.id} was lost mid-sweep (${b.lost}); its remaining points went to the others.`)),
  );
}

/** What each knob bought: pairs of points one setting apart, a row each, B ÷ A with its CI. */
function knobsSection(report: Report): HTMLElement | null {
  const knobs = report.knobs ?? [];
  if (!knobs.length) return null;
  const byPair = new Map<string, KnobComparison[]>();
  for (const c of knobs) byPair.set(`${c.a}\n${c.b}`, [...(byPair.get(`${c.a}\n${c.b}`) ?? []), c]);
  // Green where the CI says B is better, red where it says worse, plain where the noise hides it.
  const cell = (c: KnobComparison | undefined) => {
    if (!c) return h('td', { class: 'num' }, '—');
    const ci = c.ciLow === null || c.ciHigh === null ? '1 round' : `CI ${c.ciLow.toFixed(2)}–${c.ciHigh.toFixed(2)}`;
    return h('td', { class: `num cmp-${c.better === 'b' ? 'better' : c.better === 'a' ? 'worse' : 'same'}`, title: c.text }, `${c.ratio.toFixed(2)} (${ci})`);
  };
  const rows = [...byPair.values()].map((pair) => {
    const [first] = pair;
    return h(
      'tr',
      { title: `${first.a} → ${first.b}, paired by round (${first.rounds.length} rounds)` },
      h('td', {}, first.knob),
      h('td', {}, `${first.from} → ${first.to}`),
      h('td', {}, first.context),
      cell(pair.find((c) => c.metric === 'eventsPerSec')),
      cell(pair.find((c) => c.metric === 'rendererCpuMsPerMillionEvents')),
    );
  });
  const head = h('tr', {}, ...['knob', 'change', 'both points', 'EPS, after ÷ before', 'renderer CPU per event, after ÷ before'].map((t, i) => h('th', { class: i > 2 ? 'num' : '' }, t)));
  return h(
    'section',
    { class: 'knobs' },
    h('h2', {}, 'What each knob bought'),
    h('p', { class: 'muted' }, 'Points of this run with the same transport, connections and offered load that differ in one setting only, paired by round: geometric mean of the per-round ratios with its 95% CI. Green: the change helped beyond the noise; red: it hurt.'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'points knob-table' }, h('thead', {}, head), h('tbody', {}, ...rows))),
  );
}

function notesSection(report: Report): HTMLElement | null {
  const lines = noteLines(report);
  if (!lines.length) return null;
  return h('section', { class: 'notes' }, h('h2', {}, 'Notes'), h('ul', {}, ...lines.map((n) => h('li', {}, h('code', {}, n.pointId), ': ', n.text))));
}

function detailsRow(row: TableRow, span: number): HTMLTableRowElement {
  const box = h('div', { class: 'details' });
  if (row.details.notes.length) box.append(h('p', {}, h('b', {}, 'Notes: '), row.details.notes.join('; ')));
  if (row.details.unsteady.length) box.append(h('p', { class: 'unsteady' }, h('b', {}, 'Unsteady: '), row.details.unsteady.join('; ')));
  const head = h('tr', {}, h('th', {}, 'round'), h('th', {}, 'verdict'), ...REPEAT_TABLE_COLUMNS.map((c) => h('th', { class: 'num', title: c.title }, c.label)), h('th', {}, 'notes'));
  const body = h('tbody');
  for (const rep of row.details.repeats) {
    const cells =
      rep.status === 'ok'
        ? rep.cells.map((t) => h('td', { class: 'num' }, t))
        : [Object.assign(h('td', { class: 'error' }, rep.cells[0] ?? ''), { colSpan: REPEAT_TABLE_COLUMNS.length })];
    // Rounds counted from 1, as the notes and verdict lines count them (the JSON field is 0-based).
    body.append(h('tr', {}, h('td', { class: 'num' }, String(rep.round + 1)), h('td', {}, verdictChip(rep.verdict)), ...cells, h('td', { class: 'repeat-notes', title: rep.notes }, rep.notes)));
  }
  box.append(h('table', { class: 'repeats' }, h('thead', {}, head), body));
  const td = h('td', {}, box);
  td.colSpan = span;
  return h('tr', { class: 'details-row' }, td);
}

function tableSection(report: Report): HTMLElement {
  const columns = TABLE_COLUMNS;
  const rows = tableRows(report);
  const open = new Set<string>();
  let sortBy: { index: number; direction: 'asc' | 'desc' } | null = null;
  const groupRow = h('tr', { class: 'groups' }, h('th'));
  for (let i = 0; i < columns.length; ) {
    let span = 1;
    while (i + span < columns.length && columns[i + span].group === columns[i].group) span++;
    const th = h('th', {}, columns[i].group);
    th.colSpan = span;
    groupRow.append(th);
    i += span;
  }
  const labelRow = h('tr', {}, h('th', { class: 'toggle-col', title: 'Show a point’s notes and raw repeats' }));
  const body = h('tbody');
  const draw = (): void => {
    const shown = sortBy ? sortRows(rows, sortBy.index, sortBy.direction) : rows;
    body.replaceChildren();
    for (const row of shown) {
      const toggle = h('button', { class: 'toggle', title: 'Details: notes, unsteady flags, raw repeats' }, open.has(row.pointId) ? '▾' : '▸');
      toggle.type = 'button';
      toggle.setAttribute('aria-expanded', String(open.has(row.pointId)));
      toggle.addEventListener('click', () => {
        if (open.has(row.pointId)) open.delete(row.pointId);
        else open.add(row.pointId);
        draw();
      });
      const tr = h('tr', { class: row.measured ? 'point-row' : 'point-row failed' }, h('td', { class: 'toggle-col' }, toggle));
      tr.dataset.pointId = row.pointId;
      columns.forEach((c, i) => {
        const cell = row.cells[i];
        const numeric = c.kind !== 'text';
        const classes = [`col-${c.id}`, numeric ? 'num' : '', c.id === 'verdict' ? `verdict verdict-${row.verdict}` : ''].filter(Boolean).join(' ');
        // Long ids are cut with an ellipsis; the tooltip keeps the whole text. The ± part of a
        // Stat (its noise) is set in grey so the median reads first.
        const plusMinus = c.kind === 'stat' ? cell.text.indexOf(' ±') : -1;
        const content: Child[] = plusMinus < 0 ? [cell.text] : [cell.text.slice(0, plusMinus), h('span', { class: 'noise' }, cell.text.slice(plusMinus))];
        tr.append(h('td', { class: classes, title: cell.title ?? cell.text }, ...content));
      });
      body.append(tr);
      if (open.has(row.pointId)) body.append(detailsRow(row, columns.length + 1));
    }
  };
  columns.forEach((c, i) => {
    const th = h('th', { class: `col-${c.id}${c.kind !== 'text' ? ' num' : ''} sortable`, title: `${c.title}${c.unit ? ` (${c.unit})` : ''}. Click to sort.` }, c.label);
    th.addEventListener('click', () => {
      sortBy = sortBy?.index === i ? { index: i, direction: sortBy.direction === 'asc' ? 'desc' : 'asc' } : { index: i, direction: c.kind === 'text' ? 'asc' : 'desc' };
      for (const other of labelRow.querySelectorAll('th')) other.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', sortBy.direction === 'asc' ? 'ascending' : 'descending');
      draw();
    });
    labelRow.append(th);
  });
  draw();
  const table = h('table', { class: 'points' }, h('thead', {}, groupRow, labelRow), body);
  const legend = h(
    'p',
    { class: 'muted legend-line' },
    'Figures are medians over the repeats; ±x % is half the 95% CI of the mean as a share of the median. Hover a cell for mean, CI, n and range. Click a header to sort, ▸ for details.',
  );
  return h('section', { class: 'table-section' }, h('h2', {}, 'Points'), legend, h('div', { class: 'table-wrap' }, table));
}

// Latency plot geometry, in SVG user units; the SVG scales to its container's width.
const BOX = { width: 1180, label: 220, right: 190, row: 24, top: 14, bottom: 40 } as const;

/**
 * A box plot per point on a log axis: whisker min–max, box p25–p75, a bar at the median, and
 * ticks at p95 and p99, where the long tail shows first. Labels are short (`500 µs`, `20 ms`,
 * `5 s`) and few (logAxis), so they never run into each other.
 */
function latencyPlot(boxes: LatencyBox[]): SVGSVGElement {
  const plotW = BOX.width - BOX.label - BOX.right;
  const height = BOX.top + boxes.length * BOX.row + BOX.bottom;
  const axis = logAxis(boxes.flatMap((b) => [b.minMs, b.maxMs]));
  const X = (v: number) => BOX.label + logPosition(v, axis) * plotW;
  const svg = s('svg', { viewBox: `0 0 ${BOX.width} ${height}`, class: 'latency-plot', role: 'img' });
  svg.append(s('title', {}, 'Latency per point, log scale'));
  const axisY = BOX.top + boxes.length * BOX.row;
  for (const t of axis.ticks) {
    const x = X(t);
    svg.append(s('line', { x1: x, x2: x, y1: BOX.top - 4, y2: axisY, class: 'grid' }));
    svg.append(s('text', { x, y: axisY + 16, class: 'tick' }, formatMsShort(t)));
  }
  svg.append(s('text', { x: BOX.label + plotW / 2, y: axisY + 34, class: 'axis-title' }, 'send → receive latency (log scale)'));
  boxes.forEach((b, i) => {
    const y = BOX.top + i * BOX.row + BOX.row / 2;
    const color = transportColor(b.transport);
    const g = s('g', { class: 'box' });
    g.append(s('title', {}, latencyTitle(b)));
    g.append(s('text', { x: BOX.label - 10, y: y + 4, class: 'label' }, b.label));
    g.append(s('line', { x1: X(b.minMs), x2: X(b.maxMs), y1: y, y2: y, class: 'whisker' }));
    for (const v of [b.minMs, b.maxMs]) g.append(s('line', { x1: X(v), x2: X(v), y1: y - 5, y2: y + 5, class: 'whisker' }));
    const x25 = X(b.p25Ms);
    g.append(s('rect', { x: x25, y: y - 7, width: Math.max(1, X(b.p75Ms) - x25), height: 14, fill: color, 'fill-opacity': 0.25, stroke: VERDICT_COLORS[b.verdict], 'stroke-width': 2 }));
    g.append(s('line', { x1: X(b.p50Ms), x2: X(b.p50Ms), y1: y - 8, y2: y + 8, stroke: color, class: 'median' }));
    g.append(s('line', { x1: X(b.p95Ms), x2: X(b.p95Ms), y1: y - 4, y2: y + 4, class: 'p95' }));
    g.append(s('line', { x1: X(b.p99Ms), x2: X(b.p99Ms), y1: y - 7, y2: y + 7, class: 'p99' }));
    g.append(s('text', { x: BOX.width - BOX.right + 12, y: y + 4, class: 'values' }, `p50 ${formatMsShort(b.p50Ms)} · p99 ${formatMsShort(b.p99Ms)}`));
    svg.append(g);
  });
  return svg;
}

function chartBox(title: string, subtitle: string): { figure: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h('canvas');
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, h('b', {}, title), h('span', { class: 'sub' }, subtitle)), h('div', { class: 'canvas-box' }, canvas));
  return { figure, canvas };
}

function verdictLegend(): HTMLElement {
  return h('p', { class: 'verdict-legend' }, 'Ring colour = verdict: ', ...(Object.keys(VERDICT_COLORS) as Verdict[]).map((v) => verdictChip(v, VERDICT_MEANING[v])));
}

interface ScenarioSection {
  element: HTMLElement;
  draw(options: ChartOptions): Chart[];
}

function scenarioSection(view: ScenarioView, boxes: LatencyBox[]): ScenarioSection {
  const against = view.kind === 'line' ? ` against ${view.xFactor === 'intervalMs' ? 'interval' : view.xFactor}` : ' per point';
  const whisk = 'mean of the repeats; whiskers: 95% CI of the mean';
  const eps = chartBox(`Throughput: events/s received by the tab${against}`, whisk);
  const eff = chartBox(`Efficiency: events per CPU-second${against}`, `CPU of the tab's renderer process, all threads (solid), and of its main thread alone (dashed; not drawn for points parsed in Workers, where it does almost nothing); ${whisk}`);
  const cpu = chartBox('Where the CPU went: % of one core by process', "tab renderer process (all threads), Chrome's network service, browser and GPU processes, the pushlab server; means of the repeats, stacked");
  const info = h('p', { class: 'fixed' }, view.fixed ? `Fixed: ${view.fixed}` : 'Nothing fixed');
  if (view.failed) info.append(h('span', { class: 'failed-count' }, ` · ${view.failed} of ${view.pointIds.length} points never measured`));
  const verdicts = view.verdicts.length
    ? h(
        'ul',
        { class: 'paired' },
        ...view.verdicts.map(({ about, comparison: c }) =>
          h('li', { class: c.better === 'none' ? 'same' : 'decided', title: `${c.a} vs ${c.b}, paired by round (${c.rounds.length} rounds)` }, about ? h('span', { class: 'about' }, `${about}: `) : '', c.text),
        ),
      )
    : h('p', { class: 'muted' }, 'No paired WS/SSE verdicts for this scenario.');
  const latency = boxes.length
    ? h(
        'figure',
        { class: 'latency' },
        h('figcaption', {}, h('b', {}, 'Latency: send → receive, log scale'), h('span', { class: 'sub' }, 'box p25–p75, bar p50, ticks p95 and p99, whiskers min–max; each the median over the repeats (whiskers: the extremes of any repeat); box outline = verdict')),
        latencyPlot(boxes),
      )
    : h('p', { class: 'muted' }, 'No latency recorded for this scenario.');
  const element = h(
    'section',
    { class: 'scenario' },
    h('h2', {}, 'Scenario ', h('code', {}, view.scenario)),
    verdicts,
    info,
    h('div', { class: 'charts' }, eps.figure, eff.figure, cpu.figure),
    verdictLegend(),
    latency,
  );
  element.id = `scenario-${view.scenario}`;
  const make = (canvas: HTMLCanvasElement, config: ChartConfiguration<'line', { x: number; y: number }[]> | ChartConfiguration<'bar', (number | null)[], string[]>): Chart =>
    new Chart(canvas, config as ChartConfiguration);
  const draw = (options: ChartOptions): Chart[] => [make(eps.canvas, epsChart(view, options)), make(eff.canvas, efficiencyChart(view, options)), make(cpu.canvas, cpuChart(view))];
  return { element, draw };
}

export interface Rendered {
  /** Redraws every chart, e.g. after the overlay or log-axis toggle changed. */
  redraw(options: ChartOptions): void;
  destroy(): void;
}

export function renderReport(container: HTMLElement, report: Report, options: ChartOptions): Rendered {
  const boxes = latencyBoxes(report);
  const sections = scenarioViews(report).map((v) => scenarioSection(v, boxes.filter((b) => b.scenario === v.scenario)));
  const parts = [adviceSection(report), headerSection(report), browsersSection(report), failuresSection(report), tableSection(report), knobsSection(report), ...sections.map((x) => x.element), notesSection(report)];
  container.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  // Charts measure their canvas, so they are created only once the sections are in the document.
  let charts = sections.flatMap((x) => x.draw(options));
  return {
    redraw(next) {
      for (const c of charts) c.destroy();
      charts = sections.flatMap((x) => x.draw(next));
    },
    destroy() {
      for (const c of charts) c.destroy();
      charts = [];
      container.replaceChildren();
    },
  };
}

/** The comparison of two runs (or scenarios): a table with every common point's ratios and verdicts. */
export function comparisonSection(cmp: Comparison): HTMLElement {
  const head = h(
    'tr',
    {},
    h('th', {}, 'point'),
    ...cmp.points[0]?.metrics.map((m) => h('th', { class: 'num', title: `${m.metric.column.title}; ${m.metric.better} is better` }, `${m.metric.column.label} B ÷ A`)) ?? [],
    h('th', {}, 'verdict'),
  );
  const body = h('tbody');
  for (const p of cmp.points) {
    const tr = h('tr', { class: `cmp-${p.verdict}` }, h('td', { class: 'col-pointId', title: p.key }, p.key));
    for (const m of p.metrics) tr.append(h('td', { class: `num cmp-${m.verdict}`, title: VERDICT_WORDS[m.verdict] }, formatRatioWithCi(m)));
    tr.append(h('td', { class: `cmp-${p.verdict}` }, VERDICT_WORDS[p.verdict]));
    body.append(tr);
  }
  const summary = h(
    'p',
    { class: 'summary' },
    `B = ${cmp.labelB} against A = ${cmp.labelA}: ${cmp.points.length} common points; `,
    h('span', { class: cmp.regressions ? 'cmp-worse' : '' }, `${cmp.regressions} regressed`),
    ', ',
    h('span', { class: cmp.improvements ? 'cmp-better' : '' }, `${cmp.improvements} improved`),
    ' beyond the noise. Ratios are of means over repeats, with a 95% CI (unpaired: the runs differ).',
  );
  const section = h('section', { class: 'comparison' }, h('h2', {}, 'Comparison'), summary, h('div', { class: 'table-wrap' }, h('table', { class: 'points compare' }, h('thead', {}, head), body)));
  if (cmp.onlyA.length) section.append(h('p', { class: 'muted' }, `Only in A: ${cmp.onlyA.join(', ')}`));
  if (cmp.onlyB.length) section.append(h('p', { class: 'muted' }, `Only in B: ${cmp.onlyB.join(', ')}`));
  return section;
}
