/**
 * Tab states end to end (issue 36), through `npm run sweep`'s entry point with the real server and
 * headless Chromium: every transport streamed with its lab tab hidden behind another tab of a
 * Chrome launched without the anti-throttling flags, at a tiny load, and one point hidden past a
 * 5 s intensive-throttling grace beside the same point in the foreground.
 *
 * What is asserted is exact: the page's own `visibilityState` at the window's ends and its
 * `visibilitychange` count over the window, the page's gap count, the return's backlog and
 * catch-up as counts and a bounded time, the browser's recorded flags, and the page's own draws
 * counted over the window (each one a timer's: the table's redraw and the chart's tick): about 6 a
 * second in the foreground, at most about 2 hidden, when Chrome wakes a hidden page's timers once
 * a second. Hidden past the grace, the lab page drew no less than hidden (docs/tab-states.md).
 *
 * The two scenarios run as two sweeps at once: the hidden-long point streams hidden for its grace
 * and margin (10 s) at 500 events/s, mostly waiting, which one sweep would spend beside nothing.
 * Every assertion is on exact counts or generous bounds, which hold with the other sweep beside it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { TRANSPORTS } from '../../protocol/wire.js';
import { ANTI_THROTTLING_ARGS } from '../../puppeteer/browser/chrome.js';
import { intensiveThrottlingArg } from '../../protocol/tab-state.js';
import { okRepeatOf, runSweep } from '../helpers/sweep-process.js';

/** The hidden-long point's window, s: its draws (about 6 a second in the foreground) counted over it. */
const LONG_WINDOW_SEC = 3;
const GRACE_SEC = 5;

const SCENARIOS = {
  scenarios: [
    // 500 events/s on one connection: a load every transport keeps up with in a hidden tab.
    {
      id: 'hid',
      transport: [...TRANSPORTS],
      batch: 10,
      concurrency: 1,
      intervalMs: 20,
      render: 'full',
      warmupSec: 0,
      measureSec: 0.5,
      repeats: 1,
      tab: 'hidden',
    },
    {
      id: 'long',
      transport: 'sse',
      batch: 10,
      concurrency: 1,
      intervalMs: 20,
      render: 'full',
      warmupSec: 0,
      measureSec: LONG_WINDOW_SEC,
      repeats: 1,
      tab: ['visible', 'hidden-long'],
      hiddenLongGraceSec: GRACE_SEC,
    },
  ],
};

/** What one sweep returned. */
interface Swept {
  report: Report;
  stderr: string;
  code: number | null;
}

