/**
 * The one list of result columns. The terminal table (results/views/terminal.ts), the viewer's
 * points table and both CSVs are built from it, so a column has one label, one unit, one way
 * to read its value from a result and one text format wherever it is shown.
 *
 * A figure measured once per repeat is a `stat` column: its cell shows the MEDIAN over the
 * point's measured repeats, followed by `±x %`, the half-width of the 95% CI of the mean as a
 * share of the median (how noisy the figure is; nothing when fewer than 2 repeats measured).
 * The CSV keeps median, mean and both CI bounds.
 */
import { formatCompactCell, formatCount, formatPercentValue, formatPlusMinusPercent, formatRatioValue, formatSig3, MISSING, wireCell } from './format.js';
import type { MeasuredRepeat, Stat } from '../protocol/repeat-figures.js';
import type { PointResult, PointSummary, Report } from '../protocol/report.js';
import { maxOf, relativeHalfWidth } from './stats.js';
import { FACTOR_NAMES, FACTORS, type ColumnInfo } from '../protocol/factors.js';
import { inputDelayP99Ms } from './input-delay.js';

interface ColumnBase {
  /** Stable key: the CSV header (with its unit in the name), the HTML sort key. */
  id: string;
  /** Short header text; carries the unit where the cells do not (`p99 ms`, `tab main %`). */
  label: string;
  /** The unit in words, for tooltips and docs; '' for text. */
  unit: string;
  /** Header group in the viewer's two-row header. */
  group: string;
  /** What the figure is and how it was measured (which CPU, which window). */
  title: string;
  /** Shown in the terminal table (the viewer and the CSV show every column). */
  terminal: boolean;
  /**
   * A factor's column: shown in the terminal table too when some point of the report has the
   * factor (`tabs`, `display`, `compression`), so other sweeps' tables stay as narrow as before.
   */
  terminalWhen?: (r: PointResult) => boolean;
}

/** A column whose value is text (point id, transport, verdict). */
export interface TextColumn extends ColumnBase {
  kind: 'text';
  text(r: PointResult): string;
  /** The same column for one repeat's row of the per-repeat CSV; absent = not per repeat. */
  repeatText?(r: PointResult, rep: MeasuredRepeat): string;
}

/** A column with one number per point (a point factor, a sum over repeats). */
export interface NumberColumn extends ColumnBase {
  kind: 'number';
  value(r: PointResult): number | null;
  format(v: number): string;
  repeatValue?(r: PointResult, rep: MeasuredRepeat): number | null;
}

/** A figure measured in every repeat: the point shows its Stat, the repeat its own value. */
export interface StatColumn extends ColumnBase {
  kind: 'stat';
  stat(s: PointSummary): Stat | null;
  repeatValue(rep: MeasuredRepeat): number | null;
  format(v: number): string;
}

export type Column = TextColumn | NumberColumn | StatColumn;

const POINT = 'Point';
const THROUGHPUT = 'Throughput';
const EFFICIENCY = 'Efficiency';
const CPU = 'CPU, % of one core';
const LATENCY = 'Latency';
const LOSS = 'Loss';
const INPUT = 'Input';
const RESULT = 'Result';

const pointText = (id: string, label: string, title: string, text: (r: PointResult) => string, terminal = false): TextColumn => ({
  kind: 'text',
  id,
  label,
  unit: '',
  group: POINT,
  title,
  terminal,
  text,
});

const pointNumber = (
  id: string,
  label: string,
  unit: string,
  title: string,
  value: (r: PointResult) => number,
  format: (v: number) => string,
  terminal = false,
): NumberColumn => ({
  kind: 'number',
  id,
  label,
  unit,
  group: POINT,
  title,
  terminal,
  value,
  format,
});

const stat = (
  id: string,
  group: string,
  label: string,
  unit: string,
  title: string,
  pick: (s: PointSummary) => Stat | null,
  repeatValue: (rep: MeasuredRepeat) => number | null,
  format: (v: number) => string,
  terminal = true,
): StatColumn => ({ kind: 'stat', id, group, label, unit, title, terminal, stat: pick, repeatValue, format });

