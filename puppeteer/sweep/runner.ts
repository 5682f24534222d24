/**
 * Runs a sweep round by round and emits what happens; it never prints.
 *
 * A round measures every point once, in a seeded order that changes from round to round, with
 * points that differ only in transport back to back (rounds.ts): the machine's speed drifts
 * by ±20% within minutes, so a paired comparison must see both sides in the same state, and
 * no point may always run in the same phase of the drift. Each round first measures its own
 * in-page JSON.parse ceiling, since that drifts as well. After the fixed rounds, `--auto`
 * adds rounds of the points whose EPS interval is still wide; then the saturation searches run.
 *
 * The report is the runner's state, written through its recorder (report/recorder.ts): after
 * every repeat the point's summary and the paired comparisons are recomputed and the report is
 * saved, so an interrupted sweep keeps what it measured and `--resume` finishes exactly the
 * repeats that are missing.
 */
import { EventEmitter } from 'node:events';
import type { Engine } from '../../protocol/engine.js';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report, Round, SaturationResult } from '../../protocol/report.js';
import type { ReportRecorder } from '../report/recorder.js';
import { searchPoint, type Point, type SearchSpec } from '../../protocol/scenario.js';
import { describe, median } from '../../results/stats.js';
import { streamsOf } from '../../protocol/wire.js';
import { bestJsonCeiling, ceilingNeeds, ceilingOf, missingCeilings, type CeilingNeed } from '../../results/ceilings.js';
import { ceilingSec, repeatSec, roundsSec, searchRepeats, searchSec } from './estimate.js';
import { anotherWindowWorthIt, pointSustains, reasonText, SUSTAINS_DELIVERED_RATIO, windowSecFor } from '../../results/sustains.js';
import { DEFAULT_INPUT_DELAY_BOUND_MS } from '../../results/sustains.js';
import { findMax, type Confirmation, type ProbeResult } from './find-max.js';
import { needsMoreRepeats } from '../../results/point-summary.js';
import type { RepeatContext, RepeatEvents } from '../measure/repeat.js';
import { pairGroups, roundOrder } from '../../results/rounds.js';

export interface RunnerEvents {
  'round-start': [round: Round, fixedRounds: number];
  'ceiling-failed': [round: Round, error: Error];
  'repeat-start': [point: Point, round: number, position: number, roundSize: number];
  phase: RepeatEvents['phase'];
  'attempt-failed': RepeatEvents['attempt-failed'];
  /** `estimateSec`: what estimate.ts expected this repeat to take; `remainingSec`: the rest of the plan, estimated. */
  'repeat-done': [point: Point, repeat: Repeat, result: Readonly<PointResult>, timing: { tookSec: number; estimateSec: number; remainingSec: number }];
  'round-done': [round: Round];
  'search-start': [search: SearchSpec, planned: number];
  /**
   * One repeat of a search measured (a probe's window or one confirming repeat): `done` of about
   * `planned` (a search's length is known only as it goes: confirmations that fail add more), and
   * the rest of the plan estimated, as for 'repeat-done'.
   */
  'search-repeat-done': [
    search: SearchSpec,
    point: Point,
    repeat: Repeat,
    timing: { done: number; planned: number; tookSec: number; estimateSec: number; remainingSec: number },
  ];
  'probe-done': [search: SearchSpec, point: Point, outcome: ProbeResult];
  'search-done': [result: SaturationResult];
}

/** Measures one repeat (repeat.ts's RepeatMeasurer, or a fake in tests); null when aborted. */
export interface RepeatSource extends EventEmitter<RepeatEvents> {
  measure(point: Point, ctx: RepeatContext): Promise<Repeat | null>;
}

/**
 * One browser the runner deals repeats to. A sweep has one (launched, or one `--browser`) or
 * several (`--browser a,b,…`: sharded); each runs one repeat at a time.
 */
