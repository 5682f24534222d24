/**
 * The machine's drift through an advise search (results/machine-drift.ts): when the yardstick's
 * readings count as an unsteady machine (the sweep's rule and sentence, in the readings' times),
 * the anchor's drift factor (second ÷ first, against the noise of a re-probe within seconds), and
 * the words the terminal and the answer give them.
 */
import { describe, expect, it } from 'vitest';
import type { MachineDrift, YardstickMoment, YardstickReading } from '../../protocol/advice.js';
import { adviceBeforeSearch } from '../../puppeteer/advise/search.js';
import { adviceText } from '../../results/advice-words.js';
import { ANCHOR_NOISE, anchorDriftOf, anchorLine, driftCurveOf, driftLines, keptUp, readingLine, yardstickTexts } from '../../results/machine-drift.js';
import { SPEED_CHANGE_RATIO, speedChanges, speedChangeText } from '../../results/machine-speed.js';
import { failed, measured, point } from '../helpers/v2-fixture.js';

const reading = (index: number, at: YardstickMoment, eventsPerSec: number | null): YardstickReading => ({
  index,
  at,
  measuredAt: `2026-11-27T23:0${index}:00.000Z`,
  tookSec: 1.9,
  parseCeilings: eventsPerSec === null ? [] : [{ batch: 1000, encoding: 'json', eventsPerSec, messages: 4000, bytesPerMessage: 121_000, durationMs: 1000 }],
  ...(eventsPerSec === null ? { error: 'Target closed' } : {}),
});

describe('the yardstick: an unsteady machine', () => {
  it(`counts a move of ${SPEED_CHANGE_RATIO}× or more between any two readings, in the sweep's sentence with the readings' moments`, () => {
    const readings = [
      reading(0, 'start', 2_000_000),
      reading(1, 'screen-confirm', 1_900_000),
      reading(2, 'confirm-headroom', 1_500_000),
      reading(3, 'end', 1_800_000),
    ];
    const changes = speedChanges(readings);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ batch: 1000, encoding: 'json', fast: { round: 0 }, slow: { round: 2 } });
    expect(changes[0].ratio).toBeCloseTo(4 / 3, 9);
    expect(yardstickTexts(readings)).toEqual([
      'unsteady machine: the in-page JSON.parse ceiling at batch 1000 (no network, the same work every reading) was 2 M events/s at the start and 1.5 M events/s after the confirmation (25% lower): it did not keep one speed; ' +
        'verdicts paired by round still hold, but medians over rounds mix a faster machine with a slower one: rerun on a quiet machine before quoting them',
    ]);
  });

  it('holds below the ratio, and a failed reading (no ceiling) counts for nothing', () => {
    expect(speedChanges([reading(0, 'start', 2_000_000), reading(1, 'end', 1_640_000)])).toEqual([]);
    expect(speedChanges([reading(0, 'start', 2_000_000), reading(1, 'screen-confirm', null), reading(2, 'end', 1_900_000)])).toEqual([]);
    expect(speedChanges([reading(0, 'start', 2_000_000)])).toEqual([]);
  });

  it("leaves the sweep's sentence as it was: rounds, counted from 1", () => {
    const rounds = [reading(0, 'start', 2_130_000), reading(2, 'end', 1_030_000)];
    expect(speedChangeText(speedChanges(rounds)[0])).toContain(
      '(no network, the same work every round) was 2.13 M events/s in round 1 and 1.03 M events/s in round 3 (52% lower)',
    );
  });

  it('prints each reading, and a failed one with its error', () => {
    expect(readingLine(reading(1, 'screen-confirm', 2_130_000))).toBe('yardstick after the screen: JSON.parse ceiling at batch 1000: 2.13 M events/s');
    expect(readingLine(reading(3, 'end', null))).toBe('yardstick at the end: FAILED (Target closed); the search goes on without it');
  });
});

