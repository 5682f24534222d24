/**
 * `encoding: arrow`, as every side sees it without an Arrow library: which Arrow type each
 * column of the row has, how a decoded row turns back into the JSON row, and pushlab's frame
 * around each IPC message. The server (server/arrow.ts) encodes with apache-arrow; the page
 * (web/lab/arrow-decode.ts) decodes with it. No Node or DOM imports.
 *
 * A stream is an Arrow IPC stream cut into pushlab messages: the first message carries the
 * schema and the dictionaries before its record batch, every later one a record batch alone.
 * Each message starts with a 24-byte head (ARROW_HEAD_BYTES): `seq`, `sentAt` and `dueAt` travel
 * there, outside the batch, so they cost 24 bytes per message and nothing per row, and the record
 * batches can be encoded once at start-up although every send has its own `seq` and times.
 */
import { ROW_COLUMNS, type Row } from './wire.js';

/**
 * The Arrow type of each column: numbers as numbers (the narrowest integer that holds the row
 * pool's values; `temperature`, JSON text with 2 decimals, as a float32, which holds 2 decimals
 * under 2^16 exactly enough to print them back), `time` as a timestamp in ms, and the columns
 * whose value repeats (`since`, `note`, `extra`: one value in the whole pool) dictionary-encoded
 * with int8 indices. `device` differs on every row of the pool, so a dictionary would only add.
 */
export const ARROW_COLUMN_TYPES = {
  id: 'int32',
  time: 'timestamp-ms',
  lane: 'int8',
  lon: 'float64',
  lat: 'float64',
  gas: 'int16',
  device: 'utf8',
  speed: 'int16',
  temperature: 'float32',
  since: 'dictionary-utf8',
  note: 'dictionary-utf8',
  extra: 'dictionary-utf8',
} as const satisfies Record<(typeof ROW_COLUMNS)[number], string>;
export type ArrowColumnType = (typeof ARROW_COLUMN_TYPES)[keyof typeof ARROW_COLUMN_TYPES];

/** Decimals `temperature` has in the JSON row (makeRow's toFixed(2)). */
const TEMPERATURE_DECIMALS = 2;

/**
 * A JSON row's value as the Arrow column holds it (the server encodes with this): ISO time to
 * epoch ms, `temperature`'s text to its number.
 */
export function arrowValue(column: number, value: Row[number]): string | number {
  switch (ROW_COLUMNS[column]) {
    case 'time':
      return Date.parse(String(value));
    case 'temperature':
      return Number(value);
    default:
      return value;
  }
}

/**
 * The JSON row from its decoded values (`value(c)`: column c's value as the Arrow library gives
 * it), so the table shows exactly what the JSON page shows. Only for the rows in view, never per event.
 */
export function rowFromArrow(value: (column: number) => unknown): Row {
  const v = value;
  return [
    Number(v(0)),
    new Date(Number(v(1))).toISOString(),
    Number(v(2)),
    Number(v(3)),
    Number(v(4)),
    Number(v(5)),
    String(v(6)),
    Number(v(7)),
    Number(v(8)).toFixed(TEMPERATURE_DECIMALS),
    String(v(9)),
    String(v(10)),
    String(v(11)),
  ];
}

/**
 * The head before each message's IPC bytes, little-endian like Arrow: u32 the IPC bytes that
 * follow (so a byte stream, `fetch`, can be cut into messages), u32 `seq`, f64 `sentAt` and f64
 * `dueAt` (epoch ms).
 */
export const ARROW_HEAD_BYTES = 24;

/** Writes a head into `view` at `at`. */
export function writeArrowHead(view: DataView, at: number, ipcBytes: number, seq: number, sentAtMs: number, dueAtMs: number): void {
  view.setUint32(at, ipcBytes, true);
  view.setUint32(at + 4, seq, true);
  view.setFloat64(at + 8, sentAtMs, true);
  view.setFloat64(at + 16, dueAtMs, true);
}

/** The head's fields, read where they are (no object per message). */
export const arrowIpcBytes = (view: DataView, at: number): number => view.getUint32(at, true);
export const arrowSeq = (view: DataView, at: number): number => view.getUint32(at + 4, true);
export const arrowSentAt = (view: DataView, at: number): number => view.getFloat64(at + 8, true);
export const arrowDueAt = (view: DataView, at: number): number => view.getFloat64(at + 16, true);

