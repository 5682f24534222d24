/**
 * Every view the report viewer shows, as pure functions of the Report: the run header, the
 * points table, the per-scenario chart series and the latency boxes. No DOM and no chart.js
 * here, so the unit tests read exactly what the page will show; render.ts and charts.ts only
 * turn these values into elements.
 */
import type { PointResult, RepeatFigures, Report, TabThreadsCpu, Verdict } from '../../../protocol/report.js';
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatEps,
  formatMBps,
  formatMs,
  formatPercent,
  formatRatio,
  formatTimestamp,
  MISSING,
} from './format.js';
import { REFERENCE_FIGURES, type ReferenceFigure } from '../../../protocol/reference.js';

type Point = PointResult['point'];
export type Transport = Point['transport'];

/**
 * A point as this viewer shows it until it reads repeats and intervals: its median repeat by
 * EPS (one real window, not a blend of figures from different windows), or its last failure.
 */
export type ShownPoint = {
  point: Point;
  status: 'ok' | 'failed';
  verdict: Verdict;
  attempts: number;
  notes: string[];
  error?: string;
} & Partial<RepeatFigures>;

export function shownPoint(r: PointResult): ShownPoint {
  const measured = r.repeats.flatMap((x) => (x.status === 'ok' ? [x] : [])).sort((a, b) => a.eventsPerSec - b.eventsPerSec);
  const mid = measured[(measured.length - 1) >> 1];
  if (mid) return { ...mid, point: r.point, status: 'ok', verdict: r.verdict, notes: r.notes };
  const failed = r.repeats.at(-1);
  return { point: r.point, status: 'failed', verdict: 'failed', attempts: failed?.attempts ?? 0, notes: r.notes, error: failed?.status === 'failed' ? failed.error : 'not measured' };
}

const shownPoints = (report: Report): ShownPoint[] => report.points.map(shownPoint);

/** A legend label that carries the conditions, since a reader may compare against a different sweep. */
export function referenceLabel(f: ReferenceFigure): string {
  const value = `${formatEps(f.eventsPerSec)}`;
  const where = f.x === null ? 'max' : `@ ${f.factor} ${f.x}`;
  return `Timeplus ${f.test}: ${f.transport.toUpperCase()} ≈ ${value} ${where} (${f.conditions})`;
}

// ---------------------------------------------------------------------------------------------
// Run header

export interface HeaderField {
  label: string;
  value: string;
  /** Set when the value means the numbers should be read with care. */
  warning?: string;
}

export interface RunHeader {
  runId: string;
  fields: HeaderField[];
  launchArgs: string[];
}

export function runHeader(report: Report): RunHeader {
  const env = report.environment;
  const started = Date.parse(report.startedAt);
  const finished = report.finishedAt === null ? Number.NaN : Date.parse(report.finishedAt);
  const fields: HeaderField[] = [
    { label: 'Started', value: formatTimestamp(report.startedAt) },
    report.finishedAt === null
      ? { label: 'Finished', value: 'not finished', warning: 'The sweep had not finished when this report was written; points may be missing.' }
      : { label: 'Finished', value: formatTimestamp(report.finishedAt) },
    { label: 'Duration', value: formatDuration(finished - started) },
    { label: 'Scenarios', value: report.scenarios.length ? report.scenarios.join(', ') : MISSING },
    { label: 'Chrome', value: env.chromeVersion || MISSING },
    { label: 'Node', value: env.nodeVersion || MISSING },
    { label: 'Platform', value: env.platform || MISSING },
    { label: 'CPU', value: env.cpuModel || MISSING },
    { label: 'Cores', value: formatCount(env.cores) },
    { label: 'Memory', value: formatBytes(env.memoryBytes) },
    { label: 'Headless', value: env.headless ? 'yes' : 'no' },
    env.networkEnabled
      ? { label: 'CDP Network domain', value: 'on', warning: 'The CDP Network domain was on while measuring; it floods CDP and can halve EPS.' }
      : { label: 'CDP Network domain', value: 'off' },
    { label: 'Server', value: env.serverUrl || MISSING },
    {
      label: 'JSON.parse ceiling',
      value: report.rounds[0]?.parseCeilings.length
        ? `${report.rounds[0].parseCeilings.map((c) => `batch ${formatCount(c.batch)}: ${formatEps(c.eventsPerSec)}`).join(' · ')}${report.rounds.length > 1 ? ' (round 1)' : ''}`
        : MISSING,
    },
  ];
  return { runId: report.runId, fields, launchArgs: env.launchArgs };
}

