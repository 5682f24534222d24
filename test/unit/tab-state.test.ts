/**
 * Tab states as a factor (issue 36): the point ids and fields a scenario makes, the estimate's
 * wait, the answer's words, and every refusal up front: Firefox, remote browsers, several tabs
 * or a display with a hidden tab, and a grace out of range (scenario file and advise flag).
 */
import { describe, expect, it } from 'vitest';
import { checkFirefoxFields, expandScenario, parseScenarioText } from '../../protocol/scenario.js';
import { checkTabConditions, HIDDEN_LONG_MARGIN_SEC, hiddenWaitSec, intensiveThrottlingArg, parseGrace, tabOf } from '../../protocol/tab-state.js';
import { PushlabError } from '../../protocol/errors.js';
import { repeatSec } from '../../puppeteer/sweep/estimate.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { parseFlags } from '../../protocol/flags.js';
import { targetText } from '../../protocol/target.js';
import { candidatePoint } from '../../puppeteer/advise/candidates.js';
import type { Candidate } from '../../protocol/advice.js';
import { tabReturnText } from '../../results/tab-return.js';
import type { MeasuredRepeat, TabStateFigures } from '../../protocol/repeat-figures.js';
import { ANTI_THROTTLING_ARGS, CHROME_ARGS } from '../../puppeteer/browser/chrome.js';

const base = { id: 'tab', transport: 'sse' as const, batch: 10, concurrency: 1, intervalMs: 10 };

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof PushlabError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not throw');
}

describe('tab as a factor', () => {
  it('tags hidden points -hid and -hidl, leaves visible ones as they were, and gives hidden-long points their grace', () => {
    const points = expandScenario({ ...base, tab: ['visible', 'hidden', 'hidden-long'], hiddenLongGraceSec: 20 });
    expect(points.map((p) => p.id)).toEqual(['tab/sse-b10-c1-i10-full', 'tab/sse-b10-c1-i10-full-hid', 'tab/sse-b10-c1-i10-full-hidl']);
    expect(points.map((p) => [p.tab, p.hiddenLongGraceSec])).toEqual([
      [undefined, undefined],
      ['hidden', undefined],
      ['hidden-long', 20],
    ]);
    // Chrome's own grace when the scenario gives none.
    expect(expandScenario({ ...base, tab: 'hidden-long' })[0].hiddenLongGraceSec).toBe(300);
    expect(expandScenario(base)[0]).not.toHaveProperty('tab');
  });

  it('estimates a hidden-long repeat with its grace and margin, a hidden one with its hiding and return', () => {
    const [visible, hidden, long] = expandScenario({ ...base, tab: ['visible', 'hidden', 'hidden-long'], hiddenLongGraceSec: 60 });
    expect(hiddenWaitSec(long)).toBe(60 + HIDDEN_LONG_MARGIN_SEC);
    expect(hiddenWaitSec(hidden)).toBe(0);
    expect(repeatSec(long) - repeatSec(hidden)).toBeCloseTo(60 + HIDDEN_LONG_MARGIN_SEC, 6);
    expect(repeatSec(hidden)).toBeGreaterThan(repeatSec(visible));
  });

  it("launches the hidden points' Chrome with the grace as Chromium's feature parameter, and every other Chrome with the anti-throttling flags", () => {
    expect(intensiveThrottlingArg(5)).toBe('--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/5');
    for (const a of ANTI_THROTTLING_ARGS) expect(CHROME_ARGS).toContain(a);
  });
});

