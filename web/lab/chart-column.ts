/**
 * The chart's aggregate over a batch of events as JSON or MessagePack brings them: the max of one
 * field's numbers. No DOM, so the tests read events exactly as the page does.
 */

/**
 * The field the chart plots, as a batch is read for it: its name (an Arrow column's) and where it
 * sits in a JSON or MessagePack event (protocol/event-view.ts fieldKey: the car rows' index, else the name).
 */
export interface ChartColumn {
  name: string;
  key: string | number;
}

/** The larger of `from` and the numbers at `column.key` in `events` (arrays or objects; anything not a number is passed over). */
export function maxOfEvents(events: readonly unknown[], column: ChartColumn, from: number): number {
  const rows = events as readonly Record<string | number, unknown>[];
  const key = column.key;
  let max = from;
  for (let i = 0; i < rows.length; i++) {
    const v = rows[i][key];
    if (typeof v === 'number' && v > max) max = v;
  }
  return max;
}
