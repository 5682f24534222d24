/**
 * chart.js drawings of the scenario views. Each function takes a canvas and a view from
 * views.ts and returns the Chart, so the page can destroy and redraw them when a toggle changes.
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
  type ChartDataset,
  type TooltipItem,
} from 'chart.js';
import { formatCompact, formatPercent } from './format.js';
import type { ReferenceFigure } from '../../../protocol/reference.js';
import { referenceLabel, type BarScenario, type LineScenario, type Series, type Transport } from './views.js';

Chart.register(
  LineController,
  BarController,
  LineElement,
  PointElement,
  BarElement,
  LinearScale,
  LogarithmicScale,
  CategoryScale,
  Legend,
  Tooltip,
);

export interface ChartOptions {
  /** Draw the reference experiment's published figures. */
  reference: boolean;
  /** Log x axis: batch sweeps like 1…400 crowd their small values on a linear one. */
  logX: boolean;
}

// One hue per transport; further lines of the same transport (another concurrency, say) get
// another shade of it, so colour alone still says which transport a line is.
const PALETTE: Record<Transport, string[]> = {
  ws: ['#1f5fbf', '#5b9be6', '#0e3470', '#9cc3f2'],
  sse: ['#d0590b', '#f29a4b', '#7a3206', '#f7c48f'],
};
const REFERENCE_COLOR = '#6b4fbb';
const FAILED_COLOR = '#c81e1e';
const GRID_COLOR = '#e6e8eb';

export function transportColor(t: Transport, shade = 0): string {
  const shades = PALETTE[t];
  return shades[shade % shades.length];
}

/** Missing values are NaN, which chart.js skips, leaving a gap where a point failed. */
type XY = { x: number; y: number };
type LineDataset = ChartDataset<'line', XY[]>;

function seriesDataset(s: Series): LineDataset {
  const color = transportColor(s.transport, s.shade);
  return {
    label: s.label,
    data: s.points.map((p) => ({ x: p.x, y: p.y ?? Number.NaN })),
    borderColor: color,
    backgroundColor: color,
    borderWidth: 2,
    borderDash: s.metric === 'tabProcess' ? [6, 4] : [],
    pointRadius: 3.5,
    pointStyle: s.metric === 'tabProcess' ? 'rect' : 'circle',
    tension: 0,
  };
}

/** Failed points as red crosses on the x axis: a gap alone would read as "not measured". */
function failedDataset(series: Series[]): LineDataset | null {
  const xs = [...new Set(series.flatMap((s) => s.points.filter((p) => p.failed).map((p) => p.x)))];
  if (!xs.length) return null;
  return {
    label: 'failed',
    data: xs.map((x) => ({ x, y: 0 })),
    showLine: false,
    borderColor: FAILED_COLOR,
    backgroundColor: FAILED_COLOR,
    pointStyle: 'crossRot',
    pointRadius: 8,
    borderWidth: 2.5,
  };
}

function xRange(view: LineScenario, refs: readonly ReferenceFigure[]): [number, number] {
  const xs = [...view.eps.flatMap((s) => s.points.map((p) => p.x)), ...refs.flatMap((r) => (r.x === null ? [] : [r.x]))];
  return [Math.min(...xs), Math.max(...xs)];
}

/**
 * Reference figures: a star where they published a point, a dashed level line across the
 * chart where they published only the level (WS's 2.4 M maximum in Test II).
 */
function referenceDatasets(view: LineScenario, value: (f: ReferenceFigure) => number | null): LineDataset[] {
  const [lo, hi] = xRange(view, view.reference);
  return view.reference.flatMap((f): LineDataset[] => {
    const y = value(f);
    if (y === null) return [];
    const color = transportColor(f.transport, 2);
    if (f.x === null) {
      return [
        {
          label: referenceLabel(f),
          data: [
            { x: lo, y },
            { x: hi, y },
          ],
          borderColor: color,
          backgroundColor: color,
          borderDash: [2, 4],
          borderWidth: 1.5,
          pointRadius: 0,
        },
      ];
    }
    return [
      {
        label: referenceLabel(f),
        data: [{ x: f.x, y }],
        showLine: false,
        borderColor: REFERENCE_COLOR,
        backgroundColor: color,
        pointStyle: 'star',
        pointRadius: 10,
        pointHoverRadius: 12,
        borderWidth: 2,
      },
    ];
  });
}

function isOneTwoFive(v: number): boolean {
  if (!(v > 0)) return false;
  const mantissa = v / 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6);
}

/** 1-2-5 ticks, plus the axis ends (the largest batch, say) unless a 1-2-5 label sits too close. */
function logTickShown(i: number, values: number[]): boolean {
  if (isOneTwoFive(values[i])) return true;
  if (i !== 0 && i !== values.length - 1) return false;
  return values.filter(isOneTwoFive).every((t) => Math.abs(Math.log10(values[i] / t)) > Math.log10(1.5));
}

