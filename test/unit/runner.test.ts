/**
 * The runner's round logic with a fake repeat source (no browser): round order and seeds,
 * the per-round ceiling, resume after an interruption, --auto, --time-budget, failed repeats
 * and the find-max wiring. The real-browser path is covered by the sweep end-to-end tests.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TABLE_WIDTH, formatTable } from '../../results/views/terminal.js';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { expandScenario, searchesFor, type Point, type ScenarioFile } from '../../protocol/scenario.js';
import type { RepeatContext, RepeatEvents } from '../../puppeteer/measure/repeat.js';
import { roundOrder, roundSeed } from '../../results/rounds.js';
import { Runner, type Lane, type RepeatSource } from '../../puppeteer/sweep/runner.js';
import { emptyResult, ReportRecorder } from '../../puppeteer/report/recorder.js';
import { failed, measured, report as reportOf } from '../helpers/v2-fixture.js';

const POINTS: Point[] = [
  ...expandScenario({ id: 'a', batch: [20, 100], concurrency: 10, repeats: 3 }),
  ...expandScenario({ id: 'b', batch: 50, concurrency: 30, transport: 'sse', repeats: 3 }),
];

/** EPS a fake repeat reports: a fixed figure per point, optionally wobbling by round. */
type Figure = (p: Point, round: number) => number;

class FakeSource extends EventEmitter<RepeatEvents> implements RepeatSource {
  readonly calls: { id: string; round: number; ceiling: number | null }[] = [];
  constructor(
    private readonly eps: Figure,
    private readonly opts: {
      abortAfter?: { count: number; controller: AbortController };
      fail?: (p: Point, round: number) => boolean;
      p99?: (p: Point) => number;
    } = {},
  ) {
    super();
  }

  async measure(point: Point, ctx: RepeatContext): Promise<Repeat | null> {
    await new Promise((r) => setImmediate(r));
    if (ctx.signal?.aborted) return null;
    const a = this.opts.abortAfter;
    if (a && this.calls.length === a.count) {
      a.controller.abort();
      return null;
    }
    this.calls.push({ id: point.id, round: ctx.round, ceiling: ctx.ceilingEventsPerSec });
    if (this.opts.fail?.(point, ctx.round)) return failed(ctx.round, 'renderer crashed');
    return measured(point, { round: ctx.round, eps: this.eps(point, ctx.round), p99: this.opts.p99?.(point) });
  }
}

const ceilings = async (needs: readonly { batch: number }[]): Promise<ParseCeiling[]> =>
  needs.map(({ batch }) => ({ batch, eventsPerSec: 1_000_000 + batch, messages: 200, bytesPerMessage: 100, durationMs: 1000 }));

function freshReport(points: Point[], options: Partial<Report['options']> = {}): Report {
  return reportOf(points.map(emptyResult), {
    finishedAt: null,
    options: { repeats: 3, seed: 42, auto: false, maxRepeats: 10, timeBudgetSec: null, findMax: false, retries: 0, file: 'scenarios.json', ...options },
  });
}

const steady: Figure = (p) => p.offeredEventsPerSec * 0.9;

async function run(report: Report, source: FakeSource, signal?: AbortSignal, searches: Parameters<Runner['run']>[1]['searches'] = []) {
  const saved: string[] = [];
  const runner = new Runner({ repeats: source, ceilings });
  const outcome = await runner.run(new ReportRecorder(report, async (r) => void saved.push(JSON.stringify(r))), { searches, signal });
  return { outcome, saved };
}

const repeatSet = (r: Report) => r.points.flatMap((p) => p.repeats.map((x) => `${p.point.id}@${x.round}`)).sort();

