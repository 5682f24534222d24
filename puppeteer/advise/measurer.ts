/**
 * The advisor's search (search.ts) measuring in a browser: `AdviseMeasurer` over the sweep's
 * RepeatMeasurer (a fresh tab per repeat, connections open before the clock, warm-up, settle,
 * one window; the sweep's figures and verdicts). A probe is one short window; a confirmation
 * round measures each finalist once, in the sweep's seeded interleaved round order (rounds.ts:
 * points that differ only in transport back to back, the order changing from round to round),
 * with the sweep's own warm-up and window. Every repeat is recorded and saved as it lands
 * (record.ts); a resumed search is answered from the report first (replay.ts). It also reads
 * the yardstick when given a ceilings source (YARDSTICK). It never prints:
 * it emits what happens, for the progress line.
 */
import { EventEmitter } from 'node:events';
import type { Candidate, YardstickMoment } from '../../protocol/advice.js';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { CeilingNeed } from '../../results/ceilings.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import { BUILTIN_DEFAULTS, type Point } from '../../protocol/scenario.js';
import type { Target } from '../../protocol/target.js';
import { roundOrder } from '../../results/rounds.js';
import type { RepeatSource } from '../sweep/runner.js';
import { ceilingSec, repeatSec } from '../sweep/estimate.js';
import { candidatePoint } from './candidates.js';
import { type AdviseEstimates, type AdviseMeasurer, DEFAULT_CONFIRM_ROUNDS, type YardstickTaken } from './search.js';
import type { AdviseRecord } from './record.js';
import type { Replay } from './replay.js';

/** The scenario names a candidate's points go under: short probe windows, and confirmation rounds. */
export const PROBE_SCENARIO = 'advise-probe';
export const CONFIRM_SCENARIO = 'advise';

/**
 * A probe's timing: the shortest warm-up a repeat takes anyway (settle.ts minWarmupMs, then
 * the settle wait) and a 2 s window, enough to tell "clearly cannot" from "may" (advice-figures.ts).
 */
export const PROBE_TIMING = { warmupSec: 1, measureSec: 2, repeats: 1 } as const;
/** A confirming repeat's timing: the sweep's defaults, so a confirmation reads like a sweep point. */
export const CONFIRM_TIMING = { warmupSec: BUILTIN_DEFAULTS.warmupSec, measureSec: BUILTIN_DEFAULTS.measureSec, repeats: DEFAULT_CONFIRM_ROUNDS } as const;

/**
 * What every candidate's point runs under, from the target: its render mode, device class, pace,
 * render module, tab state and link. One list, which the compiler holds to `Conditions`: a field
 * the target gains and a candidate must run under is added here once, and reaches every point
 * (advise's --link once reached the target and the answer's words but not the points).
 */
const CONDITION_FIELDS = {
  render: true,
  device: true,
  throttle: true,
  pace: true,
  renderModule: true,
  tab: true,
  hiddenLongGraceSec: true,
  link: true,
} as const satisfies Record<keyof Conditions, true>;
export type Conditions = Pick<Target, 'render' | 'device' | 'throttle' | 'pace' | 'renderModule' | 'tab' | 'hiddenLongGraceSec' | 'link'>;

/** The target's conditions, only those set. */
export function conditionsOf(t: Target): Conditions {
  const set = Object.keys(CONDITION_FIELDS).filter((k) => t[k as keyof Conditions] !== undefined);
  return Object.fromEntries(set.map((k) => [k, t[k as keyof Conditions]])) as Conditions;
}

export const probePoint = (c: Candidate, on: Conditions): Point => candidatePoint(c, on.render, PROBE_TIMING, PROBE_SCENARIO, on);
export const confirmPoint = (c: Candidate, on: Conditions): Point => candidatePoint(c, on.render, CONFIRM_TIMING, CONFIRM_SCENARIO, on);

/**
 * The yardstick advise reads (search.ts): the JSON.parse ceiling at one fixed batch size, not the
 * sweep's every batch size and encoding of its points. One reading then takes a page and 1 s
 * (estimate.ts ceilingSec), where every batch size and encoding the candidates use would take
 * tens of seconds at each of four readings. What is read is the machine's speed, by the ratio
 * between two readings, not any candidate's ceiling, and the level hardly depends on the batch
 * size: a steady round of the default sweep read 3.11–3.30 M events/s from batch 20 to 400
 * (20261127-144912, round 1), while a round in which the machine changed speed read 1.70 M at
 * batch 20 and 3.29 M at batch 50 (20261127-213352, round 1): the machine moved, not the batch.
 * JSON, because every candidate's page can decode it (the bar the sweep reads every encoding
 * against); 1000 rows, within the few hundred to ten thousand rows a message the advisor's
 * candidates carry at the rates it is asked for. Fixed, so advise runs of one machine are read
 * with the same yardstick.
 */
export const YARDSTICK: CeilingNeed = { batch: 1000, encoding: 'json' };

/**
 * Measured time ÷ estimated time is kept within these bounds: a slow machine makes every estimate
 * longer (so the budget holds), a fast one shortens them only a little.
 */
const SCALE = { min: 0.8, max: 3 } as const;

export type Purpose = 'probe' | 'confirm';

export interface AdviseMeasurerEvents {
  /** A repeat starts: its point, the round's size and its place in it. */
  'repeat-start': [point: Point, purpose: Purpose, position: number, size: number];
  'repeat-done': [point: Point, purpose: Purpose, repeat: Repeat, timing: { tookSec: number; estimateSec: number }];
  /** A measurement answered from the report (a resumed search). */
  replayed: [points: readonly Point[], purpose: Purpose];
  /** A yardstick reading answered from the report (a resumed search). */
  'reading-replayed': [at: YardstickMoment];
}