const compact = (v: number): string => formatCompactCell(v);
const percent = (v: number): string => formatPercentValue(v);
const ratio = (v: number): string => formatRatioValue(v);
const ms = (v: number): string => formatSig3(v);
const count = (v: number): string => formatCount(v);

const FORMATS: Record<'count' | 'ms', (v: number) => string> = { count, ms };

/**
 * Where the connections column stands among the factors' (FactorInfo.column.order): after the
 * load's (transport, batch, concurrency, interval), before how the page took it.
 */
const CONNECTIONS_ORDER = 4;

/** The factors' columns (protocol/factors.ts) whose order `where` takes, in their order. */
function factorColumns(where: (order: number) => boolean): Column[] {
  return FACTOR_NAMES.flatMap((name) => {
    const c = FACTORS[name].column as ColumnInfo | null;
    return c !== null && where(c.order) ? [{ name, c }] : [];
  })
    .sort((x, y) => x.c.order - y.c.order)
    .map(({ name, c }) => {
      const column: Column =
        c.kind === 'text'
          ? pointText(name, c.label, c.title, (r) => c.text(r.point))
          : pointNumber(name, c.label, c.unit, c.title, (r) => c.value(r.point), FORMATS[c.format]);
      return c.terminal === 'when set' ? { ...column, terminalWhen: (r: PointResult) => r.point[name] !== undefined } : column;
    });
}

/**
 * Every column, in the CSV's order (the point and its factors, then the figures by group):
 * scripts and the golden files read the CSV in this order. The tables people read lead with
 * the figures instead (readingOrder).
 */