describe("the anchor's drift over the screen", () => {
  const p = point('sse', 300, 1, 'advise-probe', 10);
  const probe = (startedAt: string, eps: number, tab: number) => ({ ...measured(p, { round: 0, eps, tab }), startedAt });
  const T0 = '2026-11-27T23:00:30.000Z';
  const T1 = '2026-11-27T23:06:30.000Z';
  const ratioAt = (eps: number, tab: number) =>
    anchorDriftOf(p.id, 'the first screened that kept up with its rate', probe(T0, 30_000, 30), probe(T1, eps, tab));

  it('is second ÷ first of EPS and of renderer CPU per event, minutes apart', () => {
    // The same events at 1.45× the renderer CPU: 1.45× the CPU per event.
    const d = ratioAt(30_000, 43.5);
    expect(d.apartSec).toBe(360);
    expect(d.eventsPerSecRatio).toBeCloseTo(1, 9);
    expect(d.cpuPerEventRatio).toBeCloseTo(1.45, 9);
    expect(d.first.cpuMsPerMillionEvents).toBeCloseTo(10_000, 6);
    expect(d.second.cpuMsPerMillionEvents).toBeCloseTo(14_500, 6);
    expect(d.noise).toEqual(ANCHOR_NOISE);
    expect(d.beyondNoise).toBe(true);
  });

  it(`is drift beyond ×${ANCHOR_NOISE.cpuPerEvent} CPU per event or ×${ANCHOR_NOISE.eventsPerSec} EPS, either way; noise within`, () => {
    expect(ratioAt(30_000, 36).beyondNoise).toBe(false); // ×1.2
    expect(ratioAt(30_000, 30 / 1.3).beyondNoise).toBe(false); // ×0.77
    expect(ratioAt(30_000, 30 / 1.4).beyondNoise).toBe(true); // ×0.71: a faster machine
    expect(ratioAt(28_500, 28.5).beyondNoise).toBe(true); // 95% of the EPS, the same CPU per event
    expect(ratioAt(29_400, 29.4).beyondNoise).toBe(false); // 98%
  });

  it('a re-probe that failed has no factor, and is not called drift', () => {
    const d = anchorDriftOf(p.id, 'the first screened that kept up with its rate', probe(T0, 30_000, 30), { ...failed(1, 'renderer crashed'), startedAt: T1 });
    expect(d).toMatchObject({
      eventsPerSecRatio: null,
      cpuPerEventRatio: null,
      beyondNoise: false,
      second: { eventsPerSec: null, cpuMsPerMillionEvents: null },
    });
    expect(anchorLine({ readings: [], anchor: d })).toBe(
      'anchor advise-probe/sse-b300-c1-i10-full (the first screened that kept up with its rate) probed again 6.0 min after its first probe: the second probe measured neither EPS nor renderer CPU per event, so the drift over the screen is not known',
    );
  });

  it('is chosen from a probe that kept up with its rate (the same work both times)', () => {
    expect(keptUp(probe(T0, 30_000, 30))).toBe(true);
    expect(keptUp(probe(T0, 29_000, 30))).toBe(false);
    expect(keptUp(failed(0, 'x'))).toBe(false);
  });

  it("words: printed always; in the answer only beyond the noise, with the unsteady machine's sentence, before the machine line", () => {
    const beyond: MachineDrift = { readings: [reading(0, 'start', 2_000_000), reading(1, 'end', 1_500_000)], anchor: ratioAt(30_000, 43.5) };
    expect(anchorLine(beyond)).toBe(
      'anchor advise-probe/sse-b300-c1-i10-full (the first screened that kept up with its rate) probed again 6.0 min after its first probe: EPS ×1.00, renderer CPU per event ×1.45 (second ÷ first), beyond the ×1.03 and ×1.35 either way a re-probe moves within seconds: the machine drifted over the screen',
    );
    const lines = driftLines(beyond);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^unsteady machine: .* at the start and 1\.5 M events\/s at the end \(25% lower\).*quoting them\.$/);
    expect(lines[1]).toMatch(
      /^Drift over the screen: anchor .*×1\.45 .*: probes taken before and after are not comparable without that factor \(docs\/method\.md, "The machine's drift"\)\.$/,
    );
    const within: MachineDrift = { readings: [reading(0, 'start', 2_000_000)], anchor: ratioAt(30_000, 33) };
    expect(anchorLine(within)).toMatch(/×1\.10 \(second ÷ first\), within the ×1\.03 and ×1\.35 either way a re-probe moves within seconds$/);
    expect(driftLines(within)).toEqual([]);
    expect(driftLines(undefined)).toEqual([]);
    expect(anchorLine({ readings: [], anchor: null, anchorSkipped: 'the time budget leaves no room for it before the confirmation' })).toBe(
      'anchor not probed again: the time budget leaves no room for it before the confirmation',
    );

    const a = {
      ...adviceBeforeSearch({ target: { eventsPerSec: 20_000, p99BoundMs: 200, render: 'none' }, transports: ['sse'], budgetSec: 60 }),
      drift: beyond,
    };
    const text = adviceText(a, { cores: 2, cpuModel: null, browser: null });
    // After the answer, before what it was measured with (events and page) and the machine.
    expect(text.slice(-4, -2)).toEqual(lines.map((l) => `  ${l}`));
    expect(text.at(-2)).toMatch(/^Measured with: /);
    expect(text.at(-1)).toMatch(/^Machine: /);
  });
});

describe('the drift curve from the anchor’s readings (issue 34)', () => {
  it('follows a steady ramp exactly, is 1 at the first reading and flat outside the readings', () => {
    // Cost doubling over 600 s, geometrically: log cost a straight line, which a local line fits exactly.
    const points = [0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600].map((t) => ({ atSec: t, cost: 1000 * 2 ** (t / 600) }));
    const curve = driftCurveOf(points);
    for (const t of [0, 90, 300, 555, 600]) expect(curve(t)).toBeCloseTo(2 ** (t / 600), 9);
    expect(curve(-100)).toBeCloseTo(1, 9);
    expect(curve(900)).toBeCloseTo(2, 9);
  });

  it('lets one reading 30% off swing the curve by much less, and with fewer than two readings sees no drift', () => {
    const points = [0, 60, 120, 180, 240, 300, 360].map((t) => ({ atSec: t, cost: t === 180 ? 1300 : 1000 }));
    const at180 = driftCurveOf(points)(180);
    expect(at180).toBeGreaterThan(1);
    expect(at180).toBeLessThan(1.15);
    expect(driftCurveOf([{ atSec: 10, cost: 1000 }])(50)).toBe(1);
    expect(driftCurveOf([])(50)).toBe(1);
  });
});
