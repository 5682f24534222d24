/**
 * How the table prints a row: one line of fixed-width cells. No DOM, so the tests format the
 * pool's rows (and a rows file's events) exactly as the page does and compare.
 */
import { eventCellText, type EventView } from '../../protocol/event-view.js';
import type { FileEvent } from '../../protocol/rows-file.js';
import { ROW_COLUMNS, type Row } from '../../protocol/wire.js';

/** What the table's ring holds: a car row, or one of a rows file's events (an array or an object). */
export type TableRow = Row | FileEvent;

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
/** Between two cells of a line. */
export const GUTTER = '  ';

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

/** The table's lines: the heading, and a row's line, with the same columns. */
export interface LineFormat {
  heading: string;
  line(row: TableRow): string;
}

/** The car rows' lines, as the lab has always drawn them. */
const CAR_LINES: LineFormat = {
  heading: formatLine((c) => HEADINGS[ROW_COLUMNS[c]] ?? ROW_COLUMNS[c]),
  line: (row) => formatRow(row as Row),
};

/** A rows file's lines: one column per field (EventView.fields, widths), an array's by index, an object's by key. */
export function eventLines(fields: readonly string[], widths: readonly number[]): LineFormat {
  const fit = (cell: (c: number) => string) => fields.map((_, c) => fitCell(cell(c), widths[c])).join(GUTTER);
  return {
    heading: fit((c) => fields[c]),
    // An array read by a field's name reads its index ('3' is [3]), so one lookup serves both shapes.
    line: (row) => fit((c) => eventCellText((row as Record<string, unknown>)[fields[c]])),
  };
}

/** The lines of the events the server describes (protocol/event-view.ts). */
export function linesOf(view: EventView): LineFormat {
  return view.carRows ? CAR_LINES : eventLines(view.fields, view.widths);
}
