/**
 * What an encoding is on the page: a codec that decodes a stream's messages into batches and
 * reads from a batch what the page keeps per message (its count, its `sentAt` and `dueAt`, the
 * chart's aggregate, the rows in view). Every encoding costs the page the same work above its
 * decoding. Each encoding is one file beside this one, named in index.ts.
 */
import type { BatchMessage } from '../../../protocol/wire.js';
import { maxOfEvents, type ChartColumn } from '../chart-column.js';
import type { RowRing } from '../table.js';

/** Where a codec keeps a batch's rows: the table's ring, or what hands them to a render module (ingest.ts). */
export type RowKeeper = Pick<RowRing, 'push' | 'pushColumns'>;

/** Where a stream's decoded batches go (the page's Ingest, the bare page's counter). */
export interface BatchSink<B> {
  batch(b: B): void;
  /** Bytes received, where the encoding counts them (a text message in characters, a binary one in bytes). */
  bytes(n: number): void;
  /** A message that could not be decoded: counted as an error, never thrown out of a transport's handler. */
  undecodable(): void;
}

/**
 * What a transport hands its messages to: it carries them and never decodes them. One per
 * stream (a connection attempt: each new socket is a new stream, and Arrow's first message
 * holds the schema).
 */
export interface StreamDecoder {
  /** One whole message: a WebSocket message (a string for a text frame), an EventSource event's data. */
  message(data: string | ArrayBuffer): void;
  /** A byte stream (a `fetch` body, a poll answer's lines), cut into messages as it arrives; resolves when it ends. */
  stream(chunks: AsyncIterable<Uint8Array>): Promise<void>;
  /** An envelope's bytes (gRPC-web's bytes field), whose `seq`, `sentAt` and `dueAt` travel in the envelope's own fields. Encodings carried in envelopes only. */
  envelope?(body: Uint8Array, seq: number, sentAt: number, dueAt: number): void;
  /** A batch a transport read from its own message type (gRPC-web's protobuf rows): the default encoding only. */
  rows?(msg: BatchMessage): void;
}

/**
 * One encoding on the page. `B` is its decoded batch; the page reads a batch only through these
 * methods, so a message costs one decode and no copy into another shape.
 */
export interface PageCodec<B> {
  /** One stream's decoder, handing each batch to `sink`. */
  open(sink: BatchSink<B>): StreamDecoder;
  seq(b: B): number;
  /** Write time, ms since the epoch: the handler's time minus it is transit. */
  sentAt(b: B): number;
  /**
   * When the batch was due by the server's schedule, ms since the epoch: the birth of its newest
   * event, from which the page counts every event's age (protocol/age.ts). Required, so the
   * compiler refuses an encoding whose codec does not carry it.
   */
  dueAt(b: B): number;
  /** Rows (events) in the batch. */
  count(b: B): number;
  /** The larger of `from` and the max of the batch's numbers in the chart's column (the chart's aggregate). */
  chartMax(b: B, column: ChartColumn, from: number): number;
  /** Keeps the batch's rows in the table's ring (by reference: only the rows in view are ever made into rows). */
  keep(ring: RowKeeper, b: B): void;
}

/** The reading of a batch that is a BatchMessage (JSON, MessagePack, gRPC-web's rows). */
export const MESSAGE_READING: Omit<PageCodec<BatchMessage>, 'open'> = {
  seq: (m) => m.seq,
  sentAt: (m) => m.sentAt,
  dueAt: (m) => m.dueAt,
  count: (m) => m.rows.length,
  chartMax: (m, column, from) => maxOfEvents(m.rows, column, from),
  keep: (ring, m) => ring.push(m.rows),
};

/** The chunks of a byte stream, each counted as it passes. */
export async function* counted(chunks: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    onBytes(chunk.byteLength);
    yield chunk;
  }
}
