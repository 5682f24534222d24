/**
 * The terminal views of a report, pure functions of report.json: the points table (columns
 * from results/columns.ts, the same as the viewer's table and the CSV) fitted to a width, its
 * unsteady flags, notes, paired verdicts and knob lines in words, a repeat's progress line, and
 * a comparison of two runs. The summaries (results/point-summary.ts, results/knobs.ts) give
 * data; every terminal sentence made of them is made here.
 */
import { npmCommand } from '../../protocol/shell.js';
import {
  cellText,
  hasBrowserColumn,
  LEADING_COLUMNS,
  latencyComparable,
  latencyUncertaintyMs,
  NOT_COMPARABLE,
  terminalColumnsFor,
  type Column,
} from '../columns.js';
import { formatRatioWithCi, VERDICT_WORDS, type Comparison } from '../compare.js';
import { marginsText } from '../../protocol/margins.js';
import { formatCompactCell, formatCount, formatPercent, formatPlusMinusPercent, formatSig3, hostWords } from '../format.js';
import { speedChangeText, speedChanges } from '../machine-speed.js';
import { printable } from '../printable.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import type { KnobComparison, PointResult, Report } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { FACTOR_NAMES, FACTORS, type FactorName } from '../../protocol/factors.js';
import { relativeHalfWidth } from '../stats.js';
import { calibrationWords } from '../../protocol/device.js';
import { tabReturnLines } from '../tab-return.js';

/**
 * A Markdown table: the first column left-aligned, the rest right-aligned. Each cell is made one
 * printable line first (results/printable.ts): a cell can hold an id or a label from a report
 * file, and a line break in it would start a row of its own.
 */
export function markdownTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const head = header.map((c) => printable(c));
  const rows = body.map((r) => r.map((c) => printable(c)));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

// ----------------------------------------------------------------------------------------------
// Fitting the table to a width

/** The width the table fits when stderr is not a terminal (a log, a pipe, CI). */
export const DEFAULT_TABLE_WIDTH = 120;
/** Prose is never wrapped narrower than this, however narrow the terminal says it is. */
const MIN_WRAP_WIDTH = 40;

/** The width to fit: the terminal's columns when stderr is one, else DEFAULT_TABLE_WIDTH. */
export function tableWidth(stderr: { isTTY: boolean; columns?: number }): number {
  return stderr.isTTY && stderr.columns !== undefined && stderr.columns > 0 ? stderr.columns : DEFAULT_TABLE_WIDTH;
}

/**
 * How the table is laid out. `wide`: every terminal column with its CI and prose unwrapped, as
 * the sweep printed before it fitted (`--wide`). `width`: fitted to that many columns; `run`
 * names the run in the line that says where the other columns are (default: its run id).
 */
export type TableLayout = { wide: true } | { width: number; run?: string };

/** The columns that answer the question (LEADING_COLUMNS), kept at any width; host too when a sharded sweep shows it. */
export const ANSWER_COLUMNS: readonly string[] = [...LEADING_COLUMNS, 'host'];
/** Their CIs, given up in this order while the table is too wide: EPS's last. */
export const CI_GIVEN_UP: readonly string[] = ['inputDelayP99Ms', 'latencyP99Ms', 'cpuTabMainThread', 'deliveredRatio', 'eventsPerSec'];
/**
 * The other terminal columns, the most telling first, each shown (with its CI) while it fits.
 * A terminal column not named here comes after these; the unsteady flags are lines below too.
 */
export const MORE_COLUMNS: readonly string[] = [
  'device',
  'tab',
  'link',
  'repeats',
  'offeredEventsPerSec',
  'jsonCeilingRatio',
  'ceilingRatio',
  'bytesPerEvent',
  'encoding',
  'tabs',
  'display',
  'engine',
  'compression',
  'pace',
  'tabEventsPerSecMin',
  'tabEventsPerSecMax',
  'wireMegabytesPerSec',
  'compressionRatio',
  'cpuTabProcess',
  'cpuServer',
  'cpuHost',
  'cpuNetwork',
  'eventsPerCpuSecRenderer',
  'latencyP50Ms',
  'gaps',
  'shed',
  'unsteady',
  'connections',
];