export interface Lane {
  /** Its id in `report.hosts`, recorded on its repeats; absent for a sweep's single browser in tests. */
  id?: string;
  repeats: RepeatSource;
  /**
   * The in-page decoding ceilings of these encodings at these batch sizes, in this browser
   * (ceiling.ts); with `engine` firefox, in the lane's Firefox (its own: ratios stay per engine).
   */
  ceilings(needs: readonly CeilingNeed[], signal?: AbortSignal, engine?: Engine): Promise<ParseCeiling[]>;
  /** False once its browser is lost for good: its repeats go to the others. */
  alive(): boolean;
  /** The engines it runs points of (a launched Chrome's lane also launches Firefox); absent: every one. */
  engines?: readonly Engine[];
}

export interface RunnerOptions {
  /** The browsers; or, for one browser, `repeats` and `ceilings`. */
  lanes?: Lane[];
  /** Measures one repeat (repeat.ts's RepeatMeasurer, or a fake in tests): the one-browser form. */
  repeats?: RepeatSource;
  /** The in-page decoding ceilings (ceiling.ts): the one-browser form. */
  ceilings?(needs: readonly CeilingNeed[], signal?: AbortSignal, engine?: Engine): Promise<ParseCeiling[]>;
}

/** What the runner was asked to do beyond the report's points: the saturation searches. */
export interface RunPlan {
  searches: readonly SearchSpec[];
  /** Aborting it (Ctrl-C) stops after the repeat in progress is dropped; the report stays valid. */
  signal?: AbortSignal;
}

/**
 * How a run ended: everything done, stopped by the signal, or stopped because every browser
 * was lost (the report keeps what was measured; a resume with working browsers finishes it).
 */
export type RunOutcome = 'done' | 'interrupted' | 'browsers-lost';

const elapsedSec = (since: number) => (performance.now() - since) / 1000;

export class Runner extends EventEmitter<RunnerEvents> {
  private readonly lanes: Lane[];
  private sessionStart = performance.now();
  /** Each point's pair group, by its place in the report's points (homeOf). */
  private groupIndex: { report: Readonly<Report>; index: Map<string, number> } | null = null;
  /** The search under way: its repeats measured, and planned so far. */
  private searching: { search: SearchSpec; done: number; planned: number } | null = null;

  constructor(private readonly o: RunnerOptions) {
    super();
    if (o.lanes?.length) this.lanes = o.lanes;
    else if (o.repeats && o.ceilings) this.lanes = [{ repeats: o.repeats, ceilings: o.ceilings, alive: () => true }];
    else throw new Error('Runner needs lanes, or repeats and ceilings');
    for (const lane of this.lanes) {
      lane.repeats.on('phase', (...a) => this.emit('phase', ...a));
      lane.repeats.on('attempt-failed', (...a) => this.emit('attempt-failed', ...a));
    }
  }

  private get sharded(): boolean {
    return this.lanes.length > 1;
  }

  /** Finishes what the recorder's report still lacks, writing through it; see RunOutcome. */
  async run(record: ReportRecorder, plan: RunPlan): Promise<RunOutcome> {
    this.sessionStart = performance.now();
    const { report } = record;
    const { signal } = plan;
    const fixed = report.options.repeats;
    // A round the last session left unfinished is completed first, with its recorded order and ceiling.
    for (const round of report.rounds) {
      if (round.finishedAt === null) {
        const out = await this.runRound(record, round, plan);
        if (out !== 'done') return out;
      }
    }
    for (let r = report.rounds.length; r < fixed; r++) {
      const points = report.points.map((p) => p.point).filter((p) => p.repeats > r);
      const out = await this.runRound(record, this.newRound(record, points), plan);
      if (out !== 'done') return out;
    }
    while (report.options.auto) {
      const wanted = report.points.filter((p) => p.repeats.length < report.options.maxRepeats && needsMoreRepeats(p)).map((p) => p.point);
      if (!wanted.length || this.overBudget(report, this.roundEstimateSec(wanted))) break;
      const out = await this.runRound(record, this.newRound(record, wanted), plan);
      if (out !== 'done') return out;
    }
    for (const search of plan.searches) {
      if (report.saturation.some((s) => s.scenario === search.scenario && s.transport === search.transport)) continue;
      let result: SaturationResult | null;
      try {
        result = await this.search(report, search, plan);
      } catch (err) {
        if (err instanceof NoBrowser) return 'browsers-lost';
        throw err;
      }
      if (!result) return 'interrupted';
      record.addSaturation(result);
      await record.save();
      this.emit('search-done', result);
    }
    return signal?.aborted ? 'interrupted' : 'done';
  }

