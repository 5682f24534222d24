/**
 * protocol/arrow.ts arrowTiling: which record batches one Arrow size is encoded into, and which a
 * send takes, for batches up to an epoch (each epoch tiled) and past it (the epochs' rows tiled).
 */
import { describe, expect, it } from 'vitest';
import { arrowBatchStart, arrowTiling } from '../../protocol/arrow.js';

const POOL = 10_000;
const EPOCHS = 30;

describe('arrowTiling', () => {
  it('up to an epoch: each epoch tiled by whole batches, a send taking the current epoch’s, as arrowBatchStart says', () => {
    for (const batch of [16, 400, 3000, 10_000]) {
      const t = arrowTiling(batch, POOL, EPOCHS);
      expect(t.count).toBe(EPOCHS * Math.floor(POOL / batch));
      for (const epoch of [0, 7, EPOCHS - 1])
        for (const seq of [0, 1, 5, 123]) expect(t.row(t.index(seq, epoch))).toBe(epoch * POOL + arrowBatchStart(seq, batch, POOL));
    }
  });

  it('past an epoch: at most the epochs’ rows held, every batch within them, and a send holds the current second’s first row', () => {
    for (const batch of [10_001, 25_000, 40_000, 100_000]) {
      const t = arrowTiling(batch, POOL, EPOCHS);
      expect(t.count).toBe(Math.floor((EPOCHS * POOL) / batch));
      expect(t.count * batch).toBeLessThanOrEqual(EPOCHS * POOL);
      expect(t.row(t.count - 1) + batch).toBeLessThanOrEqual(EPOCHS * POOL);
      const lastWhole = Math.floor((t.count * batch) / POOL);
      for (let epoch = 0; epoch < EPOCHS; epoch++) {
        const i = t.index(0, epoch);
        expect(i).toBeGreaterThanOrEqual(0);
        expect(i).toBeLessThan(t.count);
        // Its rows hold the epoch's first row, but for the epochs past the last whole batch, which take the last.
        if (epoch < lastWhole) expect(t.row(i) <= epoch * POOL && epoch * POOL < t.row(i) + batch, `batch ${batch} epoch ${epoch}`).toBe(true);
        else expect(i).toBe(t.count - 1);
      }
    }
  });

  it('a batch past all the epochs’ rows (a small pool, a short file cycle): one batch, from the first row', () => {
    const t = arrowTiling(5000, 1000, 3);
    expect(t.count).toBe(1);
    expect([t.row(0), t.index(7, 2)]).toEqual([0, 0]);
  });
});
