/**
 * The row bytes every batch is cut from. Rows are serialised once, at start-up, into one
 * Buffer holding the pool twice over, so the rows of any batch are one contiguous
 * `subarray` and a tick does no JSON work at all: batch `seq` of size `b` is rows
 * `[(seq·b) mod P, (seq·b) mod P + b)`. Connections with the same batch size at the same seq
 * share the same bytes.
 */
import { makeRow, STREAM_LIMITS } from '../protocol/wire.js';

export class RowPool {
  /** Rows in the pool; batches never exceed it, so a batch never repeats a row. */
  readonly size: number;
  private readonly bytes: Buffer;
  /** The same rows as one JS string, for writers that need text (better-sse's API). */
  private readonly text: string;
  /** Byte offset where row i starts, for i in [0, 2·size]; the comma before a row is not part of it. */
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(size: number = STREAM_LIMITS.batch.max, epochMs = Date.UTC(2022, 2, 29, 20, 35, 56, 581)) {
    this.size = size;
    const texts: string[] = [];
    for (let i = 0; i < size; i++) texts.push(JSON.stringify(makeRow(i, epochMs)));
    const doubled = texts.concat(texts);
    this.starts = new Uint32Array(doubled.length);
    this.ends = new Uint32Array(doubled.length);
    let offset = 0;
    doubled.forEach((t, i) => {
      this.starts[i] = offset;
      this.ends[i] = offset + t.length;
      offset += t.length + 1;
    });
    this.text = doubled.join(',');
    this.bytes = Buffer.from(this.text, 'latin1');
  }

  /** The rows of batch `seq` at size `batch`, as `row,row,…,row` (no brackets). Zero-copy. */
  rows(seq: number, batch: number): Buffer {
    const first = (seq * batch) % this.size;
    return this.bytes.subarray(this.starts[first], this.ends[first + batch - 1]);
  }

  /** The same rows as `rows()`, as a string (a V8 slice of the pool: no copy until written). */
  rowsText(seq: number, batch: number): string {
    const first = (seq * batch) % this.size;
    return this.text.slice(this.starts[first], this.ends[first + batch - 1]);
  }
}