  /** What is left of the plan, estimated: unfinished rounds, later fixed rounds, the searches not done. */
  remainingSec(report: Readonly<Report>, searches: readonly SearchSpec[]): number {
    const points = report.points.map((p) => p.point);
    const byId = new Map(points.map((p) => [p.id, p]));
    let s = 0;
    for (const round of report.rounds.filter((r) => r.finishedAt === null)) {
      const missing = round.order.filter((id) => !this.measuredIn(report, id, round.index)).map((id) => byId.get(id)!);
      s += missing.reduce((a, p) => a + repeatSec(p), 0) + (round.parseCeilings.length ? 0 : ceilingSec(missing));
    }
    s += roundsSec(points, report.rounds.length, report.options.repeats);
    // Sharded rounds run on every browser at once (ceilings too, each its own).
    s /= Math.max(1, this.lanes.filter((l) => l.alive()).length);
    const done = new Set(report.saturation.map((r) => `${r.scenario}\n${r.transport}`));
    for (const q of searches) {
      if (done.has(`${q.scenario}\n${q.transport}`)) continue;
      // The search under way: what is left of its (growing) plan; the others whole.
      const current = this.searching?.search === q ? this.searching : null;
      s += current ? Math.max(0, current.planned - current.done) * repeatSec(q.base) : searchSec(q.base, q, report.options.repeats);
    }
    return s;
  }

  private roundEstimateSec(points: readonly Point[]): number {
    return (points.reduce((a, p) => a + repeatSec(p), 0) + ceilingSec(points)) / Math.max(1, this.lanes.filter((l) => l.alive()).length);
  }

  /** `--time-budget`: no round starts that would end past it (this session's time). */
  private overBudget(report: Readonly<Report>, nextSec: number): boolean {
    const budget = report.options.timeBudgetSec;
    return budget !== null && elapsedSec(this.sessionStart) + nextSec > budget;
  }

  /** The next round of these points, in the round's seeded order. */
  private newRound(record: ReportRecorder, points: readonly Point[]): Round {
    const index = record.report.rounds.length;
    return record.startRound(roundOrder(points, index, record.report.options.seed).map((p) => p.id));
  }

  private measuredIn(report: Readonly<Report>, id: string, round: number): boolean {
    return report.points.find((p) => p.point.id === id)!.repeats.some((r) => r.round === round);
  }

  /**
   * The browser a point's repeat goes to in a round. Points that differ only in transport go
   * together (their paired comparison must see one machine), groups dealt round-robin over the
   * browsers in the order the report lists the points, so a point stays on one browser in every
   * round; `spreadRepeats` moves each group on by one browser per round. A lost browser's groups
   * are dealt over the browsers left. Null when none is left.
   */
  private homeOf(report: Readonly<Report>, id: string, round: number): Lane | null {
    const living = this.lanes.filter((l) => l.alive());
    if (!living.length) return null;
    // A point goes to the browsers of its engine (a remote Firefox for `engine: firefox`); with
    // none, to any, where it fails saying so.
    const engine = report.points.find((p) => p.point.id === id)?.point.engine ?? 'chrome';
    const fits = (l: Lane) => !l.engines || l.engines.includes(engine);
    const lanes = this.lanes.some(fits) ? this.lanes.filter(fits) : this.lanes;
    const alive = living.some(fits) ? living.filter(fits) : living;
    if (this.groupIndex?.report !== report) {
      const index = new Map<string, number>();
      pairGroups(report.points.map((p) => p.point)).forEach((members, g) => members.forEach((p) => index.set(p.id, g)));
      this.groupIndex = { report, index };
    }
    const slot = this.groupIndex.index.get(id)! + (report.options.spreadRepeats ? round : 0);
    const first = lanes[slot % lanes.length];
    return first.alive() ? first : alive[slot % alive.length];
  }