/**
 * Where batch `seq` of `batch` rows starts in an epoch of `poolSize` rows. A record batch cannot
 * be cut at any row the way the JSON pool is, so an Arrow stream sends whole batches from the
 * `floor(poolSize / batch)` that tile each epoch, in turn: every one is encoded once, at most
 * the pool's rows per epoch (see server/arrow.ts for the memory). Where `batch` divides the
 * pool (every batch size of the scenarios), these are exactly the JSON stream's rows.
 */
export function arrowBatchStart(seq: number, batch: number, poolSize: number): number {
  return (seq % Math.floor(poolSize / batch)) * batch;
}

/**
 * The record batches one Arrow size is encoded into, over a pool of `epochs` epochs of
 * `poolSize` rows (server/rows.ts), and which one a send takes. Either way they hold at most
 * max(epochs × poolSize, batch) rows, so a size costs no more than the pool's rows once:
 * - a batch no larger than an epoch: each epoch tiled by `floor(poolSize / batch)` batches
 *   (arrowBatchStart), and batch `seq` in epoch e is the (seq mod that)-th of epoch e's;
 * - a larger batch (it spans several seconds of the speed walk): the epochs' rows tiled by
 *   `floor(epochs × poolSize / batch)` batches, at least one, and a send in epoch e takes the one
 *   holding that epoch's first row (the last for the epochs past the last whole batch), so the
 *   speeds it carries include the current second's, as a JSON batch's start does.
 */
export interface ArrowTiling {
  /** Record batches encoded. */
  readonly count: number;
  /** The pool's chain row where batch `i` (0 ≤ i < count) starts; its rows are [row(i), row(i) + batch). */
  row(i: number): number;
  /** The batch a send of `seq` takes in epoch `epoch`. */
  index(seq: number, epoch: number): number;
}

export function arrowTiling(batch: number, poolSize: number, epochs: number): ArrowTiling {
  if (batch <= poolSize) {
    const perEpoch = Math.floor(poolSize / batch);
    return {
      count: epochs * perEpoch,
      row: (i) => Math.floor(i / perEpoch) * poolSize + (i % perEpoch) * batch,
      index: (seq, epoch) => epoch * perEpoch + arrowBatchStart(seq, batch, poolSize) / batch,
    };
  }
  const count = Math.max(1, Math.floor((epochs * poolSize) / batch));
  return {
    count,
    row: (i) => i * batch,
    index: (_seq, epoch) => Math.min(count - 1, Math.floor((epoch * poolSize) / batch)),
  };
}

/**
 * A file's events (`--rows`, protocol/rows-file.ts) in Arrow: one column per field, of the kind
 * eventColumns inferred. The schema says how to make the events back: its metadata key
 * EVENT_SHAPE_KEY holds `array` or `object`, and a field whose metadata has JSON_FIELD_KEY holds
 * each value's JSON text (nested arrays and objects). A null, and an object's missing key, read
 * as null.
 */
export const EVENT_SHAPE_KEY = 'pushlab.shape';
export const JSON_FIELD_KEY = 'pushlab.json';

/** What the page reads of a decoded events schema to make its events back. */
export interface EventFields {
  shape: 'array' | 'object';
  fields: readonly { name: string; json: boolean }[];
}

/** The event of a decoded row (`value(c)`: column c's value as the Arrow library gives it). Only for the rows in view, never per event. */
export function eventFromArrow(schema: EventFields, value: (column: number) => unknown): unknown[] | Record<string, unknown> {
  const at = (c: number): unknown => {
    const v = value(c);
    if (v === null || v === undefined) return null;
    if (schema.fields[c].json) return JSON.parse(String(v)) as unknown;
    // Int64 and timestamps come as bigint; a file's columns are int32, float64, bool or utf8.
    return typeof v === 'bigint' ? Number(v) : v;
  };
  if (schema.shape === 'array') return schema.fields.map((_, c) => at(c));
  const out: Record<string, unknown> = {};
  schema.fields.forEach((f, c) => (out[f.name] = at(c)));
  return out;
}
