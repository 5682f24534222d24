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
 * The report is the runner's state: after every repeat the point's summary and the paired
 * comparisons are recomputed and the report is saved, so an interrupted sweep keeps what it
 * measured and `--resume` finishes exactly the repeats that are missing.
 */
import { EventEmitter } from 'node:events';
import type { MeasuredRepeat, ParseCeiling, PointResult, Repeat, Report, Round, SaturationResult } from '../protocol/report.js';
import { searchPoint, type Point, type SearchSpec } from '../protocol/scenario.js';
import { describe } from '../protocol/stats.js';
import { ceilingSec, repeatSec, roundsSec, searchSec } from './estimate.js';
import { findMax, isSustainable, SUSTAINABLE_DELIVERED_RATIO, type Confirmation, type ProbeResult } from './find-max.js';
import { needsMoreRepeats, pairedComparisons, summarisePoint } from './point-summary.js';
import { knobComparisons } from './knobs.js';
import type { RepeatContext, RepeatEvents } from './repeat.js';
import { roundOrder, roundSeed } from './rounds.js';

export interface RunnerEvents {
  'round-start': [round: Round, fixedRounds: number];
  'ceiling-failed': [round: Round, error: Error];
  'repeat-start': [point: Point, round: number, position: number, roundSize: number];
  phase: RepeatEvents['phase'];
  'attempt-failed': RepeatEvents['attempt-failed'];
  /** `estimateSec`: what estimate.ts expected this repeat to take; `remainingSec`: the rest of the plan, estimated. */
  'repeat-done': [point: Point, repeat: Repeat, result: PointResult, timing: { tookSec: number; estimateSec: number; remainingSec: number }];
  'round-done': [round: Round];
  'search-start': [search: SearchSpec];
  'probe-done': [search: SearchSpec, point: Point, outcome: ProbeResult];
  'search-done': [result: SaturationResult];
}

/** Measures one repeat (repeat.ts's RepeatMeasurer, or a fake in tests); null when aborted. */
export interface RepeatSource extends EventEmitter<RepeatEvents> {
  measure(point: Point, ctx: RepeatContext): Promise<Repeat | null>;
}

export interface RunnerOptions {
  repeats: RepeatSource;
  /** The in-page JSON.parse ceiling at these batch sizes (ceiling.ts). */
  ceilings(batches: readonly number[], signal?: AbortSignal): Promise<ParseCeiling[]>;
  /** Writes the report (atomically); called after every change worth keeping. */
  save(report: Report): Promise<void>;
}

/** What the runner was asked to do beyond the report's points: the saturation searches. */
export interface RunPlan {
  searches: readonly SearchSpec[];
  /** Aborting it (Ctrl-C) stops after the repeat in progress is dropped; the report stays valid. */
  signal?: AbortSignal;
}

const elapsedSec = (since: number) => (performance.now() - since) / 1000;

export class Runner extends EventEmitter<RunnerEvents> {
  private readonly repeats: RepeatSource;
  private sessionStart = performance.now();

  constructor(private readonly o: RunnerOptions) {
    super();
    this.repeats = o.repeats;
    this.repeats.on('phase', (...a) => this.emit('phase', ...a));
    this.repeats.on('attempt-failed', (...a) => this.emit('attempt-failed', ...a));
  }

  /** Finishes what `report` still lacks; 'interrupted' when the signal stopped it first. */
  async run(report: Report, plan: RunPlan): Promise<'done' | 'interrupted'> {
    this.sessionStart = performance.now();
    const { signal } = plan;
    const fixed = report.options.repeats;
    // A round the last session left unfinished is completed first, with its recorded order and ceiling.
    for (const round of report.rounds) {
      if (round.finishedAt === null && !(await this.runRound(report, round, plan))) return 'interrupted';
    }
    for (let r = report.rounds.length; r < fixed; r++) {
      const points = report.points.map((p) => p.point).filter((p) => p.repeats > r);
      if (!(await this.runRound(report, this.newRound(report, r, points), plan))) return 'interrupted';
    }
    while (report.options.auto) {
      const wanted = report.points.filter((p) => p.repeats.length < report.options.maxRepeats && needsMoreRepeats(p)).map((p) => p.point);
      if (!wanted.length || this.overBudget(report, this.roundEstimateSec(wanted))) break;
      if (!(await this.runRound(report, this.newRound(report, report.rounds.length, wanted), plan))) return 'interrupted';
    }
    for (const search of plan.searches) {
      if (report.saturation.some((s) => s.scenario === search.scenario && s.transport === search.transport)) continue;
      const result = await this.search(report, search, signal);
      if (!result) return 'interrupted';
      report.saturation.push(result);
      await this.o.save(report);
      this.emit('search-done', result);
    }
    return signal?.aborted ? 'interrupted' : 'done';
  }