  /** Measures the round's missing repeats, each browser one at a time, side by side. */
  private async runRound(record: ReportRecorder, round: Round, plan: RunPlan): Promise<RunOutcome> {
    const { signal } = plan;
    const { report } = record;
    const results = new Map(report.points.map((p) => [p.point.id, p]));
    const todo = round.order.filter((id) => !this.measuredIn(report, id, round.index));
    this.emit('round-start', round, report.options.repeats);
    const engineOf = (id: string): Engine => results.get(id)!.point.engine ?? 'chrome';
    const chromeTodo = todo.filter((id) => engineOf(id) === 'chrome');
    if (!this.sharded && !round.parseCeilings.length && chromeTodo.length) {
      try {
        record.setCeilings(round, await this.lanes[0].ceilings(ceilingNeeds(chromeTodo.map((id) => results.get(id)!.point)), signal));
      } catch (err) {
        if (signal?.aborted) return 'interrupted';
        // Without a ceiling the round's repeats carry no ceilingRatio; the EPS still counts.
        this.emit('ceiling-failed', round, err instanceof Error ? err : new Error(String(err)));
      }
      await record.save();
    }
    // Firefox's own ceiling, measured in Firefox, once a round (unsharded: a sharded lane's is its own browser's).
    const firefoxTodo = todo.filter((id) => engineOf(id) === 'firefox');
    if (!this.sharded && firefoxTodo.length && !round.engineCeilings?.some((e) => e.engine === 'firefox')) {
      try {
        const measured = await this.lanes[0].ceilings(ceilingNeeds(firefoxTodo.map((id) => results.get(id)!.point)), signal, 'firefox');
        record.addEngineCeilings(round, 'firefox', measured);
      } catch (err) {
        if (signal?.aborted) return 'interrupted';
        this.emit('ceiling-failed', round, err instanceof Error ? err : new Error(String(err)));
      }
      await record.save();
    }
    const taken = new Set<string>();
    let interrupted = false;
    /** Ceilings (`encoding/batch`) a browser tried this round (sharded): each is measured at most once. */
    const tried = new Map<Lane, Set<string>>();
    type Ceilings = Pick<RepeatContext, 'ceilingEventsPerSec' | 'jsonCeilingEventsPerSec'>;
    const read = (list: readonly ParseCeiling[], point: Point): Ceilings => ({
      ceilingEventsPerSec: ceilingOf(list, point.batch, point.encoding, point),
      jsonCeilingEventsPerSec: bestJsonCeiling(list, point),
    });
    const needKey = (n: CeilingNeed) => `${n.device ?? ''}/${n.throttle ?? ''}/${n.encoding}/${n.batch}`;

    const ceilingFor = async (lane: Lane, point: Point): Promise<Ceilings> => {
      if (!this.sharded) {
        const engine = point.engine ?? 'chrome';
        return read(engine === 'chrome' ? round.parseCeilings : (round.engineCeilings?.find((e) => e.engine === engine)?.parseCeilings ?? []), point);
      }
      const id = lane.id ?? '';
      record.addHostCeilings(round, id);
      let entry = round.hostCeilings?.find((h) => h.browser === id);
      const seen = tried.get(lane) ?? new Set<string>();
      tried.set(lane, seen);
      const unmet = (points: Point[]) => missingCeilings(ceilingNeeds(points), entry?.parseCeilings ?? []).filter((n) => !seen.has(needKey(n)));
      if (!unmet([point]).length) return read(entry?.parseCeilings ?? [], point);
      // This browser's own ceilings, for every point it is to run this round (a resumed round
      // keeps what was recorded): JSON at each batch size, and each other encoding's.
      const mine = todo.filter((t) => !taken.has(t) && this.homeOf(report, t, round.index) === lane).map((t) => results.get(t)!.point);
      const needs = unmet([point, ...mine]);
      for (const n of needs) seen.add(needKey(n));
      try {
        record.addHostCeilings(round, id, await lane.ceilings(needs, signal));
        entry = round.hostCeilings?.find((h) => h.browser === id);
      } catch (err) {
        if (signal?.aborted) return { ceilingEventsPerSec: null };
        this.emit('ceiling-failed', round, err instanceof Error ? err : new Error(String(err)));
      }
      await record.save();
      return read(entry?.parseCeilings ?? [], point);
    };

    const worker = async (lane: Lane): Promise<void> => {
      for (;;) {
        if (signal?.aborted || interrupted || !lane.alive()) return;
        const id = todo.find((t) => !taken.has(t) && this.homeOf(report, t, round.index) === lane);
        if (id === undefined) return;
        taken.add(id);
        const point = results.get(id)!.point;
        const ceilings = await ceilingFor(lane, point);
        if (signal?.aborted) {
          interrupted = true;
          return;
        }
        if (!lane.alive()) {
          // Lost while measuring its ceiling: the point goes back to be dealt to another browser.
          taken.delete(id);
          return;
        }
        this.emit('repeat-start', point, round.index, round.order.indexOf(point.id), round.order.length);
        const t0 = performance.now();
        const repeat = await lane.repeats.measure(point, { round: round.index, ...ceilings, signal });
        if (!repeat) {
          interrupted = true;
          return;
        }
        if (lane.id !== undefined) repeat.browserId ??= lane.id;
        const result = record.addRepeat(id, repeat);
        await record.save();
        this.emit('repeat-done', point, repeat, result, {
          tookSec: elapsedSec(t0),
          estimateSec: repeatSec(point),
          remainingSec: this.remainingSec(report, plan.searches),
        });
      }
    };

    // A browser lost mid-round leaves points the others may already have passed: deal again
    // until every point was taken or no browser is left.
    for (;;) {
      await Promise.all(this.lanes.filter((l) => l.alive()).map(worker));
      if (interrupted || signal?.aborted) return 'interrupted';
      if (todo.every((t) => taken.has(t))) break;
      if (!this.lanes.some((l) => l.alive())) {
        await record.save();
        return 'browsers-lost';
      }
    }
    record.finishRound(round);
    await record.save();
    this.emit('round-done', round);
    return 'done';
  }