export interface BrowserMeasurerOptions extends Conditions {
  repeats: RepeatSource;
  record: AdviseRecord;
  replay: Replay | null;
  signal: AbortSignal;
  /**
   * False once the browser (a remote one) or the server is gone for good: the search then stops as
   * if interrupted, rather than judge every candidate by repeats that could not run.
   */
  alive(): boolean;
  /**
   * Measures in-page decoding ceilings (measure/ceiling.ts measureCeilings in the search's browser):
   * the yardstick. Absent: the search takes no readings.
   */
  ceilings?(needs: readonly CeilingNeed[], signal: AbortSignal): Promise<ParseCeiling[]>;
}

export class BrowserAdviseMeasurer extends EventEmitter<AdviseMeasurerEvents> implements AdviseMeasurer {
  private took = 0;
  private estimated = 0;
  /** Set when the browser or the server was lost: why the search stopped. */
  lost = false;

  /** The yardstick (search.ts AdviseMeasurer.yardstick); absent without a ceilings source. */
  readonly yardstick?: (at: YardstickMoment) => Promise<YardstickTaken | null>;

  constructor(private readonly o: BrowserMeasurerOptions) {
    super();
    const { ceilings } = o;
    if (ceilings) this.yardstick = (at) => this.readYardstick(at, ceilings);
  }

  /** The estimates the search plans with: estimate.ts's, scaled by how this machine's measurements went. */
  estimates(): AdviseEstimates {
    const scaled = (sec: number) => sec * this.scale();
    return {
      probeSec: (c) => scaled(repeatSec(probePoint(c, this.o))),
      repeatSec: (c) => scaled(repeatSec(confirmPoint(c, this.o))),
      // Not scaled: a reading is a page and a fixed 1 s of parsing, whatever the repeats took.
      ...(this.o.ceilings ? { yardstickSec: () => ceilingSec([{ batch: YARDSTICK.batch }]) } : {}),
    };
  }

  private scale(): number {
    // Until a few measurements are in, the estimates as they are.
    if (this.estimated < 15) return 1;
    return Math.min(SCALE.max, Math.max(SCALE.min, this.took / this.estimated));
  }

  private timed(tookSec: number, points: readonly Point[]): void {
    this.took += tookSec;
    this.estimated += points.reduce((a, p) => a + repeatSec(p), 0);
  }

  /**
   * One yardstick reading: from the report when a resumed search recorded it, else measured. A
   * failed measurement is a reading with its error (the search goes on); null when interrupted,
   * or the browser or server was lost.
   */
  private async readYardstick(at: YardstickMoment, ceilings: NonNullable<BrowserMeasurerOptions['ceilings']>): Promise<YardstickTaken | null> {
    if (!this.o.alive()) this.lost = true;
    if (this.o.signal.aborted || this.lost) return null;
    const replayed = this.o.replay?.takeReading(at);
    if (replayed) {
      this.emit('reading-replayed', at);
      return replayed;
    }
    const measuredAt = new Date().toISOString();
    const t0 = performance.now();
    const tookSec = () => (performance.now() - t0) / 1000;
    try {
      // At full speed under a device class too (main.ts lifts the quota for it): the yardstick
      // reads the machine, the class's slowdown is calibrated apart (report.devices), and a
      // resumed search that calibrates the class again still compares like with like.
      const parseCeilings = await ceilings([YARDSTICK], this.o.signal);
      return { measuredAt, tookSec: tookSec(), parseCeilings };
    } catch (err) {
      if (this.o.signal.aborted) return null;
      return { measuredAt, tookSec: tookSec(), parseCeilings: [], error: err instanceof Error ? err.message : String(err) };
    }
  }

  async probe(c: Candidate): Promise<Repeat | null> {
    const got = await this.round([probePoint(c, this.o)], 'probe');
    return got?.[0] ?? null;
  }

  async confirm(candidates: readonly Candidate[]): Promise<Repeat[] | null> {
    return this.round(
      candidates.map((c) => confirmPoint(c, this.o)),
      'confirm',
    );
  }

  /** One round of these points; their repeats in the order given, or null when interrupted (or the browser or server was lost). */
  private async round(points: readonly Point[], purpose: Purpose): Promise<Repeat[] | null> {
    if (!this.o.alive()) this.lost = true;
    if (this.o.signal.aborted || this.lost) return null;
    const replayed = this.o.replay?.take(points.map((p) => p.id));
    if (replayed) {
      this.timed(replayed.sec, points);
      this.emit('replayed', points, purpose);
      return replayed.repeats;
    }
    const { record } = this.o;
    const index = record.report.rounds.length;
    const order = points.length > 1 ? roundOrder(points, index, record.report.options.seed) : [...points];
    const round = record.startRound(order);
    const got = new Map<string, Repeat>();
    for (const [i, point] of order.entries()) {
      this.emit('repeat-start', point, purpose, i, order.length);
      const t0 = performance.now();
      const repeat = await this.o.repeats.measure(point, { round: index, ceilingEventsPerSec: null, signal: this.o.signal });
      const tookSec = (performance.now() - t0) / 1000;
      if (!this.o.alive()) this.lost = true;
      if (!repeat || this.lost) {
        // Nothing of an aborted repeat is kept; a round with no repeat is not a round.
        if (!got.size) record.discardRound(round);
        return null;
      }
      got.set(point.id, repeat);
      this.took += tookSec;
      this.estimated += repeatSec(point);
      await record.add(point, repeat, round, i === order.length - 1);
      this.emit('repeat-done', point, purpose, repeat, { tookSec, estimateSec: repeatSec(point) });
    }
    return points.map((p) => got.get(p.id)!);
  }
}
