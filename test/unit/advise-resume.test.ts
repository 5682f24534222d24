/**
 * The advisor's browser side without a browser: the measurer over a repeat source (here a
 * synthetic one on a fake clock, deterministic per point and round), the report it keeps, and
 * `--resume`'s replay. A search stopped after any measurement, in the screen or in the middle of
 * a confirmation round, and resumed from its report ends with exactly the answer an
 * uninterrupted search gives: the replayed measurements on the clock they took lead it down the
 * same path. The report holds every repeat as points, one round per measurement; the answer
 * saved between measurements says what was measured.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Advice } from '../../protocol/advice.js';
import { mixSeed, mulberry32 } from '../../protocol/random.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import type { Target } from '../../protocol/target.js';
import type { RepeatContext, RepeatEvents } from '../../puppeteer/measure/repeat.js';
import { BrowserAdviseMeasurer, CONFIRM_SCENARIO, PROBE_SCENARIO, type BrowserMeasurerOptions } from '../../puppeteer/advise/measurer.js';
import { nextStage } from '../../puppeteer/advise/progress.js';
import { AdviseRecord } from '../../puppeteer/advise/record.js';
import { dropUnfinishedRounds, ReportRecorder } from '../../puppeteer/report/recorder.js';
import { Replay } from '../../puppeteer/advise/replay.js';
import { advise, adviceBeforeSearch } from '../../puppeteer/advise/search.js';
import type { RepeatSource } from '../../puppeteer/sweep/runner.js';
import { repeatSec } from '../../puppeteer/sweep/estimate.js';
import { measured, report as reportOf } from '../helpers/v2-fixture.js';

const TARGET: Target = { eventsPerSec: 300_000, p99BoundMs: 100, render: 'none' };
const TRANSPORTS = ['sse', 'ws'] as const;
const BUDGET_SEC = 240;
/** Measurements take this much longer than estimate.ts says: the measurer's scaling is exercised too. */
const SLOWER = 1.2;

/** Renderer CPU per million events, ms, for large messages on the main thread. */
const COST = { sse: 2000, ws: 2300 } as Record<string, number>;

/** A repeat source on the fake clock: its figures depend only on the point and the round (so a resumed search gets what an uninterrupted one got). */
class Synthetic extends EventEmitter<RepeatEvents> implements RepeatSource {
  measuredCount = 0;

  constructor(private readonly stop: { after: number | null; controller: AbortController }) {
    super();
  }

  async measure(point: Point, ctx: RepeatContext): Promise<Repeat | null> {
    if (ctx.signal?.aborted) return null;
    if (this.stop.after !== null && this.measuredCount >= this.stop.after) {
      // Ctrl-C while this repeat measures: it is dropped.
      this.stop.controller.abort();
      return null;
    }
    this.measuredCount++;
    vi.advanceTimersByTime(SLOWER * repeatSec(point) * 1000);
    const random = mulberry32(
      mixSeed(
        [...point.id].reduce((a, ch) => (a * 31 + ch.charCodeAt(0)) >>> 0, 7),
        ctx.round,
      ),
    );
    const cost = COST[point.transport] * (1 + 30 / point.batch) * (1 + 0.15 * point.workers) * (1 + 0.04 * (random() - 0.5));
    const renderer = (cost * point.offeredEventsPerSec) / 1e7;
    // measured() puts the main thread at 80% of the renderer: past 100% the page falls behind.
    const load = (renderer * 0.8) / 100;
    const eps = point.offeredEventsPerSec * (load <= 0.95 ? 1 : 0.95 / load);
    const p99 = 8 + 0.3 * point.intervalMs + (load < 0.95 ? (10 * load) / (1 - load) : 2000) * (0.8 + 0.4 * random());
    return measured(point, { round: ctx.round, eps, tab: Math.min(renderer, 130), p99, verdict: load <= 0.95 ? 'ok' : 'client-bound' });
  }
}

function freshReport(): Report {
  const r = reportOf([], {
    runId: 'advise-20261125-101500',
    finishedAt: null,
    scenarios: [],
    options: { repeats: 3, seed: 42, auto: false, maxRepeats: 5, timeBudgetSec: BUDGET_SEC, findMax: false, retries: 1, file: '' },
  });
  r.advice = adviceBeforeSearch({ target: TARGET, transports: TRANSPORTS, budgetSec: BUDGET_SEC });
  return r;
}

