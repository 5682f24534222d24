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
import { RecordBatchReader, type RecordBatch, type RecordBatchStreamReader } from 'apache-arrow';
import { EVENT_SHAPE_KEY, rowFromArrow } from '../../protocol/arrow.js';
import { SPEED_COLUMN, type Row } from '../../protocol/wire.js';
import type { ArrowBatch, ArrowStreamDecoder } from './arrow-batch.js';

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

/** A decoded record batch, read as the page needs it (see ArrowBatch). */
class DecodedBatch implements ArrowBatch {
  constructor(
    readonly seq: number,
    readonly sentAt: number,
    readonly dueAt: number,
    private readonly rb: RecordBatch,
  ) {}

  get numRows(): number {
    return this.rb.numRows;
  }

  maxSpeed(from: number): number {
    // A --rows file's events (their schema says so: protocol/arrow.ts EVENT_SHAPE_KEY) have no speed column to aggregate.
    if (this.rb.schema.metadata.has(EVENT_SHAPE_KEY)) return from;
    const data = this.rb.getChildAt(SPEED_COLUMN)!.data[0];
    const values = data.values as Int16Array;
    let max = from;
    for (let i = data.offset, end = data.offset + data.length; i < end; i++) if (values[i] > max) max = values[i];
    return max;
  }

  row(i: number): Row {
    return rowFromArrow((c) => this.rb.getChildAt(c)!.get(i));
  }
}

/** One stream's decoder: `decode` each message's IPC bytes in order. */
export class ApacheArrowStream implements ArrowStreamDecoder {
  private readonly feed = new Feed();
  private reader: RecordBatchStreamReader | null = null;

  decode(ipc: Uint8Array, seq: number, sentAt: number, dueAt: number): ArrowBatch {
    this.feed.set(ipc);
    // The reader is made on the first message: it reads the schema from it.
    this.reader ??= RecordBatchReader.from(this.feed) as RecordBatchStreamReader;
    const r = this.reader.next();
    if (r.done) throw new Error(`Arrow message seq ${seq} holds no record batch`);
    return new DecodedBatch(seq, sentAt, dueAt, r.value);
  }
}

export const createArrowStream = (): ArrowStreamDecoder => new ApacheArrowStream();
