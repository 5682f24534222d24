/**
 * The page's Arrow decoding (`encoding: arrow`, protocol/arrow.ts) with apache-arrow. Loaded
 * with a dynamic import only when a page streams Arrow (arrow-batch.ts), so the JSON page does
 * not carry the library.
 *
 * One reader per stream, kept across its messages: the first message's schema and
 * dictionaries stay in it, and each later message is one record batch read in place (its
 * buffers are views of the message, not copies, when they sit 8-byte aligned, as they do in a
 * WebSocket message). apache-arrow's readers pull bytes from a source; `Feed` is a source that
 * hands out exactly the current message, so reading one record batch never waits for more.
 */
import { RecordBatchReader, type RecordBatch, type RecordBatchStreamReader, type Schema } from 'apache-arrow';
import { EVENT_SHAPE_KEY, eventFromArrow, JSON_FIELD_KEY, rowFromArrow, type EventFields } from '../../protocol/arrow.js';
import type { ArrowBatch, ArrowStreamDecoder } from './arrow-batch.js';
import type { TableRow } from './row-format.js';

const EMPTY = new Uint8Array(0);

/**
 * The reader's byte source: an endless iterator handing out the current message once. The
 * reader pulls only what a message holds (it stops after a record batch), but apache-arrow's
 * buffering asks for one more chunk when a read takes exactly what it holds: that gets an empty
 * chunk. Ending the iterator would end the stream for good, so a second ask with nothing to give
 * (a message cut short) is thrown instead of looping.
 */
class Feed implements Iterator<Uint8Array>, Iterable<Uint8Array> {
  private pending: Uint8Array | null = null;
  private asked = false;

  set(bytes: Uint8Array): void {
    this.pending = bytes;
    this.asked = false;
  }

  next(): IteratorResult<Uint8Array> {
    const value = this.pending;
    if (value) {
      this.pending = null;
      return { done: false, value };
    }
    if (this.asked) throw new Error('Arrow message ended before its record batch');
    this.asked = true;
    return { done: false, value: EMPTY };
  }

  [Symbol.iterator](): Iterator<Uint8Array> {
    return this;
  }
}

/**
 * What a schema says of a rows file's events (protocol/arrow.ts EVENT_SHAPE_KEY), or null for the
 * car rows; read once per stream, whose batches share the schema of its first message.
 */
function eventFieldsOf(schema: Schema): EventFields | null {
  const shape = schema.metadata.get(EVENT_SHAPE_KEY);
  if (shape === undefined) return null;
  return {
    shape: shape === 'array' ? 'array' : 'object',
    fields: schema.fields.map((f) => ({ name: f.name, json: f.metadata.has(JSON_FIELD_KEY) })),
  };
}

/** A decoded record batch, read as the page needs it (see ArrowBatch). */
class DecodedBatch implements ArrowBatch {
  constructor(
    readonly seq: number,
    readonly sentAt: number,
    readonly dueAt: number,
    private readonly rb: RecordBatch,
    /** The stream's events' fields, or null for the car rows. */
    private readonly events: EventFields | null,
  ) {}

  get numRows(): number {
    return this.rb.numRows;
  }

  chartMax(name: string, from: number): number {
    const column = this.rb.getChild(name);
    if (!column) return from;
    let max = from;
    for (const data of column.data) {
      // Read in place from the column's typed array (the car rows' speed, a file's int32 or
      // float64 column); a value a validity bitmap marks null is skipped.
      const values = data.values as ArrayLike<number>;
      const nulls = data.nullCount > 0;
      for (let i = 0; i < data.length; i++) {
        if (nulls && !data.getValid(i)) continue;
        const v = values[data.offset + i];
        if (v > max) max = v;
      }
    }
    return max;
  }

  row(i: number): TableRow {
    const rb = this.rb;
    return this.events ? eventFromArrow(this.events, (c) => rb.getChildAt(c)!.get(i)) : rowFromArrow((c) => rb.getChildAt(c)!.get(i));
  }
}

/** One stream's decoder: `decode` each message's IPC bytes in order. */
export class ApacheArrowStream implements ArrowStreamDecoder {
  private readonly feed = new Feed();
  private reader: RecordBatchStreamReader | null = null;
  private events: EventFields | null | undefined;

  decode(ipc: Uint8Array, seq: number, sentAt: number, dueAt: number): ArrowBatch {
    this.feed.set(ipc);
    // The reader is made on the first message: it reads the schema from it.
    this.reader ??= RecordBatchReader.from(this.feed) as RecordBatchStreamReader;
    const r = this.reader.next();
    if (r.done) throw new Error(`Arrow message seq ${seq} holds no record batch`);
    if (this.events === undefined) this.events = eventFieldsOf(r.value.schema);
    return new DecodedBatch(seq, sentAt, dueAt, r.value, this.events);
  }
}

export const createArrowStream = (): ArrowStreamDecoder => new ApacheArrowStream();