  /** One saturation search; null when interrupted (a resumed sweep runs it again). */
  private async search(report: Readonly<Report>, search: SearchSpec, plan: RunPlan): Promise<SaturationResult | null> {
    const { signal } = plan;
    const repeats = report.options.repeats;
    const progress = { search, done: 0, planned: searchRepeats(search, repeats) };
    this.searching = progress;
    this.emit('search-start', search, progress.planned);
    const inputDelayBoundMs = report.options.inputDelayBoundMs ?? DEFAULT_INPUT_DELAY_BOUND_MS;
    const target = { p99BoundMs: search.p99BoundMs, inputDelayBoundMs };
    // Probes belong to no round: their index continues after the sweep's rounds.
    const round = report.rounds.length;
    const evidence: NonNullable<SaturationResult['repeats']> = [];
    /** `left`: repeats still to come in the measurement under way (a confirmation's), so the plan grows only when it must. */
    const once = async (point: Point, purpose: 'probe' | 'confirm', left: number): Promise<Repeat> => {
      // A search is sequential by nature: it runs in the first browser still there.
      const lane = this.lanes.find((l) => l.alive());
      if (!lane) throw new NoBrowser();
      const t0 = performance.now();
      const repeat = await lane.repeats.measure(point, { round, ceilingEventsPerSec: null, signal });
      if (!repeat) throw new Interrupted();
      if (lane.id !== undefined) repeat.browserId ??= lane.id;
      evidence.push({ pointId: point.id, purpose, repeat });
      progress.done++;
      // Past the first estimate (confirmations that failed step down): at least what this one still needs, and one more.
      progress.planned = Math.max(progress.planned, progress.done + Math.max(left, 1));
      this.emit('search-repeat-done', search, point, repeat, {
        done: progress.done,
        planned: progress.planned,
        tookSec: elapsedSec(t0),
        estimateSec: repeatSec(point),
        remainingSec: this.remainingSec(report, plan.searches),
      });
      return repeat;
    };
    /**
     * The search's point at `value`, its window lengthened to hold MIN_WINDOW_BATCHES when its
     * ticks are slow (up to MAX_LENGTHENED_WINDOW_SEC): below that, one batch more or less moves
     * delivered past the rule's 1% and the window's p99 is its maximum.
     */
    const pointAt = (value: number): Point => {
      const p = searchPoint(search, value);
      const measureSec = windowSecFor((streamsOf(p) * 1000) / p.intervalMs, p.measureSec);
      return measureSec === p.measureSec ? p : { ...p, measureSec };
    };
    const probe = async (value: number): Promise<ProbeResult> => {
      const point = pointAt(value);
      this.emit('repeat-start', point, round, 0, 1);
      const r = await once(point, 'probe', 0);
      // One window is the sustains rule over one repeat; a window too coarse to fail a value on
      // (near a threshold by one batch, or short of batches) is measured once more, both judged.
      const windows = [r];
      let judged = pointSustains(point, windows, target);
      if (!judged.sustains && anotherWindowWorthIt(judged.figures)) {
        this.emit('repeat-start', point, round, 0, 1);
        windows.push(await once(point, 'probe', 0));
        judged = pointSustains(point, windows, target);
      }
      const eps = windows.filter((w): w is MeasuredRepeat => w.status === 'ok').map((w) => w.eventsPerSec);
      const outcome: ProbeResult = { sustainable: judged.sustains, eventsPerSec: eps.length ? median(eps) : null, reason: reasonText(judged) };
      this.emit('probe-done', search, point, outcome);
      return outcome;
    };
    const confirm = async (value: number): Promise<Confirmation> => {
      const point = pointAt(value);
      const measured: Repeat[] = [];
      for (let i = 0; i < repeats; i++) {
        this.emit('repeat-start', point, round, i, repeats);
        measured.push(await once(point, 'confirm', repeats - i - 1));
      }
      const ok = measured.filter((r): r is MeasuredRepeat => r.status === 'ok');
      const eventsPerSec = describe(ok.length ? ok.map((r) => r.eventsPerSec) : [0]);
      // Judged over the repeats (the median repeat), not window by window: results/sustains.ts.
      const judged = pointSustains(point, measured, target);
      const outcome = { sustainable: judged.sustains, eventsPerSec, reason: reasonText(judged) };
      this.emit('probe-done', search, point, { ...outcome, eventsPerSec: eventsPerSec.median });
      return outcome;
    };
    try {
      const out = await findMax({ min: search.min, max: search.max, integer: true, probe, confirm });
      const idAt = (value: number) => searchPoint(search, value).id;
      const fixed = search.vary === 'batch' ? { concurrency: search.base.concurrency } : { batch: search.base.batch };
      return {
        scenario: search.scenario,
        transport: search.transport,
        varied: search.vary,
        fixed,
        range: { min: search.min, max: search.max },
        criteria: { deliveredRatio: SUSTAINS_DELIVERED_RATIO, shed: 0, p99BoundMs: search.p99BoundMs, inputDelayBoundMs },
        probes: out.probes.map((p) => ({ ...p, pointId: idAt(p.value) })),
        confirmations: out.confirmations.map((c) => ({ value: c.value, pointId: idAt(c.value), sustainable: c.sustainable, reason: c.reason })),
        knee: out.knee && { ...out.knee, pointId: idAt(out.knee.value) },
        firstPast: out.firstPast && { ...out.firstPast, pointId: idAt(out.firstPast.value) },
        repeats: evidence,
      };
    } catch (err) {
      if (err instanceof Interrupted) return null;
      throw err;
    } finally {
      this.searching = null;
    }
  }
}

class Interrupted extends Error {
  override name = 'Interrupted';
}

/** Every browser was lost before a search finished. */
class NoBrowser extends Error {
  override name = 'NoBrowser';
}