/** A column as the table shows it: with its CI (Stat columns) or its median alone. */
export interface ShownColumn {
  column: Column;
  ci: boolean;
}

/** Characters a markdownTable line takes for cells of these widths: `| a | b |`. */
const lineWidth = (widths: readonly number[]): number => widths.reduce((a, w) => a + w + 3, 1);

/**
 * The columns of a report's table that fit `width`: the answer's columns with their CIs, the
 * CIs given up (CI_GIVEN_UP) while the table is too wide, then while no CI was given up
 * the other columns (MORE_COLUMNS) that fit, in the tables' order. `left`: the terminal
 * columns not shown. The answer's columns stay even where they cannot fit (a very narrow
 * terminal): the rows wrap there rather than lose the point or its verdict.
 */
export function fitColumns(report: Pick<Report, 'points' | 'hosts'>, width: number): { shown: ShownColumn[]; left: Column[] } {
  const all = terminalColumnsFor(report.points, report.hosts);
  // Each column's width is measured once (with and without its CI), not once per layout tried;
  // a loop, not Math.max(...widths), which overflows the stack past about 100,000 points.
  const widths = new Map<string, number>();
  const cellWidth = (c: Column, ci: boolean) => {
    const key = `${c.id}\n${ci}`;
    let w = widths.get(key);
    if (w === undefined) {
      w = printable(c.label).length;
      for (const r of report.points) w = Math.max(w, printable(cellText(c, r, ci)).length);
      widths.set(key, w);
    }
    return w;
  };
  const widthOf = (cols: readonly ShownColumn[]) => lineWidth(cols.map((s) => cellWidth(s.column, s.ci)));
  const inOrder = (cols: readonly ShownColumn[]) => all.flatMap((c) => cols.filter((s) => s.column === c));
  let shown: ShownColumn[] = all.filter((c) => ANSWER_COLUMNS.includes(c.id)).map((column) => ({ column, ci: column.kind === 'stat' }));
  for (const id of CI_GIVEN_UP) {
    if (widthOf(shown) <= width) break;
    const without = shown.map((s) => (s.column.id === id ? { ...s, ci: false } : s));
    // A CI no wider than its column's label costs nothing: it stays.
    if (widthOf(without) < widthOf(shown)) shown = without;
  }
  if (shown.every((s) => s.ci || s.column.kind !== 'stat')) {
    const rank = (c: Column) => (MORE_COLUMNS.includes(c.id) ? MORE_COLUMNS.indexOf(c.id) : MORE_COLUMNS.length);
    const more = all.filter((c) => !ANSWER_COLUMNS.includes(c.id)).sort((a, b) => rank(a) - rank(b));
    for (const column of more) {
      const tried = inOrder([...shown, { column, ci: column.kind === 'stat' }]);
      if (widthOf(tried) <= width) shown = tried;
    }
  }
  shown = inOrder(shown);
  return { shown, left: all.filter((c) => !shown.some((s) => s.column === c)) };
}

/**
 * `line` broken at spaces into lines of at most `width` characters, the later ones indented
 * two spaces; a word longer than that stays whole on its own line.
 */
