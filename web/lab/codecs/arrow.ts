/**
 * `encoding: arrow`: pushlab's head and an Arrow IPC message per batch (protocol/arrow.ts),
 * decoded by the library that arrow-batch.ts loads only when a stream is Arrow, so the JSON
 * page's bundle does not grow by it. The table keeps a batch's rows by reference, and reads a
 * row out only when it comes into view.
 */
import { decodeFramed, deliverArrow, FrameReader, type ArrowBatch, type ArrowStreamFactory } from '../arrow-batch.js';
import type { PageCodec } from './codec.js';

/** The codec over a loaded decoder (loadArrow). */
export function arrowCodec(createStream: ArrowStreamFactory): PageCodec<ArrowBatch> {
  return {
    open(sink) {
      const decoder = createStream();
      const batch = (b: ArrowBatch) => sink.batch(b);
      const undecodable = () => sink.undecodable();
      const framed = (m: Uint8Array) => deliverArrow(() => decodeFramed(decoder, m), batch, undecodable);
      return {
        message(data) {
          const m = new Uint8Array(data as ArrayBuffer);
          sink.bytes(m.byteLength);
          framed(m);
        },
        async stream(chunks) {
          const frames = new FrameReader(framed);
          for await (const chunk of chunks) {
            sink.bytes(chunk.byteLength);
            frames.push(chunk);
          }
        },
        envelope: (body, seq, sentAt, dueAt) => deliverArrow(() => decoder.decode(body, seq, sentAt, dueAt), batch, undecodable),
      };
    },
    seq: (b) => b.seq,
    sentAt: (b) => b.sentAt,
    dueAt: (b) => b.dueAt,
    count: (b) => b.numRows,
    chartMax: (b, column, from) => b.chartMax(column.name, from),
    keep: (ring, b) => ring.pushColumns(b),
  };
}
