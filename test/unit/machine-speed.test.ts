/** The run's own yardstick: an in-page ceiling that moves between rounds says the machine changed speed. */
import { describe, expect, it } from 'vitest';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { Round } from '../../protocol/report.js';
import { SPEED_CHANGE_RATIO, speedChanges, speedChangeText } from '../../results/machine-speed.js';

const ceiling = (batch: number, eventsPerSec: number, encoding?: 'arrow'): ParseCeiling => ({
  batch,
  eventsPerSec,
  messages: 64,
  bytesPerMessage: 1000,
  durationMs: 1000,
  ...(encoding ? { encoding } : {}),
});
const round = (index: number, parseCeilings: ParseCeiling[], more: Partial<Round> = {}): Round => ({
  index,
  seed: 1,
  order: [],
  startedAt: '',
  finishedAt: null,
  parseCeilings,
  ...more,
});

describe('speedChanges', () => {
  it('says nothing when every ceiling held within the ratio, or was measured once', () => {
    expect(speedChanges([round(0, [ceiling(20, 4.0e6), ceiling(400, 4.2e6)]), round(1, [ceiling(20, 4.1e6), ceiling(400, 3.95e6)])])).toEqual([]);
    expect(speedChanges([round(0, [ceiling(20, 4e6)])])).toEqual([]);
    // Just under the ratio: not a change; at it: one.
    expect(speedChanges([round(0, [ceiling(20, 1.2499e6)]), round(1, [ceiling(20, 1e6)])])).toEqual([]);
    expect(speedChanges([round(0, [ceiling(20, SPEED_CHANGE_RATIO * 1e6)]), round(1, [ceiling(20, 1e6)])])).toHaveLength(1);
  });

  it('names the batch size that moved most, its fastest and slowest rounds (the 2026-11-27 default sweep)', () => {
    const rounds = [
      round(0, [ceiling(20, 2.13e6), ceiling(400, 2.28e6)]),
      round(1, [ceiling(20, 1.27e6), ceiling(400, 2.2e6)]),
      round(2, [ceiling(20, 1.03e6), ceiling(400, 1.66e6)]),
    ];
    const [c, ...rest] = speedChanges(rounds);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ source: null, encoding: 'json', batch: 20, fast: { round: 0, eventsPerSec: 2.13e6 }, slow: { round: 2, eventsPerSec: 1.03e6 } });
    expect(speedChangeText(c)).toBe(
      'unsteady machine: the in-page JSON.parse ceiling at batch 20 (no network, the same work every round) was 2.13 M events/s in round 1 and 1.03 M events/s in round 3 (52% lower): it did not keep one speed; ' +
        'verdicts paired by round still hold, but medians over rounds mix a faster machine with a slower one: rerun on a quiet machine before quoting them',
    );
  });

  it('never compares one encoding with another, and reads each sharded browser and each other engine on its own', () => {
    // Arrow's ceiling is 40× JSON's: different yardsticks, not a change.
    expect(speedChanges([round(0, [ceiling(4000, 4e6)]), round(1, [ceiling(4000, 160e6, 'arrow')])])).toEqual([]);
    const rounds = [
      round(0, [], {
        hostCeilings: [
          { browser: 'grid-1', parseCeilings: [ceiling(20, 1e6)] },
          { browser: 'grid-2', parseCeilings: [ceiling(100, 1e6)] },
        ],
        engineCeilings: [{ engine: 'firefox', parseCeilings: [ceiling(20, 2e6)] }],
      }),
      round(1, [], {
        hostCeilings: [
          { browser: 'grid-1', parseCeilings: [ceiling(20, 0.5e6)] },
          { browser: 'grid-2', parseCeilings: [ceiling(100, 0.95e6)] },
        ],
        engineCeilings: [{ engine: 'firefox', parseCeilings: [ceiling(20, 1e6)] }],
      }),
    ];
    const changes = speedChanges(rounds);
    expect(changes.map((c) => c.source)).toEqual(['grid-1', 'Firefox']);
    expect(speedChangeText(changes[0])).toMatch(/^unsteady machine \(browser grid-1\): /);
    expect(speedChangeText(changes[1])).toMatch(/^unsteady machine \(in Firefox\): /);
  });
});
