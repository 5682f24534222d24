/**
 * CSV of a report: one row per point (each Stat as median, mean and the 95% CI of the mean)
 * or one row per repeat (the raw figure of every measured window). Columns come from
 * protocol/columns.ts; numbers are written in full (machines read this), text is quoted per
 * RFC 4180 and a leading `= + - @` gets a `'` so a spreadsheet does not run it as a formula.
 */
import { COLUMNS, type Column } from './columns.js';
import type { PointResult, Report, Repeat } from './report.js';

function text(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const num = (v: number | null | undefined): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

const line = (cells: readonly string[]): string => `${cells.join(',')}\r\n`;

function pointHeader(c: Column): string[] {
  return c.kind === 'stat' ? [`${c.id}Median`, `${c.id}Mean`, `${c.id}CiLow`, `${c.id}CiHigh`] : [c.id];
}

function pointCells(c: Column, r: PointResult): string[] {
  switch (c.kind) {
    case 'text':
      return [text(c.text(r))];
    case 'number':
      return [num(c.value(r))];
    case 'stat': {
      const s = r.summary ? c.stat(r.summary) : null;
      return [num(s?.median), num(s?.mean), num(s?.ciLow), num(s?.ciHigh)];
    }
  }
}

/** One row per point. */
export function pointsCsv(report: Report): string {
  const header = [...COLUMNS.flatMap(pointHeader), 'repeatsTried', 'notes'];
  const rows = report.points.map((r) => [...COLUMNS.flatMap((c) => pointCells(c, r)), num(r.repeats.length), text(r.notes.join('; '))]);
  return [header, ...rows].map(line).join('');
}

/** Point factors repeat on every row; then the columns that have a value per repeat. */
const REPEAT_POINT_COLUMNS = COLUMNS.filter((c) => c.group === 'Point');
const REPEAT_FIGURE_COLUMNS = COLUMNS.filter((c) => c.group !== 'Point' && (c.kind === 'text' ? c.repeatText !== undefined : c.repeatValue !== undefined));

function pointFactorCell(c: Column, r: PointResult): string {
  return c.kind === 'text' ? text(c.text(r)) : c.kind === 'number' ? num(c.value(r)) : '';
}

function repeatFigureCell(c: Column, r: PointResult, rep: Repeat): string {
  // A failed repeat has a verdict ('failed') and an error, but no figures.
  if (c.id === 'verdict') return rep.verdict;
  // Which browser a failed repeat failed in matters as much as where a measured one ran.
  if (c.id === 'host') return text(rep.browserId ?? '');
  if (rep.status !== 'ok') return '';
  switch (c.kind) {
    case 'text':
      return text(c.repeatText?.(r, rep) ?? '');
    case 'number':
      return num(c.repeatValue?.(r, rep));
    case 'stat':
      return num(c.repeatValue(rep));
  }
}

/** One row per repeat, failed ones included (their figures empty, their error given). */
export function repeatsCsv(report: Report): string {
  const header = [...REPEAT_POINT_COLUMNS.map((c) => c.id), 'round', 'status', 'attempts', ...REPEAT_FIGURE_COLUMNS.map((c) => c.id), 'error', 'notes'];
  const rows = report.points.flatMap((r) =>
    r.repeats.map((rep) => [
      ...REPEAT_POINT_COLUMNS.map((c) => pointFactorCell(c, r)),
      num(rep.round),
      rep.status,
      num(rep.attempts),
      ...REPEAT_FIGURE_COLUMNS.map((c) => repeatFigureCell(c, r, rep)),
      rep.status === 'failed' ? text(rep.cause ? `${rep.cause}: ${rep.error}` : rep.error) : '',
      text(rep.notes.join('; ')),
    ]),
  );
  return [header, ...rows].map(line).join('');
}
