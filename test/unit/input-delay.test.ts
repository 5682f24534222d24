/**
 * Issue 33, "the page still answers": `--input-delay` on advise and on a find-max sweep (checked
 * like --p99: the error names the flag, the value and what is allowed), and a repeat's input
 * figures from the page's snapshot (results/summarise.ts inputFigures).
 */
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { parseFlags } from '../../protocol/flags.js';
import type { InputSnapshot, PageSnapshot } from '../../protocol/page-api.js';
import type { PointResult } from '../../protocol/report.js';
import { parseReport } from '../../protocol/report-check.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { checkSweepFlags, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { FIREFOX_DELAY_SOURCE, inputFigures } from '../../results/summarise.js';
import { summarisePoint } from '../../results/point-summary.js';
import { measured, point, report as reportOf, result } from '../helpers/v2-fixture.js';

const advise = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, argv, 'npm run advise --'));
const sweep = (...argv: string[]) => checkSweepFlags(parseFlags(SWEEP_FLAGS, argv, 'npm run sweep --'));

describe('--input-delay', () => {
  it('is absent unless given: the rule then takes 200 ms', () => {
    expect(advise('--rate', '100k', '--p99', '100ms').target).not.toHaveProperty('inputDelayBoundMs');
    expect(sweep('--find-max')).not.toHaveProperty('inputDelayBoundMs');
  });

  it('reads ms or s, a bare number as ms', () => {
    expect(advise('--rate', '100k', '--p99', '100ms', '--input-delay', '150ms').target!.inputDelayBoundMs).toBe(150);
    expect(advise('--rate', '100k', '--p99', '100ms', '--input-delay', '0.5s').target!.inputDelayBoundMs).toBe(500);
    expect(sweep('--find-max', '--input-delay', '300').inputDelayBoundMs).toBe(300);
  });

  it.each([
    ['0', 'must be above 0'],
    ['0.5ms', 'must be at least 1 ms'],
    ['2min', 'is not a latency'],
    ['-5', 'must be above 0'],
    ['61s', 'must be at most 60 s'],
  ])("refuses '%s', naming the flag, the value and what is allowed", (value, why) => {
    for (const run of [() => advise('--rate', '100k', '--p99', '100ms', '--input-delay', value), () => sweep('--find-max', '--input-delay', value)]) {
      expect(run).toThrow(PushlabError);
      expect(run).toThrow(`--input-delay ${why}`);
      expect(run).toThrow(`got '${value}'`);
      expect(run).toThrow('it takes a latency from 1 ms to 60 s');
    }
  });

  it('is part of what --resume takes from the report', () => {
    expect(() => advise('--resume', 'advise-1', '--input-delay', '100ms')).toThrow('drop --input-delay');
    expect(() => sweep('--resume', 'run-1', '--input-delay', '100ms')).toThrow('drop --input-delay');
  });
});

describe("a repeat's input figures", () => {
  const lat = (p99Ms: number | null) => ({
    count: p99Ms === null ? 0 : 3,
    minMs: null,
    p25Ms: null,
    p50Ms: null,
    p75Ms: null,
    p95Ms: null,
    p99Ms,
    maxMs: null,
    meanMs: null,
  });
  const end = (input?: InputSnapshot): PageSnapshot => ({
    atMs: 0,
    transport: 'ws',
    concurrency: 1,
    open: 1,
    counters: { events: 0, batches: 0, bytes: 0, gaps: 0, duplicates: 0, reconnects: 0, errors: 0 },
    batchesPerConnection: [0],
    latency: lat(null),
    ...(input ? { input } : {}),
  });

  it('are absent for a page without the probe (the bare page)', () => {
    expect(inputFigures(end(), { sent: 12, unavailable: null })).toBeNull();
  });

  it("carry the page's figures and what the driver sent; long frames null with the reason where the browser has none", () => {
    const firefox = { handled: 3, delay: lat(12), nextFrame: lat(20), longFrames: null, longFramesUnavailable: 'not available: no long-animation-frame' };
    expect(inputFigures(end(firefox), { sent: 4, unavailable: null })).toEqual({
      sent: 4,
      handled: 3,
      delayMs: lat(12),
      nextFrameMs: lat(20),
      longFrames: null,
      longFramesUnavailable: 'not available: no long-animation-frame',
    });
    const refused = inputFigures(end({ handled: 0, delay: lat(null), nextFrame: lat(null), longFrames: { count: 0, blockingMs: 0, durationMs: 0 } }), {
      sent: 1,
      unavailable: 'input could not be sent: refused',
    });
    expect(refused).toMatchObject({ sent: 1, handled: 0, unavailable: 'input could not be sent: refused' });
  });

  it("in Firefox are the driver's round trip, which holds the wait the page's own timestamp leaves out, with the page's kept beside it", () => {
    const page = { handled: 2, delay: lat(5), nextFrame: lat(9), longFrames: null, longFramesUnavailable: 'not available' };
    const f = inputFigures(end(page), { sent: 2, unavailable: null, roundTrip: lat(611) }, true)!;
    expect(f.delayMs.p99Ms).toBe(611);
    expect(f.pageDelayMs!.p99Ms).toBe(5);
    expect(f.delaySource).toBe(FIREFOX_DELAY_SOURCE);
    // Chrome's page timing holds the wait: it stays, and the round trip is kept as a diagnostic.
    const chrome = inputFigures(end({ ...page, delay: lat(455) }), { sent: 2, unavailable: null, roundTrip: lat(466) })!;
    expect(chrome).toMatchObject({ delayMs: { p99Ms: 455 }, roundTripMs: { p99Ms: 466 } });
    expect(chrome).not.toHaveProperty('delaySource');
  });

  it('read back from report.json, and a report without them still reads (version 3)', () => {
    const p = point('ws', 10, 10);
    const withInput = {
      ...measured(p, { round: 0, eps: p.offeredEventsPerSec, p99: 20 }),
      input: inputFigures(end({ handled: 3, delay: lat(12), nextFrame: lat(20), longFrames: { count: 1, blockingMs: 12.5, durationMs: 62.5 } }), {
        sent: 3,
        unavailable: null,
      })!,
    };
    const resultOf = (repeats: PointResult['repeats']) => ({ ...result(p, repeats), ...summarisePoint(p, repeats) });
    const old = reportOf([resultOf([measured(p, { round: 0, eps: p.offeredEventsPerSec, p99: 20 })])]);
    const oldRead = parseReport(JSON.parse(JSON.stringify(old)), 'old');
    expect(oldRead.points[0].summary).not.toHaveProperty('inputDelayP99Ms');
    const fresh = reportOf([resultOf([withInput])]);
    const read = parseReport(JSON.parse(JSON.stringify(fresh)), 'fresh');
    expect(read.points[0].repeats[0]).toMatchObject({ input: { sent: 3, handled: 3, longFrames: { count: 1 } } });
    expect(read.points[0].summary!.inputDelayP99Ms!.median).toBe(12);
    expect(read.points[0].summary!.longFrameBlockingMsPerSec).not.toBeNull();
  });
});