export interface RunSummary {
  points: number;
  ok: number;
  failed: number;
  /** The highest EPS per transport among points that did not fail. */
  best: { transport: Transport; eventsPerSec: number; pointId: string }[];
}

export function runSummary(report: Report): RunSummary {
  const best = new Map<Transport, { transport: Transport; eventsPerSec: number; pointId: string }>();
  for (const r of shownPoints(report)) {
    if (r.status !== 'ok' || r.eventsPerSec === undefined) continue;
    const seen = best.get(r.point.transport);
    if (!seen || r.eventsPerSec > seen.eventsPerSec) {
      best.set(r.point.transport, { transport: r.point.transport, eventsPerSec: r.eventsPerSec, pointId: r.point.id });
    }
  }
  const failed = shownPoints(report).filter((r) => r.status === 'failed').length;
  return { points: report.points.length, ok: report.points.length - failed, failed, best: [...best.values()] };
}

// ---------------------------------------------------------------------------------------------
// Points table

export type ColumnKey =
  | 'id'
  | 'transport'
  | 'batch'
  | 'concurrency'
  | 'interval'
  | 'render'
  | 'offered'
  | 'eps'
  | 'delivered'
  | 'ceiling'
  | 'parse'
  | 'mbps'
  | 'tabMain'
  | 'tabProcess'
  | 'workers'
  | 'renderers'
  | 'browser'
  | 'network'
  | 'server'
  | 'host'
  | 'p50'
  | 'p95'
  | 'p99'
  | 'max'
  | 'gaps'
  | 'shed'
  | 'verdict'
  | 'notes'
  | 'error';

export interface Column {
  key: ColumnKey;
  /** Header group the column sits under (the table has a two-row header). */
  group: string;
  label: string;
  /** Tooltip: what the number is and its unit. */
  title: string;
  numeric: boolean;
}

export interface TableCell {
  text: string;
  /** Tooltip with the detail behind the number. */
  title?: string;
}

export interface TableRow {
  pointId: string;
  scenario: string;
  status: ShownPoint['status'];
  verdict: Verdict;
  cells: Record<ColumnKey, TableCell>;
}

const CPU_GROUP = 'CPU, % of one core';

/** The table's columns; the error column only when some point failed, as it would be empty otherwise. */
export function pointsTableColumns(report: Report): Column[] {
  const cores = report.environment.cores;
  const anyFailed = shownPoints(report).some((r) => r.status === 'failed');
  const c = (key: ColumnKey, group: string, label: string, title: string, numeric = true): Column => ({ key, group, label, title, numeric });
  return [
    c('id', 'Point', 'id', 'Point id: <scenario>/<transport>-b<batch>-c<concurrency>-i<interval>-<render>', false),
    c('transport', 'Point', 'transport', 'ws or sse', false),
    c('batch', 'Point', 'batch', 'Events per message'),
    c('concurrency', 'Point', 'conc.', 'Connections the tab opened'),
    c('interval', 'Point', 'interval', 'Milliseconds between batches, per connection'),
    c('render', 'Point', 'render', 'What the page drew: full (table + chart), chart, none', false),
    c('parse', 'Point', 'parse', 'Where the page parsed: main thread, or w<k> = k dedicated Workers', false),
    c('offered', 'Throughput', 'offered', 'Events per second the server was asked to send (batch × concurrency × 1000 / interval)'),
    c('eps', 'Throughput', 'EPS', 'Events per second the page received over the measured window'),
    c('delivered', 'Throughput', 'delivered', 'Received EPS / offered EPS'),
    c('ceiling', 'Throughput', 'of ceiling', "Received EPS / this run's in-page JSON.parse ceiling at the same batch size"),
    c('mbps', 'Throughput', 'MB/s', 'JSON received by the page, megabytes per second'),
    c('tabMain', CPU_GROUP, 'tab main', "The tab's main thread busy time (≤ 100 %)"),
    c('tabProcess', CPU_GROUP, 'tab proc.', "The tab's renderer process, all threads (hover: by thread)"),
    c('workers', CPU_GROUP, 'workers', "Each parsing Worker's own CPU time, in creation order (parse mode worker)"),
    c('renderers', CPU_GROUP, 'renderers', 'Every Chrome renderer process'),
    c('browser', CPU_GROUP, 'browser', 'Chrome browser process'),
    c('network', CPU_GROUP, 'network', 'Chrome network service (shared by every tab)'),
    c('server', CPU_GROUP, 'server', 'The pushlab server process'),
    c('host', CPU_GROUP, `host (max ${formatCount(100 * cores)})`, `All processes on the host; ${formatCount(cores)} cores, so at most ${formatCount(100 * cores)} %`),
    c('p50', 'Latency', 'p50', 'Send-to-receive latency, median, ms'),
    c('p95', 'Latency', 'p95', 'Send-to-receive latency, 95th percentile, ms'),
    c('p99', 'Latency', 'p99', 'Send-to-receive latency, 99th percentile, ms'),
    c('max', 'Latency', 'max', 'Send-to-receive latency, maximum, ms'),
    c('gaps', 'Loss', 'gaps', 'Batches missing from the seq sequence seen by the page'),
    c('shed', 'Loss', 'server shed', 'Batches the server skipped because the client could not keep up'),
    c('verdict', 'Result', 'verdict', 'What limited the point', false),
    c('notes', 'Result', 'notes', 'Why the verdict, and anything odd', false),
    ...(anyFailed ? [c('error', 'Result', 'error', 'Why the point failed', false)] : []),
  ];
}

