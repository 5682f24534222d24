/**
 * Where a command's wall time goes (issue 34): its measured windows against the fixed costs
 * around them. A window is the only time a figure is measured; everything else (tabs, page
 * loads, connection opens, warm-ups, ceilings) is what a measurement costs, and its share is what
 * a time budget buys. The driver tells the clock which part it is in as it goes (pure: times are
 * given, never read here); the report keeps the account, and every command prints it as one line.
 */
import { WALL_PARTS, type WallAccount, type WallPart } from '../protocol/report.js';

/** The part a repeat's `window` phase counts to until its measured window is known. */
type Phase = WallPart | 'window';

/** The parts in words, for the line. */
export const WALL_PART_WORDS: Record<WallPart, string> = {
  startup: 'start-up',
  tabs: 'new tabs',
  pageLoads: 'page loads',
  connectionOpens: 'connection opens',
  warmUps: 'warm-ups',
  teardowns: 'teardowns',
  ceilings: 'ceilings',
  other: 'other',
};

export class WallClock {
  private part: Phase = 'startup';
  private since: number;
  private readonly spentMs = new Map<Phase, number>();
  private windowsSec = 0;

  /** `startMs`: the command's start on the clock `enter()` is given times on. */
  constructor(private readonly startMs: number) {
    this.since = startMs;
  }

  /** From `atMs` on, time counts to `part` (`window`: a repeat's window phase). */
  enter(part: Phase, atMs: number): void {
    if (atMs > this.since) this.spentMs.set(this.part, (this.spentMs.get(this.part) ?? 0) + (atMs - this.since));
    this.since = Math.max(this.since, atMs);
    this.part = part;
  }

  /**
   * A measured repeat's window, s (its `windowSec`). Its window phase also held the two samples
   * either side of it: the phase's time beyond the windows goes to `other`, and so does a failed
   * repeat's.
   */
  measured(windowSec: number): void {
    this.windowsSec += windowSec;
  }

  /** The account up to `atMs`. */
  account(atMs: number): WallAccount {
    this.enter(this.part, atMs);
    const ms = (p: Phase) => this.spentMs.get(p) ?? 0;
    const wallSec = Math.max(0, atMs - this.startMs) / 1000;
    // Never more than the window phases held (a clock that skipped an event must not make time up).
    const windowsSec = Math.min(this.windowsSec, ms('window') / 1000);
    const outsideSec = Object.fromEntries(WALL_PARTS.map((p) => [p, round(ms(p) / 1000)])) as Record<WallPart, number>;
    outsideSec.other = round(outsideSec.other + ms('window') / 1000 - windowsSec);
    return { wallSec: round(wallSec), windowsSec: round(windowsSec), windowShare: wallSec > 0 ? round(windowsSec / wallSec, 3) : 0, outsideSec };
  }
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
/** Whole seconds, as the figures read ("120 s of windows in 236 s"). */
const sec = (x: number) => `${Math.round(x)} s`;

/**
 * One line: "measured windows 120 s of 230 s wall (52%); outside them: warm-ups 48 s, …", the
 * parts largest first, those under half a second left out, and as many as fit in `width`
 * columns (the sweep's summary width off a terminal: views/terminal.ts DEFAULT_TABLE_WIDTH);
 * report.json's `wall` keeps every one.
 */
export function wallLine(a: WallAccount, width: number): string {
  const share = `measured windows ${sec(a.windowsSec)} of ${sec(a.wallSec)} wall (${Math.round(a.windowShare * 100)}%)`;
  const parts = WALL_PARTS.filter((p) => a.outsideSec[p] >= 0.5)
    .sort((x, y) => a.outsideSec[y] - a.outsideSec[x])
    .map((p) => `${WALL_PART_WORDS[p]} ${sec(a.outsideSec[p])}`);
  let line = share;
  for (const [i, part] of parts.entries()) {
    const next = `${line}${i ? ', ' : '; outside them: '}${part}`;
    // Room for the ", …" that says more parts follow.
    if ((i < parts.length - 1 ? next.length + 3 : next.length) > width) return `${line}${i ? ', …' : ''}`;
    line = next;
  }
  return line;
}
