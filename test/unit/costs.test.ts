/**
 * The costs a team budgets (results/costs.ts), from fixture repeats whose figures are chosen
 * here, so every median, range and unit is computed by hand: a figure some repeats did not
 * measure is left out and named, never counted as 0; and each objective's per-repeat cost is
 * the record's figure.
 */
import { describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import { costCell, costsOf, objectiveFigure, repeatCost } from '../../results/costs.js';
import { OBJECTIVES } from '../../protocol/target.js';
import { failed, measured, point } from '../helpers/v2-fixture.js';
import { parseFlags } from '../../protocol/flags.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';

const P = point('ws', 100, 1, 'advise', 1); // offers 100 k events/s

/** A repeat at `eps` with the tab's renderer at `tab` % and `bytes` per event, with input and display age. */
function repeat(round: number, eps: number, tab: number, bytes: number, extra: Partial<MeasuredRepeat> = {}): MeasuredRepeat {
  const r = measured(P, { round, eps, tab, p99: 20 + round });
  r.bytesPerEvent = bytes;
  r.megabytesPerSec = (eps * bytes) / 1e6;
  r.displayAge = { count: 50, p50Ms: 10, p99Ms: 30 + round, p999Ms: 35, maxMs: 40 };
  r.input = {
    sent: 20,
    handled: 20,
    delayMs: { count: 20, minMs: 1, p25Ms: 1, p50Ms: 2, p75Ms: 3, p95Ms: 4, p99Ms: 5 + round, maxMs: 6, meanMs: 2 },
    nextFrameMs: { count: 20, minMs: 1, p25Ms: 1, p50Ms: 2, p75Ms: 3, p95Ms: 4, p99Ms: 9, maxMs: 9, meanMs: 3 },
    longFrames: null,
  };
  return Object.assign(r, extra);
}

describe('costsOf', () => {
  it('counts bytes on the wire: a compressed point by its compressor ratio and the server count, a partly compressed one as the page got them', () => {
    const gz = (compressedStreams: number) =>
      repeat(0, 100_000, 10, 133, {
        compression: {
          kind: 'gzip',
          streams: 2,
          compressedStreams,
          wireBytes: 8_200_000,
          wireMegabytesPerSec: 4.1,
          inputBytes: 26_600_000,
          outputBytes: 7_980_000,
          ratio: 0.3,
        },
      });
    const c = costsOf([gz(2)]);
    expect(c.bytesPerEvent.median).toBeCloseTo(133 * 0.3, 6);
    expect(c.megabytesPerSec.median).toBe(4.1);
    expect(c.gigabytesPerUserHour.median).toBeCloseTo(4.1 * 3.6, 6);
    // One stream of two compressed (the browser did not negotiate it on the other): the page's bytes, no saving claimed.
    expect(costsOf([gz(1)]).bytesPerEvent.median).toBe(133);
    // What --objective bytes minimises is that figure.
    expect(repeatCost(gz(2), 'bytes')).toBeCloseTo(133 * 0.3, 6);
  });

  it('gives every cost as a median with its range over the repeats, in its unit', () => {
    // Renderer 10, 12, 11 % at 100 k, 100 k, 50 k events/s: 1000, 1200, 2200 ms per million events.
    const reps = [repeat(0, 100_000, 10, 130), repeat(1, 100_000, 12, 134), repeat(2, 50_000, 11, 133)];
    const c = costsOf(reps);
    expect(c.rendererCpuMsPerMillionEvents).toMatchObject({ unit: 'ms per million events', n: 3, of: 3, min: 1000, max: 2200 });
    expect(c.rendererCpuMsPerMillionEvents.median).toBeCloseTo(1200, 6);
    expect(c.rendererCpuMsPerMillionEvents.unmeasured).toBeUndefined();
    // The fixture's main thread is 0.8 × the renderer, Chrome's total the renderer + 25.5.
    expect(c.mainThreadPercent).toMatchObject({ unit: '% of one core', median: 8.8, min: 8, max: expect.closeTo(9.6, 9) });
    expect(c.mainThreadMsPerMillionEvents.median).toBeCloseTo(0.8 * 1200, 6);
    expect(c.chromePercent).toMatchObject({ median: 36.5, min: 35.5, max: 37.5 });
    // 37.5 % at 100 k: 3750; 35.5 % at 100 k: 3550; 36.5 % at 50 k: 7300.
    expect(c.chromeCpuMsPerMillionEvents.median).toBeCloseTo(3750, 6);
    expect(c.chromeProcesses.network).toMatchObject({ unit: '% of one core', median: 20 });
    expect(c.bytesPerEvent).toMatchObject({ unit: 'bytes', median: 133, min: 130, max: 134 });
    // 13.3 MB/s is 106 Mbit/s, and 47.9 GB for an hour (the arithmetic).
    expect(c.megabytesPerSec).toMatchObject({ unit: 'MB/s', median: 13 });
    expect(c.gigabytesPerUserHour.unit).toBe('GB per user-hour');
    expect(c.gigabytesPerUserHour.median).toBeCloseTo(13 * 3.6, 6);
    expect(c.gigabytesPerUserHour.max).toBeCloseTo(13.4 * 3.6, 6);
    // The server at 35 % of a core sending 100 k events/s (the fixture's offered rate).
    expect(c.serverCpuPercentPer100kEventsPerSec).toMatchObject({ unit: '% of one core per 100 k events/s', median: 35 });
    expect(c.eventAgeP99Ms).toMatchObject({ unit: 'ms', median: 21, min: 20, max: 22 });
    expect(c.displayAgeP99Ms).toMatchObject({ median: 31, min: 30, max: 32 });
    expect(c.inputDelayP99Ms).toMatchObject({ median: 6, min: 5, max: 7 });
  });

  it('leaves out what a repeat did not measure and says why, never 0; failed repeats measured nothing', () => {
    const noInput = repeat(1, 100_000, 12, 134);
    delete noInput.input;
    const refused = repeat(2, 100_000, 11, 133);
    refused.input = { ...refused.input!, unavailable: 'Input.dispatchMouseEvent failed' };
    const c = costsOf([repeat(0, 100_000, 10, 130, { displayAge: null }), noInput, refused, failed(3)]);
    expect(c.inputDelayP99Ms).toMatchObject({ median: 5, min: 5, max: 5, n: 1, of: 3 });
    expect(c.inputDelayP99Ms.unmeasured).toBe(
      '2 of 3 repeats: no input probe (a version 3 repeat, or a page without it); the browser refused input: Input.dispatchMouseEvent failed',
    );
    expect(c.displayAgeP99Ms).toMatchObject({ n: 2, of: 3, unmeasured: '1 of 3 repeats: render mode none draws nothing' });
    // Render mode none throughout: no display age at all, null and said.
    const none = costsOf([repeat(0, 100_000, 10, 130, { displayAge: null }), repeat(1, 100_000, 10, 130, { displayAge: null })]);
    expect(none.displayAgeP99Ms).toEqual({
      unit: 'ms',
      median: null,
      min: null,
      max: null,
      n: 0,
      of: 2,
      unmeasured: '2 of 2 repeats: render mode none draws nothing',
    });
    expect(costCell(none.displayAgeP99Ms)).toBe('—');
    expect(costCell(c.inputDelayP99Ms)).toBe('5*');
    // A browser that could not read a process: its figure null and named.
    const remote = repeat(0, 100_000, 10, 130);
    remote.cpu = { ...remote.cpu, chrome: { ...remote.cpu.chrome, gpu: null }, unavailable: ['gpu'] };
    expect(costsOf([remote]).chromeProcesses.gpu).toMatchObject({ median: null, unmeasured: '1 of 1 repeats: gpu CPU unavailable for this browser' });
    // Nothing measured: every figure null, none 0.
    const nothing = costsOf([failed(0)]);
    expect(nothing.bytesPerEvent).toMatchObject({ median: null, n: 0, of: 0, unmeasured: 'no repeat measured' });
  });

  it("reads each objective's cost per repeat as the record's figure over the repeats", () => {
    const reps = [repeat(0, 100_000, 10, 130), repeat(1, 90_000, 12, 90), repeat(2, 95_000, 11, 110)];
    const c = costsOf(reps);
    for (const o of OBJECTIVES) {
      const per = reps.map((r) => repeatCost(r, o)!).sort((a, b) => a - b);
      expect(objectiveFigure(c, o).median, o).toBeCloseTo(per[1], 9);
    }
    expect(repeatCost(reps[1], 'bytes')).toBe(90);
  });
});

describe('--objective', () => {
  const check = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, argv, 'npm run advise --'));
  it('goes into the target (the default left out, as every report before it reads), is refused when unknown, and not beside --resume', () => {
    expect(check('--rate', '10k', '--p99', '100ms').target!.objective).toBeUndefined();
    expect(check('--rate', '10k', '--p99', '100ms', '--objective', 'renderer').target!.objective).toBeUndefined();
    expect(check('--rate', '10k', '--p99', '100ms', '--objective', 'bytes').target!.objective).toBe('bytes');
    expect(() => check('--rate', '10k', '--p99', '100ms', '--objective', 'cpu')).toThrow(
      "--objective must be one of renderer, chrome, main-thread, bytes; got 'cpu'",
    );
    expect(() => check('--resume', 'advise-20261125-101500', '--objective', 'bytes')).toThrow(/drop --objective/);
  });
});