/** One session of the search over `report`: stopped after `stopAfter` measured repeats, or run to its end. */
async function session(report: Report, stopAfter: number | null, replay: Replay | null, ceilings?: BrowserMeasurerOptions['ceilings']) {
  const controller = new AbortController();
  const source = new Synthetic({ after: stopAfter, controller });
  const saved: Advice[] = [];
  const record = new AdviseRecord(
    new ReportRecorder(report, async (r) => {
      saved.push(structuredClone(r.advice!));
    }),
  );
  const measurer = new BrowserAdviseMeasurer({
    repeats: source,
    render: TARGET.render,
    record,
    replay,
    signal: controller.signal,
    alive: () => true,
    ceilings,
  });
  const t0 = performance.now();
  let judged = 0;
  const hooks = record.searchHooks();
  const advice = await advise({
    target: TARGET,
    transports: TRANSPORTS,
    margins: report.options.margins,
    budgetSec: BUDGET_SEC,
    now: () => (replay?.replayedSec ?? 0) + (performance.now() - t0) / 1000,
    estimate: measurer.estimates(),
    measurer,
    onStart: hooks.onStart,
    onMeasured: (e) => {
      judged++;
      hooks.onMeasured(e);
    },
  });
  await record.save();
  saved.pop();
  report.advice = advice;
  return { advice, saved, measuredCount: source.measuredCount, judged };
}

