/**
 * The one writer of a run's report: the sweep (through its runner), advise and the lab's "record
 * this point" each hand their report to a ReportRecorder and change it only through its methods —
 * a round started and finished, a repeat added and its point re-summarised (with the paired and
 * knob comparisons), the hosts, the environment, the answer, the end — and save it through its one
 * queue. Everyone else reads `report`, a read-only view of the same document (test/unit/layers.test.ts
 * keeps it so). tachometer makes its results once and hands them to every output; a report that
 * three commands, a runner, its listeners and a browser callback each changed in their own way
 * was three documents that happened to share a file.
 *
 * Saves go in the order asked (two browsers may finish a repeat at the same moment, and a save of
 * the older state must never land last), each one the whole report as it stands then, written
 * atomically (file.ts; report.html beside it, saver.ts). A save that fails is the caller's error,
 * never swallowed: `save()` rejects, and a `saveLater()` nobody awaited rejects the next `save()`.
 */
import type { PayloadDescription } from '../../protocol/payload.js';
import type { Advice } from '../../protocol/advice.js';
import type { Engine } from '../../protocol/engine.js';
import type { DeviceCalibration } from '../../protocol/device.js';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { BrowserHost, Environment, PointResult, Report, Round, SaturationResult, WallAccount } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import type { Soak } from '../../protocol/soak.js';
import { knobComparisons } from '../../results/knobs.js';
import { pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { roundSeed } from '../../results/rounds.js';
import { createRunDir, writeReport } from './file.js';
import { reportSaver } from './saver.js';

/** Writes the report somewhere (atomically); a test's may keep copies. */
export type ReportWriter = (report: Readonly<Report>) => Promise<void>;

export interface FileTarget {
  /** report.json; report.html is written beside it (saver.ts). */
  file: string;
  log(line: string): void;
  /** Words a failed save with what the command kept and how to go on (it rethrows). */
  failed?(err: unknown): never;
}

/** A point's entry before its first repeat. */
export function emptyResult(point: Point): PointResult {
  return { point, repeats: [], summary: null, verdict: 'failed', unsteady: [], notes: [] };
}

export class ReportRecorder {
  /** Saves in the order asked. */
  private saving: Promise<void> = Promise.resolve();
  /** A saveLater() that failed: thrown by the next save(). */
  private failed: unknown = null;
  /** Repeats in the report as last written; null before the first save succeeded. */
  private saved: number | null = null;
  private runFile: string | null = null;

  constructor(
    private readonly doc: Report,
    private readonly write: ReportWriter,
  ) {}

  /** report.json (and report.html beside it) at `file`: the sweep's and advise's. */
  static toFile(report: Report, target: FileTarget): ReportRecorder {
    const save = reportSaver(target.file, (line) => target.log(line));
    const failed = target.failed;
    const recorder = new ReportRecorder(report, failed ? (r) => save(r).catch(failed) : save);
    recorder.runFile = target.file;
    return recorder;
  }

  /**
   * report.json alone, in a run directory `<out>/<prefix><run id>` made (createRunDir) at the
   * first save, which also gives the report its run id: the lab's, where a session that records
   * nothing leaves no directory.
   */
  static toNewRunDir(report: Report, out: string, prefix: string, started: Date): ReportRecorder {
    const recorder: ReportRecorder = new ReportRecorder(report, async (r) => {
      if (recorder.runFile === null) {
        const run = await createRunDir(out, prefix, started);
        report.runId = run.runId;
        recorder.runFile = run.file;
      }
      await writeReport(recorder.runFile, r);
    });
    return recorder;
  }

  /** Where the report is written; null until a run directory made at the first save exists. */
  get file(): string | null {
    return this.runFile;
  }

  /** The report as it stands: read it, never change it (this recorder does). */
  get report(): Readonly<Report> {
    return this.doc;
  }

  /** Repeats the file holds (the last save that succeeded); null before one did. */
  get savedRepeats(): number | null {
    return this.saved;
  }

  /** Writes the report as it stands, after every save asked before; rejects when this one (or an unawaited one before) failed. */
  save(): Promise<void> {
    if (this.failed !== null) {
      const err = this.failed;
      this.failed = null;
      return Promise.reject(err);
    }
    const next = this.saving.then(async () => {
      await this.write(this.doc);
      this.saved = repeatsIn(this.doc);
    });
    this.saving = next.catch(() => undefined);
    return next;
  }

  /** A save nobody waits for: its failure is thrown by the next save(). */
  saveLater(): void {
    this.save().catch((err: unknown) => {
      this.failed ??= err;
    });
  }

  /**
   * A new round of these points, in this order (not saved until asked): its seed the run's for
   * its index unless given, started now unless given (a round whose ceilings were measured first).
   */
  startRound(order: readonly string[], o: { seed?: number; startedAt?: string; parseCeilings?: ParseCeiling[] } = {}): Round {
    const index = this.doc.rounds.length;
    const round: Round = {
      index,
      seed: o.seed ?? roundSeed(this.doc.options.seed, index),
      order: [...order],
      startedAt: o.startedAt ?? new Date().toISOString(),
      finishedAt: null,
      parseCeilings: o.parseCeilings ?? [],
    };
    this.doc.rounds.push(round);
    return round;
  }

  finishRound(round: Round): void {
    round.finishedAt = new Date().toISOString();
  }

  /** A round that measured nothing (cut off before its first repeat) is not a round. */
  discardRound(round: Round): void {
    this.doc.rounds = this.doc.rounds.filter((r) => r !== round);
  }

  /** The round's in-page decoding ceilings (Chrome's, unsharded). */
  setCeilings(round: Round, parseCeilings: ParseCeiling[]): void {
    round.parseCeilings = parseCeilings;
  }

  /** Another engine's ceilings in its own browser (Firefox's in Firefox). */
  addEngineCeilings(round: Round, engine: Engine, parseCeilings: ParseCeiling[]): void {
    (round.engineCeilings ??= []).push({ engine, parseCeilings });
  }

  /**
   * A sharded round's ceilings of one browser, added to what it had, by batch size. Without
   * `measured` (its measurement about to start, or failed) only the round's list is made: a
   * sharded round lists its browsers' ceilings, even none.
   */
  addHostCeilings(round: Round, browser: string, measured?: ParseCeiling[]): void {
    round.hostCeilings ??= [];
    if (!measured) return;
    let entry = round.hostCeilings.find((h) => h.browser === browser);
    if (!entry) round.hostCeilings.push((entry = { browser, parseCeilings: [] }));
    entry.parseCeilings.push(...measured);
    entry.parseCeilings.sort((x, y) => x.batch - y.batch);
  }

  /**
   * The point's entry, added (with its scenario) when the report has none yet: a point the
   * command found as it went (advise's candidates, the lab's settings).
   */
  resultOf(point: Point): Readonly<PointResult> {
    let r = this.doc.points.find((p) => p.point.id === point.id);
    if (!r) {
      r = emptyResult(point);
      this.doc.points.push(r);
      if (!this.doc.scenarios.includes(point.scenario)) this.doc.scenarios.push(point.scenario);
    }
    return r;
  }

  /**
   * A measured repeat of a point already in the report: its summary and the paired and knob
   * comparisons recomputed. `countRepeats`: the point's `repeats` becomes the times it was
   * measured (advise measures a candidate as often as its search asks).
   */
  addRepeat(pointId: string, repeat: Repeat, o: { countRepeats?: boolean } = {}): Readonly<PointResult> {
    const r = this.doc.points.find((p) => p.point.id === pointId);
    if (!r) throw new Error(`no point ${pointId} in the report`);
    r.repeats.push(repeat);
    if (o.countRepeats) r.point.repeats = r.repeats.length;
    resummarise(this.doc, r);
    return r;
  }

  addSaturation(result: SaturationResult): void {
    this.doc.saturation.push(result);
  }

  /** These browsers, in place of any of the same id the report had (a resumed run keeps the others). */
  putHosts(hosts: readonly BrowserHost[]): void {
    this.doc.hosts = [...(this.doc.hosts ?? []).filter((h) => !hosts.some((n) => n.id === h.id)), ...hosts];
  }

  /** A device class calibrated in a browser (a resumed run's earlier calibrations stay beside it). */
  addDevice(c: DeviceCalibration): void {
    this.doc.devices = [...(this.doc.devices ?? []), c];
  }

  /** A browser lost for good (once: the first loss is the one that counts). */
  hostLost(id: string, error: string): void {
    const h = this.doc.hosts?.find((x) => x.id === id);
    if (h && !h.lost) h.lost = { at: new Date().toISOString(), error };
  }

  setEnvironment(environment: Environment): void {
    this.doc.environment = environment;
  }

  /** The advisor's answer (so far). */
  setAdvice(advice: Advice): void {
    this.doc.advice = advice;
  }

  /** A soak (protocol/soak.ts) as it stands: its samples so far, then its end. */
  setSoak(soak: Soak): void {
    this.doc.soak = soak;
  }

  /** What the run's events are (protocol/payload.ts), as the server described them. */
  setPayload(payload: PayloadDescription): void {
    this.doc.payload = payload;
  }

  /** Where this session's wall time went (results/wall-account.ts). */
  setWall(wall: WallAccount): void {
    this.doc.wall = wall;
  }

  /** Rounds not finished and points with no repeat go (a run stopping mid-round whose repeats were each whole). */
  dropOpenRounds(): void {
    this.doc.rounds = this.doc.rounds.filter((r) => r.finishedAt !== null);
    this.doc.points = this.doc.points.filter((p) => p.repeats.length > 0);
  }

  /** The run stopped before its plan ended: `resumeCommand` finishes it (null: nothing does). */
  interrupt(resumeCommand: string | null): void {
    this.doc.interrupted = true;
    this.doc.resumeCommand = resumeCommand;
  }

  /** The run (or its last measurement, the lab's) ended at `at`. */
  finish(at: string = new Date().toISOString()): void {
    this.doc.finishedAt = at;
  }
}

function repeatsIn(report: Readonly<Report>): number {
  return report.points.reduce((a, p) => a + p.repeats.length, 0);
}

/** The report's figures after `result` got a repeat: its summary, and the paired and knob comparisons. */
function resummarise(report: Report, result: PointResult): void {
  Object.assign(result, summarisePoint(result.point, result.repeats, report.hosts));
  report.comparisons = pairedComparisons(report.points, report.hosts, report.options.margins);
  report.knobs = knobComparisons(report.points, report.hosts, report.options.margins);
}

/**
 * A resumed search measures again a round its last session left unfinished: its repeats (a
 * confirmation round cut short) are dropped, with the round, so every round in the report is
 * whole and a paired ratio never pairs two sessions. Points left with no repeat go too. For a
 * report read back, before a recorder takes it.
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
