/**
 * Tab states (issue 36): the lab page measured while its tab is in the foreground (`visible`, the
 * default, and every point before), behind another tab of its browser (`hidden`), or behind it
 * for longer than Chrome's intensive wake-up throttling waits (`hidden-long`).
 *
 * A hidden point runs in a Chrome pushlab launches without its three anti-throttling flags
 * (puppeteer/browser/chrome.ts ANTI_THROTTLING_ARGS), so Chrome throttles the hidden tab as it
 * would a user's: timers of a hidden page wake at most once a second, and after the grace
 * period (300 s in Chrome) chained timers wake once a minute. A `hidden-long` point's browser is
 * given a shorter grace through Chromium's own feature parameter when the scenario asks for one:
 * the same throttling, sooner (docs/tab-states.md).
 *
 * Pure: no Node, no DOM.
 */
import { PushlabError } from './errors.js';
import { LIMITS, rangeText } from './limits.js';
import { echoValue } from './wire.js';

export const TAB_STATES = ['visible', 'hidden', 'hidden-long'] as const;
export type TabState = (typeof TAB_STATES)[number];
/** A tab state a point records (`visible` is left out). */
export type HiddenState = Exclude<TabState, 'visible'>;

/** Chrome's own intensive wake-up throttling grace, s: a scenario's `hiddenLongGraceSec` default. */
export const CHROME_INTENSIVE_GRACE_SEC = 300;

/**
 * How long a `hidden-long` point streams hidden past its grace before the warm-up, s: intensive
 * throttling aligns wake-ups to the minute once the grace is over, and a 200 ms timer chain in a
 * hidden tab here (Chromium 156, headless) stopped about 2 s after a 5 s grace: 5 s is past that.
 */
export const HIDDEN_LONG_MARGIN_SEC = 5;

/**
 * The longest the return to the foreground is watched, s: the page then has counted everything
 * the server had sent up to the return, or the repeat records that it had not (never a failure).
 */
export const CATCH_UP_WAIT_SEC = 30;

/** The point id's tag of each hidden state. */
export const TAB_TAGS: Record<HiddenState, string> = { hidden: '-hid', 'hidden-long': '-hidl' };

/** The Chrome flag that brings intensive wake-up throttling forward to `graceSec` (Chromium's feature parameter). */
export function intensiveThrottlingArg(graceSec: number): string {
  return `--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/${graceSec}`;
}

/** What a point needs of its tab state: the state, and a hidden-long point's grace. */
export interface TabCondition {
  id: string;
  tab?: HiddenState;
  hiddenLongGraceSec?: number;
  tabs?: number;
  display?: string;
  engine?: string;
}

/** How long a point streams hidden before its warm-up, s: a hidden-long point's grace and margin; 0 otherwise. */
export function hiddenWaitSec(p: Pick<TabCondition, 'tab' | 'hiddenLongGraceSec'>): number {
  return p.tab === 'hidden-long' ? (p.hiddenLongGraceSec ?? CHROME_INTENSIVE_GRACE_SEC) + HIDDEN_LONG_MARGIN_SEC : 0;
}

/** A tab state in words: `a hidden tab`, `a tab hidden past its 300 s grace`. */
export function tabWords(p: Pick<TabCondition, 'tab' | 'hiddenLongGraceSec'>): string {
  if (p.tab === 'hidden') return 'a hidden tab';
  if (p.tab === 'hidden-long') return `a tab hidden past intensive throttling's ${p.hiddenLongGraceSec ?? CHROME_INTENSIVE_GRACE_SEC} s grace`;
  return 'a visible tab';
}

/** A `hiddenLongGraceSec` given as text (`--hidden-long-grace`), checked: PUSHLAB_BAD_FLAG names it and what is allowed. */
export function parseGrace(flag: string, text: string): number {
  const n = Number(text);
  const r = LIMITS.hiddenLongGraceSec;
  if (!/^\d+$/.test(text) || n < r.min || n > r.max) {
    // The value as written, cut: a 400-digit number is refused, not echoed whole.
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `${flag} must be ${rangeText(r)} (seconds; Chrome's own is ${CHROME_INTENSIVE_GRACE_SEC}), got '${echoValue(text)}'`,
    );
  }
  return n;
}

/**
 * Refuses, before anything starts, points whose tab state this run cannot make: a hidden tab
 * is made by a Chrome pushlab launches itself without its anti-throttling flags, so remote
 * browsers (`--browser`, `--grid`: their flags are someone else's) cannot; several tabs of one
 * point (only one could come back to the front) and a `display` (the hidden point's browser is
 * the sweep's mode) are refused with it. Firefox is refused by the factor's rule (protocol/factors.ts).
 */
export function checkTabConditions(points: readonly TabCondition[], browsers: 'local' | 'remote'): void {
  const hidden = points.filter((p) => p.tab !== undefined);
  if (!hidden.length) return;
  const states = [...new Set(hidden.map((p) => p.tab))].join(', ');
  if (browsers === 'remote') {
    throw new PushlabError(
      'PUSHLAB_NO_TAB_STATE',
      `tab ${states} needs a Chrome launched by pushlab without its anti-throttling flags (--disable-background-timer-throttling and two more), and this run's browsers are elsewhere (--browser, --grid), launched with flags pushlab does not choose: drop --browser/--grid for these points`,
    );
  }
  const many = hidden.find((p) => (p.tabs ?? 1) > 1);
  if (many) {
    throw new PushlabError('PUSHLAB_NO_TAB_STATE', `${many.id}: tab ${many.tab} needs tabs 1 (one lab tab hides and comes back), got tabs ${many.tabs}`);
  }
  const shown = hidden.find((p) => p.display !== undefined);
  if (shown) {
    throw new PushlabError(
      'PUSHLAB_NO_TAB_STATE',
      `${shown.id}: tab ${shown.tab} runs in a Chrome of the sweep's own display mode, so display must be left out, got display ${shown.display}`,
    );
  }
}

/** A target's or a point's tab state as fields to spread: nothing in the foreground, the grace with hidden-long. */
export function tabOf(t: { tab?: HiddenState; hiddenLongGraceSec?: number }): { tab?: HiddenState; hiddenLongGraceSec?: number } {
  if (t.tab === undefined) return {};
  return t.tab === 'hidden-long' && t.hiddenLongGraceSec !== undefined ? { tab: t.tab, hiddenLongGraceSec: t.hiddenLongGraceSec } : { tab: t.tab };
}
