/**
 * The browsers hidden-tab points run in (protocol/tab-state.ts): a Chrome launched by pushlab
 * without its anti-throttling flags, in the sweep's own display mode, on the first point that asks
 * for it; a hidden-long point's with its grace as Chromium's feature parameter, one browser per
 * grace. Kept for the later points, closed with the command. Driven over a CDP pipe like the
 * sweep's own (chrome.ts), so each dies with the command however it ends.
 */
import { intensiveThrottlingArg, type HiddenState } from '../../protocol/tab-state.js';
import type { Point } from '../../protocol/scenario.js';
import { DescribedSlot } from './display.js';
import { LocalBrowser } from './local.js';
import type { BrowserSlot } from './slot.js';

export class TabStateBrowsers {
  /** By launch: `hidden`, or `hidden-long/<grace>`. */
  private readonly launched = new Map<string, Promise<DescribedSlot>>();
  private readonly slots: DescribedSlot[] = [];
  private closed = false;

  constructor(
    /** The sweep's own browser's mode: a hidden point's browser is launched in it. */
    private readonly headless: boolean,
    private readonly log: (line: string) => void,
    /** A run's network link: its hidden-tab Chrome starts in the browser's namespace too, as the sweep's own does (link/link.ts chromeWrapper). */
    private readonly wrap?: (chromePath: string) => string,
  ) {}

  /** Those of a command's own browser (its display mode) and its network link, if it opened one: what the sweep, advise and soak each start. */
  static beside(
    own: { launched: { headless: boolean } },
    log: (line: string) => void,
    link: { chromeWrapper(chromePath: string): string } | null,
  ): TabStateBrowsers {
    return new TabStateBrowsers(own.launched.headless, log, link ? (p) => link.chromeWrapper(p) : undefined);
  }

  /** The browser a hidden-tab point runs in; null for a point in the foreground (the caller's own). */
  async for(point: Pick<Point, 'tab' | 'hiddenLongGraceSec'>): Promise<BrowserSlot | null> {
    if (point.tab === undefined) return null;
    if (this.closed) throw new Error('the command is closing its browsers');
    const extraArgs = point.tab === 'hidden-long' && point.hiddenLongGraceSec !== undefined ? [intensiveThrottlingArg(point.hiddenLongGraceSec)] : [];
    const key = `${point.tab}/${extraArgs.join(' ')}`;
    let slot = this.launched.get(key);
    if (!slot) {
      slot = this.launch(point.tab, extraArgs);
      // A Chrome that failed to start may be tried again by the next point.
      slot.catch(() => this.launched.delete(key));
      this.launched.set(key, slot);
    }
    return slot;
  }

  private async launch(state: HiddenState, extraArgs: string[]): Promise<DescribedSlot> {
    const local = await LocalBrowser.launch(this.headless, this.log, { backgroundThrottling: true, extraArgs, ...(this.wrap ? { wrap: this.wrap } : {}) });
    this.log(`launched a Chrome with background throttling on for the ${state} points${extraArgs.length ? ` (${extraArgs.join(' ')})` : ''}`);
    const slot = new DescribedSlot(local, false, true);
    this.slots.push(slot);
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.launched.values()].map((s) => s.catch(() => undefined)));
    await Promise.all(this.slots.map((s) => s.local.close()));
  }

  /** Ends them at once (exit handlers, a second Ctrl-C). */
  kill(): void {
    for (const s of this.slots) s.local.kill();
  }
}