/** The answer without its clock readings (the elapsed time and when the screen ended), which a replay reproduces only to rounding. */
/** An answer less what reads the clock (a resumed clock sums replayed times: equal to rounding); the anchor's readings' times and factors checked apart. */
const withoutClock = (a: Advice) => ({
  ...a,
  elapsedSec: 0,
  ...(a.search?.screen ? { search: { ...a.search, screen: { ...a.search.screen, endedSec: 0 } } } : {}),
  ...(a.drift?.anchor?.readings
    ? { drift: { ...a.drift, anchor: { ...a.drift.anchor, readings: a.drift.anchor.readings.map((r) => ({ ...r, atSec: 0, factor: 0 })) } } }
    : {}),
});
const anchorClock = (a: Advice) => (a.drift?.anchor?.readings ?? []).flatMap((r) => [r.atSec, r.factor]);
const roundsOf = (r: Report) => r.rounds.map((x) => `${x.index}:${x.order.join(',')}`);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('advise in a report: the measurer, the record and --resume', () => {
  it('keeps every repeat as points, one round per measurement, and the answer so far at every save', async () => {
    const report = freshReport();
    const { advice, saved, measuredCount, judged } = await session(report, null, null);
    expect(advice.winner).not.toBeNull();
    expect(advice.stopped === null || advice.stopped === 'budget').toBe(true);
    // Every repeat measured is in the report, in a round of its own measurement.
    const repeats = report.points.flatMap((p) => p.repeats);
    expect(repeats).toHaveLength(measuredCount);
    expect(new Set(repeats.map((r) => r.round)).size).toBe(report.rounds.length);
    for (const round of report.rounds) {
      expect(round.finishedAt).not.toBeNull();
      for (const id of round.order)
        expect(
          report.points.find((p) => p.point.id === id)!.repeats.some((r) => r.round === round.index),
          id,
        ).toBe(true);
    }
    expect(report.scenarios).toEqual([PROBE_SCENARIO, CONFIRM_SCENARIO]);
    // A confirmation round interleaves its finalists: transport twins back to back, alternating who goes first.
    const twins = report.rounds.filter((r) => r.order.length === 2 && r.order.every((id) => id.startsWith(`${CONFIRM_SCENARIO}/`)));
    if (twins.length >= 2) expect(new Set(twins.map((r) => r.order[0])).size).toBe(2);
    // Saved as each repeat lands, and again once the search has judged it: each save's answer
    // says what was measured by then, nothing decided before the pick.
    expect(saved).toHaveLength(measuredCount + judged);
    expect(saved[0]).toMatchObject({ stopped: 'interrupted', winner: null, tried: [] });
    expect(saved[1].tried).toHaveLength(1);
    expect(saved[1].tried[0].why).toMatch(/^(sustained in its probe|clearly cannot sustain|did not sustain in its probe)/);
    const lastBeforeHeadroom = saved.filter((a) => a.winner === null).length;
    for (const [i, a] of saved.entries()) {
      if (a.winner) expect(a.winner.candidate.id, `save ${i}`).toBe(advice.winner!.candidate.id);
      expect(a.tried.length + a.notTried.length, `save ${i}`).toBe(advice.tried.length + advice.notTried.length);
    }
    expect(lastBeforeHeadroom).toBeGreaterThan(0);
    // The repeats the answer judged by are the report's.
    const inPoints = new Set(repeats.map((r) => JSON.stringify(r)));
    for (const t of advice.tried) for (const x of t.repeats) expect(inPoints.has(JSON.stringify(x.repeat))).toBe(true);
  });

  it('a search stopped in the screen or mid-confirmation and resumed ends with the uninterrupted answer', async () => {
    const whole = freshReport();
    const reference = await session(whole, null, null);
    // Repeats measured before the first round with two finalists, and one into it.
    const firstPair = whole.rounds.findIndex((r) => r.order.length >= 2);
    expect(firstPair).toBeGreaterThan(0);
    const midConfirm = whole.rounds.slice(0, firstPair).reduce((a, r) => a + r.order.length, 0) + 1;
    for (const stopAfter of [3, midConfirm]) {
      const report = freshReport();
      const first = await session(report, stopAfter, null);
      expect(first.advice.stopped, `stop after ${stopAfter}`).toBe('interrupted');
      expect(first.measuredCount).toBe(stopAfter);
      // Stopped mid-round: its repeat is dropped on resume and the round measured again.
      const resumed = structuredClone(report);
      expect(dropUnfinishedRounds(resumed)).toBe(stopAfter === midConfirm ? 1 : 0);
      const replay = new Replay(resumed);
      const second = await session(resumed, null, replay);
      expect(replay.left, `stop after ${stopAfter}: every recorded measurement replayed`).toBe(0);
      expect(withoutClock(second.advice), `stop after ${stopAfter}`).toEqual(withoutClock(reference.advice));
      expect(second.advice.elapsedSec).toBeCloseTo(reference.advice.elapsedSec, 6);
      anchorClock(second.advice).forEach((x, i) => expect(x).toBeCloseTo(anchorClock(reference.advice)[i], 6));
      expect(second.advice.search!.screen!.endedSec).toBeCloseTo(reference.advice.search!.screen!.endedSec, 6);
      expect(roundsOf(resumed)).toEqual(roundsOf(whole));
      expect(first.measuredCount - (stopAfter === midConfirm ? 1 : 0) + second.measuredCount).toBe(reference.measuredCount);
    }
  });

  it('a new budget on resume reuses every recorded measurement it asks for again', async () => {
    const report = freshReport();
    await session(report, 6, null);
    const resumed = structuredClone(report);
    dropUnfinishedRounds(resumed);
    const replay = new Replay(resumed);
    const recorded = replay.size;
    // A smaller budget takes another path; what it asks again is not measured again.
    const controller = new AbortController();
    const record = new AdviseRecord(new ReportRecorder(resumed, async () => undefined));
    const source = new Synthetic({ after: null, controller });
    const measurer = new BrowserAdviseMeasurer({ repeats: source, render: TARGET.render, record, replay, signal: controller.signal, alive: () => true });
    const t0 = performance.now();
    const advice = await advise({
      target: TARGET,
      transports: TRANSPORTS,
      budgetSec: 90,
      now: () => replay.replayedSec + (performance.now() - t0) / 1000,
      estimate: measurer.estimates(),
      measurer,
    });
    expect(recorded).toBeGreaterThan(0);
    const replayedProbes = advice.tried.filter((t) => t.repeats.some((x) => x.purpose === 'probe')).length;
    expect(replayedProbes).toBeGreaterThan(0);
    expect(source.measuredCount + (recorded - replay.left)).toBe(
      // The anchor's re-probes are the drift's, not a candidate's: its readings after its own probe.
      advice.tried.reduce((a, t) => a + t.repeats.length, 0) +
        (advice.headroom?.repeats.length ?? 0) +
        (advice.drift?.anchor ? (advice.drift.anchor.readings?.filter((r) => r.repeat).length ?? 1) : 0),
    );
  });

  it('replays the yardstick readings a stopped search recorded, and resumes a report saved before readings were taken', async () => {
    const measuredAt: string[] = [];
    const ceilings: BrowserMeasurerOptions['ceilings'] = async (needs) => {
      measuredAt.push(new Date().toISOString());
      return needs.map((n) => ({ ...n, eventsPerSec: 2e6, messages: 200, bytesPerMessage: 121_000, durationMs: 1000 }));
    };
    const report = freshReport();
    const first = await session(report, 3, null, ceilings);
    // Stopped in the screen: the start reading only, and no anchor (the screen did not end).
    expect(first.advice.drift).toMatchObject({ readings: [{ index: 0, at: 'start', parseCeilings: [{ batch: 1000, encoding: 'json' }] }], anchor: null });
    expect(measuredAt).toHaveLength(1);
    const resumed = structuredClone(report);
    dropUnfinishedRounds(resumed);
    const second = await session(resumed, null, new Replay(resumed), ceilings);
    expect(second.advice.drift!.readings.map((r) => r.at)).toEqual(['start', 'screen-confirm', 'confirm-headroom', 'end']);
    // The start reading is the recorded one, not measured again.
    expect(second.advice.drift!.readings[0]).toEqual(first.advice.drift!.readings[0]);
    expect(measuredAt).toHaveLength(4);
    expect(second.advice.drift!.anchor).not.toBeNull();
    // A report saved before readings were taken resumes, and its readings are measured.
    const old = structuredClone(report);
    delete old.advice!.drift;
    dropUnfinishedRounds(old);
    const third = await session(old, null, new Replay(old), ceilings);
    expect(third.advice.winner).not.toBeNull();
    expect(third.advice.drift!.readings).toHaveLength(4);
    expect(measuredAt).toHaveLength(8);
  });

  it('keeps a yardstick reading that failed, with its error, and the search goes on', async () => {
    const ceilings: BrowserMeasurerOptions['ceilings'] = async () => {
      throw new Error('Target closed');
    };
    const { advice } = await session(freshReport(), null, null, ceilings);
    expect(advice.winner).not.toBeNull();
    expect(advice.drift!.readings).toHaveLength(4);
    for (const r of advice.drift!.readings) expect(r).toMatchObject({ parseCeilings: [], error: 'Target closed' });
  });
});

