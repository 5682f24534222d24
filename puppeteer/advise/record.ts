/**
 * The advisor's report as it is measured: every candidate's repeats as points, so `npm run
 * report` and the viewer open it like a sweep's. A probe is a round of its own (one short window
 * of one point, scenario `advise-probe`); a confirmation round is a round of the finalists
 * (scenario `advise`, the sweep's window), in the seeded interleaved order it was measured in.
 * After every repeat the point's summary, the paired comparisons and the answer so far are
 * recomputed and the report is saved: all of it written by the report's recorder
 * (report/recorder.ts); this adds the answer so far to every save.
 */
import type { Advice } from '../../protocol/advice.js';
import type { AdviseOptions } from './search.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { Report, Round } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import type { ReportRecorder } from '../report/recorder.js';

export class AdviseRecord {
  /** The answer so far (search.ts's snapshot), written with every save. */
  snapshot: (() => Advice) | null = null;

  constructor(readonly recorder: ReportRecorder) {}

  get report(): Readonly<Report> {
    return this.recorder.report;
  }

  /** Writes the report now, with the answer so far. */
  save(): Promise<void> {
    this.takeSnapshot();
    return this.recorder.save();
  }

  private takeSnapshot(): void {
    if (this.snapshot) this.recorder.setAdvice(this.snapshot());
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
        this.takeSnapshot();
        this.recorder.saveLater();
      },
    };
  }

  /** A new round of these points, in this order (not saved until its first repeat). */
  startRound(order: readonly Point[]): Round {
    return this.recorder.startRound(order.map((p) => p.id));
  }

  /** A round cut off before its first repeat: not a round. */
  discardRound(round: Round): void {
    this.recorder.discardRound(round);
  }

  /** A measured repeat of `point` in `round`: its point's summary and the comparisons recomputed, then saved. */
  async add(point: Point, repeat: Repeat, round: Round, last: boolean): Promise<void> {
    // Times measured so far: a candidate's point is measured as often as the search asks.
    this.recorder.resultOf({ ...point, repeats: 0 });
    this.recorder.addRepeat(point.id, repeat, { countRepeats: true });
    if (last) this.recorder.finishRound(round);
    await this.save();
  }
}
