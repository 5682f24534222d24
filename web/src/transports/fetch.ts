/** `fetch`: one endless response per connection, NDJSON lines or msgpack batches back to back. */
import { decodeMultiStream } from '@msgpack/msgpack';
import type { BatchMessage, StreamParams } from '../../../protocol/wire.js';
import { decodeFramed, deliverArrow, FrameReader, loadArrow } from '../arrow-batch.js';
import { answerText, LineReader, reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** The chunks of a response body, counted as they pass. */
async function* countedChunks(reader: ReadableStreamDefaultReader<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes(value.byteLength);
    yield value;
  }
}

/** `fetch`: one endless response, read as it arrives: NDJSON lines, or msgpack batches back to back. */
function fetchAttempt(url: Promise<string>, h: ConnectionHandlers, params: StreamParams): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const read = async () => {
      const arrow = params.encoding === 'arrow' ? (await loadArrow())() : null;
      const r = await fetch(await url, { signal: abort.signal, cache: 'no-store' });
      if (!r.ok || !r.body) return down(await answerText(r));
      up();
      const reader = r.body.getReader();
      if (arrow) {
        const frames = new FrameReader((m) => deliverArrow(() => decodeFramed(arrow, m), h.onArrow, h.onUndecodable));
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return down('the response ended');
          h.onBytes(value.byteLength);
          frames.push(value);
        }
      }
      if (params.encoding === 'msgpack') {
        for await (const m of decodeMultiStream(countedChunks(reader, h.onBytes))) h.onBatch(m as BatchMessage);
        return down('the response ended');
      }
      const lines = new LineReader(h.onMessage);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return down('the response ended');
        lines.push(value);
      }
    };
    read().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => abort.abort();
  };
}

export const openFetch: OpenConnection = (r) => reconnecting(r.name, r.handlers, fetchAttempt(r.url, r.handlers, r.params));
