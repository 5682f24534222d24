/**
 * `encoding: arrow` (../arrow.ts has the encoding, protocol/arrow.ts the format): each size's
 * record batches are built before the first stream of that size opens; a stream's first message
 * carries the schema and dictionaries before its batch. In an envelope the head is left out: the
 * envelope's own fields carry `seq`, `sentAt` and `dueAt`.
 */
import { arrowCache, ArrowStream } from '../arrow.js';
import type { ServerCodec } from './codec.js';

const NO_TAIL = Buffer.alloc(0);

export const arrowCodec: ServerCodec = {
  async prepare(pool, batch, sizesInUse) {
    const cache = arrowCache(pool);
    cache.inUse = sizesInUse;
    await cache.load(batch);
  },
  open() {
    const stream = new ArrowStream();
    return { write: (seq, sentAt, dueAt, pool, batch, send) => stream.write(seq, sentAt, dueAt, pool, batch, (head, body) => send(head, body, NO_TAIL)) };
  },
};