describe('Runner rounds', () => {
  it('measures every point once per round, in the seeded order with transport pairs adjacent', async () => {
    const report = freshReport(POINTS);
    const source = new FakeSource(steady);
    const { outcome } = await run(report, source);
    expect(outcome).toBe('done');
    expect(report.rounds).toHaveLength(3);
    for (const round of report.rounds) {
      expect(round.seed).toBe(roundSeed(42, round.index));
      expect(round.order).toEqual(roundOrder(POINTS, round.index, 42).map((p) => p.id));
      expect([...round.order].sort()).toEqual(POINTS.map((p) => p.id).sort());
      // The measuring order is the recorded one.
      expect(source.calls.filter((c) => c.round === round.index).map((c) => c.id)).toEqual(round.order);
      // Points that differ only in transport are measured back to back.
      for (const id of round.order.filter((x) => x.startsWith('a/ws-'))) {
        const i = round.order.indexOf(id);
        expect([round.order[i - 1], round.order[i + 1]]).toContain(id.replace('/ws-', '/sse-'));
      }
      expect(round.finishedAt).not.toBeNull();
    }
    // Round orders differ: the shuffle is per round.
    expect(new Set(report.rounds.map((r) => r.order.join())).size).toBeGreaterThan(1);
  });

  it('gives each repeat the ceiling of its own round and keeps summaries and comparisons current', async () => {
    const report = freshReport(POINTS.filter((p) => p.batch === 20));
    const source = new FakeSource(steady);
    const { saved } = await run(report, source);
    for (const c of source.calls) expect(c.ceiling).toBe(1_000_000 + Number(/-b(\d+)-/.exec(c.id)![1]));
    for (const p of report.points) {
      expect(p.repeats.map((r) => r.round)).toEqual([0, 1, 2].filter((r) => report.rounds[r].order.includes(p.point.id)));
      expect(p.summary?.n).toBe(3);
    }
    // ws vs sse at batch 20: one comparison per metric, over all three rounds.
    expect(report.comparisons.map((c) => [c.metric, c.rounds])).toEqual([
      ['eventsPerSec', [0, 1, 2]],
      ['rendererCpuMsPerMillionEvents', [0, 1, 2]],
    ]);
    // Saved after every repeat (6), and at every round's ceiling and end (3 + 3).
    expect(saved.length).toBe(12);
    const afterFirst = JSON.parse(saved[1]) as Report;
    expect(afterFirst.points.find((p) => p.repeats.length)?.summary?.n).toBe(1);
  });

  it('records a failed repeat and goes on', async () => {
    const report = freshReport(POINTS.filter((p) => p.batch === 20));
    const source = new FakeSource(steady, { fail: (p, round) => p.transport === 'ws' && round === 1 });
    expect((await run(report, source)).outcome).toBe('done');
    const ws = report.points.find((p) => p.point.transport === 'ws')!;
    expect(ws.repeats.map((r) => r.status)).toEqual(['ok', 'failed', 'ok']);
    expect(ws.summary?.n).toBe(2);
    expect(ws.unsteady.map((u) => u.kind)).toContain('failed-repeats');
    expect(repeatSet(report)).toHaveLength(6);
  });

  it('resumes an interrupted sweep to the same repeats, rounds and orders as an uninterrupted one', async () => {
    const whole = freshReport(POINTS);
    await run(whole, new FakeSource(steady));

    const controller = new AbortController();
    const first = freshReport(POINTS);
    const stopped = await run(first, new FakeSource(steady, { abortAfter: { count: 7, controller } }), controller.signal);
    expect(stopped.outcome).toBe('interrupted');
    expect(repeatSet(first)).toHaveLength(7);
    // What a resumed sweep reads back is what was saved.
    const loaded = JSON.parse(stopped.saved.at(-1)!) as Report;
    expect(loaded.rounds.at(-1)?.finishedAt).toBeNull();
    const rest = new FakeSource(steady);
    expect((await run(loaded, rest)).outcome).toBe('done');
    // Only the missing repeats were measured.
    expect(rest.calls).toHaveLength(POINTS.length * 3 - 7);
    expect(repeatSet(loaded)).toEqual(repeatSet(whole));
    expect(loaded.rounds.map((r) => [r.index, r.seed, r.order])).toEqual(whole.rounds.map((r) => [r.index, r.seed, r.order]));
  });
});

