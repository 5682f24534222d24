/** `--find-max` against fake runners whose sustainable limit is known. */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../protocol/random.js';
import { describe as stat } from '../../results/stats.js';
import { findMax, logMidpoint, type FindMaxOptions } from '../../puppeteer/sweep/find-max.js';

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

  it('returns no knee when the minimum is not sustainable, once repeats confirm it', async () => {
    const { options, calls } = fakeRunner(0.5);
    const out = await findMax(options);
    expect(out.knee).toBeNull();
    expect(out.firstPast).toEqual({ value: 1, reason: 'confirm failed at 1' });
    // One failed window at the minimum is not enough to give up the whole range.
    expect(calls).toEqual(['probe 1', 'confirm 1']);
  });

  it('goes on when the minimum failed one window but holds over repeats', async () => {
    const { options, calls } = fakeRunner(137);
    const probe = options.probe;
    const out = await findMax({
      ...options,
      probe: async (v) => (v === 1 ? { sustainable: false, eventsPerSec: 900, reason: 'p99 60 ms > 50 ms' } : probe(v)),
    });
    expect(calls.slice(0, 3)).toEqual(['confirm 1', 'probe 1000', 'probe 32']);
    expect(out.knee!.value).toBeLessThanOrEqual(137);
    expect(out.knee!.value * 1.15).toBeGreaterThanOrEqual(137);
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

  it('with two confirmations, spends the second on the minimum: nothing held, and it says so', async () => {
    const { options } = fakeRunner(137, { confirmFailsAt: new Set(Array.from({ length: 200 }, (_, i) => i)) });
    const out = await findMax({ ...options, maxConfirms: 2 });
    expect(out.knee).toBeNull();
    expect(out.confirmations.map((c) => c.value)).toEqual([130, 1]);
    expect(out.firstPast).toEqual({ value: 1, reason: 'confirm failed at 1' });
    expect(out.stopped).toBeNull();
  });

  it('ends at the highest value that held when the probes were optimistic (issue 24: ws knee-batch)', async () => {
    // As measured: probes found 10, 32, 57 and 65 sustainable, but over repeats only values up
    // to 30 hold (p99 54–204 ms above). The old search confirmed 65, 57, 32 and reported nothing.
    const probeLimit = 66;
    const holdLimit = 30;
    const calls: string[] = [];
    const out = await findMax({
      min: 10,
      max: 1000,
      integer: true,
      async probe(v) {
        calls.push(`probe ${v}`);
        return { sustainable: v <= probeLimit, eventsPerSec: v * 1000, reason: v <= probeLimit ? 'ok' : 'p99 90 ms > 50 ms' };
      },
      async confirm(v) {
        calls.push(`confirm ${v}`);
        const ok = v <= holdLimit;
        return { sustainable: ok, eventsPerSec: stat([v * 1000, v * 1000]), reason: ok ? 'held' : `median p99 ${v * 2} ms > 50 ms` };
      },
    });
    expect(out.probes.filter((p) => p.sustainable).map((p) => p.value)).toEqual([10, 32, 57, 65]);
    expect(out.confirmations.slice(0, 3).map((c) => [c.value, c.sustainable])).toEqual([
      [65, false],
      [57, false],
      [10, true],
    ]);
    expect(out.knee!.value).toBeLessThanOrEqual(holdLimit);
    expect(out.knee!.value * 1.15).toBeGreaterThanOrEqual(holdLimit);
    expect(out.firstPast!.value).toBeGreaterThan(holdLimit);
    expect(out.firstPast!.value / out.knee!.value).toBeLessThanOrEqual(1.15);
    expect(out.confirmations.length).toBeLessThanOrEqual(8);
    expect(out.stopped).toBeNull();
  });

  it('finds the repeat-level knee with a noisy measurer: probes and confirmations both noisy, never past it', async () => {
    // The world: a value holds when its true p99 (grows past the knee) is in the bound. A window
    // sees p99 × noise of ±40%; a confirmation sees the median of 3 such windows.
    const knee = 80;
    const p99 = (v: number) => 30 * (v / knee) ** 2;
    for (let seed = 1; seed <= 30; seed++) {
      const random = mulberry32(seed);
      const window = (v: number) => p99(v) * (0.6 + 0.8 * random());
      const out = await findMax({
        min: 5,
        max: 2000,
        integer: true,
        async probe(v) {
          const ok = window(v) <= 30;
          return { sustainable: ok, eventsPerSec: v, reason: ok ? 'ok' : 'p99 over' };
        },
        async confirm(v) {
          const windows = [window(v), window(v), window(v)].sort((a, b) => a - b);
          const ok = windows[1] <= 30;
          return { sustainable: ok, eventsPerSec: stat([v, v, v]), reason: ok ? 'held' : 'median p99 over' };
        },
      });
      // The median of three windows at ±40% noise moves the apparent knee by at most √1.4; the
      // search must end within that of the truth, and never with nothing while the minimum holds.
      expect(out.knee, `seed ${seed}`).not.toBeNull();
      expect(out.knee!.value, `seed ${seed}`).toBeGreaterThanOrEqual(Math.floor(knee / Math.sqrt(1.4) / 1.15));
      expect(out.knee!.value, `seed ${seed}`).toBeLessThanOrEqual(Math.ceil(knee * Math.sqrt(1 / 0.6)));
    }
  });

  it('stops when canStart refuses, keeping what held', async () => {
    const { options } = fakeRunner(137, { confirmFailsAt: new Set([130]) });
    let measurements = 0;
    const out = await findMax({ ...options, canStart: () => ++measurements <= 9 });
    // 8 probes, then one confirmation (130, failed); the step down to 117 is refused.
    expect(out.probes).toHaveLength(8);
    expect(out.confirmations.map((c) => c.value)).toEqual([130]);
    expect(out.knee).toBeNull();
    expect(out.stopped).toBe('budget');
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
