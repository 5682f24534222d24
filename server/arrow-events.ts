/**
 * A file's events (`--rows`) as one Arrow table, the counterpart of poolTableSteps (arrow.ts) for
 * the car rows: one column per field, of the kind protocol/rows-file.ts eventColumns inferred, the
 * events cycled as the pool cycles them (rows.ts filePoolShape: the cycle, or the tail where that is longer). The schema carries what the page
 * needs to make the events back (protocol/arrow.ts EVENT_SHAPE_KEY, JSON_FIELD_KEY).
 *
 * Each column is written straight into its Arrow buffers (a typed array, a validity bitmap, a
 * string column's offsets and bytes), ROWS_PER_STEP rows a step: no JS array of a million values
 * per column (vectorFromArray's way took the server of a 100 MB file to a 2 GB peak), and the
 * event loop is free between steps. One chunk per column: a record batch is a slice of one
 * (ArrowBatches.build).
 */
import { Bool, Field, Float64, Int32, makeData, RecordBatch, Schema, Struct, Table, Utf8, type Data, type DataType } from 'apache-arrow';
import { EVENT_SHAPE_KEY, JSON_FIELD_KEY } from '../protocol/arrow.js';
import type { ColumnKind, EventColumn, FileEvent } from '../protocol/rows-file.js';
import type { PoolEvents } from './rows.js';

/** Rows written per step of a column. */
const ROWS_PER_STEP = 2000;

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

/** The events' schema: their columns, which hold JSON text, and their shape. */
export function eventsSchema(events: PoolEvents): Schema {
  const fields = events.columns.map((c) => new Field(c.name, arrowType(c.kind), true, c.kind === 'json' ? new Map([[JSON_FIELD_KEY, 'true']]) : undefined));
  return new Schema(fields, new Map([[EVENT_SHAPE_KEY, events.rows.shape]]));
}

/** A validity bitmap being filled (Arrow's: bit r set when row r holds a value). */
class Validity {
  readonly bits: Uint8Array;
  nulls = 0;
  constructor(n: number) {
    this.bits = new Uint8Array(Math.ceil(n / 8));
  }
  set(r: number, valid: boolean): void {
    if (valid) this.bits[r >> 3] |= 1 << (r & 7);
    else this.nulls++;
  }
  /** The bitmap, or none when every row holds a value. */
  get bitmap(): Uint8Array | undefined {
    return this.nulls ? this.bits : undefined;
  }
}

/** Column `c` over `n` pool rows (events cycled), in steps: nested values as their JSON text, a missing value as null. */
function* columnSteps(events: readonly FileEvent[], c: EventColumn, n: number): Generator<void, Data, void> {
  const type = arrowType(c.kind);
  const valid = new Validity(n);
  const value = (r: number): unknown => {
    const v = valueAt(events[r % events.length], c.name);
    const present = v !== undefined && v !== null;
    valid.set(r, present);
    return present ? v : null;
  };
  if (c.kind === 'utf8' || c.kind === 'json') {
    // Two passes over the rows (lengths, then bytes), so no buffer is grown; a JSON column's text is made once.
    const texts = new Array<string | null>(n);
    const offsets = new Int32Array(n + 1);
    let bytes = 0;
    for (let r = 0; r < n; r++) {
      const v = value(r);
      const text = v === null ? null : c.kind === 'json' ? JSON.stringify(v) : String(v);
      texts[r] = text;
      bytes += text === null ? 0 : Buffer.byteLength(text);
      offsets[r + 1] = bytes;
      if (r % ROWS_PER_STEP === 0) yield;
    }
    const data = Buffer.allocUnsafe(bytes);
    for (let r = 0; r < n; r++) {
      const text = texts[r];
      if (text !== null) data.write(text, offsets[r]);
      if (r % ROWS_PER_STEP === 0) yield;
    }
    return makeData({
      type: type as Utf8,
      length: n,
      nullCount: valid.nulls,
      nullBitmap: valid.bitmap,
      valueOffsets: offsets,
      data: new Uint8Array(data.buffer, data.byteOffset, bytes),
    });
  }
  if (c.kind === 'bool') {
    const bits = new Uint8Array(Math.ceil(n / 8));
    for (let r = 0; r < n; r++) {
      if (value(r) === true) bits[r >> 3] |= 1 << (r & 7);
      if (r % ROWS_PER_STEP === 0) yield;
    }
    return makeData({ type: type as Bool, length: n, nullCount: valid.nulls, nullBitmap: valid.bitmap, data: bits });
  }
  const values = c.kind === 'int32' ? new Int32Array(n) : new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const v = value(r);
    if (v !== null) values[r] = v as number;
    if (r % ROWS_PER_STEP === 0) yield;
  }
  return c.kind === 'int32'
    ? makeData({ type: type as Int32, length: n, nullCount: valid.nulls, nullBitmap: valid.bitmap, data: values as Int32Array })
    : makeData({ type: type as Float64, length: n, nullCount: valid.nulls, nullBitmap: valid.bitmap, data: values as Float64Array });
}

/** The first `n` rows of a file's events, cycled (a pool's: epochs × size), as one Arrow table of one record batch, in steps. */
export function* eventsTableSteps(events: PoolEvents, n: number): Generator<void, Table, void> {
  const schema = eventsSchema(events);
  const children: Data[] = [];
  for (const c of events.columns) children.push(yield* columnSteps(events.rows.events, c, n));
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new Table([new RecordBatch(schema, data)]);
}
