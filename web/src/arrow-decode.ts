/**
 * The page's Arrow decoding (`encoding: arrow`, protocol/arrow.ts) with apache-arrow. Loaded
 * with a dynamic import only when a page streams Arrow (arrow-load.ts), so the JSON page does
 * not carry the library.
 *
 * One reader per stream, kept across its messages: the first message's schema and
 * dictionaries stay in it, and each later message is one record batch read in place (its
 * buffers are views of the message, not copies, when they sit 8-byte aligned, as they do in a
 * WebSocket message). apache-arrow's readers pull bytes from a source; `Feed` is a source that
 * holds exactly the current message, so reading one record batch never waits for more.
 */
import { ByteStream, RecordBatchReader, type RecordBatch, type RecordBatchStreamReader } from 'apache-arrow';
import { rowFromArrow } from '../../protocol/arrow.js';
import { SPEED_COLUMN, type Row } from '../../protocol/wire.js';
import type { ArrowBatch, ArrowStreamDecoder } from './arrow-batch.js';

const DONE = { done: true, value: null } as const;

/** A byte source holding one message at a time. */
class Feed extends ByteStream {
  private bytes: Uint8Array = new Uint8Array(0);
  private at = 0;

  set(bytes: Uint8Array): void {
    this.bytes = bytes;
    this.at = 0;
  }

  override peek(size?: number | null): Uint8Array | null {
    if (this.at >= this.bytes.byteLength) return null;
    return this.bytes.subarray(this.at, size == null ? undefined : this.at + size);
  }

  override read(size?: number | null): Uint8Array | null {
    const out = this.peek(size);
    if (out) this.at += out.byteLength;
    return out;
  }

  override next(): IteratorResult<Uint8Array> {
    const value = this.read();
    return value ? { done: false, value } : DONE;
  }

  override throw(): IteratorResult<Uint8Array> {
    return DONE;
  }

  override return(): IteratorResult<Uint8Array> {
    return DONE;
  }
}

/** A decoded record batch, read as the page needs it (see ArrowBatch). */
class DecodedBatch implements ArrowBatch {
  constructor(
    readonly seq: number,
    readonly sentAt: number,
    private readonly rb: RecordBatch,
  ) {}

  get numRows(): number {
    return this.rb.numRows;
  }

  maxSpeed(from: number): number {
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

  decode(ipc: Uint8Array, seq: number, sentAt: number): ArrowBatch {
    this.feed.set(ipc);
    // The reader is made on the first message: it reads the schema from it.
    this.reader ??= RecordBatchReader.from(this.feed) as RecordBatchStreamReader;
    const r = this.reader.next();
    if (r.done) throw new Error(`Arrow message seq ${seq} holds no record batch`);
    return new DecodedBatch(seq, sentAt, r.value);
  }
}

export const createArrowStream = (): ArrowStreamDecoder => new ApacheArrowStream();
