/**
 * What an encoding is on the server: a codec that encodes a stream's batches into bytes a
 * transport carries. The pool's rows are encoded once (on first use, or before the first stream
 * of a size opens: `prepare`), so a batch is a head and a zero-copy slice of them. Each encoding
 * is one file beside this one, named in index.ts.
 */
import type { Carriage } from '../../protocol/encodings.js';
import type { ParamError } from '../../protocol/wire.js';
import type { RowPool } from '../rows.js';

/**
 * Writes one message of the transport (`head body tail`: a WebSocket frame, a piece of a byte
 * stream, an envelope's bytes) and returns the bytes written; 0 when nothing was sent. A string
 * head is ASCII.
 */
export type SendMessage = (head: string | Buffer, body: Buffer, tail: Buffer) => number;

/** One stream's encoder: a stream may have state (Arrow's first message carries the schema). */
export interface StreamEncoder {
  /**
   * Encodes batch `seq` of `batch` rows and sends it; returns what `send` did. `sentAt` (the
   * write) and `dueAt` (when the batch was due: its events' ages count from it, protocol/age.ts)
   * are epoch ms to the µs, JSON number text; every encoding carries both to the page.
   */
  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number, send: SendMessage): number;
}

export interface ServerCodec {
  /**
   * What a stream of `batch` rows waits for before it opens (Arrow builds its size's batches);
   * absent: nothing. `sizesInUse`: the batch sizes of the open streams of this encoding. Rejects
   * with StreamBusy when the stream cannot be served now.
   */
  prepare?(pool: RowPool, batch: number, sizesInUse: () => ReadonlySet<number>): Promise<void>;
  /** A stream's encoder for a transport of `carriage` (one the encoding fits: EncodingInfo.carriages). */
  open(carriage: Carriage): StreamEncoder;
}

/** A stream an encoding cannot serve now (every Arrow size held is in use): the routes answer 503. */
export class StreamBusy extends Error {
  constructor(
    message: string,
    /** What the request may ask for instead, as a ParamError's `allowed` says it. */
    readonly allowed: ParamError['allowed'],
  ) {
    super(message);
  }
}