export const COLUMNS: readonly Column[] = [
  pointText('pointId', 'point', 'Point id: <scenario>/<transport>-b<batch>-c<concurrency>-i<interval>-<render>', (r) => r.point.id, true),
  pointText('scenario', 'scenario', 'Scenario id', (r) => r.point.scenario),
  ...factorColumns((order) => order < CONNECTIONS_ORDER),
  {
    kind: 'text',
    id: 'connections',
    label: 'connections',
    unit: '',
    group: POINT,
    title: "The page's streams as the server saw them at the end of the window: HTTP version × streams, TCP connections, and any stalled behind a per-host cap",
    terminal: true,
    text: (r) => wireCell(r.summary?.wire),
    repeatText: (_r, rep) => wireCell(rep.wire),
  },
  ...factorColumns((order) => order > CONNECTIONS_ORDER),
  pointNumber(
    'offeredEventsPerSec',
    'offered',
    'events/s',
    'Events per second the server was asked to send (batch × concurrency × 1000 / interval)',
    (r) => r.point.offeredEventsPerSec,
    compact,
    true,
  ),
  {
    kind: 'number',
    id: 'repeats',
    label: 'n',
    unit: 'repeats',
    group: THROUGHPUT,
    title: 'Repeats measured (of those tried, when some failed): every figure to the right is over these',
    terminal: true,
    value: (r) => r.summary?.n ?? 0,
    format: count,
  },
  stat(
    'eventsPerSec',
    THROUGHPUT,
    'EPS',
    'events/s',
    'Events per second the page received over the measured window',
    (s) => s.eventsPerSec,
    (rep) => rep.eventsPerSec,
    compact,
  ),
  stat(
    'deliveredRatio',
    THROUGHPUT,
    'delivered %',
    '% of offered',
    'Received EPS ÷ offered EPS',
    (s) => s.deliveredRatio,
    (rep) => rep.deliveredRatio,
    ratio,
  ),
  {
    ...stat(
      'tabEventsPerSecMin',
      THROUGHPUT,
      'tab EPS min',
      'events/s',
      'Multi-tab points: the EPS of the tab that got the least in each repeat (median over the repeats)',
      (s) => s.tabEventsPerSecMin ?? null,
      (rep) => rep.perTabEventsPerSec?.min ?? null,
      compact,
      false,
    ),
    terminalWhen: (r) => r.point.tabs !== undefined,
  },
  {
    ...stat(
      'tabEventsPerSecMax',
      THROUGHPUT,
      'tab EPS max',
      'events/s',
      'Multi-tab points: the EPS of the tab that got the most in each repeat (median over the repeats)',
      (s) => s.tabEventsPerSecMax ?? null,
      (rep) => rep.perTabEventsPerSec?.max ?? null,
      compact,
      false,
    ),
    terminalWhen: (r) => r.point.tabs !== undefined,
  },
  {
    ...stat(
      'wireMegabytesPerSec',
      THROUGHPUT,
      'wire MB/s',
      'MB/s',
      "Compressed points: bytes the server wrote to the page's streams per second, after compression (the page's own byte count is decoded bytes)",
      (s) => s.wireMegabytesPerSec ?? null,
      (rep) => rep.compression?.wireMegabytesPerSec ?? null,
      ms,
      false,
    ),
    terminalWhen: (r) => r.point.compression !== undefined,
  },
  {
    ...stat(
      'compressionRatio',
      THROUGHPUT,
      'compressed %',
      '% of the uncompressed bytes',
      "Compressed points: the messages' bytes after compression ÷ before, as the server counted them",
      (s) => s.compressionRatio ?? null,
      (rep) => rep.compression?.ratio ?? null,
      ratio,
      false,
    ),
    terminalWhen: (r) => r.point.compression !== undefined,
  },
  {
    ...stat(
      'ceilingRatio',
      THROUGHPUT,
      'of ceiling %',
      "% of the encoding's decoding ceiling",
      "Received EPS ÷ the in-page decoding ceiling of the point's own encoding (JSON.parse for json) at this batch size, measured in the same round",
      (s) => s.ceilingRatio,
      (rep) => rep.ceilingRatio,
      ratio,
      false,
    ),
    terminalWhen: (r) => r.point.encoding !== undefined,
  },
  {
    ...stat(
      'jsonCeilingRatio',
      THROUGHPUT,
      '× JSON ceil',
      '× the best JSON.parse ceiling',
      'Received EPS ÷ the best in-page JSON.parse ceiling of the same round (over its batch sizes): the bar every encoding is read against',
      (s) => s.jsonCeilingRatio ?? null,
      (rep) => rep.jsonCeilingRatio ?? null,
      ratio,
      false,
    ),
    terminalWhen: (r) => r.point.encoding !== undefined,
  },
  {
    ...stat(
      'bytesPerEvent',
      THROUGHPUT,
      'B/event',
      'bytes per event',
      "Bytes the page received per event (a message's bytes, framing and head included, over its rows; decompressed bytes for compressed points)",
      (s) => s.bytesPerEvent ?? null,
      (rep) => rep.bytesPerEvent ?? null,
      ms,
      false,
    ),
    terminalWhen: (r) => r.point.encoding !== undefined,
  },
  stat(
    'eventsPerCpuSecRenderer',
    EFFICIENCY,
    'ev/CPU-s',
    'events per CPU-second',
    "Events per CPU-second of the tab's renderer process (all its threads): EPS ÷ renderer CPU in cores",
    (s) => s.efficiency.eventsPerCpuSecRenderer,
    (rep) => rep.efficiency.eventsPerCpuSecRenderer,
    compact,
  ),
  stat(
    'rendererCpuMsPerMillionEvents',
    EFFICIENCY,
    'CPU ms/M ev',
    'ms of CPU per million events',
    "CPU time of the tab's renderer process (all its threads) per million events received, ms",
    (s) => s.efficiency.rendererCpuMsPerMillionEvents,
    (rep) => rep.efficiency.rendererCpuMsPerMillionEvents,
    compact,
    false,
  ),
  stat(
    'cpuTabMainThread',
    CPU,
    'tab main %',
    '% of one core, ≤ 100',
    "The tab's renderer main thread, busy time (Performance.getMetrics TaskDuration), ≤ 100 %",
    (s) => s.cpu.tabMainThread,
    (rep) => rep.cpu.tabMainThread,
    percent,
  ),
  stat(
    'cpuTabProcess',
    CPU,
    'tab proc %',
    '% of one core',
    "The tab's renderer process, all threads (Performance.getMetrics ProcessTime)",
    (s) => s.cpu.tabProcess,
    (rep) => rep.cpu.tabProcess,
    percent,
  ),
  stat(
    'cpuBrowser',
    CPU,
    'browser %',
    '% of one core',
    'Chrome browser process (SystemInfo.getProcessInfo)',
    (s) => s.cpu.browser,
    (rep) => rep.cpu.chrome.browser,
    percent,
    false,
  ),
  stat(
    'cpuNetwork',
    CPU,
    'network %',
    '% of one core',
    'Chrome network service process (shared by every tab)',
    (s) => s.cpu.network,
    (rep) => rep.cpu.chrome.network,
    percent,
  ),
  stat(
    'cpuGpu',
    CPU,
    'GPU %',
    '% of one core',
    'Chrome GPU process',
    (s) => s.cpu.gpu,
    (rep) => rep.cpu.chrome.gpu,
    percent,
    false,
  ),
  stat(
    'cpuServer',
    CPU,
    'server %',
    '% of one core',
    'The pushlab server process (process.cpuUsage())',
    (s) => s.cpu.server,
    (rep) => rep.cpu.server,
    percent,
  ),
  stat(
    'cpuHost',
    CPU,
    'host %',
    '% of one core, ≤ 100 × cores',
    'Every process on the host (/proc/stat); at most 100 % × cores',
    (s) => s.cpu.host,
    (rep) => rep.cpu.host,
    percent,
  ),
  stat(
    'latencyP50Ms',
    LATENCY,
    'p50 ms',
    'ms',
    'Event age (each event from its birth to the page’s handler), median over the window, ms; transit in version 3 reports',
    (s) => s.latencyP50Ms,
    (rep) => rep.latency.p50Ms,
    ms,
  ),
  stat(
    'latencyP99Ms',
    LATENCY,
    'p99 ms',
    'ms',
    'Event age (each event from its birth to the page’s handler), 99th percentile over the window, ms; transit in version 3 reports',
    (s) => s.latencyP99Ms,
    (rep) => rep.latency.p99Ms,
    ms,
  ),
  // --- input (issue 33: the page still answers); shown in the terminal when a repeat has input figures ---
  {
    ...stat(
      'inputDelayP99Ms',
      INPUT,
      'input p99 ms',
      'ms',
      "Input delay, 99th percentile over the window: real clicks and key presses sent through the browser's input pipeline a few times a second, from each event's timestamp to the start of its handler (INP's input delay), ms",
      (s) => s.inputDelayP99Ms ?? null,
      // The input still waiting at the window's end counts, as a lower bound (results/input-delay.ts).
      (rep) => (rep.input ? inputDelayP99Ms(rep.input) : null),
      ms,
      false,
    ),
    terminalWhen: (r) => r.repeats.some((rep) => rep.status === 'ok' && rep.input !== undefined),
  },
  stat(
    'longFrameBlockingMsPerSec',
    INPUT,
    'LoAF ms/s',
    'ms per s',
    "Long animation frames' blocking time (each frame's time past 50 ms) per second of window, ms/s; empty where the browser has no long-animation-frame entries (Firefox)",
    (s) => s.longFrameBlockingMsPerSec ?? null,
    (rep) => (rep.input?.longFrames ? rep.input.longFrames.blockingMs / rep.windowSec : null),
    ms,
    false,
  ),
  {
    kind: 'number',
    id: 'gaps',
    label: 'gaps',
    unit: 'batches',
    group: LOSS,
    title: 'Batches missing from the seq sequence seen by the page, summed over the repeats',
    terminal: true,
    value: (r) => r.summary?.gaps ?? null,
    format: count,
    repeatValue: (_r, rep) => rep.page.gaps,
  },
  {
    kind: 'number',
    id: 'shed',
    label: 'shed',
    unit: 'batches',
    group: LOSS,
    title: 'Batches the server skipped because the client could not keep up, summed over the repeats',
    terminal: true,
    value: (r) => r.summary?.shed ?? null,
    format: count,
    repeatValue: (_r, rep) => rep.server.batchesShed,
  },
  {
    kind: 'text',
    id: 'verdict',
    label: 'verdict',
    unit: '',
    group: RESULT,
    title: 'What limited the point: the verdict most repeats reached',
    terminal: true,
    text: (r) => r.verdict,
    repeatText: (_r, rep) => rep.verdict,
  },
  {
    kind: 'text',
    id: 'unsteady',
    label: 'unsteady',
    unit: '',
    group: RESULT,
    title: 'Why the figures should not be read as steady (details row: the reasons)',
    terminal: true,
    text: (r) => [...new Set(r.unsteady.map((u) => u.kind))].join(' '),
  },
  {
    kind: 'text',
    id: 'host',
    label: 'host',
    unit: '',
    group: RESULT,
    title:
      "The browser the figures come from (the report's hosts: its endpoint, host, version and cores); a sharded sweep deals points over several, and never pools repeats from different kinds of host",
    // Shown in the terminal only when the report has several browsers or a remote one (terminalColumnsFor).
    terminal: false,
    text: (r) => (r.browsers ?? []).join(' + '),
    repeatText: (_r, rep) => rep.browserId ?? '',
  },
  {
    kind: 'text',
    id: 'browser',
    label: 'browser',
    unit: '',
    group: RESULT,
    title: "Points that name a display: the browser's build and mode each repeat ran in (the point: its last measured repeat's)",
    terminal: false,
    text: (r) => browserText([...r.repeats].reverse().find((rep): rep is MeasuredRepeat => rep.status === 'ok' && rep.browser !== undefined)),
    repeatText: (_r, rep) => browserText(rep),
  },
];

