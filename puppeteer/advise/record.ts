/**
 * The advisor's report as it is measured: every candidate's repeats as points, so `npm run
 * report` and the viewer open it like a sweep's. A probe is a round of its own (one short window
 * of one point, scenario `advise-probe`); a confirmation round is a round of the finalists
 * (scenario `advise`, the sweep's window), in the seeded interleaved order it was measured in.
 * After every repeat the point's summary, the paired comparisons and the answer so far are
 * recomputed and the report is saved (atomically, by the caller's `save`).
 */
import type { Advice } from '../../protocol/advice.js';
import type { AdviseOptions } from './search.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report, Round } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { knobComparisons } from '../../results/knobs.js';
import { pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { roundSeed } from '../../results/rounds.js';
import { emptyResult, resummarise } from '../sweep/runner.js';

export class AdviseRecord {
  /** The answer so far (search.ts's snapshot), written with every save. */
  snapshot: (() => Advice) | null = null;
  /** Saves in the order asked. */
  private saving: Promise<void> = Promise.resolve();
  /** A save nobody awaited that failed: thrown by the next save. */
  private failed: unknown = null;

  constructor(
    readonly report: Report,
    private readonly saveReport: (report: Report) => Promise<void>,
  ) {}

  /** Writes the report now, with the answer so far. */
  save(): Promise<void> {
    if (this.failed !== null) {
      const err = this.failed;
      this.failed = null;
      return Promise.reject(err);
    }
    if (this.snapshot) this.report.advice = this.snapshot();
    const next = this.saving.then(() => this.saveReport(this.report));
    this.saving = next.catch(() => undefined);
    return next;
  }

  /**
   * The search's hooks that keep the saved answer current: its snapshot, and a save once it has
   * judged a measurement (a repeat is saved as it lands, before the search has read it, so the
   * answer saved with it is one measurement behind). A failure of that save surfaces at the next.
   */
  searchHooks(): Required<Pick<AdviseOptions, 'onStart' | 'onMeasured'>> {
    return {
      onStart: (snapshot) => {
        this.snapshot = snapshot;
      },
      onMeasured: () => {
        this.save().catch((err: unknown) => {
          this.failed ??= err;
        });
      },
    };
  }

  /** A new round of these points, in this order (not saved until its first repeat). */
  startRound(order: readonly Point[]): Round {
    const index = this.report.rounds.length;
    const round: Round = { index, seed: roundSeed(this.report.options.seed, index), order: order.map((p) => p.id), startedAt: new Date().toISOString(), finishedAt: null, parseCeilings: [] };
    this.report.rounds.push(round);
    return round;
  }

  /** A measured repeat of `point` in `round`: its point's summary and the comparisons recomputed, then saved. */
  async add(point: Point, repeat: Repeat, round: Round, last: boolean): Promise<void> {
    const r = this.resultOf(point);
    r.repeats.push(repeat);
    // Times measured so far: a candidate's point is measured as often as the search asks.
    r.point.repeats = r.repeats.length;
    resummarise(this.report, r);
    if (last) round.finishedAt = new Date().toISOString();
    await this.save();
  }

  private resultOf(point: Point): PointResult {
    let r = this.report.points.find((p) => p.point.id === point.id);
    if (!r) {
      r = emptyResult({ ...point, repeats: 0 });
      this.report.points.push(r);
      if (!this.report.scenarios.includes(point.scenario)) this.report.scenarios.push(point.scenario);
    }
    return r;
  }
}

/**
 * A resumed search measures again a round its last session left unfinished: its repeats (a
 * confirmation round cut short) are dropped, with the round, so every round in the report is
 * whole and a paired ratio never pairs two sessions. Points left with no repeat go too.
 */
export function dropUnfinishedRounds(report: Report): number {
  const open = new Set(report.rounds.filter((r) => r.finishedAt === null).map((r) => r.index));
  if (!open.size) return 0;
  let dropped = 0;
  for (const p of report.points) {
    const kept = p.repeats.filter((r) => !open.has(r.round));
    dropped += p.repeats.length - kept.length;
    p.repeats = kept;
    p.point.repeats = kept.length;
    if (kept.length) Object.assign(p, summarisePoint(p.point, kept, report.hosts));
  }
  report.points = report.points.filter((p) => p.repeats.length > 0);
  // Later rounds keep their indices: only the last session's last round can be open.
  report.rounds = report.rounds.filter((r) => r.finishedAt !== null);
  report.comparisons = pairedComparisons(report.points, report.hosts, report.options.margins);
  report.knobs = knobComparisons(report.points, report.hosts, report.options.margins);
  return dropped;
}
