/**
 * `encoding: json`, the default: one JSON document per message (protocol/wire.ts BatchMessage),
 * a line of a byte stream (NDJSON). Bytes are counted as the messages' characters.
 */
import type { BatchMessage } from '../../../protocol/wire.js';
import { MESSAGE_READING, type BatchSink, type PageCodec, type StreamDecoder } from './codec.js';

/** Splits a byte stream of lines into messages, across chunk boundaries. */
export class LineReader {
  private readonly decoder = new TextDecoder();
  private rest = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Uint8Array): void {
    const text = this.rest + this.decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      if (nl > from) this.onLine(text.slice(from, nl));
      from = nl + 1;
    }
    this.rest = text.slice(from);
  }
}

function jsonDecoder(sink: BatchSink<BatchMessage>): StreamDecoder {
  const message = (data: string | ArrayBuffer) => {
    const text = data as string;
    let msg: BatchMessage;
    try {
      msg = JSON.parse(text) as BatchMessage;
    } catch {
      sink.undecodable();
      return;
    }
    sink.bytes(text.length);
    sink.batch(msg);
  };
  return {
    message,
    async stream(chunks) {
      const lines = new LineReader(message);
      for await (const chunk of chunks) lines.push(chunk);
    },
    rows: (msg) => sink.batch(msg),
  };
}

export const jsonCodec: PageCodec<BatchMessage> = { open: jsonDecoder, ...MESSAGE_READING };
