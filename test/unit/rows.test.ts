import { describe, expect, it } from 'vitest';
import { type Row, SPEED_COLUMN, STREAM_LIMITS, makeRow } from '../../protocol/wire.js';
import { closedWalk, POOL_ROWS, RowPool, SPEED_EPOCHS } from '../../server/rows.js';

const EPOCH = Date.UTC(2022, 2, 29, 20, 35, 56, 581);

/** The rows of one batch, parsed the way the page parses them. */
function parse(bytes: Buffer): Row[] {
  return JSON.parse(`[${bytes.toString('latin1')}]`) as Row[];
}

const withoutSpeed = (r: Row) => r.map((v, i) => (i === SPEED_COLUMN ? 0 : v));

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

  it("serves the same rows makeRow builds, on both sides of the wrap (past it, the next second's speeds)", () => {
    const rows = parse(pool.rows(2, 3));
    expect(rows[0]).toEqual(makeRow(6, EPOCH));
    expect(rows.map(withoutSpeed)).toEqual([6, 0, 1].map((i) => withoutSpeed(makeRow(i, EPOCH))));
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

  it('holds POOL_ROWS rows an epoch, fewer than the largest batch, and a tail of the largest batch', () => {
    expect(pool.size).toBe(POOL_ROWS);
    expect(max).toBeGreaterThan(POOL_ROWS);
    expect(pool.maxBatch).toBe(max);
    expect(pool.chainRows).toBe(SPEED_EPOCHS * POOL_ROWS + max);
  });

  it('serves the maximum batch of 100,000 rows as one valid JSON slice in every epoch, its ids cycling the pool', () => {
    const wrong: string[] = [];
    for (const second of [0, 1, SPEED_EPOCHS - 1]) {
      pool.useEpochAt(second * 1000);
      for (const seq of [0, 1, 12_345]) {
        const rows = parse(pool.rows(seq, max));
        const want = expectedIds(seq, max, POOL_ROWS);
        if (rows.length !== max || rows.some((r, k) => r[0] !== want[k] || r.length !== 12)) wrong.push(`second ${second} seq ${seq}`);
      }
    }
    pool.useEpochAt(0);
    expect(wrong).toEqual([]);
  });

  it('a batch larger than the pool repeats each row id, with the speeds of the seconds it runs into', () => {
    // From the last epoch a 100,000-row batch runs into epochs 0..9 of the next cycle: row 0 appears 10 times.
    pool.useEpochAt((SPEED_EPOCHS - 1) * 1000);
    const rows = parse(pool.rows(0, max));
    pool.useEpochAt(0);
    const zeros = rows.filter((r) => r[0] === 0);
    expect(zeros).toHaveLength(max / POOL_ROWS);
    expect(zeros.map(withoutSpeed)).toEqual(zeros.map(() => withoutSpeed(makeRow(0, EPOCH))));
    // The tail continues the walk: its first rows are epoch 0's, exactly makeRow's.
    expect(rows[POOL_ROWS]).toEqual(makeRow(0, EPOCH));
  });

  it('refuses a batch past its tail rather than cutting it short', () => {
    expect(() => pool.rows(0, max + 1)).toThrow(`batch ${max + 1} is more than the pool's largest, ${max}`);
  });

  it('wraps batches that do not divide the pool size', () => {
    // 1428·7 = 9996: rows 9996..9999 then 0..2.
    expect(parse(pool.rows(1428, 7)).map((r) => r[0])).toEqual([9996, 9997, 9998, 9999, 0, 1, 2]);
    // 3333·3 = 9999: the last row, then 0 and 1.
    expect(parse(pool.rows(3333, 3)).map((r) => r[0])).toEqual([9999, 0, 1]);
    expect(parse(pool.rows(3334, 3)).map((r) => r[0])).toEqual(expectedIds(3334, 3, POOL_ROWS));
  });

  it('gives every batch exactly `batch` rows with consecutive ids across many seqs', () => {
    const wrong: string[] = [];
    for (const batch of [1, 3, 7, 64, 999, 4096, 9999, 10_001, 40_000]) {
      for (let seq = 0; seq < 12; seq++) {
        const ids = parse(pool.rows(seq, batch)).map((r) => r[0]);
        const want = expectedIds(seq, batch, POOL_ROWS);
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

describe('RowPool speed walk', () => {
  const pool = new RowPool(50, EPOCH, 6);
  const at = (second: number, seq: number, batch: number) => {
    pool.useEpochAt(second * 1000 + 500);
    return parse(pool.rows(seq, batch));
  };

  it('changes only the speed column from one second to the next', () => {
    const a = at(0, 0, 50);
    const b = at(1, 0, 50);
    expect(b.map(withoutSpeed)).toEqual(a.map(withoutSpeed));
    expect(b.filter((r, i) => r[SPEED_COLUMN] !== a[i][SPEED_COLUMN]).length).toBeGreaterThan(40);
    expect(b.every((r) => Number.isInteger(r[SPEED_COLUMN]) && r[SPEED_COLUMN] >= 1)).toBe(true);
  });

  it('starts from makeRow and repeats every `epochs` seconds', () => {
    expect(at(0, 0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => makeRow(i, EPOCH)));
    expect(at(7, 3, 20)).toEqual(at(1, 3, 20));
  });

  it('keeps a batch that wraps past the pool end contiguous, ids in order', () => {
    const rows = at(5, 3, 20); // rows 10..29 of second 5
    expect(rows.map((r) => r[0])).toEqual(expectedIds(3, 20, 50));
    const across = at(5, 1, 40); // rows 40..49, then 0..29
    expect(across.map((r) => r[0])).toEqual(expectedIds(1, 40, 50));
  });

  it('walks closed: the step after the last second returns to the start', () => {
    const w = closedWalk(30, 3, () => 0.9);
    expect(w[0]).toBe(0);
    expect(w).toHaveLength(30);
    // Constant steps minus their mean are all zero: a closed walk of identical steps stays flat.
    expect(w.every((x) => Math.abs(x) < 1e-9)).toBe(true);
  });
});
