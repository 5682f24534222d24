/**
 * chart.js configurations for the scenario views: pure functions from a ScenarioView to a
 * ChartConfiguration (datasets, axes with their units, tooltips, the whisker plugin), so the
 * unit tests can read the exact values a chart will draw. render.ts hands them to `new Chart`.
 */
import type { ChartConfiguration, ChartDataset, TooltipItem } from 'chart.js';
import { formatCompact, formatPercent } from '../../results/format.js';
import type { ReferenceFigure } from '../../results/reference.js';
import { CPU_COLORS, GRID_COLOR, REFERENCE_COLOR, transportColor, VERDICT_COLORS } from './palette.js';
import { inert } from './inert.js';
import { CPU_PROCESSES, maxOf, minOf, referenceLabel, type ScenarioView, type Series } from './views.js';
import { highestWhisker, whiskers, type Range } from './whiskers.js';

export interface ChartOptions {
  /** Draw the reference experiment's published figures. */
  reference: boolean;
  /** Log x axis: batch sweeps like 1…400 crowd their small values on a linear one. */
  logX: boolean;
}

/** Missing values are NaN, which chart.js skips, leaving a gap where a point never measured. */
export type XY = { x: number; y: number };
export type LineConfig = ChartConfiguration<'line', XY[]>;
export type BarConfig = ChartConfiguration<'bar', (number | null)[], string[]>;
type LineDataset = ChartDataset<'line', XY[]>;

const compactY = (v: number): string => (v === 0 ? '0' : formatCompact(v));

function rangesOf(s: Series): Range[] {
  return s.values.map((v) => (v.ciLow !== null && v.ciHigh !== null ? ([v.ciLow, v.ciHigh] as const) : null));
}

/** A line with the transport's colour, and each point ringed in its verdict's colour. */
function seriesDataset(s: Series): LineDataset {
  const color = transportColor(s.transport, s.shade);
  return {
    label: inert(s.label),
    data: s.values.map((v) => ({ x: v.x, y: v.y ?? Number.NaN })),
    borderColor: color,
    backgroundColor: color,
    borderWidth: 2,
    borderDash: s.dashed ? [6, 4] : [],
    pointRadius: 5,
    pointHoverRadius: 7,
    pointBorderWidth: 2.5,
    pointBackgroundColor: color,
    pointBorderColor: s.values.map((v) => VERDICT_COLORS[v.verdict]),
    // The main thread's line has squares; Firefox's points (a run in two engines) triangles.
    pointStyle: s.dashed ? 'rect' : s.engine === 'firefox' ? 'triangle' : 'circle',
    tension: 0,
  };
}

function xRange(view: ScenarioView, refs: readonly ReferenceFigure[]): [number, number] {
  const xs = [...view.eps.flatMap((s) => s.values.map((v) => v.x)), ...refs.flatMap((r) => (r.x === null ? [] : [r.x]))];
  return [minOf(xs), maxOf(xs)];
}

/**
 * Reference figures: a star where they published a point, a dashed level line across the
 * chart where they published only the level (WS's 2.4 M maximum in Test II).
 */
function referenceDatasets(view: ScenarioView, value: (f: ReferenceFigure) => number | null): LineDataset[] {
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

/** On a log x axis: 1-2-5 ticks, plus the axis ends (the largest batch, say) unless a 1-2-5 label sits too close. */
export function logTickShown(i: number, values: readonly number[]): boolean {
  if (isOneTwoFive(values[i])) return true;
  if (i !== 0 && i !== values.length - 1) return false;
  return values.filter(isOneTwoFive).every((t) => Math.abs(Math.log10(values[i] / t)) > Math.log10(1.5));
}

function lineConfig(
  view: ScenarioView,
  datasets: LineDataset[],
  ranges: (Range[] | undefined)[],
  yTitle: string,
  formatY: (v: number) => string,
  options: ChartOptions,
): LineConfig {
  const xName = view.xFactor === 'intervalMs' ? 'interval' : (view.xFactor ?? '');
  return {
    type: 'line',
    data: { datasets },
    plugins: [whiskers(ranges)],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: false,
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      scales: {
        x: {
          type: options.logX ? 'logarithmic' : 'linear',
          // Room at both ends, so the first and last points and their whiskers are not cut in half.
          ...(options.logX ? {} : { grace: '4%' }),
          title: { display: true, text: view.xLabel },
          grid: { color: GRID_COLOR },
          // A log axis would label every integer mantissa (1…9, 15, 20…); 1-2-5 is enough to read.
          ticks: {
            maxRotation: 0,
            autoSkip: !options.logX,
            callback: (v, i, ticks) =>
              !options.logX ||
              logTickShown(
                i,
                ticks.map((t) => t.value),
              )
                ? formatCompact(Number(v))
                : '',
          },
        },
        y: {
          type: 'linear',
          beginAtZero: true,
          suggestedMax: highestWhisker(ranges),
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
            label: (item: TooltipItem<'line'>) => {
              const range = ranges[item.datasetIndex]?.[item.dataIndex];
              const ci = range ? ` (95% CI ${formatY(range[0])} – ${formatY(range[1])})` : '';
              return `${item.dataset.label ?? ''}: ${formatY(item.parsed.y ?? Number.NaN)}${ci}`;
            },
          },
        },
      },
    },
  };
}

