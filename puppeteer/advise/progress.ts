/**
 * The advisor's progress on stderr, in the sweep's style (sweep/progress.ts): on a terminal one
 * status line redrawn in place at least every second, elsewhere a plain status line at most
 * every PLAIN_EVERY_MS; every measurement and every judgement of the search gets a line of its
 * own. It listens to the measurer and the search; neither prints.
 *
 * A search's length is not known ahead: it goes on until it has nothing left worth measuring or
 * its budget says stop. So the count is of measurements made, and the ETA is the most the budget
 * leaves (`ETA ≤ 4 min 10 s`), never a figure frozen at its first estimate.
 */
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { Point } from '../../protocol/scenario.js';
import { printable } from '../../results/printable.js';
import type { Phase } from '../measure/repeat.js';
import { durationText } from '../sweep/estimate.js';
import { epsText as eps, phaseText, StatusLine } from '../status-line.js';
import type { Purpose } from './measurer.js';

export type Stage = 'screen' | 'confirm' | 'headroom';

/** What each stage does, said once as it begins. */
const STAGE_TEXT: Record<Stage, string> = {
  screen: 'screen: one short window per candidate',
  confirm: 'confirm: the cheapest that sustained, measured again in paired, interleaved rounds',
  headroom: "headroom: the winner's highest batch at its tick and connections, then the runner-up's",
};

/**
 * The stage a measurement belongs to, from the one before: the screen probes until the first
 * confirmation; a probe after confirming is the headroom search's (which confirms too).
 */
export function nextStage(stage: Stage, purpose: Purpose): Stage {
  if (stage === 'screen') return purpose === 'confirm' ? 'confirm' : 'screen';
  if (stage === 'confirm') return purpose === 'probe' ? 'headroom' : 'confirm';
  return 'headroom';
}

export interface AdviseProgressOptions {
  /** Where lines go (stderr), as they are: made printable here. */
  write(text: string): void;
  tty: boolean;
  columns?: number;
  /** The command's budget, and its clock (s since it started, replayed time included). */
  budgetSec: number;
  now(): number;
}

const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x)}%`);

/**
 * `probe sse-b200-c1-i10-none: 20.0k of 20.0k EPS, p99 12 ms, main 35%, renderer 41%, ok`: one
 * repeat; a confirming one says which of its point's repeats it is (`confirm … #2`).
 */
export function repeatLine(point: Point, purpose: Purpose, r: Repeat, nth = 1): string {
  const id = point.id.slice(point.scenario.length + 1);
  const where = purpose === 'probe' ? `probe ${id}` : `confirm ${id} #${nth}`;
  if (r.status === 'failed') return `${where}: FAILED after ${r.attempts} attempt(s): ${r.error}`;
  const p99 = r.latency.p99Ms === null ? '–' : `${Math.round(r.latency.p99Ms)} ms`;
  return `${where}: ${eps(r.eventsPerSec)} of ${eps(point.offeredEventsPerSec)} EPS, p99 ${p99}, main ${pct(r.cpu.tabMainThread)}, renderer ${pct(r.cpu.tabProcess)}, ${r.verdict}`;
}

export class AdviseProgress {
  private stage: Stage = 'screen';
  private point: Point | null = null;
  private phaseText = '';
  private measured = 0;
  private active = false;
  private readonly timer: NodeJS.Timeout;
  private readonly statusLine: StatusLine;

  constructor(private readonly o: AdviseProgressOptions) {
    this.statusLine = new StatusLine(o);
    this.o.write(`${STAGE_TEXT.screen}\n`);
    this.timer = setInterval(() => this.draw(), this.statusLine.everyMs);
    this.timer.unref();
  }

  private readonly confirmed = new Map<string, number>();

  start(point: Point, purpose: Purpose, position: number, size: number): void {
    const stage = nextStage(this.stage, purpose);
    if (stage !== this.stage) {
      this.stage = stage;
      this.line(STAGE_TEXT[stage]);
    }
    const of = size > 1 ? ` (${position + 1}/${size})` : '';
    if (!this.o.tty) this.o.write(`${printable(`${this.prefix()} · ${purpose} ${point.id}${of} · started`)}\n`);
    this.point = point;
    this.phaseText = 'loading the page';
    this.active = true;
    this.draw();
  }

  phase(point: Point, phase: Phase, elapsedMs: number, plannedMs: number | null): void {
    this.point = point;
    this.phaseText = phaseText(phase, elapsedMs, plannedMs);
    this.draw();
  }

  done(point: Point, purpose: Purpose, repeat: Repeat): void {
    this.measured++;
    this.active = false;
    const nth = (this.confirmed.get(point.id) ?? 0) + (purpose === 'confirm' ? 1 : 0);
    this.confirmed.set(point.id, nth);
    this.line(`  ${repeatLine(point, purpose, repeat, nth)}`);
  }

  /** A measurement answered from the report (a resumed search): its line, and the stage it belongs to. */
  replayed(points: readonly Point[], purpose: Purpose): void {
    this.stage = nextStage(this.stage, purpose);
    this.line(`  replayed ${purpose} of ${points.map((p) => p.id.slice(p.scenario.length + 1)).join(', ')} from the report`);
  }

  /** A line of its own (above the status line on a terminal). */
  line(text: string): void {
    this.clear();
    this.o.write(`${printable(text, true)}\n`);
    this.draw();
  }

  close(): void {
    clearInterval(this.timer);
    this.clear();
  }

  /** `[12 measured] · screen`. */
  private prefix(): string {
    return `[${this.measured} measured] · ${this.stage}`;
  }

  status(): string {
    const elapsed = this.o.now();
    const left = Math.max(0, this.o.budgetSec - elapsed);
    return [this.prefix(), this.point?.id ?? '', this.phaseText, `elapsed ${durationText(elapsed)}`, `ETA ≤ ${durationText(left)}`].filter(Boolean).join(' · ');
  }

  private draw(): void {
    if (!this.active) return;
    this.statusLine.draw(this.status());
  }

  private clear(): void {
    this.statusLine.clear();
  }
}
