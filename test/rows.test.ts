import { describe, expect, it } from 'vitest';
import { type Row, STREAM_LIMITS, makeRow } from '../protocol/wire.js';
import { RowPool } from '../server/rows.js';

const EPOCH = Date.UTC(2022, 2, 29, 20, 35, 56, 581);

/** The rows of one batch, parsed the way the page parses them. */
function parse(bytes: Buffer): Row[] {
  return JSON.parse(`[${bytes.toString('latin1')}]`) as Row[];
}

/** The row ids batch `seq` must carry: `batch` consecutive ids from (seq·batch) mod size, wrapping. */
function expectedIds(seq: number, batch: number, size: number): number[] {
  return Array.from({ length: batch }, (_, k) => (seq * batch + k) % size);
}

describe('RowPool.rows (small pool)', () => {
  const pool = new RowPool(7, EPOCH);

  it('cuts exactly `batch` rows, as `row,row,…` without brackets', () => {
    const bytes = pool.rows(0, 3);
    const text = bytes.toString('latin1');
    expect(text.startsWith('[0,')).toBe(true);
    expect(text.endsWith('"another field"]')).toBe(true);
    expect(text).toBe([0, 1, 2].map((i) => JSON.stringify(makeRow(i, EPOCH))).join(','));
  });

  it('starts batch seq at row (seq·batch) mod size, wrapping around the end', () => {
    for (const batch of [1, 2, 3, 5, 7]) {
      for (let seq = 0; seq < 20; seq++) {
        expect(parse(pool.rows(seq, batch)).map((r) => r[0])).toEqual(expectedIds(seq, batch, 7));
      }
    }
    // 2·3 = 6: the last row, then the first two.
    expect(parse(pool.rows(2, 3)).map((r) => r[0])).toEqual([6, 0, 1]);
  });

  it('serves the same rows makeRow builds, on both sides of the wrap', () => {
    expect(parse(pool.rows(2, 3))).toEqual([6, 0, 1].map((i) => makeRow(i, EPOCH)));
  });

  it('serves the whole pool when batch equals its size', () => {
    expect(parse(pool.rows(0, 7)).map((r) => r[0])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(parse(pool.rows(5, 7)).map((r) => r[0])).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('has a byte length of the rows plus one comma between each', () => {
    const bytes = pool.rows(3, 4);
    const rows = expectedIds(3, 4, 7).map((i) => JSON.stringify(makeRow(i, EPOCH)));
    expect(bytes.length).toBe(rows.reduce((n, r) => n + r.length, 0) + rows.length - 1);
  });
});

describe('RowPool.rows (default pool)', () => {
  const pool = new RowPool();
  const max = STREAM_LIMITS.batch.max;

  it('holds as many rows as the largest batch', () => {
    expect(pool.size).toBe(max);
  });

  it('serves the maximum batch of 10000 rows, valid JSON, for any seq', () => {
    for (const seq of [0, 1, 12_345]) {
      const rows = parse(pool.rows(seq, max));
      expect(rows).toHaveLength(max);
      expect(rows[0][0]).toBe(0);
      expect(rows[max - 1][0]).toBe(max - 1);
    }
  });

  it('wraps batches that do not divide the pool size', () => {
    // 1428·7 = 9996: rows 9996..9999 then 0..2.
    expect(parse(pool.rows(1428, 7)).map((r) => r[0])).toEqual([9996, 9997, 9998, 9999, 0, 1, 2]);
    // 3333·3 = 9999: the last row, then 0 and 1.
    expect(parse(pool.rows(3333, 3)).map((r) => r[0])).toEqual([9999, 0, 1]);
    expect(parse(pool.rows(3334, 3)).map((r) => r[0])).toEqual(expectedIds(3334, 3, max));
  });

  it('gives every batch exactly `batch` rows with consecutive ids across many seqs', () => {
    const wrong: string[] = [];
    for (const batch of [1, 3, 7, 64, 999, 4096, 9999]) {
      for (let seq = 0; seq < 12; seq++) {
        const ids = parse(pool.rows(seq, batch)).map((r) => r[0]);
        const want = expectedIds(seq, batch, max);
        if (ids.length !== want.length || ids.some((id, k) => id !== want[k])) wrong.push(`seq ${seq} batch ${batch}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('returns row 9999 exactly as makeRow builds it', () => {
    expect(parse(pool.rows(9999, 1))).toEqual([makeRow(9999, EPOCH)]);
  });

  it('shares the bytes of one pool rather than copying (zero-copy subarray)', () => {
    const a = pool.rows(4, 10);
    const b = pool.rows(4, 10);
    expect(a.buffer).toBe(b.buffer);
    expect(a.byteOffset).toBe(b.byteOffset);
    expect(a.equals(b)).toBe(true);
  });
});
