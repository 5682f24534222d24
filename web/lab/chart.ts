/**
 * The live charts (chart.js): throughput, latency, the reference's aggregate (max of the
 * chart's field per 1 s tumbling window: the car rows' speed, or a rows file's numeric field,
 * protocol/event-view.ts) and, under `npm run lab`, CPU by process. Each keeps
 * one point per second over the last `windowSec` seconds: a fixed point budget, so hours of
 * streaming keep a fixed footprint and a redraw a fixed cost.
 *
 * Cost: a chart.js update re-lays out its scales and repaints its canvas, about 2–5 ms on the
 * page's main thread, the thread that also parses every message. So the charts take one
 * point a second (every figure they show is per second anyway) and redraw only when a point
 * arrived; animation, parsing, hit-testing events and tick auto-skipping are off, and the
 * x axis has a fixed range instead of one computed from the data.
 */
import { CAR_CHART_WORDS, chartWords, type EventView } from '../../protocol/event-view.js';
import { Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, type ChartDataset } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, Legend, Filler);

type Point = { x: number; y: number };
type LineChart = Chart<'line', Point[]>;

interface SeriesSpec {
  label: string;
  color: string;
  axis: string;
  /** Stack this series on the ones before it (the CPU chart). */
  stack?: boolean;
}

function lineChart(canvas: HTMLCanvasElement, title: string, series: SeriesSpec[], axes: Record<string, string>, stacked = false): LineChart {
  const datasets: ChartDataset<'line', Point[]>[] = series.map((s, i) => ({
    label: s.label,
    data: [],
    borderColor: s.color,
    backgroundColor: stacked ? `${s.color}99` : s.color,
    borderWidth: stacked ? 1 : 1.5,
    pointRadius: 0,
    yAxisID: s.axis,
    fill: stacked ? (i === 0 ? 'origin' : '-1') : false,
  }));
  // Axis ids vary per chart, which chart.js's scale typing cannot follow; the shape is checked at runtime.
  const scales: Record<string, object> = {
    x: { type: 'linear', min: -60, max: 0, title: { display: true, text: 's ago' }, ticks: { autoSkip: false, maxRotation: 0 } },
  };
  Object.entries(axes).forEach(([id, text], i) => {
    scales[id] = {
      type: 'linear',
      position: i === 0 ? 'left' : 'right',
      beginAtZero: true,
      stacked,
      title: { display: true, text },
      ticks: { maxTicksLimit: 6 },
      grid: { drawOnChartArea: i === 0 },
    };
  });
  return new Chart<'line', Point[]>(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      spanGaps: true,
      events: [],
      plugins: {
        title: { display: false, text: title },
        legend: { labels: { boxWidth: 10, font: { size: 11 } } },
      },
      scales: scales as never,
    },
  });
}

/** One second of the page's own figures. */
export interface ChartSample {
  /** Seconds since start. */
  tSec: number;
  eventsPerSec: number;
  megabytesPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

/** One CPU reading for the stacked chart, % of one core per series (same order as `CPU_SERIES`). */
export const CPU_SERIES: readonly SeriesSpec[] = [
  { label: 'tab main thread', color: '#2563eb', axis: 'cpu' },
  { label: 'tab other threads', color: '#60a5fa', axis: 'cpu' },
  { label: 'network service', color: '#f59e0b', axis: 'cpu' },
  { label: 'browser', color: '#a855f7', axis: 'cpu' },
  { label: 'GPU', color: '#64748b', axis: 'cpu' },
  { label: 'server', color: '#16a34a', axis: 'cpu' },
  { label: 'rest of host (other Chrome, other processes)', color: '#d1d5db', axis: 'cpu' },
];

export class LiveCharts {
  private readonly throughput;
  private readonly latency;
  private readonly speed;
  private readonly cpu;
  /** Charts with a point since their last redraw. */
  private readonly dirty = new Set<LineChart>();
  /** Latest x of any series, s: the charts' x axes show the last windowSec before it. */
  private now = 0;
  private cpuNow = 0;

