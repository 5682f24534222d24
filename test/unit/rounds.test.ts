/** Round order: every point once per round, pairs adjacent, reproducible, the pair's first transport alternating. */
import { describe, expect, it } from 'vitest';
import { expandScenario, type Point } from '../../protocol/scenario.js';
import { pairKey, roundOrder, roundSeed } from '../../results/rounds.js';

const points: Point[] = [
  ...expandScenario({ id: 'test1-batch', batch: [1, 50, 400], concurrency: 10, transport: ['ws', 'sse'] }),
  ...expandScenario({ id: 'test2-concurrency', batch: 50, concurrency: [10, 60], transport: ['ws', 'sse'] }),
  ...expandScenario({ id: 'solo', batch: 20, concurrency: 4, transport: 'ws' }),
];
const ids = (ps: Point[]) => ps.map((p) => p.id);

describe('roundOrder', () => {
  it('measures every point exactly once per round', () => {
    for (let round = 0; round < 6; round++) {
      expect(ids(roundOrder(points, round, 7)).sort()).toEqual(ids(points).sort());
    }
  });

  it('keeps points that differ only in transport adjacent', () => {
    for (let round = 0; round < 6; round++) {
      const order = roundOrder(points, round, 7);
      for (const p of points) {
        const partners = order
          .map((q, i) => ({ q, i }))
          .filter(({ q }) => pairKey(q) === pairKey(p))
          .map(({ i }) => i);
        expect(Math.max(...partners) - Math.min(...partners)).toBe(partners.length - 1);
      }
    }
  });

  it('is reproducible from the seed, and differs between seeds and between rounds', () => {
    expect(ids(roundOrder(points, 2, 42))).toEqual(ids(roundOrder([...points], 2, 42)));
    const bySeed = new Set([1, 2, 3, 4, 5].map((seed) => ids(roundOrder(points, 0, seed)).join()));
    expect(bySeed.size).toBeGreaterThan(1);
    for (let round = 1; round < 10; round++) {
      expect(ids(roundOrder(points, round, 42))).not.toEqual(ids(roundOrder(points, round - 1, 42)));
    }
  });

  it('alternates which transport of a pair goes first', () => {
    const firsts = [0, 1, 2, 3].map((round) => {
      const order = roundOrder(points, round, 9);
      return order.find((p) => p.batch === 400)!.transport;
    });
    expect(firsts).toEqual(['ws', 'sse', 'ws', 'sse']);
  });

  it('refuses a negative round', () => {
    expect(() => roundOrder(points, -1, 1)).toThrow(/round must be an integer ≥ 0, got -1/);
  });
});

describe('pairKey', () => {
  it('ignores only the transport, the id and the offered rate', () => {
    const [ws, sse] = expandScenario({ id: 's', batch: 50, concurrency: 10, transport: ['ws', 'sse'] });
    expect(pairKey(ws)).toBe(pairKey(sse));
    expect(pairKey(ws)).not.toBe(pairKey({ ...ws, render: 'none' }));
    expect(pairKey(ws)).not.toBe(pairKey({ ...ws, scenario: 'other' }));
  });
});

describe('roundSeed', () => {
  it('is a deterministic 32-bit number per seed and round', () => {
    expect(roundSeed(42, 3)).toBe(roundSeed(42, 3));
    expect(new Set([0, 1, 2, 3, 4].map((r) => roundSeed(42, r))).size).toBe(5);
    expect(Number.isInteger(roundSeed(42, 3)) && roundSeed(42, 3) >= 0 && roundSeed(42, 3) < 2 ** 32).toBe(true);
  });
});