function lineChart(
  canvas: HTMLCanvasElement,
  view: LineScenario,
  datasets: LineDataset[],
  yTitle: string,
  formatY: (v: number) => string,
  options: ChartOptions,
  suggestedMax?: number,
): Chart<'line', XY[]> {
  const xTitle = view.xLabel;
  const xName = view.xFactor === 'intervalMs' ? 'interval' : view.xFactor;
  return new Chart<'line', XY[]>(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: false,
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      scales: {
        x: {
          type: options.logX ? 'logarithmic' : 'linear',
          title: { display: true, text: xTitle },
          grid: { color: GRID_COLOR },
          // A log axis would label every integer mantissa (1…9, 15, 20…); 1-2-5 is enough to read.
          ticks: { maxRotation: 0, autoSkip: !options.logX, callback: (v, i, ticks) => (!options.logX || logTickShown(i, ticks.map((t) => t.value)) ? formatCompact(Number(v)) : '') },
        },
        y: {
          type: 'linear',
          beginAtZero: true,
          suggestedMax,
          title: { display: true, text: yTitle },
          grid: { color: GRID_COLOR },
          ticks: { callback: (v) => formatY(Number(v)) },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { usePointStyle: true, boxHeight: 7, font: { size: 11 } } },
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items.length ? `${xName} ${formatCompact(items[0].parsed.x)}` : ''),
            label: (item: TooltipItem<'line'>) => `${item.dataset.label ?? ''}: ${formatY(item.parsed.y ?? Number.NaN)}`,
          },
        },
      },
    },
  });
}

export function epsLineChart(canvas: HTMLCanvasElement, view: LineScenario, options: ChartOptions): Chart<'line', XY[]> {
  const datasets = view.eps.map(seriesDataset);
  const failed = failedDataset(view.eps);
  if (failed) datasets.push(failed);
  if (options.reference) datasets.push(...referenceDatasets(view, (f) => f.eventsPerSec));
  return lineChart(canvas, view, datasets, 'events per second', (v) => (v === 0 ? '0' : formatCompact(v)), options);
}

export function cpuLineChart(canvas: HTMLCanvasElement, view: LineScenario, options: ChartOptions): Chart<'line', XY[]> {
  const datasets = view.cpu.map(seriesDataset);
  // 100 % is one core: the tab's main thread cannot go above it, and that is where the
  // reference saw EPS stop growing.
  const [lo, hi] = xRange(view, options.reference ? view.reference : []);
  datasets.push({
    label: '100 % = one core',
    data: [
      { x: lo, y: 100 },
      { x: hi, y: 100 },
    ],
    borderColor: '#9aa1a9',
    borderDash: [4, 4],
    borderWidth: 1,
    pointRadius: 0,
  });
  const failed = failedDataset(view.cpu);
  if (failed) datasets.push(failed);
  if (options.reference) datasets.push(...referenceDatasets(view, (f) => f.tabCpuPercent));
  return lineChart(canvas, view, datasets, '% of one core', formatPercent, options, 110);
}

function barChart(
  canvas: HTMLCanvasElement,
  view: BarScenario,
  datasets: ChartDataset<'bar', (number | null)[]>[],
  yTitle: string,
  formatY: (v: number) => string,
): Chart<'bar', (number | null)[], string> {
  return new Chart<'bar', (number | null)[], string>(canvas, {
    type: 'bar',
    data: { labels: view.bars.map((b) => (b.failed ? `${b.label} (failed)` : b.label)), datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      datasets: { bar: { maxBarThickness: 90 } },
      scales: {
        x: { grid: { display: false }, ticks: { color: (ctx) => (view.bars[ctx.index]?.failed ? FAILED_COLOR : '#333') } },
        y: { beginAtZero: true, title: { display: true, text: yTitle }, grid: { color: GRID_COLOR }, ticks: { callback: (v) => formatY(Number(v)) } },
      },
      plugins: {
        legend: { display: datasets.length > 1, position: 'bottom' },
        tooltip: { callbacks: { label: (item: TooltipItem<'bar'>) => `${item.dataset.label ?? ''}: ${formatY(item.parsed.y ?? Number.NaN)}` } },
      },
    },
  });
}

export function epsBarChart(canvas: HTMLCanvasElement, view: BarScenario): Chart<'bar', (number | null)[], string> {
  const colors = view.bars.map((b) => transportColor(b.transport));
  return barChart(canvas, view, [{ label: 'EPS', data: view.bars.map((b) => b.eventsPerSec), backgroundColor: colors }], 'events per second', (v) =>
    v === 0 ? '0' : formatCompact(v),
  );
}

export function cpuBarChart(canvas: HTMLCanvasElement, view: BarScenario): Chart<'bar', (number | null)[], string> {
  return barChart(
    canvas,
    view,
    [
      { label: 'tab main thread', data: view.bars.map((b) => b.tabMainThread), backgroundColor: view.bars.map((b) => transportColor(b.transport, 0)) },
      { label: 'tab process', data: view.bars.map((b) => b.tabProcess), backgroundColor: view.bars.map((b) => transportColor(b.transport, 3)) },
    ],
    '% of one core',
    formatPercent,
  );
}
