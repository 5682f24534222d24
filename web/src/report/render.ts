/**
 * Turns the views into DOM. Text from the report (notes, errors, ids) only ever goes in
 * through textContent, so a report cannot inject markup into the page.
 */
import type { Chart } from 'chart.js';
import type { Report } from '../../../protocol/report.js';
import { cpuBarChart, cpuLineChart, epsBarChart, epsLineChart, transportColor, type ChartOptions } from './charts.js';
import { formatEps, formatMs } from './format.js';
import {
  latencyBoxes,
  logAxis,
  logPosition,
  pointsTableColumns,
  pointsTableRows,
  runHeader,
  runSummary,
  seriesByScenario,
  type LatencyBox,
  type ScenarioView,
} from './views.js';

type Child = Node | string;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: { class?: string; title?: string } = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
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

function headerSection(report: Report): HTMLElement {
  const header = runHeader(report);
  const summary = runSummary(report);
  const fields = h('dl', { class: 'fields' });
  for (const f of header.fields) {
    const value = h('dd', f.warning ? { class: 'warning', title: f.warning } : {}, f.value);
    fields.append(h('div', {}, h('dt', {}, f.label), value));
  }
  const best = summary.best.map((b) => `${b.transport} ${formatEps(b.eventsPerSec)}`).join(', ');
  const line = h(
    'p',
    { class: 'summary' },
    `${summary.points} points`,
    summary.failed ? h('span', { class: 'failed-count' }, ` · ${summary.failed} failed`) : '',
    best ? ` · best: ${best}` : '',
  );
  const args = h('details', { class: 'launch-args' }, h('summary', {}, `Chrome launch args (${header.launchArgs.length})`));
  args.append(h('ul', {}, ...header.launchArgs.map((a) => h('li', {}, h('code', {}, a)))));
  return h('section', { class: 'run-header' }, h('h2', {}, 'Run ', h('code', {}, header.runId)), line, fields, args);
}

function tableSection(report: Report): HTMLElement {
  const columns = pointsTableColumns(report);
  const rows = pointsTableRows(report);
  const groupRow = h('tr', { class: 'groups' });
  for (let i = 0; i < columns.length; ) {
    let span = 1;
    while (i + span < columns.length && columns[i + span].group === columns[i].group) span++;
    const th = h('th', {}, columns[i].group);
    th.colSpan = span;
    groupRow.append(th);
    i += span;
  }
  const labelRow = h('tr', {}, ...columns.map((c) => h('th', { class: `col-${c.key}${c.numeric ? ' num' : ''}`, title: c.title }, c.label)));
  const body = h('tbody');
  for (const row of rows) {
    const tr = h('tr', { class: row.status === 'failed' ? 'failed' : '' });
    for (const c of columns) {
      const cell = row.cells[c.key];
      const classes = [`col-${c.key}`, c.numeric ? 'num' : '', c.key === 'verdict' ? `verdict verdict-${row.verdict}` : ''].filter(Boolean).join(' ');
      tr.append(h('td', { class: classes, title: cell.title }, cell.text));
    }
    body.append(tr);
  }
  const table = h('table', { class: 'points' }, h('thead', {}, groupRow, labelRow), body);
  return h('section', {}, h('h2', {}, 'Points'), h('div', { class: 'table-wrap' }, table));
}

// Latency plot geometry, in SVG user units; the SVG scales to its container's width.
const BOX = { width: 1180, label: 200, right: 215, row: 24, top: 26, bottom: 40 } as const;

/**
 * A box plot per point on a log axis: whisker min–max, box p25–p75, a bar at the median, and
 * ticks at p95 and p99, where the long tail the reference studies warn about shows first.
 */
