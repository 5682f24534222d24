/** `--find-max` against fake runners whose sustainable limit is known. */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../protocol/random.js';
import { describe as stat } from '../protocol/stats.js';
import { findMax, isSustainable, logMidpoint, type FindMaxOptions } from '../puppeteer/find-max.js';

/** A runner that sustains every value up to `limit`; EPS = value × 1000. */
function fakeRunner(limit: number, o: { confirmFailsAt?: Set<number>; noise?: () => number } = {}) {
  const calls: string[] = [];
  const options: FindMaxOptions = {
    min: 1,
    max: 1000,
    integer: true,
    async probe(value) {
      calls.push(`probe ${value}`);
      // Noise moves the apparent limit by up to ±5% per probe, as a busy machine does.
      const apparent = limit * (o.noise ? 1 + 0.05 * (2 * o.noise() - 1) : 1);
      const sustainable = value <= apparent;
      return { sustainable, eventsPerSec: value * 1000, reason: sustainable ? 'ok' : `over ${limit}` };
    },
    async confirm(value) {
      calls.push(`confirm ${value}`);
      const sustainable = value <= limit && !o.confirmFailsAt?.has(value);
      return { sustainable, eventsPerSec: stat([value * 990, value * 1000, value * 1010]), reason: sustainable ? 'ok' : `confirm failed at ${value}` };
    },
  };
  return { options, calls };
}

describe('findMax', () => {
  it('finds a known limit within one bisection step, then confirms it', async () => {
    const { options, calls } = fakeRunner(137);
    const out = await findMax(options);
    expect(out.knee!.value).toBeLessThanOrEqual(137);
    expect(out.firstPast!.value).toBeGreaterThan(137);
    expect(out.firstPast!.value / out.knee!.value).toBeLessThanOrEqual(1.15);
    expect(out.knee!.eventsPerSec.median).toBe(out.knee!.value * 1000);
    expect(out.probes.slice(0, 2).map((p) => p.value)).toEqual([1, 1000]);
    expect(calls.at(-1)).toBe(`confirm ${out.knee!.value}`);
    expect(out.confirmations).toHaveLength(1);
  });

  it('stays within one bisection step of the limit when each probe is noisy', async () => {
    const random = mulberry32(5);
    for (let trial = 0; trial < 20; trial++) {
      const { options } = fakeRunner(137, { noise: random });
      const out = await findMax(options);
      // A probe may see the limit up to 5% off; the bracket then closes to within 15%.
      expect(out.knee!.value).toBeLessThanOrEqual(137);
      expect(out.knee!.value).toBeGreaterThanOrEqual(Math.floor((137 * 0.95) / 1.15));
    }
  });

  it('returns no knee when the minimum is not sustainable', async () => {
    const { options, calls } = fakeRunner(0.5);
    const out = await findMax(options);
    expect(out.knee).toBeNull();
    expect(out.firstPast).toEqual({ value: 1, reason: 'over 0.5' });
    expect(calls).toEqual(['probe 1']);
  });

  it('returns the maximum when the maximum is sustainable', async () => {
    const { options, calls } = fakeRunner(5000);
    const out = await findMax(options);
    expect(out.knee!.value).toBe(1000);
    expect(out.firstPast).toBeNull();
    expect(calls).toEqual(['probe 1', 'probe 1000', 'confirm 1000']);
  });

  it('steps down to the last sustainable probe when a confirmation fails', async () => {
    // Probes: 1 ✓, 1000 ✗, 32 ✓, 179 ✗, 76 ✓, 117 ✓, 145 ✗, 130 ✓ → candidate 130, then 117.
    const { options } = fakeRunner(137, { confirmFailsAt: new Set([130]) });
    const out = await findMax(options);
    expect(out.probes.map((p) => p.value)).toEqual([1, 1000, 32, 179, 76, 117, 145, 130]);
    expect(out.confirmations.map((c) => [c.value, c.sustainable])).toEqual([
      [130, false],
      [117, true],
    ]);
    expect(out.knee!.value).toBe(117);
    expect(out.firstPast).toEqual({ value: 130, reason: 'confirm failed at 130' });
  });

  it('gives up after maxConfirms failed confirmations', async () => {
    const { options } = fakeRunner(137, { confirmFailsAt: new Set(Array.from({ length: 200 }, (_, i) => i)) });
    const out = await findMax({ ...options, maxConfirms: 2 });
    expect(out.knee).toBeNull();
    expect(out.confirmations).toHaveLength(2);
  });

  it('stops at adjacent integers on a narrow range, and bounds its probes', async () => {
    const narrow = await findMax({ ...fakeRunner(3).options, min: 2, max: 5 });
    expect(narrow.knee!.value).toBe(3);
    expect(narrow.firstPast!.value).toBe(4);
    const bounded = await findMax({ ...fakeRunner(137).options, maxProbes: 4 });
    expect(bounded.probes).toHaveLength(4);
  });

  it('refuses a bad range, naming it', async () => {
    await expect(findMax({ ...fakeRunner(3).options, min: 10, max: 5 })).rejects.toThrow(/min must be ≤ max, got min 10 and max 5/);
    await expect(findMax({ ...fakeRunner(3).options, min: 0 })).rejects.toThrow(/min must be an integer ≥ 1, got 0/);
  });
});

describe('logMidpoint', () => {
  it('is the geometric midpoint, strictly inside the bracket', () => {
    expect(logMidpoint(1, 1000)).toBe(32);
    expect(logMidpoint(100, 400)).toBe(200);
    expect(logMidpoint(3, 5)).toBe(4);
  });
});

describe('isSustainable', () => {
  const bound = { deliveredRatio: 0.99, p99BoundMs: 50 } as const;
  it('passes a point that delivered, shed nothing and kept p99 under the bound', () => {
    expect(isSustainable({ deliveredRatio: 0.996, batchesShed: 0, p99Ms: 12.3 }, bound)).toEqual({
      sustainable: true,
      reason: 'delivered 99.6%, nothing shed, p99 12 ms ≤ 50 ms',
    });
  });
  it('names every criterion that failed', () => {
    expect(isSustainable({ deliveredRatio: 0.972, batchesShed: 310, p99Ms: 84 }, bound)).toEqual({
      sustainable: false,
      reason: 'delivered 97.2% < 99%; shed 310 batches; p99 84 ms > 50 ms',
    });
  });
  it('never reads a failure as the bound itself', () => {
    expect(isSustainable({ deliveredRatio: 0.98996, batchesShed: 0, p99Ms: 50.2 }, bound).reason).toBe('delivered 98.9% < 99%; p99 50.2 ms > 50 ms');
    expect(isSustainable({ deliveredRatio: 1, batchesShed: 1, p99Ms: null }, bound).reason).toBe('shed 1 batch; no latency measured');
  });
});