  constructor(
    canvases: { throughput: HTMLCanvasElement; latency: HTMLCanvasElement; speed: HTMLCanvasElement; cpu: HTMLCanvasElement },
    private readonly windowSec = 60,
  ) {
    this.throughput = lineChart(
      canvases.throughput,
      'throughput',
      [
        { label: 'events/s received', color: '#2563eb', axis: 'eps' },
        { label: 'events/s offered', color: '#94a3b8', axis: 'eps' },
        { label: 'MB/s', color: '#f59e0b', axis: 'mbps' },
      ],
      { eps: 'events/s', mbps: 'MB/s' },
    );
    this.latency = lineChart(
      canvases.latency,
      'event age',
      [
        { label: 'p50 ms', color: '#16a34a', axis: 'ms' },
        { label: 'p99 ms', color: '#dc2626', axis: 'ms' },
      ],
      { ms: 'event age per 1 s (birth to handler), ms' },
    );
    this.speed = lineChart(canvases.speed, 'speed', [{ label: CAR_CHART_WORDS.label, color: '#7c3aed', axis: 'speed' }], { speed: CAR_CHART_WORDS.axis });
    this.cpu = lineChart(canvases.cpu, 'cpu', [...CPU_SERIES], { cpu: '% of one core (stacked)' }, true);
  }

  add(s: ChartSample, offeredEventsPerSec: number): void {
    this.now = s.tSec;
    this.push(this.throughput, 0, s.tSec, s.eventsPerSec);
    this.push(this.throughput, 1, s.tSec, offeredEventsPerSec);
    this.push(this.throughput, 2, s.tSec, s.megabytesPerSec);
    if (s.p50Ms !== null) this.push(this.latency, 0, s.tSec, s.p50Ms);
    if (s.p99Ms !== null) this.push(this.latency, 1, s.tSec, s.p99Ms);
  }

  /**
   * Says which field the aggregate chart plots, in its legend, its axis and its canvas's
   * accessible name (what a test or a screen reader reads): the car rows keep their km/h words.
   * With no numeric field in the events it says so and stays empty.
   */
  plotField(events: EventView): void {
    const { label, axis } = chartWords(events);
    this.speed.data.datasets[0].label = label;
    (this.speed.options.scales!.speed as { title: { text: string } }).title.text = axis;
    this.speed.canvas.setAttribute('aria-label', label);
    this.dirty.add(this.speed);
    this.draw();
  }

  addSpeed(tSec: number, maxSpeed: number): void {
    this.push(this.speed, 0, tSec, maxSpeed);
  }

  /** One CPU reading: `values` in CPU_SERIES order, at `tSec` on the CPU chart's own clock. */
  addCpu(tSec: number, values: readonly number[]): void {
    this.cpuNow = tSec;
    values.forEach((v, i) => this.push(this.cpu, i, tSec, v));
  }

  /** Redraws the charts that got a point since their last redraw. */
  draw(): void {
    for (const chart of this.dirty) {
      const at = chart === this.cpu ? this.cpuNow : this.now;
      const x = chart.options.scales!.x!;
      // The x axis slides with the newest point; values are stored by time, shown as "s ago".
      x.min = at - this.windowSec;
      x.max = at;
      // Ticks at whole quarters of the window before the newest point, labelled as "s ago".
      x.afterBuildTicks = (axis) => {
        axis.ticks = [60, 45, 30, 15, 0].map((ago) => ({ value: at - (ago * this.windowSec) / 60 }));
      };
      x.ticks!.callback = (v) => String(Math.round(Number(v) - at));
      chart.update('none');
    }
    this.dirty.clear();
  }

  clear(): void {
    for (const c of [this.throughput, this.latency, this.speed]) {
      for (const d of c.data.datasets) d.data.length = 0;
      this.dirty.add(c);
    }
    this.now = 0;
    this.draw();
  }

  private push(chart: LineChart, i: number, x: number, y: number): void {
    const data = chart.data.datasets[i].data;
    data.push({ x, y });
    let drop = 0;
    while (drop < data.length && data[drop].x < x - this.windowSec) drop++;
    if (drop) data.splice(0, drop);
    this.dirty.add(chart);
  }
}