function latencyPlot(boxes: LatencyBox[]): SVGSVGElement {
  const plotW = BOX.width - BOX.label - BOX.right;
  const height = BOX.top + boxes.length * BOX.row + BOX.bottom;
  const axis = logAxis(boxes.flatMap((b) => [b.minMs, b.maxMs]));
  const X = (v: number) => BOX.label + logPosition(v, axis) * plotW;
  const svg = s('svg', { viewBox: `0 0 ${BOX.width} ${height}`, class: 'latency-plot', role: 'img' });
  svg.append(s('title', {}, 'Latency per point, ms, log scale'));
  const axisY = BOX.top + boxes.length * BOX.row;
  for (const t of axis.ticks) {
    const x = X(t);
    svg.append(s('line', { x1: x, x2: x, y1: BOX.top - 4, y2: axisY, class: 'grid' }));
    svg.append(s('text', { x, y: axisY + 16, class: 'tick' }, formatMs(t).replace(' ms', '')));
  }
  svg.append(s('text', { x: BOX.label + plotW / 2, y: axisY + 34, class: 'axis-title' }, 'ms (log scale)'));
  boxes.forEach((b, i) => {
    const y = BOX.top + i * BOX.row + BOX.row / 2;
    const color = transportColor(b.transport);
    const g = s('g', { class: b.failed ? 'box failed' : 'box' });
    g.append(s('title', {}, `${b.pointId}\n${b.count.toLocaleString('en-US')} batches\nmin ${formatMs(b.minMs)} · p25 ${formatMs(b.p25Ms)} · p50 ${formatMs(b.p50Ms)} · p75 ${formatMs(b.p75Ms)}\np95 ${formatMs(b.p95Ms)} · p99 ${formatMs(b.p99Ms)} · max ${formatMs(b.maxMs)}`));
    g.append(s('text', { x: BOX.label - 10, y: y + 4, class: 'label' }, b.failed ? `${b.label} (failed)` : b.label));
    g.append(s('line', { x1: X(b.minMs), x2: X(b.maxMs), y1: y, y2: y, class: 'whisker' }));
    for (const v of [b.minMs, b.maxMs]) g.append(s('line', { x1: X(v), x2: X(v), y1: y - 5, y2: y + 5, class: 'whisker' }));
    const x25 = X(b.p25Ms);
    g.append(s('rect', { x: x25, y: y - 7, width: Math.max(1, X(b.p75Ms) - x25), height: 14, fill: color, 'fill-opacity': 0.25, stroke: color }));
    g.append(s('line', { x1: X(b.p50Ms), x2: X(b.p50Ms), y1: y - 8, y2: y + 8, stroke: color, class: 'median' }));
    g.append(s('line', { x1: X(b.p95Ms), x2: X(b.p95Ms), y1: y - 4, y2: y + 4, class: 'p95' }));
    g.append(s('line', { x1: X(b.p99Ms), x2: X(b.p99Ms), y1: y - 7, y2: y + 7, class: 'p99' }));
    g.append(s('text', { x: BOX.width - BOX.right + 12, y: y + 4, class: 'values' }, `p50 ${formatMs(b.p50Ms)} · p99 ${formatMs(b.p99Ms)}`));
    svg.append(g);
  });
  return svg;
}

function chartBox(title: string): { figure: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h('canvas');
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, title), h('div', { class: 'canvas-box' }, canvas));
  return { figure, canvas };
}

interface ScenarioSection {
  element: HTMLElement;
  draw(options: ChartOptions): Chart[];
}

function scenarioSection(view: ScenarioView, boxes: LatencyBox[]): ScenarioSection {
  const eps = chartBox(view.kind === 'line' ? `EPS vs ${view.xFactor === 'intervalMs' ? 'interval' : view.xFactor}` : 'EPS per point');
  const cpu = chartBox(view.kind === 'line' ? 'Tab CPU (main thread solid, process dashed)' : 'Tab CPU per point');
  const info = h('p', { class: 'fixed' }, view.fixed ? `Fixed: ${view.fixed}` : 'Nothing fixed');
  if (view.failed) info.append(h('span', { class: 'failed-count' }, ` · ${view.failed} of ${view.pointIds.length} points failed`));
  const latency = boxes.length
    ? h('figure', { class: 'latency' }, h('figcaption', {}, 'Latency (whisker min–max, box p25–p75, bar p50, ticks p95 and p99)'), latencyPlot(boxes))
    : h('p', { class: 'muted' }, 'No latency recorded for this scenario.');
  const element = h('section', { class: 'scenario' }, h('h2', {}, 'Scenario ', h('code', {}, view.scenario)), info, h('div', { class: 'charts' }, eps.figure, cpu.figure), latency);
  const draw = (options: ChartOptions): Chart[] =>
    view.kind === 'line'
      ? [epsLineChart(eps.canvas, view, options), cpuLineChart(cpu.canvas, view, options)]
      : [epsBarChart(eps.canvas, view), cpuBarChart(cpu.canvas, view)];
  return { element, draw };
}

export interface RenderedReport {
  /** Redraws every chart, e.g. after the overlay or log-axis toggle changed. */
  redraw(options: ChartOptions): void;
  destroy(): void;
}

export function renderReport(container: HTMLElement, report: Report, options: ChartOptions): RenderedReport {
  const boxes = latencyBoxes(report);
  const sections = seriesByScenario(report).map((v) => scenarioSection(v, boxes.filter((b) => b.scenario === v.scenario)));
  container.replaceChildren(headerSection(report), tableSection(report), ...sections.map((x) => x.element));
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
