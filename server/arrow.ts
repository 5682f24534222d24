/**
 * Arrow IPC for `encoding: arrow` (protocol/arrow.ts has the format). Every record batch a
 * stream of one batch size can send is encoded once, on first use of that size: the pool's
 * rows of every speed epoch, cut into the `floor(size / batch)` whole batches that tile an epoch
 * (arrowBatchStart), written through one IPC stream writer so they share one schema and one
 * set of dictionaries. A tick then writes a 16-byte head and a zero-copy slice of that buffer.
 *
 * Memory: at most `epochs × size` rows per batch size in use (30 × 10,000 = 300,000), about
 * 50 bytes a row in Arrow (see ARROW_COLUMN_TYPES): 15.5 MB at batch 400, 12 MB at 4,000, 15 MB
 * at 10,000, plus the pool as one Arrow table (about 15 MB), kept for the next batch size. The
 * first Arrow stream of the server pays about 1–2 s to build that table (JSON-parsing the
 * pool's 300,000 rows, the string columns' builders) and each new batch size 20–110 ms more,
 * before its first batch, on the development VM.
 */
import {
  Dictionary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int8,
  makeData,
  makeVector,
  Message,
  RecordBatchStreamWriter,
  Table,
  TimestampMillisecond,
  Utf8,
  vectorFromArray,
  type DataType,
  type Vector,
} from 'apache-arrow';
import { ARROW_COLUMN_TYPES, ARROW_HEAD_BYTES, arrowBatchStart, arrowValue, writeArrowHead, type ArrowColumnType } from '../protocol/arrow.js';
import { ROW_COLUMNS, type Row } from '../protocol/wire.js';
import type { RowPool } from './rows.js';

function arrowType(t: ArrowColumnType): DataType {
  switch (t) {
    case 'int8':
      return new Int8();
    case 'int16':
      return new Int16();
    case 'int32':
      return new Int32();
    case 'float32':
      return new Float32();
    case 'float64':
      return new Float64();
    case 'timestamp-ms':
      return new TimestampMillisecond();
    case 'utf8':
      return new Utf8();
    case 'dictionary-utf8':
      return new Dictionary(new Utf8(), new Int8());
  }
}

/** Where a numeric column's values are gathered: its typed array, filled in place (no JS array per column). */
function numericArray(t: ArrowColumnType, n: number): Int8Array | Int16Array | Int32Array | Float32Array | Float64Array | BigInt64Array | null {
  switch (t) {
    case 'int8':
      return new Int8Array(n);
    case 'int16':
      return new Int16Array(n);
    case 'int32':
      return new Int32Array(n);
    case 'float32':
      return new Float32Array(n);
    case 'float64':
      return new Float64Array(n);
    case 'timestamp-ms':
      return new BigInt64Array(n);
    default:
      return null;
  }
}

/** The pool's rows of every epoch (chain rows [0, epochs × size)) as one Arrow table of one record batch. */
export function poolTable(pool: RowPool): Table {
  const n = pool.epochs * pool.size;
  const types = ROW_COLUMNS.map((name) => ARROW_COLUMN_TYPES[name]);
  const numeric = types.map((t) => numericArray(t, n));
  const text = types.map((_, c) => (numeric[c] ? null : new Array<string>(n)));
  for (let r = 0; r < n; r++) {
    const row = JSON.parse(pool.rowText(r)) as Row;
    for (let c = 0; c < ROW_COLUMNS.length; c++) {
      const v = arrowValue(c, row[c]);
      const values = numeric[c];
      if (values instanceof BigInt64Array) values[r] = BigInt(v);
      else if (values) values[r] = Number(v);
      else text[c]![r] = String(v);
    }
  }
  const vectors: Record<string, Vector> = {};
  ROW_COLUMNS.forEach((name, c) => {
    const type = arrowType(types[c]);
    const values = numeric[c];
    vectors[name] = values ? makeVector(makeData({ type, length: n, data: values } as Parameters<typeof makeData>[0])) : vectorFromArray(text[c]!, type);
  });
  return new Table(vectors);
}

/** One IPC stream's messages: where each starts and ends in `bytes`. */
function splitMessages(bytes: Uint8Array): { start: number; end: number; kind: 'schema' | 'dictionary' | 'batch' }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: { start: number; end: number; kind: 'schema' | 'dictionary' | 'batch' }[] = [];
  for (let at = 0; at + 8 <= bytes.byteLength; ) {
    // Encapsulated message: 0xFFFFFFFF, metadata length, metadata (padded), body.
    if (view.getUint32(at, true) !== 0xffffffff) throw new Error(`Arrow IPC: no continuation marker at byte ${at}`);
    const metaLength = view.getInt32(at + 4, true);
    if (metaLength === 0) break; // end of stream
    const message = Message.decode(bytes.subarray(at + 8, at + 8 + metaLength));
    const end = at + 8 + metaLength + Number(message.bodyLength);
    out.push({ start: at, end, kind: message.isSchema() ? 'schema' : message.isDictionaryBatch() ? 'dictionary' : 'batch' });
    at = end;
  }
  return out;
}

