/**
 * Every view the report viewer shows, as pure functions of the report: the run header, the
 * failures, the points table (from results/columns.ts), the per-scenario chart series and
 * the latency boxes. No DOM and no chart.js here, so the unit tests read exactly what the page
 * will show; render.ts and chart-configs.ts only turn these values into elements.
 */
import { cellDetail, cellText, COLUMNS, hasBrowserColumn, readingOrder, sortValue, type Column } from '../../results/columns.js';
import { formatBytes, formatCount, formatDuration, formatEps, formatMs, formatTimestamp, hostWords, MISSING, type HostWords } from '../../results/format.js';
import { ceilingSeries, speedChangeText, speedChanges } from '../../results/machine-speed.js';
import { REFERENCE_FIGURES, type ReferenceFigure } from '../../results/reference.js';
import type { Stat, Verdict } from '../../protocol/repeat-figures.js';
import type { PairedComparison, PointResult, Report } from '../../protocol/report.js';
import { ENCODINGS, type Encoding } from '../../protocol/wire.js';
import {
  adviceText,
  conditionsLine,
  candidateWords,
  decidedWords,
  machineWordsOf,
  NOT_MEASURED_MEANING,
  NOT_MEASURED_WORDS,
  notMeasuredOf,
  ratioWords,
  transportStandings,
  type TransportStanding,
} from '../../results/advice-words.js';
import { NOT_MEASURED_REASONS } from '../../protocol/advice.js';
import { costsGrid } from '../../results/costs.js';
import { FACTOR_NAMES, FACTORS as FACTOR_INFO, type FactorName } from '../../protocol/factors.js';
import { calibrationShort } from '../../protocol/device.js';
import { wallLine } from '../../results/wall-account.js';
import { ENCODING_INFO, ENCODING_NAMES } from '../../protocol/encodings.js';
import { PAYLOAD_ARROW_BATCH, type PayloadDescription } from '../../protocol/payload.js';
import { tabReturnText } from '../../results/tab-return.js';

type Point = PointResult['point'];
export type Transport = Point['transport'];

/**
 * The least and greatest of `xs` in one pass; ±Infinity for none. Never `Math.min(...xs)`: a
 * spread passes every value as an argument, and 20,000 points overflowed the stack.
 */
export function minOf(xs: readonly number[]): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < m) m = x;
  return m;
}

export function maxOf(xs: readonly number[]): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/** Each scenario's points, in the report's order, in one pass (a filter per scenario was quadratic when every point had its own). */
export function pointsByScenario(report: Pick<Report, 'points'>): Map<string, PointResult[]> {
  const by = new Map<string, PointResult[]>();
  for (const r of report.points) {
    const list = by.get(r.point.scenario);
    if (list) list.push(r);
    else by.set(r.point.scenario, [r]);
  }
  return by;
}

/** A legend label that carries the conditions, since a reader may compare against a different sweep. */
export function referenceLabel(f: ReferenceFigure): string {
  const where = f.x === null ? 'max' : `@ ${f.factor} ${f.x}`;
  return `Timeplus ${f.test}: ${f.transport.toUpperCase()} ≈ ${formatEps(f.eventsPerSec)} ${where} (${f.conditions})`;
}

// ---------------------------------------------------------------------------------------------
// Advice (`npm run advise`): the answer first, in the words the command printed

export interface AdviceView {
  /** `finished`; `interrupted` (Ctrl-C, or the time it had); `unfinished`: saved mid-search (under way, or its process was killed). */
  state: 'finished' | 'interrupted' | 'unfinished';
  /** What a reader must know before the answer when the search did not finish; null when it did. */
  caveat: string | null;
  /** The answer's first line (`Use sse over HTTP/2, …`, or why there is none). */
  headline: string;
  /** Its further lines (sustains, headroom, runner-up, rejected, not measured), unindented. */
  details: string[];
  /** What it was measured under (results/advice-words.ts conditionsLine, the terminal's line): the events and the page. */
  conditions: string;
  /** `Machine: 2 cores …; these figures hold for this machine and browser.`; null when unknown. */
  machine: string | null;
  /** Every candidate measured, in the order first measured, with what became of it and why. */
  tried: { id: string; outcome: string; why: string }[];
  /** The candidates not measured, by why (the reasons with any), with a few of their ids. */
  notMeasured: { reason: string; meaning: string; count: number; examples: string[] }[];
  /** The confirmed finalists' costs side by side (results/costs.ts costsGrid); null before any was confirmed. */
  costs: ReturnType<typeof costsGrid>;
  /**
   * The answer as a set: the winner, then every finalist the evidence cannot put behind it, each
   * marked `equivalent` (paired CPU CI inside the margin) or `cannot tell` (straddling it), with
   * its CPU against the winner and what put the winner first. Empty for a report without one.
   */
  set: { id: string; words: string; mark: 'chosen' | 'equivalent' | 'cannot tell'; cpu: string; decided: string }[];
  /** Every searched transport with its furthest attempt and why it lost (results/advice-words.ts transportStandings); empty without a winner. */
  transports: TransportStanding[];
}

