/**
 * The sweep's progress on stderr, as a listener on the runner (which never prints): the
 * current point and phase, the round, elapsed time, an ETA for the whole sweep and the last
 * EPS. On a terminal one status line is redrawn in place at least every second; elsewhere
 * (a log file, CI) a plain status line is written at most every PLAIN_EVERY_MS. Finished
 * repeats, failures and rounds always get a line of their own.
 */
import { printable } from '../../results/printable.js';
import type { Report } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { durationText } from './estimate.js';
import { epsText as eps, phaseText, StatusLine } from '../status-line.js';
import { formatRepeatLine } from '../../results/views/terminal.js';
import type { Phase } from '../measure/repeat.js';
import type { Runner } from './runner.js';

export interface ProgressOptions {
  /**
   * Where lines go (stderr), as they are: the lines carry point ids, browsers' errors and the
   * like, which Progress makes printable itself (results/printable.ts), so that the redraw
   * sequence it adds on a terminal is the only control sequence written.
   */
  write(text: string): void;
  /** Redraw one line in place (a terminal) or write plain lines. */
  tty: boolean;
  /** Terminal width, to keep the status line on one row. */
  columns?: number;
  /** Remaining estimate of the plan, s: from the runner, after every repeat. */
  remainingSec(): number;
}

/** Repeats recorded, and planned for the fixed rounds (auto rounds raise it as they start). */
export function repeatCounts(report: Report): { done: number; planned: number } {
  const done = report.points.reduce((a, p) => a + p.repeats.length, 0);
  const fixed = report.points.reduce((a, p) => a + Math.min(p.point.repeats, report.options.repeats), 0);
  const auto = report.rounds.filter((r) => r.index >= report.options.repeats).reduce((a, r) => a + r.order.length, 0);
  return { done, planned: Math.max(done, fixed + auto) };
}

export class Progress {
  private readonly started = performance.now();
  private point: Point | null = null;
  private round = '';
  private phase: Phase | 'ceiling' | null = null;
  private phaseText = '';
  private lastEps = '';
  private eta: { sec: number; at: number } | null = null;
  /**
   * A find-max search under way: its repeats so far and planned. A search's probes are not
   * repeats of the report's points, so the sweep's count would read `[0/0]` through it.
   */
  private search: { done: number; planned: number } | null = null;
  /** Actual ÷ estimated time of this session's repeats: the ETA's correction for this machine. */
  private took = 0;
  private estimated = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly statusLine: StatusLine;

  constructor(
    runner: Runner,
    private readonly report: Report,
    private readonly o: ProgressOptions,
  ) {
    this.statusLine = new StatusLine(o);
    runner.on('round-start', (round, fixed) => {
      const n = Math.max(fixed, report.rounds.length);
      this.round = `round ${round.index + 1}/${n}${round.index >= fixed ? ' (auto)' : ''}`;
      this.line(`${this.round}: ${round.order.length} points`);
      if (!round.parseCeilings.length) this.set(null, 'ceiling', 'measuring the JSON.parse ceiling');
    });
    runner.on('ceiling-failed', (round, err) =>
      this.line(`round ${round.index + 1}: the JSON.parse ceiling failed (${err.message}); this round's repeats carry no ceilingRatio`),
    );
    runner.on('repeat-start', (point) => {
      // A log gets a line per repeat started: with the line per repeat done it shows where time went.
      if (!o.tty) this.o.write(`${printable(`${this.prefix()} · ${point.id} · started`)}\n`);
      this.set(point, 'load', 'loading the page');
    });
    runner.on('phase', (point, phase, elapsedMs, plannedMs) => {
      this.set(point, phase, phaseText(phase, elapsedMs, plannedMs));
    });
    runner.on('attempt-failed', (point, attempt, err) => this.line(`  ${point.id}: attempt ${attempt} failed: ${err.message}`));
    runner.on('repeat-done', (point, repeat, _result, t) => {
      this.timed(t);
      if (repeat.status === 'ok') this.lastEps = eps(repeat.eventsPerSec);
      this.line(`  ${formatRepeatLine(point, repeat)}`);
      this.phase = null;
    });
    // A search's repeats move the count and the ETA like the rounds' do; probe-done says the rest.
    runner.on('search-repeat-done', (_search, _point, repeat, t) => {
      this.search = { done: t.done, planned: t.planned };
      this.timed(t);
      if (repeat.status === 'ok') this.lastEps = eps(repeat.eventsPerSec);
    });
    runner.on('probe-done', (search, point, outcome) =>
      this.line(
        `  find-max ${search.scenario} ${search.transport} ${search.vary} ${search.vary === 'batch' ? point.batch : point.concurrency}: ${outcome.sustainable ? 'sustainable' : 'not sustainable'} (${outcome.reason})`,
      ),
    );
    runner.on('search-start', (s, planned) => {
      this.search = { done: 0, planned };
      this.round = `find-max ${s.scenario} ${s.transport}`;
      this.line(`find-max: ${s.scenario} ${s.transport}, ${s.vary} ${s.min}…${s.max}, p99 ≤ ${s.p99BoundMs} ms`);
    });
    runner.on('search-done', (r) => {
      this.search = null;
      this.line(
        `find-max ${r.scenario} ${r.transport}: ${r.knee ? `knee at ${r.varied} ${r.knee.value} (${eps(r.knee.eventsPerSec.median)} EPS)` : 'no sustainable value'}${r.firstPast ? `; ${r.varied} ${r.firstPast.value} was not (${r.firstPast.reason})` : ''}`,
      );
    });
    // Events alone can leave a gap (100 WebSockets take seconds to open): a timer fills it.
    this.timer = setInterval(() => this.draw(), this.statusLine.everyMs);
    this.timer.unref();
  }

  /** Stops redrawing and clears the status line. */
  close(): void {
    clearInterval(this.timer);
    this.clear();
  }

  /** A line of its own (above the status line on a terminal). */
  line(text: string): void {
    this.clear();
    this.o.write(`${printable(text, true)}\n`);
    this.draw();
  }

  private set(point: Point | null, phase: Phase | 'ceiling', text: string): void {
    this.point = point;
    this.phase = phase;
    this.phaseText = text;
    this.draw();
  }

  /** The ETA from the runner's estimate of the rest, scaled by how this session's repeats went. */
  private timed(t: { tookSec: number; estimateSec: number; remainingSec: number }): void {
    this.took += t.tookSec;
    this.estimated += t.estimateSec;
    this.eta = { sec: t.remainingSec * (this.took / this.estimated), at: performance.now() };
  }

  /** `[3/24] round 2/3`: the repeat under way of those planned, and the round (or the search's repeat, during one). */
  private prefix(): string {
    const { done, planned } = this.search ?? repeatCounts(this.report);
    return [`[${Math.min(done + 1, planned)}/${planned}]`, this.round].filter(Boolean).join(' · ');
  }

  status(): string {
    const elapsed = (performance.now() - this.started) / 1000;
    const eta = this.eta ? durationText(Math.max(0, this.eta.sec - (performance.now() - this.eta.at) / 1000)) : durationText(this.o.remainingSec());
    const parts = [
      this.prefix(),
      this.point?.id ?? '',
      this.phaseText,
      `elapsed ${durationText(elapsed)}`,
      `ETA ${eta}`,
      this.lastEps && `last ${this.lastEps} EPS`,
    ];
    return parts.filter(Boolean).join(' · ');
  }

  private draw(): void {
    if (this.phase === null) return;
    this.statusLine.draw(this.status());
  }

  private clear(): void {
    this.statusLine.clear();
  }
}
