/**
 * `encoding: msgpack` (../msgpack.ts has the format): a head, then a slice of the pool's rows in
 * MessagePack. Self-delimiting, so a byte stream puts nothing between batches.
 */
import { msgpackHead, msgpackRows } from '../msgpack.js';
import type { ServerCodec, StreamEncoder } from './codec.js';

const NO_TAIL = Buffer.alloc(0);

const ENCODER: StreamEncoder = {
  write: (seq, sentAt, dueAt, pool, batch, send) => send(msgpackHead(seq, Number(sentAt), Number(dueAt), batch), msgpackRows(pool, seq, batch), NO_TAIL),
};

export const msgpackCodec: ServerCodec = { open: () => ENCODER };
