/**
 * Arrow IPC for `encoding: arrow` (protocol/arrow.ts has the format). Every record batch a
 * stream of one batch size can send is encoded once, before the first stream of that size
 * opens: the pool's rows of every speed epoch, cut into whole batches (protocol/arrow.ts
 * arrowTiling: those that tile an epoch, or for a batch larger than an epoch those that tile
 * the epochs' rows), written through one IPC stream writer so they share one schema and one set
 * of dictionaries. A tick then writes a 24-byte head and a zero-copy slice of that buffer.
 *
 * Memory: at most max(epochs × size, batch) rows per batch size held (30 × 10,000 = 300,000 for
 * the car rows, at batch 100,000 as at 400), about 51 bytes a row in Arrow (see
 * ARROW_COLUMN_TYPES) and 720 bytes per record batch: 15 MB at batch 400, 10,000 and 100,000, 28
 * MB at the smallest Arrow batch (16), plus the pool as one Arrow table (about 15 MB; for a file,
 * of its cycle or its tail's events, whichever is more), kept for the next batch size. The sizes
 * held are an LRU with a byte budget
 * (ArrowCache; ARROW_CACHE in defaults.ts), and every build runs in slices of a few ms with the
 * event loop free between them: a new size costs other streams no stall. The first Arrow
 * stream of the server waits 1-4 s for the table and each new size 0.1-2 s more (2 cores,
 * loaded), while every other stream keeps its pace.
 */