/** Every batch one batch size sends, encoded: the stream's preamble and each record batch message. */
export class ArrowBatches {
  /** The schema and dictionary messages: what a stream's first message carries before its batch. */
  readonly preamble: Buffer;
  /** Batches per epoch: floor(pool size / batch). */
  readonly perEpoch: number;
  private readonly bytes: Buffer;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(
    table: Table,
    private readonly pool: RowPool,
    readonly batch: number,
  ) {
    this.perEpoch = Math.floor(pool.size / batch);
    const writer = new RecordBatchStreamWriter();
    for (let e = 0; e < pool.epochs; e++) {
      for (let j = 0; j < this.perEpoch; j++) {
        const from = e * pool.size + j * batch;
        writer.write(table.slice(from, from + batch).batches[0]);
      }
    }
    writer.finish();
    const all = writer.toUint8Array(true);
    this.bytes = Buffer.from(all.buffer, all.byteOffset, all.byteLength);
    const messages = splitMessages(all);
    const batches = messages.filter((m) => m.kind === 'batch');
    if (batches.length !== pool.epochs * this.perEpoch) throw new Error(`Arrow IPC: wrote ${batches.length} record batches, expected ${pool.epochs * this.perEpoch}`);
    const firstBatch = messages.findIndex((m) => m.kind === 'batch');
    // Every batch shares the one table's dictionaries, so the writer sends them once, up front.
    if (messages.slice(firstBatch).some((m) => m.kind !== 'batch')) throw new Error('Arrow IPC: a dictionary between record batches');
    this.preamble = this.bytes.subarray(0, messages[firstBatch].start);
    this.starts = Uint32Array.from(batches, (m) => m.start);
    this.ends = Uint32Array.from(batches, (m) => m.end);
  }

  /** Record batch message of batch `seq` in the pool's current epoch (zero-copy). */
  message(seq: number): Buffer {
    const i = this.pool.epoch * this.perEpoch + arrowBatchStart(seq, this.batch, this.pool.size) / this.batch;
    return this.bytes.subarray(this.starts[i], this.ends[i]);
  }

  /** Bytes held for this batch size. */
  get byteLength(): number {
    return this.bytes.byteLength;
  }
}

const tables = new WeakMap<RowPool, Table>();
const encoded = new WeakMap<RowPool, Map<number, ArrowBatches>>();

/** The Arrow batches of `batch` rows from `pool`, encoded on first use of that size (see the file's comment). */
export function arrowBatches(pool: RowPool, batch: number): ArrowBatches {
  let bySize = encoded.get(pool);
  if (!bySize) encoded.set(pool, (bySize = new Map()));
  let batches = bySize.get(batch);
  if (!batches) {
    let table = tables.get(pool);
    if (!table) tables.set(pool, (table = poolTable(pool)));
    bySize.set(batch, (batches = new ArrowBatches(table, pool, batch)));
  }
  return batches;
}

/** The head of one message: its IPC bytes' length, `seq`, `sentAt`. */
export function arrowHead(ipcBytes: number, seq: number, sentAtMs: number): Buffer {
  const b = Buffer.allocUnsafe(ARROW_HEAD_BYTES);
  writeArrowHead(new DataView(b.buffer, b.byteOffset, ARROW_HEAD_BYTES), 0, ipcBytes, seq, sentAtMs);
  return b;
}

/**
 * A stream's Arrow writer: the first message it sends carries the preamble before its batch,
 * the later ones the batch alone. `send` writes `head` and `body` as one message of the
 * transport and returns the bytes written (0 when nothing was sent, which keeps the preamble
 * for the next).
 */
export class ArrowStream {
  private started = false;

  write(seq: number, sentAt: string, pool: RowPool, batch: number, send: (head: Buffer, body: Buffer) => number): number {
    const batches = arrowBatches(pool, batch);
    const message = batches.message(seq);
    const body = this.started ? message : Buffer.concat([batches.preamble, message]);
    const written = send(arrowHead(body.byteLength, seq, Number(sentAt)), body);
    if (written > 0) this.started = true;
    return written;
  }
}
