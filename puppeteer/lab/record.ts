/**
 * "Record this point" in `npm run lab`: measures the page's current settings exactly as a
 * sweep measures a point — the round's in-page JSON.parse ceiling, then `repeats` repeats by
 * the sweep's own RepeatMeasurer (fresh tab, connections open first, warm-up, settle, one
 * window) — and appends the result to the session's lab report (scenario `lab`, schema as
 * every sweep's, written atomically by its recorder, report/recorder.ts), which the report
 * viewer lists like any run. With `--device`, the point runs as the lab's class, its ceilings
 * measured as it, and the class's calibration is in the report's `devices`.
 */
import type { PayloadDescription } from '../../protocol/payload.js';
import path from 'node:path';
import type { PageConfig, RecordedPoint } from '../../protocol/page-api.js';
import { type PointResult, type Report, SCHEMA_VERSION, type Environment } from '../../protocol/report.js';
import { expandScenario, type Point } from '../../protocol/scenario.js';
import { FACTOR_NAMES, FACTORS, type PageFactor } from '../../protocol/factors.js';
import { measureCeilings } from '../measure/ceiling.js';
import { bestJsonCeiling, ceilingNeeds, ceilingOf, deviceOf } from '../../results/ceilings.js';
import type { DeviceCalibration } from '../../protocol/device.js';
import type { DeviceCondition, DeviceEmulator } from '../device/emulator.js';
import type { NetworkLink } from '../link/link.js';
import { RepeatMeasurer } from '../measure/repeat.js';
import type { BrowserSlot } from '../browser/slot.js';
import { runIdFor } from '../report/file.js';
import { ReportRecorder } from '../report/recorder.js';
import type { ServerHandle } from '../measure/server-process.js';
import type { RenderModuleRef } from '../../protocol/render-module.js';

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
  /** `--device`/`--throttle`: the class every recorded point runs as; absent fields: full speed. */
  device: DeviceCondition;
  /** Slows the browser to `device` (the lab's, calibrated at its start); absent: no class. */
  devices?: DeviceEmulator;
  /** `--link`: the link every recorded point runs across (canonical text); absent: loopback. */
  link?: string;
  /** The lab's namespace link, already shaped as `link` (puppeteer/link/); absent: none, or a cdp: link. */
  network?: NetworkLink | null;
  /** `--render-module`, built: every recorded point draws with it; absent: pushlab's views. */
  renderModule?: RenderModuleRef;
}

const SCENARIO = 'lab';

/** A lab session's run directory is `lab-<run id>`. */
const RUN_PREFIX = 'lab-';

export class LabRecorder {
  /** Writes the session's report, into its own directory made (exclusively, with the sweep's and advise's rule) at the first save. */
  private readonly recorder: ReportRecorder;
  private readonly started = new Date();
  private readonly measurer: RepeatMeasurer;
  private busy = false;

  constructor(private readonly o: RecorderOptions) {
    this.measurer = new RepeatMeasurer({
      browser: o.browser,
      server: o.server,
      cores: o.cores,
      retries: 0,
      ...(o.devices ? { devices: o.devices } : {}),
      link: o.network ?? null,
    });
    const report: Report = {
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
    this.recorder = ReportRecorder.toNewRunDir(report, o.outDir, RUN_PREFIX, this.started);
  }

  get report(): Readonly<Report> {
    return this.recorder.report;
  }

  /** The browser's id in the report: the one its device class is calibrated under (repeat.ts names it the same way). */
  get hostId(): string {
    return this.o.browser.hostId ?? 'local';
  }

  /** What the server's events are (written with the next recorded point). */
  setPayload(payload: PayloadDescription): void {
    this.recorder.setPayload(payload);
  }

  /** The lab's device class, calibrated (written with the next recorded point). */
  addDevice(c: DeviceCalibration): void {
    this.recorder.addDevice(c);
  }

  /** The point these page settings make, with the lab's warm-up, window and repeats. */
  pointOf(c: PageConfig): Point {
    // The page's settings are the scenario's: each factor the page applies (absent: its default).
    const applied = FACTOR_NAMES.filter((name): name is PageFactor => FACTORS[name].applied === 'page' && c[name as PageFactor] !== undefined);
    const point = expandScenario({
      id: SCENARIO,
      ...(Object.fromEntries(applied.map((name) => [name, c[name]])) as Partial<Pick<PageConfig, PageFactor>>),
      ...(this.o.browser.engine === 'firefox' ? { engine: 'firefox' as const } : {}),
      ...deviceOf(this.o.device),
      ...(this.o.link !== undefined ? { link: this.o.link } : {}),
      warmupSec: this.o.warmupSec,
      measureSec: this.o.measureSec,
      repeats: this.o.repeats,
    })[0];
    return this.o.renderModule ? { ...point, renderModule: this.o.renderModule } : point;
  }

  /**
   * The lab is stopping. A point being recorded ends here: the report keeps the repeats that
   * finished (a point with none is dropped, with the round in progress) and is written marked
   * interrupted. Nothing is written when no point is being recorded: the report is whole.
   */
  async interrupt(): Promise<void> {
    if (!this.busy) return;
    this.recorder.dropOpenRounds();
    // A lab session is not resumed: its report is whole as it is, marked interrupted.
    this.recorder.interrupt(null);
    await this.recorder.save();
  }

  async record(config: PageConfig): Promise<RecordedPoint> {
    if (this.busy) throw new Error('a point is already being recorded');
    this.busy = true;
    try {
      const point = this.pointOf(config);
      const { recorder } = this;
      let result = recorder.resultOf(point);
      for (let r = 0; r < this.o.repeats; r++) {
        const startedAt = new Date().toISOString();
        const devices = this.o.devices ? { emulator: this.o.devices, slot: this.o.browser, hostId: this.hostId } : undefined;
        const parseCeilings = await measureCeilings(this.o.browser.browser(), this.o.server.url, ceilingNeeds([point]), undefined, devices);
        const round = recorder.startRound([point.id], { seed: 0, startedAt, parseCeilings });
        const repeat = await this.measurer.measure(point, {
          round: round.index,
          ceilingEventsPerSec: ceilingOf(round.parseCeilings, point.batch, point.encoding, point),
          jsonCeilingEventsPerSec: bestJsonCeiling(round.parseCeilings, point),
        });
        if (!repeat) throw new Error('the measurement was interrupted');
        recorder.finishRound(round);
        result = recorder.addRepeat(point.id, repeat);
        recorder.finish(round.finishedAt!);
        await recorder.save();
      }
      return {
        reportPath: path.relative(process.cwd(), recorder.file ?? ''),
        viewerUrl: new URL(`report.html?report=/reports/${this.report.runId}/report.json`, this.o.server.url).href,
        pointId: point.id,
        line: pointLine(result),
      };
    } finally {
      this.busy = false;
    }
  }
}

/** One line: verdict, EPS with delivered %, main thread, renderer, event age, repeats. */
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
    `main thread ${pct(s.cpu.tabMainThread)} busy, renderer ${pct(s.cpu.tabProcess)}, event age p50 ${p50} p99 ${p99}, ${s.n} repeat(s)`
  );
}