  /** What is left of the plan, estimated: unfinished rounds, later fixed rounds, the searches not done. */
  remainingSec(report: Report, searches: readonly SearchSpec[]): number {
    const points = report.points.map((p) => p.point);
    const byId = new Map(points.map((p) => [p.id, p]));
    let s = 0;
    for (const round of report.rounds.filter((r) => r.finishedAt === null)) {
      const missing = round.order.filter((id) => !this.measuredIn(report, id, round.index)).map((id) => byId.get(id)!);
      s += missing.reduce((a, p) => a + repeatSec(p), 0) + (round.parseCeilings.length ? 0 : ceilingSec(missing.map((p) => p.batch)));
    }
    s += roundsSec(points, report.rounds.length, report.options.repeats);
    const done = new Set(report.saturation.map((r) => `${r.scenario}\n${r.transport}`));
    for (const q of searches) if (!done.has(`${q.scenario}\n${q.transport}`)) s += searchSec(q.base, q, report.options.repeats);
    return s;
  }

  private roundEstimateSec(points: readonly Point[]): number {
    return points.reduce((a, p) => a + repeatSec(p), 0) + ceilingSec(points.map((p) => p.batch));
  }

  /** `--time-budget`: no round starts that would end past it (this session's time). */
  private overBudget(report: Report, nextSec: number): boolean {
    const budget = report.options.timeBudgetSec;
    return budget !== null && elapsedSec(this.sessionStart) + nextSec > budget;
  }

  private newRound(report: Report, index: number, points: readonly Point[]): Round {
    const round: Round = {
      index,
      seed: roundSeed(report.options.seed, index),
      order: roundOrder(points, index, report.options.seed).map((p) => p.id),
      startedAt: new Date().toISOString(),
      finishedAt: null,
      parseCeilings: [],
    };
    report.rounds.push(round);
    return round;
  }

  private measuredIn(report: Report, id: string, round: number): boolean {
    return report.points.find((p) => p.point.id === id)!.repeats.some((r) => r.round === round);
  }

  /** Measures the round's missing repeats; false when interrupted. */
  private async runRound(report: Report, round: Round, plan: RunPlan): Promise<boolean> {
    const { signal } = plan;
    const results = new Map(report.points.map((p) => [p.point.id, p]));
    const todo = round.order.filter((id) => !this.measuredIn(report, id, round.index)).map((id) => results.get(id)!);
    this.emit('round-start', round, report.options.repeats);
    if (!round.parseCeilings.length && todo.length) {
      try {
        round.parseCeilings = await this.o.ceilings(todo.map((p) => p.point.batch), signal);
      } catch (err) {
        if (signal?.aborted) return false;
        // Without a ceiling the round's repeats carry no ceilingRatio; the EPS still counts.
        this.emit('ceiling-failed', round, err instanceof Error ? err : new Error(String(err)));
      }
      await this.o.save(report);
    }
    const ceilings = new Map(round.parseCeilings.map((c) => [c.batch, c.eventsPerSec]));
    for (const result of todo) {
      const point = result.point;
      this.emit('repeat-start', point, round.index, round.order.indexOf(point.id), round.order.length);
      const t0 = performance.now();
      const repeat = await this.repeats.measure(point, { round: round.index, ceilingEventsPerSec: ceilings.get(point.batch) ?? null, signal });
      if (!repeat) return false;
      result.repeats.push(repeat);
      Object.assign(result, summarisePoint(point, result.repeats));
      report.comparisons = pairedComparisons(report.points);
      report.knobs = knobComparisons(report.points);
      await this.o.save(report);
      this.emit('repeat-done', point, repeat, result, { tookSec: elapsedSec(t0), estimateSec: repeatSec(point), remainingSec: this.remainingSec(report, plan.searches) });
    }
    round.finishedAt = new Date().toISOString();
    await this.o.save(report);
    this.emit('round-done', round);
    return true;
  }

