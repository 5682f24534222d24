import { describe, expect, it } from 'vitest';
import { selfTimes, type CpuProfile } from '../../bench/cpu-profile.js';

const frame = (id: number, functionName: string, url = '', lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber } });

describe('selfTimes', () => {
  const profile: CpuProfile = {
    nodes: [
      frame(1, '(root)'),
      frame(2, '(idle)'),
      frame(3, 'writev'),
      frame(4, 'tick', 'file:///home/user/pushlab/server/hub.ts', 99),
      frame(5, '', 'file:///x/y/z.ts', 4),
    ],
    // Node 3 twice, 4 once, 5 once, idle once; deltas in µs.
    samples: [3, 2, 4, 3, 5],
    timeDeltas: [3000, 50_000, 1000, 3000, 2000],
  };

  it('sums self time per frame, leaves idle out, and shares the busy time', () => {
    const { busyMs, top } = selfTimes(profile);
    expect(busyMs).toBe(9);
    expect(top.map((t) => [t.frame, t.ms])).toEqual([
      ['writev', 6],
      ['(anonymous) y/z.ts:5', 2],
      ['tick server/hub.ts:100', 1],
    ]);
    expect(top[0].share).toBeCloseTo(6 / 9, 10);
  });

  it('merges nodes of the same function (one per call path) into one frame', () => {
    const twice: CpuProfile = { nodes: [frame(1, 'f', 'a/b.ts', 1), frame(2, 'f', 'a/b.ts', 1)], samples: [1, 2], timeDeltas: [500, 1500] };
    expect(selfTimes(twice).top).toEqual([{ frame: 'f a/b.ts:2', ms: 2, share: 1 }]);
  });
});