/** The Advice section: adviceText's lines (the same words as on stderr), and every candidate tried; null for a run without advice. */
export function adviceView(report: Report): AdviceView | null {
  const a = report.advice;
  if (!a) return null;
  const lines = adviceText(a, machineWordsOf(report.environment), report.devices, {
    costs: false,
    rejected: false,
    conditions: false,
  });
  const machine = lines.at(-1)?.startsWith('Machine: ') ? lines.pop()! : null;
  const [headline = '', ...rest] = lines;
  const state: AdviceView['state'] = report.finishedAt !== null && !report.interrupted ? 'finished' : report.interrupted ? 'interrupted' : 'unfinished';
  const caveat =
    state === 'interrupted'
      ? `The search was stopped before it finished: this is its answer so far.${report.resumeCommand ? ` Go on with: ${report.resumeCommand}` : ''}`
      : state === 'unfinished'
        ? 'The search had not finished when this report was saved (it was under way, or its process was killed): this is its answer so far.'
        : null;
  return {
    state,
    caveat,
    headline,
    details: rest.map((l) => l.trim()),
    conditions: conditionsLine(a, report.payload),
    machine,
    tried: a.tried.map((t) => ({ id: t.candidate.id, outcome: t.outcome, why: t.why })),
    notMeasured: NOT_MEASURED_REASONS.flatMap((k) => {
      const n = notMeasuredOf(a)[k];
      return n.count ? [{ reason: NOT_MEASURED_WORDS[k], meaning: NOT_MEASURED_MEANING[k], count: n.count, examples: n.examples }] : [];
    }),
    costs: costsGrid(a),
    transports: transportStandings(a),
    set:
      a.winner && a.equivalent?.length
        ? [
            { id: a.winner.candidate.id, words: candidateWords(a.winner.candidate), mark: 'chosen' as const, cpu: '', decided: '' },
            ...a.equivalent.map((e) => ({
              id: e.candidate.id,
              words: candidateWords(e.candidate),
              mark: e.reading === 'equivalent' ? ('equivalent' as const) : ('cannot tell' as const),
              cpu: e.cpuVsWinner ? ratioWords(e.cpuVsWinner) : 'no round shared with the winner',
              decided: decidedWords({ ...e, confirmed: e.figures }, a).replace(/^; /, ''),
            })),
          ]
        : [],
  };
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

/**
 * `batch 20: 1.11 M – 1.23 M EPS` over the rounds: the ceiling moves between rounds; other
 * encodings' ceilings after JSON's, named (`arrow batch 4,000: …`). With `browser`, that
 * browser's own (a sharded sweep's `hostCeilings`).
 */
function ceilingText(report: Report, browser?: string, engine?: 'firefox'): string {
  const series = ceilingSeries(report.rounds, engine !== undefined ? { engine } : browser !== undefined ? { browser } : null).map(
    ({ encoding, batch, xs }) => ({
      encoding,
      batch,
      xs: xs.map((x) => x.eventsPerSec),
    }),
  );
  if (series.length === 0) return MISSING;
  const range = (xs: readonly number[]) => {
    const [lo, hi] = [minOf(xs), maxOf(xs)];
    return lo === hi ? formatEps(lo) : `${formatEps(lo).replace(' EPS', '')} – ${formatEps(hi)}`;
  };
  const entries = series.sort((a, b) => ENCODINGS.indexOf(a.encoding) - ENCODINGS.indexOf(b.encoding) || a.batch - b.batch);
  // JSON.parse's per batch size (what every ratio is read against); another encoding's as one
  // range over its batch sizes, so a run with Arrow does not turn the field into a paragraph.
  const json = entries.filter((e) => e.encoding === 'json').map(({ batch, xs }) => `batch ${formatCount(batch)}: ${range(xs)}`);
  const others = ENCODINGS.filter((e) => e !== 'json')
    .map((encoding) => entries.filter((e) => e.encoding === encoding))
    .filter((es) => es.length)
    .map((es) => `${es[0].encoding} ${range(es.flatMap((e) => e.xs))}`);
  return [...json, ...others].join(' · ');
}

/**
 * The team render modules the points drew with (`--render-module`), each once: the file and the
 * start of its SHA-256 (which version was measured). None when every point used pushlab's views.
 */
function renderModuleFields(report: Report): HeaderField[] {
  const seen = new Map<string, string>();
  for (const p of report.points) {
    const m = p.point.renderModule;
    if (m) seen.set(`${m.path}\u0000${m.sha256}`, `${m.path} (sha256 ${m.sha256.slice(0, 12)}…)`);
  }
  return seen.size ? [{ label: seen.size === 1 ? 'Render module' : 'Render modules', value: [...seen.values()].join(' · ') }] : [];
}

/** One browser of a sweep that ran on several, or on a remote one: what the Browsers table shows. */
export interface BrowserRow extends HostWords {
  id: string;
  host: string;
  version: string;
  cores: string;
  /** CPU model, else machine model, else why there is none. */
  cpu: string;
  ceiling: string;
  /** Points with a repeat on it (measured or failed). */
  points: number;
}

/** The report's browsers, with how many points each measured; empty for a plain local sweep. */
export function browserRows(report: Report): BrowserRow[] {
  const hosts = report.hosts ?? [];
  if (!hasBrowserColumn(report)) return [];
  // Counted in one pass over the points, not one pass per browser.
  const counts = new Map<string, number>();
  for (const p of report.points) for (const id of new Set(p.repeats.map((r) => r.browserId))) if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  const pointsOn = (id: string) => counts.get(id) ?? 0;
  return hosts.map((b) => ({
    id: b.id,
    ...hostWords(b),
    host: b.host,
    version: `${b.version}${b.headless ? ' (headless)' : ''}`,
    cores: b.cores === null ? MISSING : formatCount(b.cores),
    cpu: b.cpuModel ?? b.machineModel ?? 'none over CDP',
    // A sharded sweep's browsers each measure their own; an unsharded one has the round's (a launched Firefox: Firefox's own).
    ceiling:
      ceilingText(report, b.id) !== MISSING
        ? ceilingText(report, b.id)
        : b.engine === 'firefox' && b.origin === 'launched'
          ? ceilingText(report, undefined, 'firefox')
          : ceilingText(report),
    points: pointsOn(b.id),
  }));
}

/** Fields shown of a payload before the list is cut (a wide feed has dozens). */
const PAYLOAD_FIELDS_SHOWN = 12;

/** What the run's events were (protocol/payload.ts): where they came from, their shape, and their bytes per encoding. */
export function payloadFields(p: PayloadDescription): HeaderField[] {
  const fields =
    p.fields.length > PAYLOAD_FIELDS_SHOWN
      ? `${p.fields.slice(0, PAYLOAD_FIELDS_SHOWN).join(', ')} and ${p.fields.length - PAYLOAD_FIELDS_SHOWN} more`
      : p.fields.join(', ');
  const source = p.source === null ? "the lab's car rows" : `${p.source} (${p.format}, sha256 ${p.sha256?.slice(0, 12) ?? MISSING}…)`;
  const bytes = ENCODING_NAMES.map((e) => `${ENCODING_INFO[e].label} ${p.bytesPerEvent[e].toFixed(1)}`).join(' · ');
  return [
    { label: 'Events', value: `${source} · ${formatCount(p.events)} ${p.shape === 'array' ? 'arrays' : 'objects'} · nesting depth ${p.nestingDepth}` },
    { label: 'Fields', value: fields || MISSING },
    { label: 'Bytes per event', value: `${bytes} (Arrow at batch ${PAYLOAD_ARROW_BATCH})` },
    ...recordedPaceField(p),
  ];
}

/** The events' recorded pace, when they have one: what a point at `pace recorded` (`-rec`) replays. */
function recordedPaceField(p: PayloadDescription): HeaderField[] {
  const r = p.recorded;
  if (!r || 'why' in r) return [];
  const cycle = r.periodMs >= 1000 ? `${(r.periodMs / 1000).toFixed(1)} s` : `${Math.round(r.periodMs)} ms`;
  return [
    {
      label: 'Recorded pace',
      value: `${formatCount(Math.round(r.eventsPerSec))} events/s as recorded, a ${cycle} cycle; points at pace recorded (-rec) replay it scaled to their offered rate`,
    },
  ];
}

export function runHeader(report: Report): RunHeader {
  const env = report.environment;
  const started = Date.parse(report.startedAt);
  const finished = report.finishedAt === null ? Number.NaN : Date.parse(report.finishedAt);
  const o = report.options;
  const finishedField: HeaderField = report.interrupted
    ? {
        label: 'Finished',
        value: 'interrupted',
        warning: `The sweep was stopped before it finished; points may have fewer repeats.${report.resumeCommand ? ` Finish it with: ${report.resumeCommand}` : ''}`,
      }
    : report.finishedAt === null
      ? { label: 'Finished', value: 'not finished', warning: 'The sweep had not finished when this report was written; points may be missing.' }
      : { label: 'Finished', value: formatTimestamp(report.finishedAt) };
  const changes = speedChanges(report.rounds);
  const fields: HeaderField[] = [
    { label: 'Started', value: formatTimestamp(report.startedAt) },
    finishedField,
    { label: 'Duration', value: formatDuration(finished - started) },
    // The terminal's last line: how much of that was measuring, and where the rest went (every part here).
    ...(report.wall ? [{ label: 'Wall time', value: wallLine(report.wall, Number.POSITIVE_INFINITY) }] : []),
    { label: 'Scenarios', value: report.scenarios.length ? report.scenarios.join(', ') : MISSING },
    ...renderModuleFields(report),
    {
      label: 'Repeats',
      // An advise run's points have 1 (a probe) to its confirmation rounds: the per-point count says so.
      value: report.advice
        ? `${formatCount(report.rounds.length)} measurements (a probe, or a confirmation round of the finalists) · seed ${o.seed}`
        : `${formatCount(o.repeats)}${o.auto ? ` (auto, up to ${formatCount(o.maxRepeats)})` : ''} · ${formatCount(report.rounds.length)} rounds · seed ${o.seed}`,
    },
    // The engine block: a lab run in Firefox names Firefox here; a sweep that also ran Firefox adds its build.
    { label: env.engine === 'firefox' ? 'Firefox' : 'Chrome', value: env.chromeVersion || MISSING },
    ...(env.firefox && env.engine !== 'firefox'
      ? [{ label: 'Firefox', value: `${env.firefox.version} (${env.firefox.path}${env.firefox.headless ? ', headless' : ''})` }]
      : []),
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
      // The yardstick moving between rounds says the machine changed speed mid-run.
      ...(changes.length ? { warning: changes.map((c) => speedChangeText(c)).join('; ') } : {}),
      value:
        ceilingText(report) !== MISSING
          ? ceilingText(report)
          : report.rounds.some((r) => r.hostCeilings?.length)
            ? 'per browser (Browsers, below)'
            : // The advisor spends its budget on candidates; its repeats carry no ceiling ratio.
              report.advice
              ? 'not measured by advise'
              : MISSING,
    },
    // Each device class as calibrated: what "low-tier" meant in this run.
    ...(report.devices ?? []).map((c) => ({
      label: `Device ${c.device}${c.throttle === 'main-thread' ? ' (main thread)' : ''}`,
      value: calibrationShort(c),
      ...(c.throttle === 'main-thread'
        ? {
            warning:
              "Only the tab's main thread was slowed: Workers, network service and GPU ran at full speed, and the renderer's CPU-time figures are not valid.",
          }
        : {}),
    })),
    // Firefox's own, measured in Firefox: its points' ceiling ratios are to these.
    ...(report.rounds.some((r) => r.engineCeilings?.length)
      ? [{ label: 'JSON.parse ceiling, Firefox', value: ceilingText(report, undefined, 'firefox') }]
      : []),
    ...(report.payload ? payloadFields(report.payload) : []),
  ];
  return { runId: report.runId, fields, launchArgs: env.launchArgs };
}