  /** One saturation search; null when interrupted (a resumed sweep runs it again). */
  private async search(report: Report, search: SearchSpec, signal: AbortSignal | undefined): Promise<SaturationResult | null> {
    this.emit('search-start', search);
    const criteria = { deliveredRatio: SUSTAINABLE_DELIVERED_RATIO, p99BoundMs: search.p99BoundMs };
    // Probes belong to no round: their index continues after the sweep's rounds.
    const round = report.rounds.length;
    const evidence: NonNullable<SaturationResult['repeats']> = [];
    const once = async (point: Point, purpose: 'probe' | 'confirm'): Promise<Repeat> => {
      const repeat = await this.repeats.measure(point, { round, ceilingEventsPerSec: null, signal });
      if (!repeat) throw new Interrupted();
      evidence.push({ pointId: point.id, purpose, repeat });
      return repeat;
    };
    const judge = (r: MeasuredRepeat) => isSustainable({ deliveredRatio: r.deliveredRatio, batchesShed: r.server.batchesShed, p99Ms: r.latency.p99Ms }, criteria);
    const probe = async (value: number): Promise<ProbeResult> => {
      const point = searchPoint(search, value);
      this.emit('repeat-start', point, round, 0, 1);
      const r = await once(point, 'probe');
      const outcome: ProbeResult = r.status === 'ok' ? { ...judge(r), eventsPerSec: r.eventsPerSec } : { sustainable: false, eventsPerSec: null, reason: `failed: ${r.error}` };
      this.emit('probe-done', search, point, outcome);
      return outcome;
    };
    const confirm = async (value: number): Promise<Confirmation> => {
      const point = searchPoint(search, value);
      const measured: MeasuredRepeat[] = [];
      const reasons: string[] = [];
      for (let i = 0; i < report.options.repeats; i++) {
        this.emit('repeat-start', point, round, i, report.options.repeats);
        const r = await once(point, 'confirm');
        if (r.status !== 'ok') {
          reasons.push(`failed: ${r.error}`);
          continue;
        }
        measured.push(r);
        const j = judge(r);
        if (!j.sustainable) reasons.push(j.reason);
      }
      const eventsPerSec = describe(measured.length ? measured.map((r) => r.eventsPerSec) : [0]);
      // Sustainable only when every confirming repeat was: one overloaded window is a finding.
      const sustainable = measured.length === report.options.repeats && reasons.length === 0;
      const reason = sustainable ? `sustainable in all ${measured.length} repeats` : reasons.join('; ');
      this.emit('probe-done', search, point, { sustainable, eventsPerSec: eventsPerSec.median, reason });
      return { sustainable, eventsPerSec, reason };
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
        criteria: { deliveredRatio: criteria.deliveredRatio, shed: 0, p99BoundMs: criteria.p99BoundMs },
        probes: out.probes.map((p) => ({ ...p, pointId: idAt(p.value) })),
        knee: out.knee && { ...out.knee, pointId: idAt(out.knee.value) },
        firstPast: out.firstPast && { ...out.firstPast, pointId: idAt(out.firstPast.value) },
        repeats: evidence,
      };
    } catch (err) {
      if (err instanceof Interrupted) return null;
      throw err;
    }
  }
}

class Interrupted extends Error {
  override name = 'Interrupted';
}

/** A point's entry before its first repeat. */
export function emptyResult(point: Point): PointResult {
  return { point, repeats: [], summary: null, verdict: 'failed', unsteady: [], notes: [] };
}
