/** The server's msgpack encoder against the page's decoder (@msgpack/msgpack), over the real row pool. */
import { decode, decodeMulti } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { makeRow, type BatchMessage, type Row } from '../../protocol/wire.js';
import { encodeRow, MSGPACK_HEAD_BYTES, msgpackBytesPerEvent, msgpackHead, msgpackRows } from '../../server/msgpack.js';
import { RowPool } from '../../server/rows.js';

describe('msgpack', () => {
  it('encodes every kind of column as @msgpack/msgpack decodes it', () => {
    const rows: Row[] = [
      makeRow(0, Date.UTC(2022, 2, 29)),
      makeRow(9999, Date.UTC(2022, 2, 29)),
      [70000, 'x'.repeat(40), 1, -1.5, 0.1, 65535, '', 0, 'é', '', 'a', 'b'],
    ];
    for (const row of rows) expect(decode(encodeRow(row))).toEqual(row);
  });

  it('a batch is the head and a slice of the pool: the same rows as the JSON transports send', () => {
    const pool = new RowPool(50, Date.UTC(2022, 2, 29), 3);
    pool.useEpochAt(1000);
    for (const [seq, batch] of [
      [0, 1],
      [3, 7],
      [12, 50],
    ] as const) {
      const head = msgpackHead(seq, 1711745756581.125, 1711745756580.5, batch);
      expect(head.length).toBe(MSGPACK_HEAD_BYTES);
      const m = decode(Buffer.concat([head, msgpackRows(pool, seq, batch)])) as BatchMessage;
      const json = JSON.parse(`{"seq":${seq},"sentAt":1711745756581.125,"dueAt":1711745756580.5,"rows":[${pool.rowsText(seq, batch)}]}`) as BatchMessage;
      expect(m).toEqual(json);
    }
  });

  it('batches back to back decode one by one (the fetch stream)', () => {
    const pool = new RowPool(20, Date.UTC(2022, 2, 29), 2);
    const stream = Buffer.concat([0, 1, 2].flatMap((seq) => [msgpackHead(seq, 1, 0.5, 4), msgpackRows(pool, seq, 4)]));
    expect([...decodeMulti(stream)].map((m) => (m as BatchMessage).seq)).toEqual([0, 1, 2]);
  });

  it("/payload's bytes per event are the mean of the pool's first epoch, as its chain encodes them, without encoding the chain", () => {
    const pool = new RowPool(300, Date.UTC(2022, 2, 29), 4);
    const perEvent = msgpackBytesPerEvent(pool);
    pool.useEpochAt(0);
    expect(perEvent).toBe(msgpackRows(pool, 0, pool.size).byteLength / pool.size);
  });
});
