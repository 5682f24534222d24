/**
 * `encoding: msgpack`: the JSON message's shape in MessagePack (server/msgpack.ts), decoded with
 * @msgpack/msgpack; self-delimiting, so a byte stream is decoded as it arrives.
 */
import { decode, decodeMultiStream } from '@msgpack/msgpack';
import type { BatchMessage } from '../../../protocol/wire.js';
import { counted, MESSAGE_READING, type PageCodec } from './codec.js';

export const msgpackCodec: PageCodec<BatchMessage> = {
  open: (sink) => ({
    message(data) {
      const bytes = new Uint8Array(data as ArrayBuffer);
      sink.bytes(bytes.byteLength);
      let msg: BatchMessage;
      try {
        msg = decode(bytes) as BatchMessage;
      } catch {
        sink.undecodable();
        return;
      }
      sink.batch(msg);
    },
    async stream(chunks) {
      for await (const m of decodeMultiStream(counted(chunks, (n) => sink.bytes(n)))) sink.batch(m as BatchMessage);
    },
  }),
  ...MESSAGE_READING,
};