export interface RunSummary {
  points: number;
  /** Points where no repeat measured. */
  failedPoints: number;
  repeats: number;
  failedRepeats: number;
  /** The highest median EPS per transport among points that measured. */
  best: { transport: Transport; eventsPerSec: Stat; pointId: string }[];
}

export function runSummary(report: Report): RunSummary {
  const best = new Map<Transport, RunSummary['best'][number]>();
  for (const r of report.points) {
    if (!r.summary) continue;
    const seen = best.get(r.point.transport);
    if (!seen || r.summary.eventsPerSec.median > seen.eventsPerSec.median) {
      best.set(r.point.transport, { transport: r.point.transport, eventsPerSec: r.summary.eventsPerSec, pointId: r.point.id });
    }
  }
  const repeats = report.points.flatMap((r) => r.repeats);
  return {
    points: report.points.length,
    failedPoints: report.points.filter((r) => r.summary === null).length,
    repeats: repeats.length,
    failedRepeats: repeats.filter((r) => r.status === 'failed').length,
    best: [...best.values()],
  };
}

/**
 * How many points and repeats a run has: `60 points × 3 repeats` where every point has the run's
 * repeats, else `77 points, 82 repeats (1–5 a point)` (an advise run's one-window probes beside
 * its 5-round confirmations, an interrupted sweep's unfinished points).
 */