describe('a lost browser or server', () => {
  it('stops the search as interrupted instead of judging candidates by repeats that could not run', async () => {
    const report = freshReport();
    const controller = new AbortController();
    const source = new Synthetic({ after: null, controller });
    const record = new AdviseRecord(new ReportRecorder(report, async () => undefined));
    // The server ends after the third repeat.
    const measurer = new BrowserAdviseMeasurer({
      repeats: source,
      render: TARGET.render,
      record,
      replay: null,
      signal: controller.signal,
      alive: () => source.measuredCount < 3,
    });
    const t0 = performance.now();
    const advice = await advise({
      target: TARGET,
      transports: TRANSPORTS,
      budgetSec: BUDGET_SEC,
      now: () => (performance.now() - t0) / 1000,
      estimate: measurer.estimates(),
      measurer,
    });
    expect(measurer.lost).toBe(true);
    expect(advice.stopped).toBe('interrupted');
    expect(advice.winner).toBeNull();
    // The repeat measured as it was lost is not kept: its figures say nothing about the candidate.
    expect(report.points.flatMap((p) => p.repeats)).toHaveLength(2);
  });
});

describe('the progress line', () => {
  it('names the stage from the measurement sequence: screen, confirm, headroom', () => {
    let stage = nextStage('screen', 'probe');
    expect(stage).toBe('screen');
    stage = nextStage(stage, 'confirm');
    expect(stage).toBe('confirm');
    expect(nextStage(stage, 'confirm')).toBe('confirm');
    stage = nextStage(stage, 'probe');
    expect(stage).toBe('headroom');
    expect(nextStage(stage, 'confirm')).toBe('headroom');
  });
});
