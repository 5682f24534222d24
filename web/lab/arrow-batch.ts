/**
 * What the page needs of an Arrow batch, apart from the library that decodes it: the row
 * count, `seq`, `sentAt` and `dueAt` (from pushlab's head, protocol/arrow.ts), the chart's aggregate read
 * from its column itself, and a row as the JSON page has it, only for the rows in view.
 * The library (arrow-decode.ts) is imported only when a stream is Arrow, so the JSON page's
 * bundle does not grow by it.
 */
import { ARROW_HEAD_BYTES, arrowDueAt, arrowIpcBytes, arrowSentAt, arrowSeq } from '../../protocol/arrow.js';
import type { TableRow } from './row-format.js';

export interface ArrowBatch {
  readonly seq: number;
  /** Write time, ms since the epoch. */
  readonly sentAt: number;
  /** When the batch was due, ms since the epoch: its newest event's birth (protocol/age.ts). */
  readonly dueAt: number;
  readonly numRows: number;
  /** The larger of `from` and the max of column `name` (none: `from`). */
  chartMax(name: string, from: number): number;
  /** Row `i` as the JSON page has it: a car row (protocol/arrow.ts rowFromArrow) or a rows file's event (eventFromArrow). */
  row(i: number): TableRow;
}

/** One stream's decoder: each message's IPC bytes, in order (the first holds the schema). */
export interface ArrowStreamDecoder {
  decode(ipc: Uint8Array, seq: number, sentAt: number, dueAt: number): ArrowBatch;
}

export type ArrowStreamFactory = () => ArrowStreamDecoder;

let loading: Promise<ArrowStreamFactory> | null = null;

/** The decoder's module, fetched once per page or Worker on first use. */
export function loadArrow(): Promise<ArrowStreamFactory> {
  loading ??= import('./arrow-decode.js').then((m) => m.createArrowStream);
  return loading;
}

/**
 * Decodes one message and hands it on; a message the decoder cannot read is counted as an
 * error, as a JSON message JSON.parse refuses is, instead of escaping the socket's handler.
 */
export function deliverArrow(decode: () => ArrowBatch, onArrow: (b: ArrowBatch) => void, onUndecodable: () => void): void {
  let b: ArrowBatch;
  try {
    b = decode();
  } catch {
    onUndecodable();
    return;
  }
  onArrow(b);
}

/** Decodes one pushlab message: a head, then its IPC bytes (a WebSocket message, a piece of a `fetch` stream). */
export function decodeFramed(decoder: ArrowStreamDecoder, message: Uint8Array): ArrowBatch {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const ipc = message.subarray(ARROW_HEAD_BYTES, ARROW_HEAD_BYTES + arrowIpcBytes(view, 0));
  return decoder.decode(ipc, arrowSeq(view, 0), arrowSentAt(view, 0), arrowDueAt(view, 0));
}

/**
 * Cuts a byte stream of pushlab messages (`fetch`) into messages, across chunk boundaries.
 * A message inside one chunk is passed as a view of it; one split over chunks is copied once.
 */
export class FrameReader {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  constructor(private readonly onMessage: (message: Uint8Array) => void) {}

  push(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.pendingBytes) {
      bytes = new Uint8Array(this.pendingBytes + chunk.byteLength);
      let at = 0;
      for (const p of this.pending) {
        bytes.set(p, at);
        at += p.byteLength;
      }
      bytes.set(chunk, at);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (bytes.byteLength - at >= ARROW_HEAD_BYTES) {
      const end = at + ARROW_HEAD_BYTES + arrowIpcBytes(view, at);
      if (end > bytes.byteLength) break;
      // Arrow wants its buffers 8-byte aligned; a message at an odd offset is copied (once) so they are.
      const message = (bytes.byteOffset + at) % 8 === 0 ? bytes.subarray(at, end) : bytes.slice(at, end);
      this.onMessage(message);
      at = end;
    }
    if (at < bytes.byteLength) {
      this.pending.push(bytes.subarray(at));
      this.pendingBytes = bytes.byteLength - at;
    }
  }
}
