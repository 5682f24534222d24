/**
 * The live charts (chart.js): throughput, latency, and the reference's aggregate (max of
 * the speed column per 1 s tumbling window). Data is appended by the render loop, at most
 * every 200 ms, and trimmed to the last `windowSec` seconds so hours of streaming keep a
 * fixed footprint.
 */
import {
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  type ChartDataset,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Legend);

type Series = ChartDataset<'line', { x: number; y: number }[]>;

function lineChart(canvas: HTMLCanvasElement, series: { label: string; color: string; axis: string }[], axes: Record<string, string>): Chart<'line', { x: number; y: number }[]> {
  const datasets: Series[] = series.map((s) => ({
    label: s.label,
    data: [],
    borderColor: s.color,
    backgroundColor: s.color,
    borderWidth: 1.5,
    pointRadius: 0,
    yAxisID: s.axis,
  }));
  // Axis ids vary per chart, which chart.js's scale typing cannot follow; the shape is checked at runtime.
  const scales: Record<string, object> = {
    x: { type: 'linear', title: { display: true, text: 's' }, ticks: { maxTicksLimit: 7 } },
  };
  Object.entries(axes).forEach(([id, title], i) => {
    scales[id] = { type: 'linear', position: i === 0 ? 'left' : 'right', beginAtZero: true, title: { display: true, text: title }, grid: { drawOnChartArea: i === 0 } };
  });
  return new Chart<'line', { x: number; y: number }[]>(canvas, {
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
      plugins: { legend: { labels: { boxWidth: 12 } } },
      scales: scales as never,
    },
  });
}

export interface ChartSample {
  /** Seconds since start. */
  tSec: number;
  eventsPerSec: number;
  megabytesPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export class LiveCharts {
  private readonly throughput;
  private readonly latency;
  private readonly speed;

  constructor(
    canvases: { throughput: HTMLCanvasElement; latency: HTMLCanvasElement; speed: HTMLCanvasElement },
    private readonly windowSec = 60,
  ) {
    this.throughput = lineChart(canvases.throughput, [
      { label: 'events/s', color: '#2563eb', axis: 'eps' },
      { label: 'MB/s', color: '#f59e0b', axis: 'mbps' },
    ], { eps: 'events/s', mbps: 'MB/s' });
    this.latency = lineChart(canvases.latency, [
      { label: 'p50 ms', color: '#16a34a', axis: 'ms' },
      { label: 'p99 ms', color: '#dc2626', axis: 'ms' },
    ], { ms: 'latency, ms' });
    this.speed = lineChart(canvases.speed, [{ label: 'max speed per 1 s', color: '#7c3aed', axis: 'speed' }], { speed: 'speed' });
  }

  add(s: ChartSample): void {
    push(this.throughput, 0, s.tSec, s.eventsPerSec, this.windowSec);
    push(this.throughput, 1, s.tSec, s.megabytesPerSec, this.windowSec);
    if (s.p50Ms !== null) push(this.latency, 0, s.tSec, s.p50Ms, this.windowSec);
    if (s.p99Ms !== null) push(this.latency, 1, s.tSec, s.p99Ms, this.windowSec);
  }

  addSpeed(tSec: number, maxSpeed: number): void {
    push(this.speed, 0, tSec, maxSpeed, this.windowSec);
  }

  draw(): void {
    this.throughput.update('none');
    this.latency.update('none');
    this.speed.update('none');
  }

  clear(): void {
    for (const c of [this.throughput, this.latency, this.speed]) for (const d of c.data.datasets) d.data.length = 0;
    this.draw();
  }
}

function push(chart: Chart<'line', { x: number; y: number }[]>, i: number, x: number, y: number, windowSec: number): void {
  const data = chart.data.datasets[i].data;
  data.push({ x, y });
  let drop = 0;
  while (drop < data.length && data[drop].x < x - windowSec) drop++;
  if (drop) data.splice(0, drop);
}
