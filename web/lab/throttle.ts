/**
 * Coalesces redraw requests: however many messages call `request()`, `draw` runs at most
 * once per `everyMs`, and within `everyMs` of the first request after a quiet spell.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class Throttle {
  private pending: unknown = null;
  private last = -Infinity;

  constructor(
    readonly everyMs: number,
    private readonly draw: () => void,
    private readonly clock: Clock = realClock,
  ) {}

  request(): void {
    if (this.pending !== null) return;
    const wait = Math.max(0, this.last + this.everyMs - this.clock.now());
    this.pending = this.clock.setTimeout(this.run, wait);
  }

  cancel(): void {
    if (this.pending !== null) this.clock.clearTimeout(this.pending);
    this.pending = null;
  }

  private readonly run = (): void => {
    this.pending = null;
    this.last = this.clock.now();
    this.draw();
  };
}