/**
 * The figures that answer a sweep's question, in the order people read them: the point, how
 * much it took (EPS, delivered), what that cost the page (its main thread), how late it was
 * (event age p99, input delay p99), and what limited it. The viewer's points table and the
 * terminal's lead with these (issue 34: at 1,400 px the viewer's first screen showed only the
 * point's configuration); the terminal keeps them at any width.
 */
export const LEADING_COLUMNS: readonly string[] = [
  'pointId',
  'eventsPerSec',
  'deliveredRatio',
  'cpuTabMainThread',
  'latencyP99Ms',
  'inputDelayP99Ms',
  'verdict',
];

/** `columns` as the tables people read show them: LEADING_COLUMNS first, in that order, then the others in COLUMNS' order. */
export function readingOrder(columns: readonly Column[]): Column[] {
  const leading = LEADING_COLUMNS.flatMap((id) => columns.filter((c) => c.id === id));
  return [...leading, ...columns.filter((c) => !LEADING_COLUMNS.includes(c.id))];
}

/** `headful :1 (Xvfb) Chrome/156.0.8078.79`; empty when the repeat recorded no browser. */
function browserText(rep: MeasuredRepeat | undefined): string {
  const b = rep?.browser;
  if (!b) return '';
  return `${b.headless ? 'headless' : 'headful'}${b.display ? ` ${b.display}${b.xvfb ? ' (Xvfb)' : ''}` : ''} ${b.version}`;
}