export function pointsAndRepeats(report: Pick<Report, 'points' | 'options'>): string {
  const counts = report.points.map((p) => p.repeats.length);
  const points = `${counts.length} point${counts.length === 1 ? '' : 's'}`;
  if (counts.every((n) => n === report.options.repeats)) return `${points} × ${report.options.repeats} repeats`;
  const total = counts.reduce((a, b) => a + b, 0);
  const [lo, hi] = [minOf(counts), maxOf(counts)];
  return `${points}, ${total} repeat${total === 1 ? '' : 's'}${counts.length ? ` (${lo === hi ? lo : `${lo}–${hi}`} a point)` : ''}`;
}

export interface Failure {
  pointId: string;
  round: number;
  attempts: number;
  text: string;
}

/** Every failed repeat, with what failed and why. */
export function failures(report: Report): Failure[] {
  return report.points.flatMap((r) =>
    r.repeats.flatMap((rep) =>
      rep.status === 'failed'
        ? [{ pointId: r.point.id, round: rep.round, attempts: rep.attempts, text: rep.cause ? `${rep.cause}: ${rep.error}` : rep.error }]
        : [],
    ),
  );
}

/** Point notes and unsteady flags, one line each, for the notes block. */
export function noteLines(report: Report): { pointId: string; text: string }[] {
  return report.points.flatMap((r) => [
    ...r.notes.map((text) => ({ pointId: r.point.id, text })),
    ...r.unsteady.map((u) => ({ pointId: r.point.id, text: `unsteady (${u.kind}): ${u.message}` })),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Points table

export interface TableCell {
  text: string;
  /** Tooltip with the detail behind the number. */
  title?: string;
  sort: number | string | null;
}

export interface RepeatRow {
  round: number;
  status: 'ok' | 'failed';
  verdict: Verdict;
  /** One text per REPEAT_TABLE_COLUMNS entry; the error for a failed repeat. */
  cells: string[];
  notes: string;
}

export interface TableRow {
  pointId: string;
  scenario: string;
  verdict: Verdict;
  measured: boolean;
  cells: TableCell[];
  /** `tab`: a hidden-tab point's return to the foreground in words (results/tab-return.ts); absent in the foreground. */
  details: { notes: string[]; unsteady: string[]; repeats: RepeatRow[]; tab?: string };
}

/** The table's columns: every column of results/columns.ts, the figures first (readingOrder). */
export const TABLE_COLUMNS: readonly Column[] = readingOrder(COLUMNS);

/** What the raw repeats table in a details row shows, from the same column list. */
export const REPEAT_TABLE_COLUMNS: readonly Column[] = COLUMNS.filter((c) =>
  [
    'eventsPerSec',
    'deliveredRatio',
    'eventsPerCpuSecRenderer',
    'cpuTabMainThread',
    'cpuTabProcess',
    'cpuServer',
    'latencyP50Ms',
    'latencyP99Ms',
    'inputDelayP99Ms',
    'gaps',
    'shed',
  ].includes(c.id),
);

export function tableRows(report: Report): TableRow[] {
  return report.points.map(tableRow);
}

/** One point's row; the viewer makes only the rows of the page it shows (a 100,000-point table is paged). */
export function tableRow(r: PointResult): TableRow {
  const cells = TABLE_COLUMNS.map((c): TableCell => {
    const title = cellDetail(c, r);
    const cell: TableCell = { text: cellText(c, r), sort: sortValue(c, r) };
    return title === undefined ? cell : { ...cell, title };
  });
  const repeats = r.repeats.map((rep): RepeatRow => ({
    round: rep.round,
    status: rep.status,
    verdict: rep.verdict,
    cells:
      rep.status === 'ok'
        ? REPEAT_TABLE_COLUMNS.map((c) => {
            if (c.kind === 'text') return c.repeatText?.(r, rep) ?? MISSING;
            const v = c.kind === 'stat' ? c.repeatValue(rep) : (c.repeatValue?.(r, rep) ?? null);
            return v === null ? MISSING : c.format(v);
          })
        : [rep.cause ? `${rep.cause}: ${rep.error}` : rep.error],
    notes: rep.notes.join('; '),
  }));
  return {
    pointId: r.point.id,
    scenario: r.point.scenario,
    verdict: r.verdict,
    measured: r.summary !== null,
    cells,
    details: { notes: r.notes, unsteady: r.unsteady.map((u) => `${u.kind}: ${u.message}`), repeats, ...tabDetail(r) },
  };
}

/** A hidden-tab point's detail line, when it has one. */
function tabDetail(r: PointResult): { tab?: string } {
  const text = tabReturnText(r);
  return text === null ? {} : { tab: text };
}

/** Sorts rows by one column; missing values last whichever the direction. */
export function sortRows(rows: readonly TableRow[], columnIndex: number, direction: 'asc' | 'desc'): TableRow[] {
  return [...rows].sort((a, b) => compareSortValues(a.cells[columnIndex].sort, b.cells[columnIndex].sort, direction));
}

/** The order of two cells' sort values; missing values last whichever the direction. */
export function compareSortValues(x: TableCell['sort'], y: TableCell['sort'], direction: 'asc' | 'desc'): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  if (typeof x === 'number' && typeof y === 'number') return sign * (x - y);
  return sign * String(x).localeCompare(String(y), 'en', { numeric: true });
}

// ---------------------------------------------------------------------------------------------
// Scenario charts

/** The numeric factors a chart can put on its x axis, in the order they are preferred. */
export const X_FACTORS = ['batch', 'concurrency', 'intervalMs'] as const;
export type XFactor = (typeof X_FACTORS)[number];

type Factor = FactorName;
// Every factor of the registry, in its words (protocol/factors.ts); the engine right after the
// transport: in a run with two, every line and bar says its engine.
const FACTORS: readonly Factor[] = ['transport', 'engine', ...FACTOR_NAMES.filter((f) => f !== 'transport' && f !== 'engine')];

const FACTOR_LABEL: Record<XFactor, string> = {
  batch: 'batch (events per message)',
  concurrency: 'concurrency (connections)',
  intervalMs: 'interval (ms)',
};

function factorValue(p: Point, f: Factor): string {
  return FACTOR_INFO[f].words(p);
}

/** The words of these factors of `p`, each once: one factor's words may say another's (`2 Workers`: parse and workers), or nothing. */
function factorWords(p: Point, factors: readonly Factor[]): string[] {
  return [...new Set(factors.map((f) => factorValue(p, f)).filter((w) => w !== ''))];
}

/** The factors that take more than one value among these points. */
export function varyingFactors(points: readonly Point[]): Factor[] {
  return FACTORS.filter((f) => new Set(points.map((p) => factorValue(p, f))).size > 1);
}

/** `sse · batch 400`: the transport plus whatever else varies, so labels within a scenario are distinct. */
export function pointLabel(p: Point, varying: readonly Factor[]): string {
  return [
    p.transport,
    ...factorWords(
      p,
      varying.filter((f) => f !== 'transport'),
    ),
  ].join(' · ');
}

/** One plotted value: the mean over the point's repeats and its 95% CI. */
export interface PlotValue {
  /** Numeric x for a line scenario; the index into `categories` for a bar scenario. */
  x: number;
  /** Null where the point never measured or the metric is missing: the line breaks there. */
  y: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  n: number;
  pointId: string;
  verdict: Verdict;
}

export interface Series {
  label: string;
  transport: Transport;
  /** 0 for the first series of a transport, 1 for the next…; lets the chart vary the shade. */
  shade: number;
  /** What is plotted, for legends that group by it: `events/s`, `tab renderer process`, `main thread`. */
  metric: string;
  /** Solid (the headline CPU) or dashed (the main thread alone). */
  dashed: boolean;
  /** Set where the scenario ran in two engines: Firefox's points are drawn as triangles, Chrome's as circles. */
  engine?: 'chrome' | 'firefox';
  values: PlotValue[];
}

/** Per-process CPU of one point, means over its repeats, % of one core. */
export interface CpuStack {
  label: string;
  pointId: string;
  transport: Transport;
  verdict: Verdict;
  /** Keys in CPU_PROCESSES order; null where not measured. */
  values: (number | null)[];
}

/** The processes stacked in the CPU chart, bottom up. */
export const CPU_PROCESSES = [
  { key: 'tabProcess', label: 'tab renderer (all threads)' },
  { key: 'network', label: 'network service' },
  { key: 'browser', label: 'browser process' },
  { key: 'gpu', label: 'GPU process' },
  { key: 'server', label: 'pushlab server' },
] as const;

export interface ScenarioView {
  scenario: string;
  /** `line`: a numeric factor varies and is the x axis; `bar`: points side by side. */
  kind: 'line' | 'bar';
  xFactor: XFactor | null;
  xLabel: string;
  /** Bar scenarios: one label per x index. */
  categories: string[];
  /** The factors held constant, e.g. `concurrency 10 · interval 1 ms · render full`. */
  fixed: string;
  pointIds: string[];
  /** Points where no repeat measured. */
  failed: number;
  eps: Series[];
  /** Events per CPU-second: tab renderer process (solid) and its main thread (dashed). */
  efficiency: Series[];
  cpu: CpuStack[];
  /** The run's paired WS/SSE verdicts for this scenario, in words, each with the pair it is about. */
  verdicts: { about: string; comparison: PairedComparison }[];
  /** Published reference figures placed against the same factor (drawn only with the overlay on). */
  reference: ReferenceFigure[];
}

/** Scenario ids in the report's order, plus any that only appear in the points. */
export function scenarioIds(report: Report, by: Map<string, PointResult[]> = pointsByScenario(report)): string[] {
  const ids = new Set(report.scenarios.filter((id) => by.has(id)));
  for (const id of by.keys()) ids.add(id);
  return [...ids];
}

function plotValue(r: PointResult, x: number, stat: Stat | null | undefined): PlotValue {
  const s = stat ?? null;
  return { x, y: s ? s.mean : null, ciLow: s?.ciLow ?? null, ciHigh: s?.ciHigh ?? null, n: s?.n ?? 0, pointId: r.point.id, verdict: r.verdict };
}

export function scenarioViews(report: Report): ScenarioView[] {
  const by = pointsByScenario(report);
  return scenarioIds(report, by).map((scenario) => scenarioView(report, scenario, by.get(scenario) ?? []));
}

/**
 * One scenario's charts from `results`, its points (all of them, or the first of a scenario too
 * large to draw): linear in their number, so one scenario with 100,000 points costs no more than
 * 100,000 points spread over many.
 */
export function scenarioView(report: Report, scenario: string, results: readonly PointResult[]): ScenarioView {
  const points = results.map((r) => r.point);
  const varying = varyingFactors(points);
  // A factor a point carries only when it is set (FactorInfo.onPoint) is named only where it is, so older scenarios read as before.
  const fixed = factorWords(
    points[0],
    FACTORS.filter((f) => !varying.includes(f) && points[0][f] !== undefined),
  ).join(' · ');
  const xFactor = X_FACTORS.find((f) => varying.includes(f)) ?? null;
  // Lines: one per transport and per value of every other varying factor.
  const lineFactors = varying.filter((f) => f !== xFactor);
  const groups = new Map<string, PointResult[]>();
  for (const r of results) {
    const key = xFactor === null ? r.point.transport : pointLabel(r.point, lineFactors);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const sorted = (rs: PointResult[]) => (xFactor === null ? rs : [...rs].sort((a, b) => a.point[xFactor] - b.point[xFactor]));
  const ordered = [...groups.values()].flatMap(sorted);
  const categories = xFactor === null ? results.map((r) => pointLabel(r.point, varying)) : [];
  // A bar's x is its index among the scenario's points: looked up, not searched for (indexOf per point was quadratic).
  const index = new Map(results.map((r, i) => [r, i]));
  const xOf = (r: PointResult) => (xFactor === null ? (index.get(r) ?? 0) : r.point[xFactor]);
  const shades = new Map<Transport, number>();
  const eps: Series[] = [];
  const efficiency: Series[] = [];
  for (const [key, rs] of groups) {
    const t = rs[0].point.transport;
    const shade = shades.get(t) ?? 0;
    shades.set(t, shade + 1);
    const line = (label: string, metric: string, dashed: boolean, pick: (r: PointResult) => Stat | null | undefined): Series => ({
      label,
      transport: t,
      shade,
      metric,
      dashed,
      ...(varying.includes('engine') ? { engine: rs[0].point.engine ?? 'chrome' } : {}),
      values: sorted(rs).map((r) => plotValue(r, xOf(r), pick(r))),
    });
    eps.push(line(key, 'events/s', false, (r) => r.summary?.eventsPerSec));
    efficiency.push(line(`${key} · tab renderer process`, 'tab renderer process', false, (r) => r.summary?.efficiency.eventsPerCpuSecRenderer));
    // Parsed in Workers, the main thread does almost nothing per event: its hundreds of millions
    // of events per CPU-second say nothing and flattened every other bar to zero.
    efficiency.push(
      line(`${key} · main thread`, 'main thread', true, (r) => (r.point.parse === 'worker' ? null : r.summary?.efficiency.eventsPerCpuSecMainThread)),
    );
  }
  const cpu = ordered.map((r): CpuStack => ({
    label: pointLabel(r.point, varying),
    pointId: r.point.id,
    transport: r.point.transport,
    verdict: r.verdict,
    // A process no repeat could read (a Firefox with no socket process) is no bar, not a 0.
    values: CPU_PROCESSES.map((p) => r.summary?.cpu[p.key]?.mean ?? null),
  }));
  const byId = new Map(results.map((r) => [r.point.id, r]));
  return {
    scenario,
    kind: xFactor === null ? 'bar' : 'line',
    xFactor,
    xLabel: xFactor === null ? '' : FACTOR_LABEL[xFactor],
    categories,
    fixed,
    pointIds: points.map((p) => p.id),
    failed: results.filter((r) => r.summary === null).length,
    eps,
    efficiency,
    cpu,
    verdicts: report.comparisons
      .filter((c) => byId.has(c.a))
      .map((comparison) => {
        const a = byId.get(comparison.a);
        const about = a
          ? factorWords(
              a.point,
              varying.filter((f) => f !== 'transport'),
            ).join(' · ')
          : '';
        return { about, comparison };
      }),
    reference: xFactor === null ? [] : REFERENCE_FIGURES.filter((f) => f.factor === xFactor),
  };
}

// ---------------------------------------------------------------------------------------------
// Latency boxes

export interface LatencyBox {
  scenario: string;
  pointId: string;
  label: string;
  transport: Transport;
  verdict: Verdict;
  /** Repeats the box combines, and batches behind it. */
  repeats: number;
  count: number;
  minMs: number;
  p25Ms: number;
  p50Ms: number;
  p75Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * One box per point that recorded latency, combining its repeats: each quartile and
 * percentile is the median over the repeats' own; the whiskers are the lowest minimum and the
 * highest maximum of any repeat. Repeats without a complete summary are left out rather
 * than drawn with invented whiskers.
 */
export function latencyBoxes(report: Report, points: readonly PointResult[] = report.points): LatencyBox[] {
  const by = pointsByScenario({ points: [...points] });
  const varyingIn = new Map([...by].map(([s, rs]) => [s, varyingFactors(rs.map((r) => r.point))]));
  const boxes: LatencyBox[] = [];
  for (const r of points) {
    const ls = r.repeats.flatMap((rep) => {
      if (rep.status !== 'ok' || rep.latency.count === 0) return [];
      const { minMs, p25Ms, p50Ms, p75Ms, p95Ms, p99Ms, maxMs } = rep.latency;
      if (minMs === null || p25Ms === null || p50Ms === null || p75Ms === null || p95Ms === null || p99Ms === null || maxMs === null) return [];
      return [{ minMs, p25Ms, p50Ms, p75Ms, p95Ms, p99Ms, maxMs, count: rep.latency.count }];
    });
    if (!ls.length) continue;
    boxes.push({
      scenario: r.point.scenario,
      pointId: r.point.id,
      label: pointLabel(r.point, varyingIn.get(r.point.scenario) ?? []),
      transport: r.point.transport,
      verdict: r.verdict,
      repeats: ls.length,
      count: ls.reduce((s, l) => s + l.count, 0),
      minMs: minOf(ls.map((l) => l.minMs)),
      p25Ms: medianOf(ls.map((l) => l.p25Ms)),
      p50Ms: medianOf(ls.map((l) => l.p50Ms)),
      p75Ms: medianOf(ls.map((l) => l.p75Ms)),
      p95Ms: medianOf(ls.map((l) => l.p95Ms)),
      p99Ms: medianOf(ls.map((l) => l.p99Ms)),
      maxMs: maxOf(ls.map((l) => l.maxMs)),
    });
  }
  return boxes;
}

export interface LogAxis {
  /** Domain bounds, whole powers of ten around the data. */
  min: number;
  max: number;
  /** Labelled ticks: 1-2-5 steps while they fit, else fewer. */
  ticks: number[];
}

/**
 * A log axis for latencies, which span from sub-millisecond medians to multi-second maxima in
 * one plot. Labels need room: with `maxTicks` labels at most, it uses 1-2-5 steps when the
 * domain is narrow, 1-3 steps when wider, and whole decades (every second one if needed)
 * beyond that, so neighbouring labels never run into each other. Zero cannot sit on a log
 * axis, so the floor is 1 µs and `logPosition` clamps anything below the domain.
 */
export function logAxis(values: readonly number[], maxTicks = 8): LogAxis {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.max(0.001, positive.length ? minOf(positive) : 0.1);
  const hi = Math.max(lo * 10, positive.length ? maxOf(positive) : 1);
  const min = 10 ** Math.floor(Math.log10(lo));
  const max = 10 ** Math.ceil(Math.log10(hi));
  const decades = Math.round(Math.log10(max / min));
  const steps: number[][] = [[1, 2, 5], [1, 3], [1]];
  for (const mantissas of steps) {
    const ticks: number[] = [];
    for (let d = 0; d <= decades; d++) {
      for (const m of mantissas) {
        const t = Number((min * 10 ** d * m).toPrecision(6));
        if (t <= max * 1.0001) ticks.push(t);
      }
    }
    if (ticks.length <= maxTicks) return { min, max, ticks };
  }
  const every = Math.ceil((decades + 1) / maxTicks);
  const ticks: number[] = [];
  for (let d = 0; d <= decades; d += every) ticks.push(Number((min * 10 ** d).toPrecision(6)));
  return { min, max, ticks };
}

/** Where `v` sits on the axis, 0 (left) to 1 (right). */
export function logPosition(v: number, axis: LogAxis): number {
  const clamped = Math.min(axis.max, Math.max(axis.min, v));
  return (Math.log10(clamped) - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min));
}

/** The figures the latency tooltip lists. */
export function latencyTitle(b: LatencyBox): string {
  return `${b.pointId}\n${b.repeats} repeat${b.repeats === 1 ? '' : 's'}, ${formatCount(b.count)} batches\nmin ${formatMs(b.minMs)} · p25 ${formatMs(b.p25Ms)} · p50 ${formatMs(b.p50Ms)} · p75 ${formatMs(b.p75Ms)}\np95 ${formatMs(b.p95Ms)} · p99 ${formatMs(b.p99Ms)} · max ${formatMs(b.maxMs)}`;
}