function threadsTitle(t: TabThreadsCpu | null | undefined): string | undefined {
  if (!t) return undefined;
  const workers = t.workers.length ? `, workers ${t.workers.map((w) => formatPercent(w)).join(' / ')}` : '';
  return `by thread: main ${formatPercent(t.main)}${workers}, IO ${formatPercent(t.io)}, compositor ${formatPercent(t.compositor)}, thread pool (GC) ${formatPercent(t.pool)}, other ${formatPercent(t.other)}`;
}

const cell = (text: string, title?: string): TableCell => (title === undefined ? { text } : { text, title });

export function pointsTableRows(report: Report): TableRow[] {
  return shownPoints(report).map((r): TableRow => {
    const p = r.point;
    const cpu = r.cpu;
    const lat = r.latency && r.latency.count > 0 ? r.latency : undefined;
    const page = r.page;
    const cells: Record<ColumnKey, TableCell> = {
      id: cell(p.id),
      transport: cell(p.transport),
      batch: cell(formatCount(p.batch)),
      concurrency: cell(formatCount(p.concurrency)),
      interval: cell(formatMs(p.intervalMs)),
      render: cell(p.render),
      parse: cell(p.parse === 'worker' ? `w${p.workers}` : 'main'),
      offered: cell(formatEps(p.offeredEventsPerSec)),
      eps: cell(
        formatEps(r.eventsPerSec),
        r.windowSec === undefined
          ? undefined
          : `${formatCount(r.batchesPerSec)} batches/s over ${r.windowSec.toFixed(1)} s` +
              (r.settleSec === undefined ? '' : `, opened ${r.settleSec.toFixed(1)} s after the warm-up once both ends had caught up`),
      ),
      delivered: cell(formatRatio(r.deliveredRatio), r.server ? `server pacing ${formatRatio(r.server.pacingRatio)}` : undefined),
      ceiling: cell(formatRatio(r.ceilingRatio)),
      mbps: cell(formatMBps(r.megabytesPerSec)),
      tabMain: cell(formatPercent(cpu?.tabMainThread)),
      tabProcess: cell(formatPercent(cpu?.tabProcess), threadsTitle(cpu?.tabThreads)),
      workers: cell(cpu?.tabThreads?.workers.length ? cpu.tabThreads.workers.map((w) => formatPercent(w)).join(' / ') : MISSING),
      renderers: cell(formatPercent(cpu?.chrome.renderers)),
      browser: cell(formatPercent(cpu?.chrome.browser)),
      network: cell(formatPercent(cpu?.chrome.network)),
      server: cell(formatPercent(cpu?.server), r.server ? `event loop ${formatRatio(r.server.eventLoopUtilization)} busy` : undefined),
      host: cell(formatPercent(cpu?.host)),
      p50: cell(formatMs(lat?.p50Ms)),
      p95: cell(formatMs(lat?.p95Ms)),
      p99: cell(formatMs(lat?.p99Ms)),
      max: cell(formatMs(lat?.maxMs)),
      gaps: cell(
        formatCount(page?.gaps),
        page ? `duplicates ${formatCount(page.duplicates)}, reconnects ${formatCount(page.reconnects)}, parse errors ${formatCount(page.errors)}` : undefined,
      ),
      shed: cell(formatCount(r.server?.batchesShed)),
      verdict: cell(r.verdict, r.attempts > 1 ? `${r.attempts} attempts` : undefined),
      notes: cell(r.notes.join('; ')),
      error: cell(r.status === 'failed' ? (r.error ?? 'failed (no error recorded)') : ''),
    };
    return { pointId: p.id, scenario: p.scenario, status: r.status, verdict: r.verdict, cells };
  });
}

// ---------------------------------------------------------------------------------------------
// Scenario charts

