/**
 * Tells a wall clock (results/wall-account.ts) which part of a command's time is under way, from
 * the repeat measurer's phases and the command's own steps. A listener: it changes nothing it
 * watches, and the command records its account once measuring ends.
 */
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { WallAccount, WallPart } from '../../protocol/report.js';
import { WallClock } from '../../results/wall-account.js';
import type { Phase } from './repeat.js';

/** What each repeat phase's time counts to; a window's, until its measured length is known. */
const PHASE_PART: Record<Phase, WallPart | 'window'> = {
  load: 'pageLoads',
  open: 'connectionOpens',
  // A hidden tab streams before its warm-up (past its grace when hidden-long): warming up, hidden.
  hide: 'warmUps',
  'warm-up': 'warmUps',
  window: 'window',
  // The return to the foreground is after the window, watched until the page caught up.
  return: 'teardowns',
  stop: 'teardowns',
};

// performance.now() counts from the process's start: the command's start-up is part of its wall time.
const now = () => performance.now();

export class WallWatch {
  private readonly clock = new WallClock(0);

  /** A repeat begins: its tabs open (and a device class is set) before its page loads. */
  repeatStart(): void {
    this.clock.enter('tabs', now());
  }

  /** The repeat measurer's `phase` event. */
  phase(phase: Phase): void {
    this.clock.enter(PHASE_PART[phase], now());
  }

  /** A repeat is back (its tabs closed): its window, when measured, counts as one. */
  repeatDone(repeat: Repeat): void {
    this.clock.enter('other', now());
    if (repeat.status === 'ok') this.clock.measured(repeat.windowSec);
  }

  /** Runs a ceiling measurement (the sweep's round ceilings, advise's yardstick), its time counted to `ceilings`. */
  async ceilings<T>(measure: () => Promise<T>): Promise<T> {
    this.clock.enter('ceilings', now());
    try {
      return await measure();
    } finally {
      this.clock.enter('other', now());
    }
  }

  account(): WallAccount {
    return this.clock.account(now());
  }
}
