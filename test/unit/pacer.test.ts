import { describe, expect, it } from 'vitest';
import { CATCH_UP_MS, maxBurst } from '../../protocol/pacing.js';
import { batchesDue, nextDueMs } from '../../protocol/pace.js';
import { batchesThisTick, shouldShed } from '../../server/pacer.js';

describe('batchesDue', () => {
  it('has the first batch due at 0 and one more per interval', () => {
    expect(batchesDue(0, 1)).toBe(1);
    expect(batchesDue(0.999, 1)).toBe(1);
    expect(batchesDue(1, 1)).toBe(2);
    expect(batchesDue(100, 1)).toBe(101);
    expect(batchesDue(49.9, 50)).toBe(1);
    expect(batchesDue(50, 50)).toBe(2);
    expect(batchesDue(1, 0.05)).toBe(21);
  });

  it('has nothing due before the start', () => {
    expect(batchesDue(-0.001, 1)).toBe(0);
    expect(batchesDue(-100, 1)).toBe(0);
  });

  it('counts a batch due exactly now despite floating-point error', () => {
    // 0.3 / 0.1 is 2.9999999999999996 in doubles; batch 3 is due at 0.3 ms.
    expect(batchesDue(0.3, 0.1)).toBe(4);
    expect(batchesDue(0.7, 0.1)).toBe(8);
  });

  it('agrees with nextDueMs: batch n is due exactly at nextDueMs(n)', () => {
    for (const interval of [0.05, 0.1, 0.3, 1, 7, 50]) {
      for (let n = 0; n < 200; n++) {
        const at = nextDueMs(n, interval);
        expect(batchesDue(at, interval)).toBe(n + 1);
      }
    }
  });
});

describe('nextDueMs', () => {
  it('is generated × interval', () => {
    expect(nextDueMs(0, 1)).toBe(0);
    expect(nextDueMs(3, 2)).toBe(6);
    expect(nextDueMs(10, 0.5)).toBe(5);
  });
});

describe('maxBurst', () => {
  it('allows about CATCH_UP_MS of batches per tick, never fewer than 4', () => {
    expect(maxBurst(CATCH_UP_MS / 10)).toBe(10);
    expect(maxBurst(1)).toBe(4);
    expect(maxBurst(50)).toBe(4);
    expect(maxBurst(60_000)).toBe(4);
    expect(maxBurst(0.5)).toBe(8);
    expect(maxBurst(0.3)).toBe(14);
    expect(maxBurst(0.05)).toBe(80);
  });
});

describe('batchesThisTick', () => {
  it('sends what is due, up to the burst', () => {
    expect(batchesThisTick(0, 1, 4)).toBe(1);
    expect(batchesThisTick(0, 3, 4)).toBe(3);
    expect(batchesThisTick(2, 6, 4)).toBe(4);
    expect(batchesThisTick(0, 100, 4)).toBe(4);
    expect(batchesThisTick(0, 100, 80)).toBe(80);
  });

  it('sends nothing when on or ahead of schedule', () => {
    expect(batchesThisTick(5, 5, 4)).toBe(0);
    expect(batchesThisTick(7, 5, 4)).toBe(0);
    expect(batchesThisTick(0, 0, 4)).toBe(0);
  });

  it('catches up on a stall over several ticks without exceeding the burst', () => {
    // A 20 ms stall at 1 ms: 21 batches due at once, then one more per tick.
    let generated = 0;
    let due = 21;
    const sent: number[] = [];
    for (;;) {
      const n = batchesThisTick(generated, due, maxBurst(1));
      sent.push(n);
      generated += n;
      if (generated === due || sent.length > 100) break;
      due += 1;
    }
    expect(sent).toEqual([4, 4, 4, 4, 4, 4, 3]);
  });
});

describe('shouldShed', () => {
  it('sheds only once the queue is over the limit', () => {
    expect(shouldShed(0, 1024)).toBe(false);
    expect(shouldShed(1024, 1024)).toBe(false);
    expect(shouldShed(1025, 1024)).toBe(true);
    expect(shouldShed(1, 0)).toBe(true);
    expect(shouldShed(0, 0)).toBe(false);
  });
});
