/**
 * How the table prints a row: one line of fixed-width cells. No DOM, so the tests format the
 * pool's rows exactly as the page does and compare.
 */
import { ROW_COLUMNS, type Row } from '../../protocol/wire.js';

/**
 * Formats one cell for display; the raw JSON values stay untouched in the ring. Plain string
 * work only: a redraw formats every visible cell, and Intl formatters and Date.parse cost
 * microseconds each on the main thread that also parses every message.
 */
export function formatCell(column: number, value: Row[number]): string {
  switch (ROW_COLUMNS[column]) {
    case 'time':
    case 'since': {
      // ISO 8601 in UTC, as the server writes it: show HH:MM:SS.mmm.
      const text = String(value);
      return text.length >= 23 && text[10] === 'T' ? text.slice(11, 23) : text;
    }
    case 'lon':
    case 'lat':
      return Number(value).toFixed(5);
    default:
      return String(value);
  }
}

/** The column titles, with the unit or time zone where the cell alone does not say. */
export const HEADINGS: Partial<Record<(typeof ROW_COLUMNS)[number], string>> = { time: 'time (UTC)', since: 'since (UTC)', speed: 'speed km/h' };

/**
 * Each column's width in characters of the monospace font: the widest value the row pool
 * writes (see makeRow), or its heading. A longer value is cut and ends in '…'.
 */
const WIDTHS: Record<(typeof ROW_COLUMNS)[number], number> = {
  id: 6,
  time: 12,
  lane: 4,
  lon: 9,
  lat: 8,
  gas: 4,
  device: 6,
  speed: 10,
  temperature: 11,
  since: 20,
  note: 10,
  extra: 13,
};
const GUTTER = '  ';

/** Pads or cuts `text` to exactly `width` characters. */
export function fitCell(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`;
}

/** One table line: column c's text from `cell(c)`, fitted to its width, the gutter between. */
export function formatLine(cell: (column: number) => string): string {
  let line = '';
  for (let c = 0; c < ROW_COLUMNS.length; c++) line += (c ? GUTTER : '') + fitCell(cell(c), WIDTHS[ROW_COLUMNS[c]]);
  return line;
}

/** A row's line; the heading is drawn by the same function, so the columns line up. */
export function formatRow(row: Row): string {
  return formatLine((c) => formatCell(c, row[c]));
}
