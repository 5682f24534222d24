/** bench:soak's start-vs-end drift: the means of the first and last 10% of the samples. */
import { describe, expect, it } from 'vitest';
import { drift, driftLine } from '../../bench/drift.js';

describe('drift', () => {
  it('compares the mean of the first 10% of the samples with the mean of the last 10%', () => {
    const values = [100, 102, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 104, 106];
    expect(drift(values)).toEqual({ n: 2, start: 101, end: 105, change: 4 / 101 });
  });

  it('takes at least one sample at each end, never the same one twice', () => {
    expect(drift([10, 11])).toEqual({ n: 1, start: 10, end: 11, change: 0.1 });
    expect(drift([10, 99, 12])).toEqual({ n: 1, start: 10, end: 12, change: 0.2 });
    expect(drift([10])).toBeNull();
  });

  it('says pass under 5% and fail at 5% or more, either way', () => {
    const f = (x: number) => x.toFixed(0);
    expect(driftLine('EPS', drift([100, 104.9]), f, 2)).toBe('EPS: 100 → 105 (+4.9%; mean of the first vs the last 1 of 2 samples); drift under 5%: pass');
    expect(driftLine('EPS', drift([100, 95]), f, 2)).toBe('EPS: 100 → 95 (−5.0%; mean of the first vs the last 1 of 2 samples); drift under 5%: fail');
    expect(driftLine('p99', drift([0, 1]), f, 2)).toMatch(/drift under 5%: fail$/);
    expect(driftLine('p99', null, f, 1)).toBe('p99: too few samples for a drift (1); drift under 5%: not judged');
  });
});
