/**
 * What the page draws of a run's events (protocol/event-view.ts, web/lab/row-format.ts): the
 * table's columns from the events' fields, the chart's field chosen or refused, and one line per
 * event whatever its shape; the car rows keep their own lines and words.
 */
import { describe, expect, it } from 'vitest';
import {
  CAR_CHART_WORDS,
  CAR_NUMERIC_FIELDS,
  carEventView,
  chartWords,
  EVENT_CELL_MAX_CH,
  eventCellText,
  fieldKey,
  fileEventView,
} from '../../protocol/event-view.js';
import { PushlabError } from '../../protocol/errors.js';
import { eventColumns, parseRowsFile } from '../../protocol/rows-file.js';
import { makeRow, ROW_COLUMNS } from '../../protocol/wire.js';
import { maxOfEvents } from '../../web/lab/chart-column.js';
import { eventLines, fitCell, formatRow, GUTTER, linesOf } from '../../web/lab/row-format.js';

/** The view of a file's text, as the server makes it at start-up. */
function viewOf(text: string, chartField = '') {
  const rows = parseRowsFile(text, 'f.ndjson');
  return fileEventView('f.ndjson', eventColumns(rows, 'f.ndjson'), rows.events, chartField);
}

const refusal = (f: () => unknown): PushlabError => {
  try {
    f();
  } catch (e) {
    return e as PushlabError;
  }
  throw new Error('not refused');
};

const OBJECTS = [
  JSON.stringify({ s: 'BTC', p: '100.5', lv: [[1, 2]] }),
  JSON.stringify({ s: 'ETH', q: 3, p: '7', f: 0.5 }),
  JSON.stringify({ up: true, s: 'X', q: 4 }),
].join('\n');

describe('the table columns of a file', () => {
  it('are an object event’s keys in first-seen order over the events', () => {
    expect(viewOf(OBJECTS).fields).toEqual(['s', 'p', 'lv', 'q', 'f', 'up']);
  });

  it('are an array event’s indices 0..n-1', () => {
    expect(viewOf('[1,"a",[2]]\n[2,"b",[3]]').fields).toEqual(['0', '1', '2']);
  });

  it('the car rows are their 12 named columns', () => {
    expect(carEventView('')).toEqual({ carRows: true, fields: [...ROW_COLUMNS], widths: [], chartField: 'speed' });
  });
});

describe('the chart field', () => {
  it('is the first numeric field of the events when not asked for (strings of digits are text)', () => {
    expect(viewOf(OBJECTS).chartField).toBe('q');
    expect(viewOf('[1,"a",[2]]\n[2,"b",[3]]').chartField).toBe('0');
  });

  it('is the one asked for when it is numeric', () => {
    expect(viewOf(OBJECTS, 'f').chartField).toBe('f');
    expect(carEventView('gas').chartField).toBe('gas');
  });

  it('is null when the events have no numeric field: the chart then plots nothing, and says so', () => {
    const v = viewOf('{"a":"x","b":[1]}');
    expect(v.chartField).toBeNull();
    expect(chartWords(v)).toEqual({ label: 'no numeric field in the events: nothing plotted', axis: '–' });
  });

  it('refuses a field that is not numeric, or not there, naming it and the numeric fields', () => {
    const text = refusal(() => viewOf(OBJECTS, 'p'));
    expect(text).toBeInstanceOf(PushlabError);
    expect(text.code).toBe('PUSHLAB_BAD_ROWS');
    expect(text.message).toBe("--chart-field p: field 'p' of --rows f.ndjson is not numeric; numeric fields: q, f");
    expect(refusal(() => viewOf(OBJECTS, 'price')).message).toBe("--chart-field price: --rows f.ndjson has no field 'price'; numeric fields: q, f");
    expect(refusal(() => viewOf('{"a":"x"}', 'a')).message).toMatch(/the events have no numeric field; leave --chart-field out/);
    expect(refusal(() => carEventView('device')).message).toBe(
      "--chart-field device: field 'device' of the car rows is not numeric; numeric fields: id, lane, lon, lat, gas, speed",
    );
  });

  it('the car rows’ numeric fields are the row builder’s numbers', () => {
    expect(CAR_NUMERIC_FIELDS).toEqual(ROW_COLUMNS.filter((_, c) => typeof makeRow(5, 0)[c] === 'number'));
  });

  it('is named in the chart’s words; the car rows keep theirs', () => {
    expect(chartWords(viewOf(OBJECTS))).toEqual({ label: 'max of q of the events received per 1 s', axis: 'q' });
    expect(chartWords(carEventView(''))).toBe(CAR_CHART_WORDS);
    expect(chartWords(carEventView('gas')).axis).toBe('gas');
  });

  it('is read from each event by its key, for objects, arrays and the car rows alike', () => {
    const objects = viewOf(OBJECTS);
    const column = (v: typeof objects) => ({ name: v.chartField!, key: fieldKey(v, v.chartField!) });
    expect(maxOfEvents([{ q: 3 }, { q: 9 }, { p: '100' }, { q: null }], column(objects), -Infinity)).toBe(9);
    const arrays = viewOf('[1,"a"]\n[5,"b"]');
    expect(
      maxOfEvents(
        [
          [1, 'a'],
          [5, 'b'],
        ],
        column(arrays),
        -Infinity,
      ),
    ).toBe(5);
    const cars = Array.from({ length: 50 }, (_, i) => makeRow(i, 0));
    expect(maxOfEvents(cars, column(carEventView('')), -Infinity)).toBe(Math.max(...cars.map((r) => r[7])));
  });
});

describe('the table lines of a file', () => {
  it('are as wide as a field’s widest text in the events, heading included', () => {
    expect(viewOf(OBJECTS).widths).toEqual([3, 5, 7, 1, 3, 4]);
  });

  it('head the columns with the fields, and show each value as text in its column', () => {
    const v = viewOf(OBJECTS);
    const lines = linesOf(v);
    const fitted = (texts: string[]) => texts.map((t, c) => fitCell(t, v.widths[c])).join(GUTTER);
    expect(lines.heading).toBe(fitted(v.fields));
    expect(lines.line({ s: 'BTC', p: '100.5', lv: [[1, 2]], f: null })).toBe(fitted(['BTC', '100.5', '[[1,2]]', '', '', '']));
  });

  it('read an array event by index, and cut a long value to the bounded width', () => {
    const v = viewOf(`[7,"${'x'.repeat(100)}"]`);
    expect(v.widths).toEqual([1, EVENT_CELL_MAX_CH]);
    const line = eventLines(v.fields, v.widths).line([7, 'x'.repeat(100)]);
    expect(line).toBe(`7${GUTTER}${'x'.repeat(EVENT_CELL_MAX_CH - 1)}…`);
  });

  it('cell text is the same whether a nested value came parsed (JSON, MessagePack) or as Arrow made it back', () => {
    expect(eventCellText({ a: [1, 'é'] })).toBe('{"a":[1,"é"]}');
    expect([eventCellText(null), eventCellText(undefined), eventCellText(false), eventCellText(0.5)]).toEqual(['', '', 'false', '0.5']);
  });

  it('the car rows keep their own lines', () => {
    const row = makeRow(3, 1_700_000_000_000);
    expect(linesOf(carEventView('')).line(row)).toBe(formatRow(row));
  });
});
