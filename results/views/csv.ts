/**
 * CSV of a report: one row per point (each Stat as median, mean and the 95% CI of the mean)
 * or one row per repeat (the raw figure of every measured window). Columns come from
 * results/columns.ts.
 *
 * A report is input from whoever made it, so every cell, the header included, goes through one
 * function, `csvCell`, when the row is written; no caller can hand a line a raw string:
 * - a number is written in full (machines read this) when it is a finite JSON number, and is
 *   left as it is even when negative: `String()` of a number gives only digits, a sign, a point
 *   and an exponent, which no spreadsheet runs as a formula, and `'-5` would turn a figure into
 *   text; anything else (NaN, Infinity, null) is an empty cell;
 * - text (ids, notes, errors, and enums and verdicts too, since a file can hold anything there)
 *   gets a leading `'` when it starts, after any white space, with `= + - @` (or their
 *   full-width forms) or with a tab or line break, so a spreadsheet shows it instead of running
 *   it (OWASP's CSV injection advice); control characters other than tab and line breaks become
 *   `\uXXXX` (results/printable.ts); and a cell holding `"`, `,` or a line break is quoted per
 *   RFC 4180, so it cannot end its row or start another.
 */
import { COLUMNS, type Column } from '../columns.js';
import { printable } from '../printable.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report } from '../../protocol/report.js';

/** A cell before it is written: text, a number, or nothing. */
export type CsvValue = string | number | null | undefined;

/** What a spreadsheet may read as the start of a formula. */
const FORMULA_START = /^(?:\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r\n])/;

/** The one escaping of a CSV cell (see the file's comment). */
export function csvCell(v: CsvValue): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v !== 'string') return '';
  const shown = printable(v, true);
  const safe = FORMULA_START.test(shown) ? `'${shown}` : shown;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const line = (cells: readonly CsvValue[]): string => `${cells.map(csvCell).join(',')}\r\n`;

function pointHeader(c: Column): string[] {
  return c.kind === 'stat' ? [`${c.id}Median`, `${c.id}Mean`, `${c.id}CiLow`, `${c.id}CiHigh`] : [c.id];
}

function pointCells(c: Column, r: PointResult): CsvValue[] {
  switch (c.kind) {
    case 'text':
      return [c.text(r)];
    case 'number':
      return [c.value(r)];
    case 'stat': {
      const s = r.summary ? c.stat(r.summary) : null;
      return [s?.median, s?.mean, s?.ciLow, s?.ciHigh];
    }
  }
}

/** The column list of the per-point CSV: every column, then the repeats tried and the notes. */
export const POINTS_CSV_HEADER: readonly string[] = [...COLUMNS.flatMap(pointHeader), 'repeatsTried', 'notes'];

/** One row per point. */
export function pointsCsv(report: Report): string {
  const rows = report.points.map((r): CsvValue[] => [...COLUMNS.flatMap((c) => pointCells(c, r)), r.repeats.length, r.notes.join('; ')]);
  return [POINTS_CSV_HEADER, ...rows].map(line).join('');
}

/** Point factors repeat on every row; then the columns that have a value per repeat. */
const REPEAT_POINT_COLUMNS = COLUMNS.filter((c) => c.group === 'Point');
const REPEAT_FIGURE_COLUMNS = COLUMNS.filter((c) => c.group !== 'Point' && (c.kind === 'text' ? c.repeatText !== undefined : c.repeatValue !== undefined));

function pointFactorCell(c: Column, r: PointResult): CsvValue {
  return c.kind === 'text' ? c.text(r) : c.kind === 'number' ? c.value(r) : null;
}

function repeatFigureCell(c: Column, r: PointResult, rep: Repeat): CsvValue {
  // A failed repeat has a verdict ('failed') and an error, but no figures.
  if (c.id === 'verdict') return rep.verdict;
  // Which browser a failed repeat failed in matters as much as where a measured one ran.
  if (c.id === 'host') return rep.browserId ?? '';
  if (rep.status !== 'ok') return null;
  switch (c.kind) {
    case 'text':
      return c.repeatText?.(r, rep) ?? '';
    case 'number':
      return c.repeatValue?.(r, rep);
    case 'stat':
      return c.repeatValue(rep);
  }
}

/** The column list of the per-repeat CSV. */
export const REPEATS_CSV_HEADER: readonly string[] = [
  ...REPEAT_POINT_COLUMNS.map((c) => c.id),
  'round',
  'status',
  'attempts',
  ...REPEAT_FIGURE_COLUMNS.map((c) => c.id),
  'error',
  'notes',
];

/** One row per repeat, failed ones included (their figures empty, their error given). */
export function repeatsCsv(report: Report): string {
  const rows = report.points.flatMap((r) =>
    r.repeats.map((rep): CsvValue[] => [
      ...REPEAT_POINT_COLUMNS.map((c) => pointFactorCell(c, r)),
      rep.round,
      rep.status,
      rep.attempts,
      ...REPEAT_FIGURE_COLUMNS.map((c) => repeatFigureCell(c, r, rep)),
      rep.status === 'failed' ? (rep.cause ? `${rep.cause}: ${rep.error}` : rep.error) : '',
      rep.notes.join('; '),
    ]),
  );
  return [REPEATS_CSV_HEADER, ...rows].map(line).join('');
}