export function wrapLine(line: string, width: number): string[] {
  const limit = Math.max(width, MIN_WRAP_WIDTH);
  if (line.length <= limit) return [line];
  const indent = '  ';
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    const room = out.length ? limit - indent.length : limit;
    if (current !== '' && current.length + 1 + word.length > room) {
      out.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  out.push(current);
  return out.map((l, i) => (i ? `${indent}${l}` : l));
}

// ----------------------------------------------------------------------------------------------
// The points table and its lines

const CI_LINE = 'Medians over the repeats; ±x % = half the 95% CI of the mean, as a share of the median.';

/**
 * The points table (readable in a terminal, pasteable into notes), then the paired verdicts,
 * the lines about the whole machine, and the points' notes: fitted to a width (the sweep's
 * default), or wide (`--wide`).
 *
 * The verdicts come right below the table, before any caveat: they are the answer, read with
 * the table's figures, and a reader who stops reading after them has what the sweep found.
 * The machine's lines (each browser, device class, an unsteady machine) follow once, as they
 * qualify every point; each point's notes come last. Fitted, a point has at most one line
 * there (what limited it in which rounds, its unsteady flags, how many notes: pointLine), so
 * the summary fits a screen; report.html and `--wide` keep every note and flag in full.
 */
export function formatTable(report: Report, layout: TableLayout): string {
  const fitted = 'width' in layout ? fitColumns(report, layout.width) : null;
  const shown = fitted?.shown ?? terminalColumnsFor(report.points, report.hosts).map((column) => ({ column, ci: true }));
  const table = markdownTable(
    shown.map((s) => s.column.label),
    report.points.map((r) => shown.map((s) => cellText(s.column, r, s.ci))),
  );
  const noCi = shown.filter((s) => s.column.kind === 'stat' && !s.ci).map((s) => s.column.label);
  const head = noCi.length ? `${CI_LINE} To fit, no CI on ${noCi.join(', ')}.` : CI_LINE;
  const run = ('run' in layout ? layout.run : undefined) ?? report.runId;
  const left = fitted?.left.length ? [elsewhereLine(fitted.left.length, run)] : [];
  // Ids and notes from the file are inert in either layout (bidi overrides shown as \u202e …),
  // whatever prints the table afterwards.
  const prose = (lines: readonly string[]) =>
    'width' in layout ? lines.flatMap((l) => (l === '' ? [l] : wrapLine(printable(l), layout.width))) : lines.map((l) => printable(l));
  // A find-max-only run keeps its points in its searches: no empty table, just the searches.
  const points = report.points.length ? [...prose([head]), table, ...prose(left)] : [];
  return [
    ...points,
    ...prose([
      ...sectionOf('', saturationLines(report)),
      ...sectionOf('Transports compared, paired by round (95% CI):', verdictLines(report)),
      ...sectionOf('Knobs compared (one setting changed, same transport and load), paired by round (95% CI):', knobLines(report)),
      ...sectionOf('', machineLines(report)),
      ...sectionOf('Hidden tabs, brought back to the front after each window:', tabReturnLines(report.points)),
      ...('width' in layout ? sectionOf(pointLinesHeading(run), pointLines(report)) : sectionOf('', pointDetailLines(report))),
    ]),
  ]
    .join('\n')
    .trimEnd();
}

/** Where the columns the fitted table left out are: the viewer, the wide table and the CSV, the JSON. */
function elsewhereLine(count: number, run: string): string {
  return `${count} more column${count === 1 ? '' : 's'}: report.html, ${npmCommand('report', ['--wide', run])} (or --csv), the sweep's --json.`;
}

/** What holds for every point, said once: each browser of a sharded or remote sweep, the device classes, an unsteady machine. */
function machineLines(report: Report): string[] {
  return [
    ...(hasBrowserColumn(report) ? browserLines(report) : []),
    ...(report.devices ?? []).map((c) => `device class: ${calibrationWords(c)}`),
    ...speedChanges(report.rounds).map((c) => speedChangeText(c)),
  ];
}

/** The heading of the fitted points' lines: what a line says, and where the rest is. */
function pointLinesHeading(run: string): string {
  return `Per point, what limited it (in full: report.html, ${npmCommand('report', ['--wide', run])}):`;
}

/** The fitted view's lines about the points: one per point that has something to say (pointLine), in the table's order. */
export function pointLines(report: Pick<Report, 'points'>): string[] {
  return report.points.flatMap((r) => pointLine(r) ?? []);
}

/**
 * One line about a point, or null when the table says it all (ok in every round, steady, no
 * note): its verdict with the rounds it held in (any other round's verdict in brackets), each
 * kind of unsteadiness with its rounds, a latency the clocks cannot compare, and how many notes
 * report.html holds:
 * `smoke/ws-b20-c4-i1-full: ok in rounds 1,2 (client-bound in 3); unsteady: backlog 1,3, outlier 3; 7 notes`.
 */
export function pointLine(r: PointResult): string | null {
  const clock = latencyComparable(r) ? null : `latency ${NOT_COMPARABLE} (clock ±${formatSig3(latencyUncertaintyMs(r))} ms)`;
  // Failed repeats are named by their verdict already: their flag would say it twice.
  const flags = r.unsteady.filter((u) => u.kind !== 'failed-repeats');
  const byVerdict = new Map<string, number[]>();
  for (const rep of r.repeats) byVerdict.set(rep.verdict, [...(byVerdict.get(rep.verdict) ?? []), rep.round]);
  if ([...byVerdict.keys()].every((v) => v === 'ok') && !flags.length && !clock && !r.notes.length) return null;
  const held = byVerdict.get(r.verdict);
  const others = [...byVerdict].filter(([v]) => v !== r.verdict).map(([v, rounds]) => `${v} in ${roundList(rounds, false)}`);
  const verdict = `${r.verdict}${held ? ` in ${roundList(held)}` : ''}${others.length ? ` (${others.join(', ')})` : ''}`;
  return [
    `${r.point.id}: ${verdict}`,
    ...(flags.length ? [`unsteady: ${flags.map((u) => `${u.kind} ${roundList(u.rounds, false)}`).join(', ')}`] : []),
    ...(clock ? [clock] : []),
    ...(r.notes.length ? [`${r.notes.length} note${r.notes.length === 1 ? '' : 's'}`] : []),
  ].join('; ');
}

/**
 * Rounds counted from 1, each once, runs of three or more as a range, without spaces so a list
 * of them stays apart from the line's other commas: `round 2`, `rounds 1,3`, `rounds 1–3,5`;
 * without the noun (`1–3`) where the line has said it. An --auto sweep can reach a dozen
 * rounds: ranges keep the line one line.
 */
function roundList(rounds: readonly number[], noun = true): string {
  const sorted = [...new Set(rounds)].sort((a, b) => a - b).map((x) => x + 1);
  const runs: number[][] = [];
  for (const x of sorted) {
    const last = runs.at(-1);
    if (last && x === last[last.length - 1] + 1) last.push(x);
    else runs.push([x]);
  }
  const text = runs.flatMap((run) => (run.length >= 3 ? [`${run[0]}–${run[run.length - 1]}`] : run.map(String))).join(',');
  return noun ? `${sorted.length === 1 ? 'round' : 'rounds'} ${text}` : text;
}

/** The wide view's lines about the points, in full: every unsteady flag, latency the clocks cannot compare, every note. */
function pointDetailLines(report: Report): string[] {
  return [
    ...report.points.flatMap((r) => r.unsteady.map((u) => `unsteady: ${r.point.id}: ${u.message}`)),
    ...report.points
      .filter((r) => !latencyComparable(r))
      .map(
        (r) =>
          `${r.point.id}: latency ${NOT_COMPARABLE} (not comparable): the page's clock against the server's is known only to ±${formatSig3(latencyUncertaintyMs(r))} ms, more than its p50`,
      ),
    ...report.points.filter((r) => r.notes.length).map((r) => `${r.point.id}: ${r.notes.join('; ')}`),
  ];
}

/** A blank line and a heading before `lines`, or nothing when there are none. */
function sectionOf(heading: string, lines: readonly string[]): string[] {
  return lines.length ? ['', ...(heading ? [heading] : []), ...lines] : [];
}

/** One line per find-max search: how far the scenario's varied field was sustainable, and what stopped it. */
function saturationLines(report: Report): string[] {
  return report.saturation.map((s) => {
    const knee = s.knee
      ? `sustainable up to ${s.varied} ${s.knee.value}, ${formatCompactCell(s.knee.eventsPerSec.median)} EPS ${formatPlusMinusPercent(relativeHalfWidth(s.knee.eventsPerSec))}`
      : 'nothing sustainable';
    return `find-max ${s.scenario} ${s.transport} (${s.varied}): ${knee}${s.firstPast ? `; ${s.varied} ${s.firstPast.value}: ${s.firstPast.reason}` : ''}`;
  });
}

/** Each browser of a sharded or remote sweep: where it ran, and what could not be read there. */
export function browserLines(report: Report): string[] {
  return [
    ...(report.hosts ?? []).map((h) => {
      const w = hostWords(h);
      return (
        `browser ${h.id}: ${w.where}, ${h.version}, host ${h.host}${w.gridNode ? ` (${w.gridNode})` : ''} (${h.kind}), server on its host: ${w.serverSharesHost}` +
        `${w.competesWith ? `, shared its host with ${w.competesWith} (they competed for CPU)` : ''}` +
        `${h.procfs ? '' : '; per-thread and host CPU unavailable (—)'}${h.clock ? `; clock ${w.clock} against the server's` : ''}${w.lost ? `; LOST at ${w.lost}` : ''}`
      );
    }),
  ];
}

/** One line for a finished repeat in the progress output. */
export function formatRepeatLine(point: Point, r: Repeat): string {
  const where = `${point.id} round ${r.round + 1}${r.browserId !== undefined && r.browserId !== 'local' ? ` [${r.browserId}]` : ''}`;
  if (r.status === 'failed') return `${where}: FAILED after ${r.attempts} attempt(s): ${r.error}`;
  return `${where}: ${formatCompactCell(r.eventsPerSec)} EPS of ${formatCompactCell(point.offeredEventsPerSec)} offered, tab main ${formatPercent(r.cpu.tabMainThread)}, server ${formatPercent(r.cpu.server)}, p99 ${formatSig3(r.latency.p99Ms)} ms${ageText(r)}, gaps ${formatCount(r.page.gaps)}, ${r.verdict}`;
}

/** Transit and display age beside event age's p99 (issue 33), where the repeat has them: ` (transit p99 4 ms, display p99 60 ms)`. */
function ageText(r: MeasuredRepeat): string {
  const parts = [
    ...(r.transit ? [`transit p99 ${formatSig3(r.transit.p99Ms)} ms`] : []),
    ...(r.displayAge ? [`display p99 ${formatSig3(r.displayAge.p99Ms)} ms`] : []),
  ];
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Marks that stand out in plain text: the terminal and CI logs have no colour to rely on. */
const MARK = { worse: '✗ ', mixed: '✗ ', better: '✓ ', equivalent: '  ', same: '  ', 'no-ci': '  ', missing: '  ' } as const;

/** Run B against run A: every common point's ratios B ÷ A with 95% CIs, and a verdict per metric and point. */
export function formatComparison(cmp: Comparison): string {
  const metrics = cmp.points[0]?.metrics.map((m) => m.metric) ?? [];
  const head = ['point', ...metrics.map((m) => `${m.column.label} B÷A (${m.better} is better)`), 'verdict'];
  const rows = cmp.points.map((p) => [
    `${MARK[p.verdict]}${p.key}`,
    ...p.metrics.map((m) => `${formatRatioWithCi(m)}${m.verdict === 'better' || m.verdict === 'worse' ? ` ${VERDICT_WORDS[m.verdict]}` : ''}`),
    VERDICT_WORDS[p.verdict],
  ]);
  const equivalent = cmp.points.filter((p) => p.verdict === 'equivalent').length;
  const unclear = cmp.points.filter((p) => p.verdict === 'same').length;
  const noCi = cmp.points.filter((p) => p.verdict === 'no-ci' || p.verdict === 'missing').length;
  return [
    `B = ${cmp.labelB} against A = ${cmp.labelA}: ratios of means over repeats, 95% CI (${cmp.sameRun ? 'unpaired, so cautious: the two scenarios ran in the same rounds' : 'unpaired: the two sides were measured apart'}), read against the margins ${marginsText(cmp.margins)}`,
    markdownTable(head, rows),
    '',
    `${cmp.regressions} regressed, ${cmp.improvements} improved, ${equivalent} equivalent, ${unclear} with no clear difference${noCi ? `, ${noCi} without a CI` : ''} (${cmp.points.length} common points)`,
    ...(cmp.onlyA.length ? [`only in A: ${cmp.onlyA.join(', ')}`] : []),
    ...(cmp.onlyB.length ? [`only in B: ${cmp.onlyB.join(', ')}`] : []),
  ].join('\n');
}

// ----------------------------------------------------------------------------------------------
// Comparisons in words

/** Point fields a pair's label shows when they vary within the pair's scenario. */
interface LabelField {
  field: keyof Point;
  text: (p: Point) => string;
}

/** Factors a pair's label never adds: the pair compares transports, and names batch and concurrency itself (`b400 c10`). */
const SAID_BY_PAIR: readonly FactorName[] = ['transport', 'batch', 'concurrency'];

/** Every other factor in its words (protocol/factors.ts), then the timing. */
const LABEL_FIELDS: readonly LabelField[] = [
  ...FACTOR_NAMES.filter((name) => !SAID_BY_PAIR.includes(name)).map((name) => ({ field: name, text: FACTORS[name].words })),
  { field: 'warmupSec', text: (p) => `warm-up ${p.warmupSec}s` },
  { field: 'measureSec', text: (p) => `window ${p.measureSec}s` },
];

/**
 * `test1-batch b400 c10`, plus whatever else tells this pair from its scenario's other points
 * (the scenario is named, so a field only another scenario varies would say nothing).
 */
function pairLabel(p: Point, varyingIn: ReadonlyMap<string, readonly LabelField[]>): string {
  const varying = varyingIn.get(p.scenario) ?? [];
  // One text once: parse and workers both vary when a scenario sets Workers; say `2 Workers` once.
  const extra = [...new Set(varying.map(({ text }) => text(p)).filter(Boolean))];
  return [p.scenario, `b${p.batch}`, `c${p.concurrency}`, ...extra].join(' ');
}

/** The label fields each scenario's points vary in: one pass over the points, not one per pair. */
function varyingFields(all: readonly Point[]): Map<string, LabelField[]> {
  const seen = new Map<string, Map<LabelField, Set<unknown>>>();
  for (const q of all) {
    let fields = seen.get(q.scenario);
    if (!fields) seen.set(q.scenario, (fields = new Map(LABEL_FIELDS.map((f) => [f, new Set<unknown>()]))));
    for (const [f, values] of fields) if (values.size < 2) values.add(q[f.field]);
  }
  return new Map([...seen].map(([scenario, fields]) => [scenario, LABEL_FIELDS.filter((f) => fields.get(f)!.size > 1)]));
}

/**
 * One line per compared pair for the end of the terminal summary:
 * `test1-batch b400 c10: sse faster than ws by 23% (CI 12–35%), 3 rounds; ws uses 41% less…`.
 */
export function verdictLines(report: Report): string[] {
  const points = new Map(report.points.map((p) => [p.point.id, p.point]));
  const varying = varyingFields([...points.values()]);
  const lines = new Map<string, string[]>();
  for (const c of report.comparisons) {
    const key = `${c.a}\n${c.b}`;
    const texts = lines.get(key);
    if (texts) texts.push(c.text);
    else lines.set(key, [c.text]);
  }
  return [...lines].map(([key, texts]) => {
    const a = points.get(key.split('\n')[0]);
    return `${a ? pairLabel(a, varying) : key.replace('\n', ' vs ')}: ${texts.join('; ')}`;
  });
}

/**
 * One line per compared pair for the terminal summary:
 * `origins, sse 400 × 10 every 1 ms, 2 Workers, render none: 2 origins faster than 1 origin by 12% (…); …`.
 */
export function knobLines(report: { knobs?: readonly KnobComparison[] }): string[] {
  const lines = new Map<string, string[]>();
  for (const c of report.knobs ?? []) {
    const key = `${c.knob}, ${c.context}`;
    const texts = lines.get(key);
    if (texts) texts.push(c.text);
    else lines.set(key, [c.text]);
  }
  return [...lines].map(([key, texts]) => `${key}: ${texts.join('; ')}`);
}
