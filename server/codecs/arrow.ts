/**
 * `encoding: arrow` (../arrow.ts has the encoding, protocol/arrow.ts the format): each size's
 * record batches are built before the first stream of that size opens; a stream's first message
 * carries the schema and dictionaries before its batch. In an envelope the head is left out: the
 * envelope's own fields carry `seq`, `sentAt` and `dueAt`.
 *
 * ../arrow.ts (and apache-arrow, about 0.2 s to import here) loads on the first Arrow stream's
 * prepare, not at start-up: most runs never ask for Arrow, and every run waits for the server.
 */
import type { ServerCodec } from './codec.js';

const NO_TAIL = Buffer.alloc(0);

type ArrowModule = typeof import('../arrow.js');
let arrow: ArrowModule | null = null;

export const arrowCodec: ServerCodec = {
  async prepare(pool, batch, sizesInUse) {
    arrow ??= await import('../arrow.js');
    const cache = arrow.arrowCache(pool);
    cache.inUse = sizesInUse;
    await cache.load(batch);
  },
  open() {
    // Every transport that carries Arrow prepares a stream before it opens it (hub.prepare).
    if (!arrow) throw new Error('an Arrow stream opened before its codec prepared it (hub.prepare)');
    const stream = new arrow.ArrowStream();
    return { write: (seq, sentAt, dueAt, pool, batch, send) => stream.write(seq, sentAt, dueAt, pool, batch, (head, body) => send(head, body, NO_TAIL)) };
  },
};
