/**
 * How the lab page shows a run's events (issue 35, "the page follows the rows"): the table's
 * columns and the one numeric field the chart plots. The server works this out once, before it
 * listens, from the events it serves (a `--rows` file's inferred columns, or the car rows), and
 * answers it at `GET /events-view`; the page draws from it and the report's payload names the
 * chart's field. No Node or DOM imports.
 */
import { PushlabError } from './errors.js';
import type { FlagSpec } from './flags.js';
import type { EventColumn, FileEvent } from './rows-file.js';
import { makeRow, ROW_COLUMNS, SPEED_COLUMN } from './wire.js';

/** What the page draws: the server's answer at `GET /events-view`. */
export interface EventView {
  /** The lab's own car rows (their table keeps its fitted columns and the chart its km/h words), not a file's events. */
  carRows: boolean;
  /** The table's columns: an object's keys in first-seen order, an array's indices, or the car rows' names. */
  fields: string[];
  /**
   * Each column's width in characters for a file's events (eventWidths); empty for the car rows,
   * whose widths the page keeps with their formatting (web/lab/row-format.ts).
   */
  widths: number[];
  /** The numeric field the chart plots (max per 1 s), or null when the events have none. */
  chartField: string | null;
}

/** `--chart-field`, the same flag on the server, the sweep, advise and the lab. */
export const CHART_FIELD_FLAG = {
  type: 'string',
  default: '',
  defaultText: 'the first numeric field of the events (speed for the car rows)',
  help: "the numeric field of the events the page's chart plots (max per 1 s): docs/your-stream.md",
} as const satisfies FlagSpec;

/** The car rows' chart field, as the reference experiment plotted it. */
export const CAR_CHART_FIELD: string = ROW_COLUMNS[SPEED_COLUMN];

/** The car rows' numeric columns, read off the row builder itself so the two cannot drift. */
export const CAR_NUMERIC_FIELDS: readonly string[] = ROW_COLUMNS.filter((_, c) => typeof makeRow(0, 0)[c] === 'number');

/** A file's numeric fields in column order: those Arrow holds as numbers. */
export function numericFields(columns: readonly EventColumn[]): string[] {
  return columns.filter((c) => c.kind === 'int32' || c.kind === 'float64').map((c) => c.name);
}

/**
 * The field the chart plots: `requested` when given (refused unless it is one of `numeric`), else
 * `fallback`. `source` names the events in the refusal (a file, or the car rows).
 */
export function chooseChartField(
  requested: string,
  fields: readonly string[],
  numeric: readonly string[],
  fallback: string | null,
  source: string,
): string | null {
  if (requested === '') return fallback;
  if (numeric.includes(requested)) return requested;
  const what = fields.includes(requested) ? `field '${requested}' of ${source} is not numeric` : `${source} has no field '${requested}'`;
  const allowed = numeric.length
    ? `numeric fields: ${numeric.join(', ')}`
    : 'the events have no numeric field; leave --chart-field out (the chart then plots nothing)';
  throw new PushlabError('PUSHLAB_BAD_ROWS', `--chart-field ${requested}: ${what}; ${allowed}`);
}

/** What the page draws of a file's events (`file` as given to --rows). */
export function fileEventView(file: string, columns: readonly EventColumn[], events: readonly FileEvent[], requested: string): EventView {
  const fields = columns.map((c) => c.name);
  const numeric = numericFields(columns);
  return {
    carRows: false,
    fields,
    widths: eventWidths(fields, events),
    chartField: chooseChartField(requested, fields, numeric, numeric[0] ?? null, `--rows ${file}`),
  };
}

/**
 * A file event's cell text: a nested value as its JSON text (as Arrow carries it), null and a
 * missing key as nothing, anything else as its text. The same text whichever encoding brought it.
 */
export function eventCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A column is never wider than this many characters: a long text field must not push the others off screen (its cell ends in '…'). */
export const EVENT_CELL_MAX_CH = 24;
/** Events whose cells size the columns: enough to see a feed's values, few enough for a file of millions. */
export const EVENT_WIDTH_SAMPLE = 1000;

/** Each field's column width: its widest text (heading or value) over the first EVENT_WIDTH_SAMPLE events, at most EVENT_CELL_MAX_CH. */
export function eventWidths(fields: readonly string[], events: readonly FileEvent[]): number[] {
  const sample = events.slice(0, EVENT_WIDTH_SAMPLE) as readonly Record<string, unknown>[];
  return fields.map((f) => {
    let width = f.length;
    // An array read by a field's name reads its index ('3' is [3]).
    for (const e of sample) width = Math.max(width, eventCellText(e[f]).length);
    return Math.min(EVENT_CELL_MAX_CH, Math.max(1, width));
  });
}

/** What the page draws of the car rows. */
export function carEventView(requested: string): EventView {
  const fields = [...ROW_COLUMNS];
  return { carRows: true, fields, widths: [], chartField: chooseChartField(requested, fields, CAR_NUMERIC_FIELDS, CAR_CHART_FIELD, 'the car rows') };
}

/**
 * Where a field sits in one event as it arrives in JSON or MessagePack: the car rows' column index,
 * else the field's name, which indexes an object by key and an array by its index ('3' reads [3]).
 */
export function fieldKey(view: EventView, field: string): string | number {
  return view.carRows ? ROW_COLUMNS.indexOf(field as (typeof ROW_COLUMNS)[number]) : field;
}

/** The car rows' chart words, as the lab has always shown them. */
export const CAR_CHART_WORDS = { label: 'max speed of the rows received per 1 s', axis: 'km/h (each device random-walks)' } as const;

/** The aggregate chart's legend and axis title: which field it plots, or that it plots nothing. */
export function chartWords(view: EventView): { label: string; axis: string } {
  const field = view.chartField;
  if (field === null) return { label: 'no numeric field in the events: nothing plotted', axis: '–' };
  if (view.carRows && field === CAR_CHART_FIELD) return CAR_CHART_WORDS;
  return { label: `max of ${field} of the events received per 1 s`, axis: field };
}