describe('tab states in headless Chromium', () => {
  let dir: string;
  let hid: Swept;
  let long: Swept;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-tab-'));
    const file = path.join(dir, 'scenarios.json');
    await writeFile(file, JSON.stringify(SCENARIOS));
    const sweep = async (scenario: string): Promise<Swept> => {
      const { code, stdout, stderr } = await runSweep(
        ['--file', file, '--scenario', scenario, '--json', '--retries', '0', '--seed', '1', '--out', path.join(dir, scenario)],
        150_000,
      );
      return { code, stderr, report: JSON.parse(stdout) as Report };
    };
    [hid, long] = await Promise.all([sweep('hid'), sweep('long')]);
  }, 160_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const repeatOf = (id: string): MeasuredRepeat => okRepeatOf(id.startsWith('long/') ? long.report : hid.report, id);

  it('measures every transport hidden, and the hidden-long point beside its visible twin, named in their ids', () => {
    expect(hid.code, hid.stderr).toBe(0);
    expect(long.code, long.stderr).toBe(0);
    expect(hid.report.points.map((p) => p.point.id).sort()).toEqual(TRANSPORTS.map((t) => `hid/${t}-b10-c1-i20-full${t === 'poll' ? '-p50' : ''}-hid`).sort());
    expect(long.report.points.map((p) => p.point.id).sort()).toEqual(['long/sse-b10-c1-i20-full', 'long/sse-b10-c1-i20-full-hidl']);
    // The terminal's section on hidden tabs: one line per hidden point.
    for (const { stderr } of [hid, long]) expect(stderr).toMatch(/Hidden tabs, brought back to the front after each window:/);
    expect(long.stderr).toMatch(/long\/sse-b10-c1-i20-full-hidl: hidden through the window in 1\/1 repeat; back in front: [\d,]+ events behind/);
  });

  for (const transport of TRANSPORTS) {
    it(`${transport}: hidden through the window in a throttling Chrome, 0 gaps, and back in front with its backlog counted and caught up`, () => {
      const p = hid.report.points.find((x) => x.point.scenario === 'hid' && x.point.transport === transport)!;
      const r = repeatOf(p.point.id);
      const t = r.tabState!;
      expect(t, JSON.stringify(r.notes)).toBeDefined();
      expect(t.state).toBe('hidden');
      expect([t.visibilityAtStart, t.visibilityAtEnd, t.visibilityChanges]).toEqual(['hidden', 'hidden', 0]);
      expect(r.page.gaps).toBe(0);
      // poll asks every 50 ms by a timer, which a hidden tab wakes once a second: a 0.5 s window
      // may hold no poll at all, and its events wait for the return (the backlog below).
      if (transport !== 'poll') expect(r.page.events).toBeGreaterThan(0);
      // The return: exact counts (no reconnect), a backlog of whole batches, and a catch-up well inside the wait.
      expect(r.page.reconnects).toBe(0);
      expect(t.return.backlogBatches).not.toBeNull();
      expect(t.return.backlogEvents).toBe(t.return.backlogBatches! * 10);
      expect(t.return.catchUpMs, JSON.stringify(t.return)).not.toBeNull();
      expect(t.return.catchUpMs!).toBeGreaterThanOrEqual(0);
      expect(t.return.catchUpMs!).toBeLessThan(t.return.waitedSec * 1000);
      expect(t.return.visibilityAfter).toBe('visible');
      // No input to a tab no one can click.
      expect(r.input?.sent ?? 0).toBe(0);
      // The browser it ran in throttles: none of the anti-throttling flags.
      expect(r.browser?.args, JSON.stringify(r.browser)).toBeDefined();
      for (const a of ANTI_THROTTLING_ARGS) expect(r.browser!.args).not.toContain(a);
    });
  }

  it("hidden past a 5 s grace, the page's own timers draw far less often than in the foreground", () => {
    const visible = repeatOf('long/sse-b10-c1-i20-full');
    const long = repeatOf('long/sse-b10-c1-i20-full-hidl');
    expect(visible.tabState).toBeUndefined();
    const t = long.tabState!;
    expect(t).toMatchObject({ state: 'hidden-long', graceSec: GRACE_SEC, visibilityAtStart: 'hidden', visibilityAtEnd: 'hidden', visibilityChanges: 0 });
    // Hidden for the grace and its margin before the window opened.
    expect(t.hiddenBeforeWindowSec).toBeGreaterThanOrEqual(GRACE_SEC + 5);
    expect(long.browser!.args).toContain(intensiveThrottlingArg(GRACE_SEC));
    expect(long.page.gaps).toBe(0);
    // Every draw is a timer's: the table's redraw (a 200 ms setTimeout once rows arrive) and the
    // chart's 1 s tick. In the foreground about 6 a second (17 in a 3 s window here); hidden,
    // Chrome wakes timers at most once a second (5 in 3 s), hidden-long too (no fewer here:
    // docs/tab-states.md). Half is far from either.
    expect(visible.displayAge!.count).toBeGreaterThanOrEqual(3 * LONG_WINDOW_SEC);
    expect(long.displayAge!.count, JSON.stringify(long.displayAge)).toBeLessThanOrEqual(visible.displayAge!.count / 2);
    // The events themselves still arrived: network tasks are not timers.
    expect(long.deliveredRatio).toBeGreaterThan(0.9);
  });
});