describe('tab state refusals', () => {
  it('refuses a hidden tab in Firefox, naming the field, the value and what it must be', () => {
    expect(() => checkFirefoxFields({ tab: 'hidden' }, "scenarios[0] ('tab')")).toThrow(
      `scenarios[0] ('tab') runs in firefox, so tab must be 'visible' (a hidden tab is made by a Chrome pushlab launches without its anti-throttling flags), got "hidden"`,
    );
    expect(() => checkFirefoxFields({ tab: ['visible'] }, 'x')).not.toThrow();
    expect(() => parseScenarioText(JSON.stringify({ scenarios: [{ ...base, engine: 'firefox', tab: ['visible', 'hidden-long'] }] }), 'f.json')).toThrow(
      /f\.json: scenarios\[0\] \('tab'\) runs in firefox, so tab must be 'visible'/,
    );
  });

  it('refuses remote browsers, several tabs and a display with a hidden tab, coded, saying why', () => {
    const remote = codeOf(() => checkTabConditions([{ id: 'a', tab: 'hidden' }], 'remote'));
    expect(remote.code).toBe('PUSHLAB_NO_TAB_STATE');
    expect(remote.message).toMatch(/tab hidden needs a Chrome launched by pushlab without its anti-throttling flags .* \(--browser, --grid\)/);
    const tabs = codeOf(() => checkTabConditions([{ id: 'tab/x', tab: 'hidden-long', tabs: 2 }], 'local'));
    expect(tabs).toEqual({ code: 'PUSHLAB_NO_TAB_STATE', message: 'tab/x: tab hidden-long needs tabs 1 (one lab tab hides and comes back), got tabs 2' });
    const display = codeOf(() => checkTabConditions([{ id: 'tab/y', tab: 'hidden', display: 'headful' }], 'local'));
    expect(display.message).toBe("tab/y: tab hidden runs in a Chrome of the sweep's own display mode, so display must be left out, got display headful");
    // Points in the foreground are never refused here, wherever the browsers are.
    expect(() => checkTabConditions([{ id: 'a' }, { id: 'b', tabs: 3 }], 'remote')).not.toThrow();
    expect(() => checkTabConditions([{ id: 'a', tab: 'hidden' }], 'local')).not.toThrow();
  });

  it('refuses a grace out of range in a scenario file and as an advise flag, naming field, value and what is allowed', () => {
    expect(() => parseScenarioText(JSON.stringify({ scenarios: [{ ...base, tab: 'hidden-long', hiddenLongGraceSec: 2 }] }), 'f.json')).toThrow(
      'f.json: scenarios[0].hiddenLongGraceSec must be ≥ 5, got 2',
    );
    expect(() => parseScenarioText(JSON.stringify({ scenarios: [{ ...base, hiddenLongGraceSec: 2.5 }] }), 'f.json')).toThrow(
      'f.json: scenarios[0].hiddenLongGraceSec must be an integer, got 2.5',
    );
    expect(() => parseGrace('--hidden-long-grace', '3')).toThrow(
      "--hidden-long-grace must be an integer from 5 to 3600 (seconds; Chrome's own is 300), got '3'",
    );
    const advise = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '10k', '--p99', '100ms', ...argv], 'npm run advise --'));
    expect(() => advise('--tab', 'hidden-long', '--hidden-long-grace', '4000')).toThrow(/--hidden-long-grace must be an integer from 5 to 3600 .*got '4000'/);
    expect(() => advise('--hidden-long-grace', '30')).toThrow(
      '--hidden-long-grace 30 is the grace of --tab hidden-long; got it with --tab visible: drop it, or give --tab hidden-long',
    );
    expect(() => advise('--tab', 'minimised')).toThrow(/--tab/);
    expect(() => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--resume', 'advise-20261125-101500', '--tab', 'hidden'], ''))).toThrow(/drop --tab/);
  });
});

describe('advise --tab', () => {
  it('keeps the state (and the grace) in the target, names it in the question, and runs every candidate in it', () => {
    const t = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '10k', '--p99', '100ms', ...argv], '')).target!;
    expect(t()).not.toHaveProperty('tab');
    expect(t('--tab', 'hidden')).toMatchObject({ tab: 'hidden' });
    const long = t('--tab', 'hidden-long', '--hidden-long-grace', '30');
    expect(tabOf(long)).toEqual({ tab: 'hidden-long', hiddenLongGraceSec: 30 });
    expect(t('--tab', 'hidden-long').hiddenLongGraceSec).toBe(300);
    expect(targetText(t('--tab', 'hidden'))).toBe('10 k events/s with p99 ≤ 100 ms (render full) in a hidden tab');
    const c: Candidate = {
      id: 'sse-b10-c1-i1',
      transport: 'sse',
      batch: 10,
      intervalMs: 1,
      concurrency: 1,
      parse: 'main',
      workers: 0,
      origins: 1,
      encoding: 'json',
      offeredEventsPerSec: 10_000,
    };
    const p = candidatePoint(c, 'full', { warmupSec: 1, measureSec: 2, repeats: 1 }, 'advise', long);
    expect(p).toMatchObject({ tab: 'hidden-long', hiddenLongGraceSec: 30 });
    expect(p.id).toMatch(/-hidl$/);
  });
});

describe('the return in words', () => {
  const tabState = (backlogEvents: number | null, catchUpMs: number | null, start: 'hidden' | 'visible' = 'hidden'): TabStateFigures => ({
    state: 'hidden',
    hiddenBeforeWindowSec: 1,
    visibilityAtStart: start,
    visibilityAtEnd: 'hidden',
    visibilityChanges: start === 'hidden' ? 0 : 1,
    return: { backlogBatches: backlogEvents === null ? null : backlogEvents / 10, backlogEvents, catchUpMs, waitedSec: 30, visibilityAfter: 'visible' },
  });
  const point = { point: { ...expandScenario({ ...base, tab: 'hidden' })[0] } };
  const repeats = (...t: TabStateFigures[]) => t.map((tabState) => ({ status: 'ok', tabState }) as unknown as MeasuredRepeat);
  it('says whether the tab stayed hidden, and the medians of backlog and catch-up, with the repeats that did not catch up', () => {
    expect(tabReturnText({ ...point, repeats: repeats(tabState(1200, 40), tabState(1400, 60), tabState(1000, null, 'visible')) })).toBe(
      'hidden through the window in 2/3 repeats; back in front: 1,200 events behind, caught up in 50 ms, 1 did not catch up within 30 s (medians)',
    );
    expect(tabReturnText({ ...point, repeats: repeats(tabState(null, null)) })).toBe(
      'hidden through the window in 1/1 repeat; back in front: backlog unknown (a connection reopened), 1 did not catch up within 30 s',
    );
    expect(tabReturnText({ point: expandScenario(base)[0], repeats: [] })).toBeNull();
  });
});
