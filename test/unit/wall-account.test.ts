/**
 * The wall account (issue 34): a command's measured windows against where the rest of its wall
 * time went, kept in report.json (`wall`, optional: older reports still read) and printed as one
 * line at the end of a sweep and of advise.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReport } from '../../protocol/report-check.js';
import { WALL_PARTS } from '../../protocol/report.js';
import { WallClock, wallLine } from '../../results/wall-account.js';
import { runHeader } from '../../web/report/views.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const example = () => JSON.parse(readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8')) as Record<string, unknown>;

/** One repeat as a sweep's clock sees it, from `t` (ms): 0.2 s tabs, 0.4 s load, 0.5 s open, 2 s warm-up, 5.1 s window phase, 0.3 s teardown. */
function repeat(clock: WallClock, t: number, windowSec: number | null): number {
  clock.enter('tabs', t);
  clock.enter('pageLoads', (t += 200));
  clock.enter('connectionOpens', (t += 400));
  clock.enter('warmUps', (t += 500));
  clock.enter('window', (t += 2000));
  clock.enter('teardowns', (t += 5100));
  clock.enter('other', (t += 300));
  if (windowSec !== null) clock.measured(windowSec);
  return t;
}

describe('WallClock', () => {
  it('splits the wall time into measured windows and parts that sum to the rest', () => {
    const clock = new WallClock(0);
    clock.enter('ceilings', 3000);
    let t = repeat(clock, 6500, 5.0);
    t = repeat(clock, t + 100, 5.0);
    const a = clock.account(t + 400);
    expect(a.wallSec).toBe(24);
    expect(a.windowsSec).toBe(10);
    expect(a.windowShare).toBeCloseTo(10 / 24, 3);
    expect(a.outsideSec).toEqual({ startup: 3, tabs: 0.4, pageLoads: 0.8, connectionOpens: 1, warmUps: 4, teardowns: 0.6, ceilings: 3.5, other: 0.7 });
    const parts = WALL_PARTS.reduce((s, p) => s + a.outsideSec[p], 0);
    expect(parts + a.windowsSec).toBeCloseTo(a.wallSec, 5);
  });

  it("counts a failed repeat's window phase, and the samples around a measured window, as other, never as windows", () => {
    const clock = new WallClock(0);
    const t = repeat(clock, 0, null);
    const a = clock.account(t);
    expect(a.windowsSec).toBe(0);
    expect(a.outsideSec.other).toBe(5.1);
    const b = new WallClock(0);
    // A window longer than its phase (a clock that missed the phase) is capped at what the phases held.
    b.enter('window', 0);
    b.measured(9);
    expect(b.account(5000)).toMatchObject({ windowsSec: 5, windowShare: 1 });
  });

  it('says it in one line, the largest parts first, parts under half a second left out', () => {
    const clock = new WallClock(0);
    const a = clock.account(repeat(clock, 2000, 5));
    expect(wallLine(a, 120)).toBe('measured windows 5 s of 11 s wall (48%); outside them: start-up 2 s, warm-ups 2 s, connection opens 1 s');
  });

  it("fits the summary's 120 columns, ending in … when parts are left out", () => {
    const a = {
      wallSec: 26,
      windowsSec: 12,
      windowShare: 0.47,
      outsideSec: { startup: 3, tabs: 1, pageLoads: 1, connectionOpens: 1, warmUps: 4, teardowns: 1, ceilings: 3, other: 0 },
    };
    const line = wallLine(a, 120);
    expect(line.length).toBeLessThanOrEqual(120);
    expect(line).toMatch(/^measured windows 12 s of 26 s wall \(47%\); outside them: warm-ups 4 s, start-up 3 s, ceilings 3 s, .*, …$/);
    expect(wallLine(a, 1000)).not.toMatch(/…/);
  });
});

describe("report.json's wall", () => {
  it('is optional (reports before it read) and checked where present, naming the field', () => {
    const clock = new WallClock(0);
    const wall = clock.account(repeat(clock, 1000, 5));
    expect(parseReport(example(), 'r.json').wall).toBeUndefined();
    expect(parseReport({ ...example(), wall }, 'r.json').wall).toEqual(wall);
    expect(() => parseReport({ ...example(), wall: { ...wall, windowShare: 1.5 } }, 'r.json')).toThrow(/wall\.windowShare/);
    expect(() => parseReport({ ...example(), wall: { ...wall, outsideSec: { ...wall.outsideSec, pageLoads: undefined } } }, 'r.json')).toThrow(
      /wall\.outsideSec\.pageLoads/,
    );
  });
});

describe("the viewer's header", () => {
  it('says the wall account with every part where report.json has one, and nothing where it has none', () => {
    const clock = new WallClock(0);
    const wall = clock.account(repeat(clock, 1000, 5));
    const field = (r: Record<string, unknown>) => runHeader(parseReport(r, 'r.json')).fields.find((f) => f.label === 'Wall time');
    expect(field(example())).toBeUndefined();
    expect(field({ ...example(), wall })!.value).toBe(wallLine(wall, Number.POSITIVE_INFINITY));
    expect(field({ ...example(), wall })!.value).toMatch(/^measured windows 5 s of \d+ s wall \(\d+%\); outside them: .*warm-ups 2 s[^…]*$/);
  });
});