function statOf(c: StatColumn, r: PointResult): Stat | null {
  return r.summary ? c.stat(r.summary) : null;
}

/** The latency columns: what the page's clock offset against the server's corrects. */
const CLOCK_COLUMNS: ReadonlySet<string> = new Set(['latencyP50Ms', 'latencyP99Ms']);

/** The mark a latency cell gets when the clock offset's uncertainty exceeds its p50. */
export const NOT_COMPARABLE = 'n/c';

/**
 * How well a point's latency is known: the largest clock-offset uncertainty (± ms) among its
 * measured repeats, or null when none carries one (one clock, or a report from before).
 */
export function latencyUncertaintyMs(r: PointResult): number | null {
  const u = r.repeats.flatMap((x) => (x.status === 'ok' && x.clock ? [x.clock.uncertaintyMs] : []));
  return u.length ? maxOf(u) : null;
}

/**
 * Whether a point's latency can be compared with others': not when the clock offset taken off
 * it is known less well (± half the exchange's round trip) than the p50 itself is large.
 */
export function latencyComparable(r: PointResult): boolean {
  const u = latencyUncertaintyMs(r);
  const p50 = r.summary?.latencyP50Ms?.median ?? null;
  return u === null || p50 === null || u <= p50;
}

/**
 * A cell's text: `80.3 k ±1.2 %` for a Stat, the formatted number, or the text. `ci: false`: a
 * Stat's median alone (`80.3 k`), for a terminal table that must give up CIs to fit.
 */