function barConfig(
  view: ScenarioView,
  datasets: ChartDataset<'bar', (number | null)[]>[],
  ranges: (Range[] | undefined)[],
  yTitle: string,
  formatY: (v: number) => string,
  stacked: boolean,
  labels: readonly string[] = view.categories,
): BarConfig {
  return {
    type: 'bar',
    // Multi-line category labels (`ws` over `batch 50`) so neighbours never run together.
    data: { labels: labels.map((l) => inert(l).split(' · ')), datasets },
    plugins: [whiskers(ranges)],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      datasets: { bar: { maxBarThickness: 64 } },
      scales: {
        x: { stacked, grid: { display: false }, ticks: { maxRotation: 0, autoSkip: false, font: { size: 11 } } },
        y: {
          stacked,
          beginAtZero: true,
          suggestedMax: highestWhisker(ranges),
          title: { display: true, text: yTitle },
          grid: { color: GRID_COLOR },
          ticks: { callback: (v) => formatY(Number(v)) },
        },
      },
      plugins: {
        legend: { display: datasets.length > 1, position: 'bottom', labels: { boxWidth: 12, font: { size: 11 } } },
        tooltip: {
          callbacks: {
            label: (item: TooltipItem<'bar'>) => {
              const range = ranges[item.datasetIndex]?.[item.dataIndex];
              const ci = range ? ` (95% CI ${formatY(range[0])} – ${formatY(range[1])})` : '';
              return `${item.dataset.label ?? ''}: ${formatY(item.parsed.y ?? Number.NaN)}${ci}`;
            },
          },
        },
      },
    },
  };
}

/**
 * Bars for a scenario without a numeric factor: one bar per point and metric, coloured by
 * the point's transport (lighter for the dashed metric) and outlined in its verdict's colour.
 */
function seriesBars(view: ScenarioView, series: Series[], yTitle: string, formatY: (v: number) => string): BarConfig {
  const metrics = [...new Set(series.map((s) => s.metric))];
  const datasets: ChartDataset<'bar', (number | null)[]>[] = [];
  const ranges: Range[][] = [];
  for (const metric of metrics) {
    const data: (number | null)[] = view.categories.map(() => null);
    const fill: string[] = view.categories.map(() => '#999999');
    const ring: string[] = [...fill];
    const range: Range[] = view.categories.map(() => null);
    for (const s of series.filter((x) => x.metric === metric)) {
      for (const v of s.values) {
        data[v.x] = v.y;
        fill[v.x] = transportColor(s.transport, s.dashed ? 3 : s.shade);
        ring[v.x] = VERDICT_COLORS[v.verdict];
        range[v.x] = v.ciLow !== null && v.ciHigh !== null ? [v.ciLow, v.ciHigh] : null;
      }
    }
    datasets.push({ label: metric, data, backgroundColor: fill, borderColor: ring, borderWidth: 2.5 });
    ranges.push(range);
  }
  return barConfig(view, datasets, ranges, yTitle, formatY, false);
}

/** Events per second the tab received: mean over repeats, whiskers the 95% CI of the mean. */
export function epsChart(view: ScenarioView, options: ChartOptions): LineConfig | BarConfig {
  const yTitle = 'events/s received by the tab';
  if (view.kind === 'bar') return seriesBars(view, view.eps, yTitle, compactY);
  const datasets = view.eps.map(seriesDataset);
  const ranges: (Range[] | undefined)[] = view.eps.map(rangesOf);
  if (options.reference) datasets.push(...referenceDatasets(view, (f) => f.eventsPerSec));
  return lineConfig(view, datasets, ranges, yTitle, compactY, options);
}

/** Events per CPU-second of the tab's renderer process (solid) and of its main thread alone (dashed). */
export function efficiencyChart(view: ScenarioView, options: ChartOptions): LineConfig | BarConfig {
  const yTitle = 'events per CPU-second';
  if (view.kind === 'bar') return seriesBars(view, view.efficiency, yTitle, compactY);
  return lineConfig(view, view.efficiency.map(seriesDataset), view.efficiency.map(rangesOf), yTitle, compactY, options);
}

/** Where the CPU went: per-process CPU of each point stacked, means over repeats, % of one core. */
export function cpuChart(view: ScenarioView): BarConfig {
  const datasets = CPU_PROCESSES.map((p, i): ChartDataset<'bar', (number | null)[]> => ({
    label: p.label,
    data: view.cpu.map((c) => c.values[i]),
    backgroundColor: CPU_COLORS[i],
    borderColor: '#ffffff',
    borderWidth: 1,
    stack: 'cpu',
  }));
  return barConfig(
    view,
    datasets,
    [],
    '% of one core (100 = one core)',
    formatPercent,
    true,
    view.cpu.map((c) => c.label),
  );
}