import { performance } from 'node:perf_hooks';
import {
  AsyncByteQueue,
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
import { ARROW_COLUMN_TYPES, ARROW_HEAD_BYTES, arrowTiling, arrowValue, writeArrowHead, type ArrowColumnType, type ArrowTiling } from '../protocol/arrow.js';
import { ROW_COLUMNS, type Row } from '../protocol/wire.js';
import { eventsTableSteps } from './arrow-events.js';
import { ARROW_CACHE } from './defaults.js';
import { StreamBusy } from './codecs/codec.js';
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

/** A build step: does a little work and yields; the last step returns what was built. */
type Steps<T> = Generator<void, T, void>;

/**
 * Runs `steps` on the event loop in slices of about `sliceMs`, with a setImmediate between
 * slices, so the hub's ticks and every socket's I/O run between them. A step must be short
 * (well under a ms): the stall a build causes is one slice and one step.
 */
export async function runSliced<T>(steps: Steps<T>, sliceMs: number): Promise<T> {
  for (;;) {
    const end = performance.now() + sliceMs;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() >= end) break;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Runs `steps` to the end at once (tests and benches; the server builds in slices). */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Rows handled per step of a column build. */
const ROWS_PER_STEP = 2000;

/** A utf8 column from its strings, in steps (vectorFromArray on 300,000 strings would be one long step). */
function* utf8Vector(values: string[]): Steps<Vector> {
  const offsets = new Int32Array(values.length + 1);
  let bytes = 0;
  for (let r = 0; r < values.length; r++) {
    bytes += Buffer.byteLength(values[r]);
    offsets[r + 1] = bytes;
    if (r % ROWS_PER_STEP === 0) yield;
  }
  const data = Buffer.allocUnsafe(bytes);
  for (let r = 0; r < values.length; r++) {
    data.write(values[r], offsets[r]);
    if (r % ROWS_PER_STEP === 0) yield;
  }
  return makeVector(makeData({ type: new Utf8(), length: values.length, valueOffsets: offsets, data: new Uint8Array(data.buffer, data.byteOffset, bytes) }));
}

/** A dictionary column (int8 indices into its distinct values) from its strings, in steps. */
function* dictionaryVector(values: string[]): Steps<Vector> {
  const indices = new Int8Array(values.length);
  const distinct = new Map<string, number>();
  for (let r = 0; r < values.length; r++) {
    let i = distinct.get(values[r]);
    if (i === undefined) distinct.set(values[r], (i = distinct.size));
    // int8 indices (ARROW_COLUMN_TYPES): the pool has one value in each such column.
    if (i > 127) throw new Error('Arrow: more than 128 distinct values in a dictionary column');
    indices[r] = i;
    if (r % ROWS_PER_STEP === 0) yield;
  }
  const dictionary = vectorFromArray([...distinct.keys()], new Utf8());
  return makeVector(makeData({ type: new Dictionary(new Utf8(), new Int8()), length: values.length, data: indices, dictionary }));
}

/** The pool's first `n` chain rows (by default every epoch's: [0, epochs × size)) as one Arrow table of one record batch, in steps. */
export function* poolTableSteps(pool: RowPool, n = pool.epochs * pool.size): Steps<Table> {
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
    if (r % ROWS_PER_STEP === 0) yield;
  }
  const vectors: Record<string, Vector> = {};
  for (let c = 0; c < ROW_COLUMNS.length; c++) {
    const type = types[c];
    const values = numeric[c];
    if (values) vectors[ROW_COLUMNS[c]] = makeVector(makeData({ type: arrowType(type), length: n, data: values } as Parameters<typeof makeData>[0]));
    else if (type === 'utf8') vectors[ROW_COLUMNS[c]] = yield* utf8Vector(text[c]!);
    else vectors[ROW_COLUMNS[c]] = yield* dictionaryVector(text[c]!);
    yield;
  }
  return new Table(vectors);
}

/**
 * Rows of the table every Arrow size of `pool` is cut from: every epoch's, or the pool's largest
 * batch where that is more (a file's cycle shorter than its tail, a test's small pool), so that
 * the one batch arrowTiling makes of a batch larger than the epochs is a slice of it.
 */
export function tableRows(pool: RowPool): number {
  return Math.max(pool.epochs * pool.size, pool.maxBatch);
}

/** The pool's table, in steps: the car rows' columns, or a file's events' (arrow-events.ts). */
function tableSteps(pool: RowPool): Steps<Table> {
  const rows = tableRows(pool);
  return pool.events ? eventsTableSteps(pool.events, rows) : poolTableSteps(pool, rows);
}

/** Bytes of the record batch message of `table` (one record batch), schema and dictionaries left out: what a stream sends per batch. */
export function recordBatchBytes(table: Table): number {
  const sink = new WriteSink();
  const writer = new RecordBatchStreamWriter().reset(sink);
  writer.write(table.batches[0]);
  const parts = splitMessages(sink.take());
  const last = parts[parts.length - 1];
  return last.end - last.start;
}

/** The pool as one Arrow table (tableRows long), built at once (tests and benches). */
export function poolTable(pool: RowPool): Table {
  return runAtOnce(tableSteps(pool));
}

type IpcMessage = { start: number; end: number; kind: 'schema' | 'dictionary' | 'batch' };

/** The IPC messages one write of the writer produced: where each starts and ends in `bytes`. */
function splitMessages(bytes: Uint8Array): IpcMessage[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: IpcMessage[] = [];
  for (let at = 0; at + 8 <= bytes.byteLength;) {
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

/**
 * The writer's sink, keeping what each write produced. The writer's own queue joins every
 * chunk at the end in one go (toUint8Array), which took 1-2.5 s for the 18,750 batches of batch
 * 16: one step far longer than a slice. Taking each write's bytes as it returns costs no more.
 */
class WriteSink extends AsyncByteQueue {
  private chunks: Uint8Array[] = [];

  override write(value: Parameters<AsyncByteQueue['write']>[0]): void {
    // The writer hands its sink Uint8Arrays only (RecordBatchWriter._write).
    if (!(value instanceof Uint8Array)) throw new Error('Arrow IPC: the writer wrote something other than bytes');
    if (value.byteLength > 0) this.chunks.push(value);
  }

  /** The bytes written since the last take, copied (the body chunks are views of the table). */
  take(): Buffer {
    const out = Buffer.concat(this.chunks);
    this.chunks = [];
    return out;
  }
}

/** Record batch messages copied into the one buffer per step. */
const MESSAGES_PER_STEP = 500;

/** Every batch one batch size sends, encoded: the stream's preamble and each record batch message. */
export class ArrowBatches {
  private constructor(
    private readonly pool: RowPool,
    readonly batch: number,
    /** Which record batch a send takes (protocol/arrow.ts arrowTiling). */
    private readonly tiling: ArrowTiling,
    private readonly bytes: Buffer,
    /** The schema and dictionary messages: what a stream's first message carries before its batch. */
    readonly preamble: Buffer,
    private readonly starts: Uint32Array,
    private readonly ends: Uint32Array,
  ) {}

  /** Encodes every batch of `batch` rows from `table` (the pool's, tableRows long), in steps. */
  static *build(table: Table, pool: RowPool, batch: number): Steps<ArrowBatches> {
    const tiling = arrowTiling(batch, pool.size, pool.epochs);
    const count = tiling.count;
    const sink = new WriteSink();
    const writer = new RecordBatchStreamWriter().reset(sink);
    let preamble: Buffer | null = null;
    const messages: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const from = tiling.row(i);
      writer.write(table.slice(from, from + batch).batches[0]);
      const written = sink.take();
      const parts = splitMessages(written);
      const last = parts[parts.length - 1];
      // Every batch shares the one table's dictionaries, so the writer sends them once, with the schema, before the first.
      if (last?.kind !== 'batch' || last.end !== written.byteLength || (preamble !== null && parts.length !== 1)) {
        throw new Error(
          `Arrow IPC: write ${messages.length} gave ${parts.map((m) => m.kind).join(', ')}, expected ${preamble ? 'one record batch' : 'the schema and dictionaries, then a record batch'}`,
        );
      }
      preamble ??= written.subarray(0, last.start);
      messages.push(written.subarray(last.start));
      yield;
    }
    let total = 0;
    for (const m of messages) total += m.byteLength;
    const bytes = Buffer.allocUnsafe(total);
    const starts = new Uint32Array(count);
    const ends = new Uint32Array(count);
    for (let i = 0, at = 0; i < count; i++) {
      starts[i] = at;
      at += messages[i].copy(bytes, at);
      ends[i] = at;
      if (i % MESSAGES_PER_STEP === 0) yield;
    }
    return new ArrowBatches(pool, batch, tiling, bytes, Buffer.from(preamble ?? []), starts, ends);
  }

  /** Record batch message of batch `seq` in the pool's current epoch (zero-copy). */
  message(seq: number): Buffer {
    const i = this.tiling.index(seq, this.pool.epoch);
    return this.bytes.subarray(this.starts[i], this.ends[i]);
  }

  /** Bytes held for this batch size. */
  get byteLength(): number {
    return this.bytes.byteLength;
  }
}

/** Metadata bytes of one record batch message (measured on the row pool: 1,232 bytes at batch 10, 976 at 5). */
const BATCH_OVERHEAD_BYTES = 720;
/** Bytes of one row in a record batch (ARROW_COLUMN_TYPES; 50,696 bytes at batch 1,000). */
const ROW_BYTES = 51;

/** The bytes the batches of one size will hold, before they are built (to keep a build within the budget). */
export function estimatedBytes(pool: RowPool, batch: number): number {
  return arrowTiling(batch, pool.size, pool.epochs).count * (BATCH_OVERHEAD_BYTES + batch * ROW_BYTES);
}

export interface ArrowCacheLimits {
  /** Batch sizes held at most, built or being built. */
  maxSizes: number;
  /** Bytes held at most by the sizes held: built ones at their size, ones being built at estimatedBytes. */
  maxBytes: number;
  /** A size asked for within this many ms is not evicted. */
  pinMs: number;
  /** Longest a build holds the event loop at once, ms. */
  sliceMs: number;
}

/** A new Arrow size that does not fit: every size held is in use. The routes answer it with a 503. */
export class ArrowCacheFull extends StreamBusy {
  constructor(
    readonly batch: number,
    readonly held: readonly number[],
    limits: ArrowCacheLimits,
  ) {
    super(
      `batch ${batch} with encoding=arrow: the server holds the Arrow batches of at most ${limits.maxSizes} sizes (${Math.round(limits.maxBytes / 2 ** 20)} MiB), and every size held is in use (${held.join(', ')}); use one of those, or retry when a stream of another size has ended`,
      `one of the Arrow sizes in use (${held.join(', ')}) until a stream of another size ends`,
    );
  }
}

interface Entry {
  batch: number;
  /** Real bytes once built, estimatedBytes while building. */
  bytes: number;
  /** performance.now() of the last time a request or a tick asked for it. */
  usedAt: number;
  built: ArrowBatches | null;
  ready: Promise<ArrowBatches>;
}

/**
 * The Arrow batches of one pool, by batch size: at most `maxSizes` sizes and `maxBytes`, the
 * least recently used size evicted first, never one a stream uses (`inUse`), one being built,
 * or one asked for in the last `pinMs`. Builds run one at a time, in slices (runSliced);
 * requests for a size being built share its build.
 */
export class ArrowCache {
  /** In order of last request, least recent first. */
  private readonly entries = new Map<number, Entry>();
  private table: Promise<Table> | null = null;
  /** Builds run one after another: two interleaved builds would each wait for the other's slices. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The sizes streams are open with (the hub sets it): never evicted. */
  inUse: () => ReadonlySet<number> = () => new Set();

  constructor(
    private readonly pool: RowPool,
    readonly limits: ArrowCacheLimits,
  ) {}

  /** The built batches of `batch` rows, or undefined when not built (a tick's lookup: no build, no wait). */
  get(batch: number): ArrowBatches | undefined {
    const e = this.entries.get(batch);
    if (!e?.built) return undefined;
    e.usedAt = performance.now();
    return e.built;
  }

  /**
   * The batches of `batch` rows, built first when not held (sharing a build under way).
   * Throws ArrowCacheFull when the size does not fit beside the sizes in use.
   */
  load(batch: number): Promise<ArrowBatches> {
    const now = performance.now();
    const held = this.entries.get(batch);
    if (held) {
      held.usedAt = now;
      this.entries.delete(batch);
      this.entries.set(batch, held);
      return held.ready;
    }
    const bytes = estimatedBytes(this.pool, batch);
    this.makeRoom(bytes, now, batch);
    const entry: Entry = { batch, bytes, usedAt: now, built: null, ready: Promise.resolve(null as unknown as ArrowBatches) };
    entry.ready = this.enqueue(async () => {
      this.table ??= runSliced(tableSteps(this.pool), this.limits.sliceMs);
      const built = await runSliced(ArrowBatches.build(await this.table, this.pool, batch), this.limits.sliceMs);
      entry.built = built;
      entry.bytes = built.byteLength;
      entry.usedAt = performance.now();
      return built;
    });
    // A failed build is not kept: the next request tries again.
    entry.ready.catch(() => {
      if (this.entries.get(batch) === entry) this.entries.delete(batch);
    });
    this.entries.set(batch, entry);
    return entry.ready;
  }

  /** Sizes held (built or being built), least recently asked for first. */
  held(): { batch: number; bytes: number; built: boolean }[] {
    return [...this.entries.values()].map((e) => ({ batch: e.batch, bytes: e.bytes, built: e.built !== null }));
  }

  private enqueue<T>(build: () => Promise<T>): Promise<T> {
    const run = this.queue.then(build, build);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Evicts least recently asked-for sizes that are free until `bytes` more fit; throws ArrowCacheFull when they cannot. */
  private makeRoom(bytes: number, now: number, batch: number): void {
    const inUse = this.inUse();
    const fits = () => {
      let total = bytes;
      for (const e of this.entries.values()) total += e.bytes;
      return this.entries.size < this.limits.maxSizes && total <= this.limits.maxBytes;
    };
    for (const e of [...this.entries.values()]) {
      if (fits()) return;
      const free = e.built !== null && !inUse.has(e.batch) && now - e.usedAt >= this.limits.pinMs;
      if (free) this.entries.delete(e.batch);
    }
    if (!fits()) throw new ArrowCacheFull(batch, [...this.entries.keys()], this.limits);
  }
}

const caches = new WeakMap<RowPool, ArrowCache>();

/** The Arrow cache of `pool` (one per pool, so one per hub), made with `limits` on first use. */
export function arrowCache(pool: RowPool, limits: ArrowCacheLimits = ARROW_CACHE): ArrowCache {
  let cache = caches.get(pool);
  if (!cache) caches.set(pool, (cache = new ArrowCache(pool, limits)));
  return cache;
}

/** The head of one message: its IPC bytes' length, `seq`, `sentAt`, `dueAt`. */
export function arrowHead(ipcBytes: number, seq: number, sentAtMs: number, dueAtMs: number): Buffer {
  const b = Buffer.allocUnsafe(ARROW_HEAD_BYTES);
  writeArrowHead(new DataView(b.buffer, b.byteOffset, ARROW_HEAD_BYTES), 0, ipcBytes, seq, sentAtMs, dueAtMs);
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

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number, send: (head: Buffer, body: Buffer) => number): number {
    // The route waited for this size (ArrowCache.load) before it opened the stream, and a size
    // in use is never evicted: a miss is a bug, and the hub drops the stream that meets it.
    const batches = arrowCache(pool).get(batch);
    if (!batches) throw new Error(`Arrow batches of ${batch} rows are not built`);
    const message = batches.message(seq);
    const body = this.started ? message : Buffer.concat([batches.preamble, message]);
    const written = send(arrowHead(body.byteLength, seq, Number(sentAt), Number(dueAt)), body);
    if (written > 0) this.started = true;
    return written;
  }
}