export function cellText(c: Column, r: PointResult, ci = true): string {
  switch (c.kind) {
    case 'text':
      return c.text(r);
    case 'number': {
      const v = c.value(r);
      return v === null ? MISSING : c.format(v);
    }
    case 'stat': {
      const s = statOf(c, r);
      if (!s) return MISSING;
      const noise = ci ? relativeHalfWidth(s) : null;
      const text = noise === null ? c.format(s.median) : `${c.format(s.median)} ${formatPlusMinusPercent(noise)}`;
      return CLOCK_COLUMNS.has(c.id) && !latencyComparable(r) ? `${text} ${NOT_COMPARABLE}` : text;
    }
  }
}

/** The detail behind a Stat cell, for a tooltip; undefined for plain cells. */
export function cellDetail(c: Column, r: PointResult): string | undefined {
  if (c.kind !== 'stat') return c.kind === 'text' && c.text(r).length > 0 ? c.text(r) : undefined;
  const s = statOf(c, r);
  if (!s) return undefined;
  const unit = c.unit ? ` (${c.unit})` : '';
  const ci = s.ciLow === null || s.ciHigh === null ? 'no CI (fewer than 2 repeats)' : `95% CI of the mean ${c.format(s.ciLow)} – ${c.format(s.ciHigh)}`;
  const clock =
    CLOCK_COLUMNS.has(c.id) && !latencyComparable(r)
      ? `; not comparable (${NOT_COMPARABLE}): the page's clock against the server's is known only to ±${c.format(latencyUncertaintyMs(r)!)} ms, more than the p50`
      : '';
  return `${c.label}${unit}: median ${c.format(s.median)}, mean ${c.format(s.mean)}, ${ci}; n ${s.n}, range ${c.format(s.min)} – ${c.format(s.max)}${clock}`;
}

/** What the viewer sorts by: the number (a Stat's median), or the text; null sorts last. */
export function sortValue(c: Column, r: PointResult): number | string | null {
  switch (c.kind) {
    case 'text':
      return c.text(r);
    case 'number':
      return c.value(r);
    case 'stat':
      return statOf(c, r)?.median ?? null;
  }
}

/** Whether a report's points came from more than one browser or from a remote one: then each point's browser host is worth a column. */
export function hasBrowserColumn(report: Pick<Report, 'hosts'>): boolean {
  const hosts = report.hosts ?? [];
  return hosts.length > 1 || hosts.some((h) => h.origin === 'remote');
}

/**
 * The columns a report's terminal table shows, in reading order: the usual ones, the factors
 * some of its points have, and the host of each point when the sweep ran on several browsers
 * or a remote one.
 */
export function terminalColumnsFor(points: readonly PointResult[], hosts?: Report['hosts']): Column[] {
  const withHost = hasBrowserColumn({ hosts });
  return readingOrder(COLUMNS).filter((c) => c.terminal || (c.id === 'host' && withHost) || (c.terminalWhen !== undefined && points.some(c.terminalWhen)));
}