/** The numeric factors a chart can put on its x axis, in the order they are preferred. */
export const X_FACTORS = ['batch', 'concurrency', 'intervalMs'] as const;
export type XFactor = (typeof X_FACTORS)[number];

type Factor = 'transport' | XFactor | 'render';
const FACTORS: readonly Factor[] = ['transport', 'batch', 'concurrency', 'intervalMs', 'render'];

const FACTOR_LABEL: Record<Factor, string> = {
  transport: 'transport',
  batch: 'batch (events per message)',
  concurrency: 'concurrency (connections)',
  intervalMs: 'interval (ms)',
  render: 'render',
};

function factorValue(p: Point, f: Factor): string {
  switch (f) {
    case 'transport':
      return `transport ${p.transport}`;
    case 'batch':
      return `batch ${p.batch}`;
    case 'concurrency':
      return `concurrency ${p.concurrency}`;
    case 'intervalMs':
      return `interval ${p.intervalMs} ms`;
    case 'render':
      return `render ${p.render}`;
  }
}

/** The factors that take more than one value among these points. */
export function varyingFactors(points: readonly Point[]): Factor[] {
  return FACTORS.filter((f) => new Set(points.map((p) => factorValue(p, f))).size > 1);
}

/** `sse · batch 400`: the transport plus whatever else varies, so labels within a scenario are distinct. */
export function pointLabel(p: Point, varying: readonly Factor[]): string {
  return [p.transport, ...varying.filter((f) => f !== 'transport').map((f) => factorValue(p, f))].join(' · ');
}

export interface SeriesPoint {
  x: number;
  /** Null where the point failed or the metric is missing: the line breaks there. */
  y: number | null;
  pointId: string;
  failed: boolean;
}

export interface Series {
  label: string;
  transport: Transport;
  /** Which line of a transport this is, for styling: EPS, or one of the two CPU figures. */
  metric: 'eps' | 'tabMainThread' | 'tabProcess';
  /** 0 for the first series of a transport, 1 for the next…; lets the chart vary the shade. */
  shade: number;
  points: SeriesPoint[];
}

interface ScenarioBase {
  scenario: string;
  /** The factors held constant, e.g. `concurrency 10 · interval 1 ms · render full`. */
  fixed: string;
  pointIds: string[];
  failed: number;
}

export interface LineScenario extends ScenarioBase {
  kind: 'line';
  xFactor: XFactor;
  xLabel: string;
  eps: Series[];
  cpu: Series[];
  /** Published reference figures placed against the same factor (drawn only with the overlay on). */
  reference: ReferenceFigure[];
}

export interface BarItem {
  label: string;
  transport: Transport;
  pointId: string;
  failed: boolean;
  eventsPerSec: number | null;
  tabMainThread: number | null;
  tabProcess: number | null;
}

/** A scenario where no numeric factor varies (single points, or transports side by side). */
export interface BarScenario extends ScenarioBase {
  kind: 'bar';
  bars: BarItem[];
}

export type ScenarioView = LineScenario | BarScenario;

/** Scenario ids in the report's order, plus any that only appear in the points. */
export function scenarioIds(report: Report): string[] {
  const ids = [...report.scenarios];
  for (const r of report.points) if (!ids.includes(r.point.scenario)) ids.push(r.point.scenario);
  return ids.filter((id) => report.points.some((r) => r.point.scenario === id));
}

const ok = (r: ShownPoint, v: number | undefined): number | null => (r.status === 'ok' && v !== undefined && Number.isFinite(v) ? v : null);

