/**
 * A file's events (`--rows`) as one Arrow table, the counterpart of poolTableSteps (arrow.ts) for
 * the car rows: one column per field, of the kind protocol/rows-file.ts eventColumns inferred, the
 * events cycled as the pool cycles them (rows.ts eventPoolSize). The schema carries what the page
 * needs to make the events back (protocol/arrow.ts EVENT_SHAPE_KEY, JSON_FIELD_KEY).
 *
 * Each column is one vectorFromArray over the pool's rows, one step each: a record batch is a
 * slice of one chunk (ArrowBatches.build), so a column is not built in pieces. For a file near the
 * size bound a step is long (seconds); it runs before the first Arrow stream opens.
 */
import { Bool, Field, Float64, Int32, makeData, RecordBatch, Schema, Struct, Table, Utf8, vectorFromArray, type DataType } from 'apache-arrow';
import { EVENT_SHAPE_KEY, JSON_FIELD_KEY } from '../protocol/arrow.js';
import type { ColumnKind, FileEvent } from '../protocol/rows-file.js';
import type { PoolEvents } from './rows.js';

function arrowType(kind: ColumnKind): DataType {
  switch (kind) {
    case 'int32':
      return new Int32();
    case 'float64':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'utf8':
    case 'json':
      return new Utf8();
  }
}

const valueAt = (e: FileEvent, name: string): unknown => (Array.isArray(e) ? e[Number(name)] : e[name]);

/** Column `name`'s values over `n` pool rows (events cycled), as the column holds them: nested values as JSON text, a missing one as null. */
function columnValues(events: readonly FileEvent[], name: string, kind: ColumnKind, n: number): unknown[] {
  const out = new Array<unknown>(n);
  for (let r = 0; r < n; r++) {
    const v = valueAt(events[r % events.length], name);
    out[r] = v === undefined || v === null ? null : kind === 'json' ? JSON.stringify(v) : v;
  }
  return out;
}

/** The events' schema: their columns, which hold JSON text, and their shape. */
export function eventsSchema(events: PoolEvents): Schema {
  const fields = events.columns.map((c) => new Field(c.name, arrowType(c.kind), true, c.kind === 'json' ? new Map([[JSON_FIELD_KEY, 'true']]) : undefined));
  return new Schema(fields, new Map([[EVENT_SHAPE_KEY, events.rows.shape]]));
}

/** The first `n` rows of a file's events, cycled (a pool's: epochs × size), as one Arrow table of one record batch, a step per column. */
export function* eventsTableSteps(events: PoolEvents, n: number): Generator<void, Table, void> {
  const schema = eventsSchema(events);
  const children = [];
  for (const c of events.columns) {
    children.push(vectorFromArray(columnValues(events.rows.events, c.name, c.kind, n), arrowType(c.kind)).data[0]);
    yield;
  }
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new Table([new RecordBatch(schema, data)]);
}
