/**
 * The status line a measuring command keeps on stderr (the sweep's and the advisor's progress
 * draw through it): on a terminal one row redrawn in place, cut to the terminal's width; elsewhere
 * (a log file, CI) a plain line at most every PLAIN_EVERY_MS, so a log is not flooded.
 */
import { printable } from '../results/printable.js';

/** A non-terminal gets a status line at most this often, ms. */
export const PLAIN_EVERY_MS = 5000;
/** A terminal's status line is redrawn at least this often, ms. */
export const REDRAW_MS = 1000;

export interface StatusLineOutput {
  tty: boolean;
  /** The terminal's width; 120 when unknown. */
  columns?: number;
  write(text: string): void;
}

export class StatusLine {
  private lastPlain = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(private readonly o: StatusLineOutput) {}

  /** How often the owner should call draw: a terminal wants its clock to move. */
  get everyMs(): number {
    return this.o.tty ? REDRAW_MS : PLAIN_EVERY_MS;
  }

  draw(status: string): void {
    if (this.o.tty) {
      // One row: a line break or a control character in an id would break the redraw.
      const text = printable(status);
      const width = (this.o.columns ?? 120) - 1;
      this.o.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      this.drawn = true;
    } else if (performance.now() - this.lastPlain >= PLAIN_EVERY_MS) {
      this.lastPlain = performance.now();
      this.o.write(`${printable(status)}\n`);
    }
  }

  /** Clears the drawn row, so a line written next starts at the left edge. */
  clear(): void {
    if (this.o.tty && this.drawn) this.o.write('\r\x1b[2K');
    this.drawn = false;
  }
}

/** An event rate in a status or repeat line: `20.0k`, `1.25M`. */
export function epsText(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
}

/** A repeat's phase in the status line: `window 3/10 s`, `warm-up 2 s`, or the phase alone. */
export function phaseText(phase: string, elapsedMs: number, plannedMs: number | null): string {
  const sec = (ms: number) => (ms / 1000).toFixed(0);
  return plannedMs ? `${phase} ${sec(elapsedMs)}/${sec(plannedMs)} s` : elapsedMs ? `${phase} ${sec(elapsedMs)} s` : phase;
}