export function seriesByScenario(report: Report): ScenarioView[] {
  return scenarioIds(report).map((scenario) => {
    const results = shownPoints(report).filter((r) => r.point.scenario === scenario);
    const points = results.map((r) => r.point);
    const varying = varyingFactors(points);
    const fixed = FACTORS.filter((f) => !varying.includes(f))
      .map((f) => factorValue(points[0], f))
      .join(' · ');
    const base: ScenarioBase = {
      scenario,
      fixed,
      pointIds: points.map((p) => p.id),
      failed: results.filter((r) => r.status === 'failed').length,
    };
    const xFactor = X_FACTORS.find((f) => varying.includes(f));
    if (xFactor === undefined) {
      const bars = results.map(
        (r): BarItem => ({
          label: pointLabel(r.point, varying),
          transport: r.point.transport,
          pointId: r.point.id,
          failed: r.status === 'failed',
          eventsPerSec: ok(r, r.eventsPerSec),
          tabMainThread: ok(r, r.cpu?.tabMainThread),
          tabProcess: ok(r, r.cpu?.tabProcess),
        }),
      );
      return { ...base, kind: 'bar', bars };
    }

    // One line per transport and per value of every other varying factor.
    const lineFactors = varying.filter((f) => f !== xFactor);
    const groups = new Map<string, ShownPoint[]>();
    for (const r of results) {
      const key = pointLabel(r.point, lineFactors);
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const shadeOf = new Map<string, number>();
    const shades = new Map<Transport, number>();
    for (const [key, rs] of groups) {
      const t = rs[0].point.transport;
      shadeOf.set(key, shades.get(t) ?? 0);
      shades.set(t, (shades.get(t) ?? 0) + 1);
    }
    const line = (key: string, rs: ShownPoint[], metric: Series['metric'], label: string, y: (r: ShownPoint) => number | undefined): Series => ({
      label,
      transport: rs[0].point.transport,
      metric,
      shade: shadeOf.get(key) ?? 0,
      points: [...rs]
        .sort((a, b) => a.point[xFactor] - b.point[xFactor])
        .map((r) => ({ x: r.point[xFactor], y: ok(r, y(r)), pointId: r.point.id, failed: r.status === 'failed' })),
    });
    const eps: Series[] = [];
    const cpu: Series[] = [];
    for (const [key, rs] of groups) {
      eps.push(line(key, rs, 'eps', key, (r) => r.eventsPerSec));
      cpu.push(line(key, rs, 'tabMainThread', `${key} tab main thread`, (r) => r.cpu?.tabMainThread));
      cpu.push(line(key, rs, 'tabProcess', `${key} tab process`, (r) => r.cpu?.tabProcess));
    }
    const reference = REFERENCE_FIGURES.filter((f) => f.factor === xFactor);
    return { ...base, kind: 'line', xFactor, xLabel: FACTOR_LABEL[xFactor], eps, cpu, reference };
  });
}

// ---------------------------------------------------------------------------------------------
// Latency boxes

export interface LatencyBox {
  scenario: string;
  pointId: string;
  label: string;
  transport: Transport;
  failed: boolean;
  count: number;
  minMs: number;
  p25Ms: number;
  p50Ms: number;
  p75Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * One box per point that recorded latency, labelled within its scenario. Points without a
 * complete summary are left out rather than drawn with invented whiskers.
 */
export function latencyBoxes(report: Report): LatencyBox[] {
  const varyingIn = new Map(
    scenarioIds(report).map((s) => [s, varyingFactors(report.points.filter((r) => r.point.scenario === s).map((r) => r.point))]),
  );
  const boxes: LatencyBox[] = [];
  for (const r of shownPoints(report)) {
    const l = r.latency;
    if (!l || l.count === 0) continue;
    const { minMs, p25Ms, p50Ms, p75Ms, p95Ms, p99Ms, maxMs } = l;
    if (minMs === null || p25Ms === null || p50Ms === null || p75Ms === null || p95Ms === null || p99Ms === null || maxMs === null) continue;
    boxes.push({
      scenario: r.point.scenario,
      pointId: r.point.id,
      label: pointLabel(r.point, varyingIn.get(r.point.scenario) ?? []),
      transport: r.point.transport,
      failed: r.status === 'failed',
      count: l.count,
      minMs,
      p25Ms,
      p50Ms,
      p75Ms,
      p95Ms,
      p99Ms,
      maxMs,
    });
  }
  return boxes;
}

export interface LogAxis {
  /** Domain bounds, whole powers of ten around the data. */
  min: number;
  max: number;
  /** 1-2-5 ticks inside the domain. */
  ticks: number[];
}

/**
 * A log axis for latencies, which span from sub-millisecond medians to multi-second maxima in
 * one plot. Zero (a clock-skewed or instant delivery) cannot sit on a log axis, so the floor is
 * 1 µs and `logPosition` clamps anything below the domain to its left edge.
 */
export function logAxis(values: readonly number[]): LogAxis {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.max(0.001, positive.length ? Math.min(...positive) : 0.1);
  const hi = Math.max(lo * 10, positive.length ? Math.max(...positive) : 1);
  const min = 10 ** Math.floor(Math.log10(lo));
  const max = 10 ** Math.ceil(Math.log10(hi));
  const ticks: number[] = [];
  for (let decade = min; decade < max * 1.0001; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const t = Number((decade * m).toPrecision(6));
      if (t <= max * 1.0001) ticks.push(t);
    }
  }
  return { min, max, ticks };
}

/** Where `v` sits on the axis, 0 (left) to 1 (right). */
export function logPosition(v: number, axis: LogAxis): number {
  const clamped = Math.min(axis.max, Math.max(axis.min, v));
  return (Math.log10(clamped) - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min));
}