describe('Runner --auto and --time-budget', () => {
  // Point a/ws-b20 wobbles by ±30% from round to round; the others are steady.
  const wobbly: Figure = (p, round) => (p.id === 'a/ws-b20-c10-i1-full' ? 150_000 * (1 + 0.3 * (round % 2 ? 1 : -1)) : steady(p, round));

  it('adds rounds of only the points whose CI is too wide, up to --max-repeats', async () => {
    const report = freshReport(POINTS, { auto: true, maxRepeats: 5 });
    await run(report, new FakeSource(wobbly));
    expect(report.rounds).toHaveLength(5);
    for (const round of report.rounds.slice(3)) expect(round.order).toEqual(['a/ws-b20-c10-i1-full']);
    expect(report.points.find((p) => p.point.id === 'a/ws-b20-c10-i1-full')?.repeats).toHaveLength(5);
    expect(report.points.find((p) => p.point.id === 'a/sse-b20-c10-i1-full')?.repeats).toHaveLength(3);
  });

  it('starts no auto round that would end past the time budget', async () => {
    const report = freshReport(POINTS, { auto: true, maxRepeats: 5, timeBudgetSec: 1 });
    await run(report, new FakeSource(wobbly));
    expect(report.rounds).toHaveLength(3);
  });
});

describe('Runner find-max wiring', () => {
  const file: ScenarioFile = { scenarios: [{ id: 'knee', transport: 'sse', concurrency: 10, findMax: { vary: 'batch', min: 10, max: 1000, p99BoundMs: 50 } }] };
  const LIMIT = 137;

  it('finds a known sustainable limit within one bisection step and records the search', async () => {
    const searches = searchesFor(file, file.scenarios, false);
    const report = freshReport([], { repeats: 2 });
    // Up to LIMIT the page takes everything; past it, it falls behind and latency grows.
    const source = new FakeSource((p) => (p.batch <= LIMIT ? p.offeredEventsPerSec : p.offeredEventsPerSec * 0.8), {
      p99: (p) => (p.batch <= LIMIT ? 5 : 900),
    });
    expect((await run(report, source, undefined, searches)).outcome).toBe('done');
    const [s] = report.saturation;
    expect(s).toMatchObject({ scenario: 'knee', transport: 'sse', varied: 'batch', fixed: { concurrency: 10 }, range: { min: 10, max: 1000 } });
    // The input delay bound is recorded too: the rule's default, no --input-delay given.
    expect(s.criteria).toEqual({ deliveredRatio: 0.99, shed: 0, p99BoundMs: 50, inputDelayBoundMs: 200 });
    expect(s.knee!.value).toBeLessThanOrEqual(LIMIT);
    expect(s.knee!.value * 1.15).toBeGreaterThanOrEqual(LIMIT);
    expect(s.knee!.pointId).toBe(`knee/sse-b${s.knee!.value}-c10-i1-full`);
    expect(s.knee!.eventsPerSec.n).toBe(2);
    expect(s.firstPast!.value).toBeGreaterThan(LIMIT);
    expect(s.firstPast!.reason).toMatch(/delivered 80\.0% < 99%; p99 900 ms > 50 ms/);
    expect(s.probes[0]).toMatchObject({ value: 10, pointId: 'knee/sse-b10-c10-i1-full', sustainable: true });
    // Probes and confirmations are not points of the sweep's rounds.
    expect(report.points).toEqual([]);
    // So the terminal shows the search, not an empty points table.
    const table = formatTable(report, { width: DEFAULT_TABLE_WIDTH });
    expect(table).not.toMatch(/\| point|Medians over the repeats/);
    expect(table).toContain(`find-max knee sse (batch): sustainable up to batch ${s.knee!.value}`);
    expect(source.calls.filter((c) => c.id === s.knee!.pointId).length).toBeGreaterThanOrEqual(2);
    // Every repeat measured is kept raw, in order, with its point and purpose.
    expect(s.repeats!.map((r) => r.pointId)).toEqual(source.calls.map((c) => c.id));
    expect(s.repeats!.filter((r) => r.purpose === 'probe')).toHaveLength(s.probes.length);
    expect(s.repeats!.filter((r) => r.purpose === 'confirm' && r.pointId === s.knee!.pointId)).toHaveLength(2);
    expect(s.repeats!.every((r) => r.repeat.status === 'ok' && r.repeat.eventsPerSec > 0)).toBe(true);
  });

  it('skips a search the report already holds (resume)', async () => {
    const searches = searchesFor(file, file.scenarios, false);
    const report = freshReport([], { repeats: 2 });
    await run(report, new FakeSource(steady), undefined, searches);
    const again = new FakeSource(steady);
    await run(report, again, undefined, searches);
    expect(again.calls).toEqual([]);
    expect(report.saturation).toHaveLength(1);
  });

  it('confirms over the repeats, and one slow window of three fails the value (issue 33: with 3 repeats the limit is the worst window)', async () => {
    const searches = searchesFor(file, file.scenarios, false);
    const report = freshReport([], { repeats: 3 });
    // Below the limit every third window's p99 is over the bound (one window moved from 31 to 54
    // ms on the 2-core VM). The old rule (the median window) passed such a value 74% of the time.
    let windows = 0;
    const source = new FakeSource((p) => (p.batch <= LIMIT ? p.offeredEventsPerSec : p.offeredEventsPerSec * 0.8), {
      p99: (p) => (p.batch > LIMIT ? 900 : ++windows % 3 === 0 ? 60 : 20),
    });
    expect((await run(report, source, undefined, searches)).outcome).toBe('done');
    const [s] = report.saturation;
    const confirmations = s.confirmations!;
    expect(confirmations.length).toBeGreaterThan(0);
    for (const c of confirmations) {
      const p99s = s
        .repeats!.filter((r) => r.purpose === 'confirm' && r.pointId === c.pointId && r.repeat.status === 'ok')
        .map((r) => (r.repeat as MeasuredRepeat).latency.p99Ms);
      if (p99s.includes(60)) {
        expect(c.sustainable).toBe(false);
        expect(c.reason).toContain("worst window's p99 60 ms > 50 ms");
      }
    }
    expect(confirmations.some((c) => !c.sustainable && /worst window's p99 60 ms/.test(c.reason))).toBe(true);
  });

  it("reports a search's repeats as it goes: a count that moves and a shrinking estimate of the rest", async () => {
    const searches = searchesFor(file, file.scenarios, false);
    const report = freshReport([], { repeats: 2 });
    const source = new FakeSource((p) => (p.batch <= LIMIT ? p.offeredEventsPerSec : p.offeredEventsPerSec * 0.8), {
      p99: (p) => (p.batch <= LIMIT ? 5 : 900),
    });
    const runner = new Runner({ repeats: source, ceilings });
    const seen: { done: number; planned: number; remainingSec: number }[] = [];
    let planned0 = 0;
    runner.on('search-start', (_s, planned) => (planned0 = planned));
    runner.on('search-repeat-done', (_s, _p, _r, t) => seen.push(t));
    expect(await runner.run(new ReportRecorder(report, async () => undefined), { searches })).toBe('done');
    expect(planned0).toBeGreaterThan(0);
    expect(seen.map((t) => t.done)).toEqual(source.calls.map((_, i) => i + 1));
    for (const t of seen) expect(t.planned).toBeGreaterThanOrEqual(t.done);
    expect(seen.at(-1)!.remainingSec).toBeLessThan(seen[0].remainingSec);
  });
});

describe('Runner lanes: several browsers (sharded)', () => {
  const lane = (id: string, source: FakeSource, alive = () => true): Lane => ({ id, repeats: source, ceilings, alive });
  const browsersOf = (r: Report) => new Map(r.points.map((p) => [p.point.id, [...new Set(p.repeats.map((x) => x.browserId))]]));

  it('deals pair groups over the browsers, each point on one browser every round, each browser with its own ceilings', async () => {
    const report = freshReport(POINTS);
    const runner = new Runner({ lanes: [lane('A', new FakeSource(steady)), lane('B', new FakeSource(steady))] });
    expect(await runner.run(new ReportRecorder(report, async () => undefined), { searches: [] })).toBe('done');
    expect(repeatSet(report)).toEqual(POINTS.flatMap((p) => [0, 1, 2].map((r) => `${p.id}@${r}`)).sort());
    const on = browsersOf(report);
    for (const ids of on.values()) expect(ids).toHaveLength(1);
    // Points one transport apart share a browser; both browsers got work.
    expect(on.get('a/ws-b20-c10-i1-full')).toEqual(on.get('a/sse-b20-c10-i1-full'));
    expect(new Set([...on.values()].flat())).toEqual(new Set(['A', 'B']));
    for (const round of report.rounds) expect(round.hostCeilings!.map((h) => h.browser).sort()).toEqual(['A', 'B']);
  });

  it('--spread-repeats moves each point to the other browser every round', async () => {
    const report = freshReport(POINTS, { spreadRepeats: true });
    const runner = new Runner({ lanes: [lane('A', new FakeSource(steady)), lane('B', new FakeSource(steady))] });
    expect(await runner.run(new ReportRecorder(report, async () => undefined), { searches: [] })).toBe('done');
    for (const p of report.points) {
      const byRound = [...p.repeats].sort((x, y) => x.round - y.round).map((x) => x.browserId);
      expect(byRound[0]).not.toBe(byRound[1]);
      expect(byRound[1]).not.toBe(byRound[2]);
    }
  });

  it("deals a lost browser's points to the one left, its repeat in progress recorded failed", async () => {
    const report = freshReport(POINTS);
    let bAlive = true;
    // B's first repeat fails as a browser lost mid-repeat does, and B is gone from then on.
    const b = new FakeSource(steady, { fail: () => !(bAlive = false) });
    const runner = new Runner({ lanes: [lane('A', new FakeSource(steady)), lane('B', b, () => bAlive)] });
    expect(await runner.run(new ReportRecorder(report, async () => undefined), { searches: [] })).toBe('done');
    expect(repeatSet(report)).toEqual(POINTS.flatMap((p) => [0, 1, 2].map((r) => `${p.id}@${r}`)).sort());
    const repeats = report.points.flatMap((p) => p.repeats);
    expect(repeats.filter((r) => r.status === 'failed').map((r) => r.browserId)).toEqual(['B']);
    expect(repeats.filter((r) => r.browserId === 'B')).toHaveLength(1);
  });

  it('stops with browsers-lost when no browser is left, keeping what was measured', async () => {
    const report = freshReport(POINTS);
    let alive = true;
    const dying = new FakeSource(steady, { fail: (_p, round) => round === 1 && !(alive = false) });
    const saved: string[] = [];
    const runner = new Runner({ lanes: [lane('A', dying, () => alive)] });
    expect(await runner.run(new ReportRecorder(report, async (r) => void saved.push(JSON.stringify(r))), { searches: [] })).toBe('browsers-lost');
    const repeats = report.points.flatMap((p) => p.repeats);
    expect(repeats.filter((r) => r.round === 0 && r.status === 'ok')).toHaveLength(POINTS.length);
    expect(repeats.filter((r) => r.status === 'failed')).toHaveLength(1);
    expect(repeats.length).toBe(POINTS.length + 1);
    expect(JSON.parse(saved.at(-1)!).points.flatMap((p: Report['points'][number]) => p.repeats)).toHaveLength(repeats.length);
  });
});
