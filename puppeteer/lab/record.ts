/**
 * "Record this point" in `npm run lab`: measures the page's current settings exactly as a
 * sweep measures a point — the round's in-page JSON.parse ceiling, then `repeats` repeats by
 * the sweep's own RepeatMeasurer (fresh tab, connections open first, warm-up, settle, one
 * window) — and appends the result to the session's lab report (scenario `lab`, schema as
 * every sweep's, written atomically), which the report viewer lists like any run.
 */
import path from 'node:path';
import type { PageConfig, RecordedPoint } from '../../protocol/page-api.js';
import type { PointResult, Report } from '../../protocol/report.js';
import { SCHEMA_VERSION } from '../../protocol/report.js';
import { expandScenario, type Point } from '../../protocol/scenario.js';
import { FACTOR_NAMES, FACTORS, type PageFactor } from '../../protocol/factors.js';
import { measureCeilings } from '../measure/ceiling.js';
import { bestJsonCeiling, ceilingNeeds, ceilingOf } from '../../results/ceilings.js';
import { pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { knobComparisons } from '../../results/knobs.js';
import { RepeatMeasurer } from '../measure/repeat.js';
import type { BrowserSlot } from '../browser/slot.js';
import { createRunDir, runIdFor, writeReport } from '../report/file.js';
import type { ServerHandle } from '../measure/server-process.js';
import type { Environment } from '../../protocol/report.js';

export interface RecorderOptions {
  browser: BrowserSlot;
  server: ServerHandle;
  environment: Environment;
  /** Directory that receives `lab-<run-id>/report.json`. */
  outDir: string;
  cores: number;
  warmupSec: number;
  measureSec: number;
  repeats: number;
}

const SCENARIO = 'lab';

/** A lab session's run directory is `lab-<run id>`. */
const RUN_PREFIX = 'lab-';

export class LabRecorder {
  readonly report: Report;
  private readonly started = new Date();
  /** report.json, once the first recorded point has made the run's directory (createRunDir). */
  private file: string | null = null;
  private readonly measurer: RepeatMeasurer;
  private busy = false;

  constructor(private readonly o: RecorderOptions) {
    this.measurer = new RepeatMeasurer({ browser: o.browser, server: o.server, cores: o.cores, retries: 0 });
    this.report = {
      schemaVersion: SCHEMA_VERSION,
      // Until the directory is made: createRunDir adds a suffix when another run took the second.
      runId: `${RUN_PREFIX}${runIdFor(this.started)}`,
      startedAt: this.started.toISOString(),
      finishedAt: null,
      interrupted: false,
      resumeCommand: null,
      scenarios: [SCENARIO],
      environment: o.environment,
      options: { repeats: o.repeats, seed: 0, auto: false, maxRepeats: o.repeats, timeBudgetSec: null, findMax: false, retries: 0, file: '' },
      rounds: [],
      points: [],
      comparisons: [],
      saturation: [],
    };
  }

  /** The point these page settings make, with the lab's warm-up, window and repeats. */
  pointOf(c: PageConfig): Point {
    // The page's settings are the scenario's: each factor the page applies (absent: its default).
    const applied = FACTOR_NAMES.filter((name): name is PageFactor => FACTORS[name].applied === 'page' && c[name as PageFactor] !== undefined);
    return expandScenario({
      id: SCENARIO,
      ...(Object.fromEntries(applied.map((name) => [name, c[name]])) as Partial<Pick<PageConfig, PageFactor>>),
      ...(this.o.browser.engine === 'firefox' ? { engine: 'firefox' as const } : {}),
      warmupSec: this.o.warmupSec,
      measureSec: this.o.measureSec,
      repeats: this.o.repeats,
    })[0];
  }

  /**
   * The lab is stopping. A point being recorded ends here: the report keeps the repeats that
   * finished (a point with none is dropped, with the round in progress) and is written marked
   * interrupted. Nothing is written when no point is being recorded: the report is whole.
   */
  async interrupt(): Promise<void> {
    if (!this.busy) return;
    this.report.rounds = this.report.rounds.filter((r) => r.finishedAt !== null);
    this.report.points = this.report.points.filter((p) => p.repeats.length > 0);
    this.report.interrupted = true;
    await this.save();
  }

  /**
   * Writes the report into the session's own directory, made (exclusively, with the sweep's and
   * advise's rule) at the first save: a lab session that records nothing leaves no directory.
   */
  private async save(): Promise<string> {
    if (this.file === null) {
      const run = await createRunDir(this.o.outDir, RUN_PREFIX, this.started);
      this.report.runId = run.runId;
      this.file = run.file;
    }
    await writeReport(this.file, this.report);
    return this.file;
  }

  async record(config: PageConfig): Promise<RecordedPoint> {
    if (this.busy) throw new Error('a point is already being recorded');
    this.busy = true;
    try {
      const point = this.pointOf(config);
      let file = this.file ?? '';
      let result = this.report.points.find((p) => p.point.id === point.id);
      if (!result) {
        result = { point, repeats: [], summary: null, verdict: 'failed', unsteady: [], notes: [] };
        this.report.points.push(result);
      }
      for (let r = 0; r < this.o.repeats; r++) {
        const round = {
          index: this.report.rounds.length,
          seed: 0,
          order: [point.id],
          startedAt: new Date().toISOString(),
          finishedAt: null as string | null,
          parseCeilings: await measureCeilings(this.o.browser.browser(), this.o.server.url, ceilingNeeds([point])),
        };
        this.report.rounds.push(round);
        const repeat = await this.measurer.measure(point, {
          round: round.index,
          ceilingEventsPerSec: ceilingOf(round.parseCeilings, point.batch, point.encoding),
          jsonCeilingEventsPerSec: bestJsonCeiling(round.parseCeilings),
        });
        if (!repeat) throw new Error('the measurement was interrupted');
        round.finishedAt = new Date().toISOString();
        result.repeats.push(repeat);
        Object.assign(result, summarisePoint(point, result.repeats));
        this.report.comparisons = pairedComparisons(this.report.points, undefined, this.report.options.margins);
        this.report.knobs = knobComparisons(this.report.points, undefined, this.report.options.margins);
        this.report.finishedAt = round.finishedAt;
        file = await this.save();
      }
      return {
        reportPath: path.relative(process.cwd(), file),
        viewerUrl: new URL(`report.html?report=/reports/${this.report.runId}/report.json`, this.o.server.url).href,
        pointId: point.id,
        line: pointLine(result),
      };
    } finally {
      this.busy = false;
    }
  }
}

/** One line: verdict, EPS with delivered %, main thread, renderer, latency, repeats. */
export function pointLine(r: PointResult): string {
  const s = r.summary;
  if (!s) {
    const failed = r.repeats.at(-1);
    return `${r.point.id}: failed${failed?.status === 'failed' ? ` (${failed.error})` : ''}`;
  }
  const m = (x: number) => Math.round(x).toLocaleString('en-US');
  // A figure no repeat could read (a Firefox's main-thread busy time) is a dash, not 0%.
  const pct = (st: { median: number } | null) => (st ? `${Math.round(st.median)}%` : '–');
  const p50 = s.latencyP50Ms ? `${s.latencyP50Ms.median.toFixed(1)} ms` : '–';
  const p99 = s.latencyP99Ms ? `${s.latencyP99Ms.median.toFixed(1)} ms` : '–';
  return (
    `${r.verdict}: ${m(s.eventsPerSec.median)} events/s (${(s.deliveredRatio.median * 100).toFixed(1)}% of offered), ` +
    `main thread ${pct(s.cpu.tabMainThread)} busy, renderer ${pct(s.cpu.tabProcess)}, latency p50 ${p50} p99 ${p99}, ${s.n} repeat(s)`
  );
}
