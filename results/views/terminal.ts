/**
 * The terminal views of a report, pure functions of report.json: the points table (columns
 * from results/columns.ts, the same as the viewer's table and the CSV), its unsteady flags,
 * notes and paired verdicts, a repeat's progress line, and a comparison of two runs.
 */
import { cellText, hasBrowserColumn, terminalColumnsFor } from '../columns.js';
import { formatRatioWithCi, VERDICT_WORDS, type Comparison } from '../compare.js';
import { marginsText } from '../equivalence.js';
import { formatCompactCell, formatCount, formatPercent, formatPlusMinusPercent, formatSig3, hostWords } from '../format.js';
import { printable } from '../printable.js';
import type { Repeat, Report } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { relativeHalfWidth } from '../stats.js';
import { verdictLines } from '../point-summary.js';
import { knobLines } from '../knobs.js';

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

/** The points table (readable in a terminal, pasteable into notes), then flags, notes and the paired verdicts. */
export function formatTable(report: Report): string {
  const columns = terminalColumnsFor(report.points, report.hosts);
  const table = markdownTable(
    columns.map((c) => c.label),
    report.points.map((r) => columns.map((c) => cellText(c, r))),
  );
  const unsteady = report.points.flatMap((r) => r.unsteady.map((u) => `unsteady: ${r.point.id}: ${u.message}`));
  const notes = report.points.filter((r) => r.notes.length).map((r) => `${r.point.id}: ${r.notes.join('; ')}`);
  const saturation = report.saturation.map((s) => {
    const knee = s.knee
      ? `sustainable up to ${s.varied} ${s.knee.value}, ${formatCompactCell(s.knee.eventsPerSec.median)} EPS ${formatPlusMinusPercent(relativeHalfWidth(s.knee.eventsPerSec))}`
      : 'nothing sustainable';
    return `find-max ${s.scenario} ${s.transport} (${s.varied}): ${knee}${s.firstPast ? `; ${s.varied} ${s.firstPast.value}: ${s.firstPast.reason}` : ''}`;
  });
  const verdicts = verdictLines(report);
  const knobs = knobLines(report);
  return [
    'Medians over the repeats; ±x % = half the 95% CI of the mean, as a share of the median.',
    table,
    '',
    ...(hasBrowserColumn(report) ? browserLines(report) : []),
    ...unsteady,
    ...notes,
    ...(saturation.length ? ['', ...saturation] : []),
    ...(verdicts.length ? ['', 'Transports compared, paired by round (95% CI):', ...verdicts] : []),
    ...(knobs.length ? ['', 'Knobs compared (one setting changed, same transport and load), paired by round (95% CI):', ...knobs] : []),
  ]
    .join('\n')
    .trimEnd();
}

/** Each browser of a sharded or remote sweep: where it ran, and what could not be read there. */
export function browserLines(report: Report): string[] {
  return [
    ...(report.hosts ?? []).map((h) => {
      const w = hostWords(h);
      return (
        `browser ${h.id}: ${w.where}, ${h.version}, host ${h.host} (${h.kind}), server on its host: ${w.serverSharesHost}` +
        `${w.competesWith ? `, shared its host with ${w.competesWith} (they competed for CPU)` : ''}` +
        `${h.procfs ? '' : '; per-thread and host CPU unavailable (—)'}${w.lost ? `; LOST at ${w.lost}` : ''}`
      );
    }),
    '',
  ];
}

/** One line for a finished repeat in the progress output. */
export function formatRepeatLine(point: Point, r: Repeat): string {
  const where = `${point.id} round ${r.round + 1}${r.browserId !== undefined && r.browserId !== 'local' ? ` [${r.browserId}]` : ''}`;
  if (r.status === 'failed') return `${where}: FAILED after ${r.attempts} attempt(s): ${r.error}`;
  return `${where}: ${formatCompactCell(r.eventsPerSec)} EPS of ${formatCompactCell(point.offeredEventsPerSec)} offered, tab main ${formatPercent(r.cpu.tabMainThread)}, server ${formatPercent(r.cpu.server)}, p99 ${formatSig3(r.latency.p99Ms)} ms, gaps ${formatCount(r.page.gaps)}, ${r.verdict}`;
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
    `B = ${cmp.labelB} against A = ${cmp.labelA}: ratios of means over repeats, 95% CI (unpaired: the two sides were measured apart), read against the margins ${marginsText(cmp.margins)}`,
    markdownTable(head, rows),
    '',
    `${cmp.regressions} regressed, ${cmp.improvements} improved, ${equivalent} equivalent, ${unclear} with no clear difference${noCi ? `, ${noCi} without a CI` : ''} (${cmp.points.length} common points)`,
    ...(cmp.onlyA.length ? [`only in A: ${cmp.onlyA.join(', ')}`] : []),
    ...(cmp.onlyB.length ? [`only in B: ${cmp.onlyB.join(', ')}`] : []),
  ].join('\n');
}
