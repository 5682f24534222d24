/**
 * The viewer's Advice section as data (web/report/views.ts `adviceView`): an advise run's
 * report opens with the answer in the same words the command printed, says when the search did
 * not finish, and lists every candidate measured; a report without advice has no such section.
 * And the machine line's words from a report's environment.
 */
import { describe, expect, it } from 'vitest';
import type { Advice, Candidate } from '../../protocol/advice.js';
import type { Report } from '../../protocol/report.js';
import type { Target } from '../../protocol/target.js';
import { candidatePoint, candidateSpace } from '../../puppeteer/advise/candidates.js';
import { advise, adviceBeforeSearch } from '../../puppeteer/advise/search.js';
import { costReading } from '../../results/equivalence.js';
import { adviceHeadline, adviceText, lostOnWords, deviceAnswerWords, machineWordsOf } from '../../results/advice-words.js';
import type { DeviceCalibration } from '../../protocol/device.js';
import { parseReport } from '../../protocol/report-check.js';
import { adviceView, pointsAndRepeats, runHeader } from '../../web/report/views.js';
import { runEntry } from '../../web/report/load.js';
import { summarisePoint } from '../../results/point-summary.js';
import { measured, report as reportOf, result as pointResult } from '../helpers/v2-fixture.js';

const TARGET: Target = { eventsPerSec: 20_000, p99BoundMs: 200, render: 'none' };

/**
 * A machine on which everything sustains, sse a little cheaper than ws (by default 10% in every
 * round: dearer); `ws` gives ws's renderer CPU per round (a round past the third takes round % 3's)
 * and p99 instead.
 */
async function answer(ws?: { tab: readonly number[]; p99: number }): Promise<Advice> {
  let clock = 0;
  let probes = 0;
  const window = (c: Candidate, round: number) => {
    const r = Math.max(0, round) % 3;
    const tab = c.transport === 'sse' ? 5 * (1 + 0.01 * r) : ws ? ws.tab[r] : 5.5 * (1 + 0.01 * r);
    return measured(candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), {
      round,
      eps: c.offeredEventsPerSec,
      tab,
      p99: c.transport === 'sse' ? 10 : (ws?.p99 ?? 12),
    });
  };
  return advise({
    target: TARGET,
    transports: ['sse', 'ws'],
    space: { ticksMs: [10], connections: [1], workers: [], origins: [1], encodings: ['json'], compression: false },
    budgetSec: 200,
    now: () => clock,
    estimate: { probeSec: () => 6, repeatSec: () => 9 },
    measurer: {
      // Each measurement is a round of its own, as the real measurer records it.
      probe: async (c) => ((clock += 6), window(c, 100 + probes++)),
      confirm: async (cs, round) => ((clock += 9 * cs.length), cs.map((c) => window(c, round))),
    },
  });
}

const costReadingOf = (c: NonNullable<Advice['runnerUp']>['cpuVsWinner'] & object) => costReading(c, c.margin);

/** sse, ws and fetch at one setting each, 3 paired rounds at most: `window` gives each measurement's figures. */
async function threeWay(window: (c: Candidate, round: number) => ReturnType<typeof measured>): Promise<Advice> {
  let clock = 0;
  let probes = 0;
  return advise({
    target: TARGET,
    transports: ['sse', 'ws', 'fetch'],
    space: { ticksMs: [10], connections: [1], workers: [], origins: [1], encodings: ['json'], compression: false },
    budgetSec: 300,
    maxConfirmRounds: 3,
    now: () => clock,
    estimate: { probeSec: () => 6, repeatSec: () => 9 },
    measurer: {
      probe: async (c) => ((clock += 6), window(c, 100 + probes++)),
      confirm: async (cs, round) => ((clock += 9 * cs.length), cs.map((c) => window(c, round))),
    },
  });
}

const ENV = { chromeVersion: 'HeadlessChrome/156.0.8078.79', chromePath: '/usr/bin/chromium', cpuModel: 'AMD EPYC 7B13', cores: 2, headless: true };

function withAdvice(advice: Advice, extra: Partial<Report> = {}): Report {
  const r = reportOf([], { runId: 'advise-20261125-101500', scenarios: [], ...extra });
  r.environment = { ...r.environment, ...ENV };
  r.advice = advice;
  return r;
}

describe('the Advice section', () => {
  it('opens a finished run with the words the command printed, and every candidate measured', async () => {
    const a = await answer();
    const v = adviceView(withAdvice(a))!;
    const words = adviceText(a, machineWordsOf(withAdvice(a).environment));
    expect(v.state).toBe('finished');
    expect(v.caveat).toBeNull();
    expect(v.headline).toBe(words[0]);
    expect(v.headline).toMatch(/^Use sse over HTTP\/2, 200 rows every 10 ms per connection on 1 connection, parsing on the main thread\.$/);
    // The command's words, but the finalists' costs as a table of the view's own, not as text.
    const costLines = (l: string) => l.includes("The finalists' costs") || /^ {4}(\||— or \*)/.test(l);
    expect(words.filter(costLines).length).toBeGreaterThan(3);
    // The conditions line (events and page) is a field of its own, the command's line as printed.
    expect(words.at(-2)).toMatch(/^Measured with: events the lab's car rows; page nothing drawn \(render none\)\./);
    expect(v.conditions).toBe(words.at(-2));
    expect(v.details).toEqual(
      words
        .slice(1, -2)
        .filter((l) => !costLines(l))
        .map((l) => l.trim()),
    );
    expect(v.costs!.rows.map((r) => [r.id, r.outcome])).toEqual([
      ['sse-b200-c1-i10', 'winner'],
      ['ws-b200-c1-i10', 'runner-up'],
    ]);
    expect(v.costs!.headers).toHaveLength(v.costs!.rows[0].cells.length + 1);
    expect(v.costs!.labels).toHaveLength(v.costs!.rows[0].cells.length);
    expect(v.details[0]).toMatch(/^Sustains 20 k events\/s: p99 10 ms/);
    expect(v.machine).toBe('Machine: 2 cores AMD EPYC 7B13, Chromium 156 headless; these figures hold for this machine and browser.');
    expect(v.tried.map((t) => t.outcome).sort()).toEqual(['runner-up', 'winner']);
    for (const t of v.tried) expect(t.why).not.toBe('');
    // What the search did: it converged with the whole (two-candidate) space measured.
    // Two probes and the anchor's re-probe; the winner's and the runner-up's headroom; 2 min 30 s on this fake clock.
    const headroomRepeats = a.headroom!.repeats.length + (a.runnerUp?.headroom?.repeats.length ?? 0);
    expect(v.details).toContain(
      `The search converged: it ended by itself at 2 min 30 s of its 3 min 20 s budget, nothing left worth measuring (the screen converged at 12 s; 3 probes, 3 paired rounds, ${headroomRepeats} repeats of headroom).`,
    );
    expect(v.notMeasured).toEqual([]);
  });

  it("heads the run with its points' own repeat counts, the answer instead of a best median, and says advise measured no ceiling", async () => {
    const a = await answer();
    // A probe (1 repeat) beside a confirmation (3): not "2 points × 3 repeats".
    const p = candidatePoint(a.winner!.candidate, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 3 });
    const q = candidatePoint(a.runnerUp!.candidate, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 3 }, 'advise-probe');
    const summarised = (pt: typeof p, reps: ReturnType<typeof measured>[]) => ({ ...pointResult(pt, reps), ...summarisePoint(pt, reps) });
    const points = [
      summarised(
        p,
        [0, 1, 2].map((round) => measured(p, { round, eps: p.offeredEventsPerSec })),
      ),
      summarised(q, [measured(q, { round: 3, eps: q.offeredEventsPerSec })]),
    ];
    const r = withAdvice(a, { points, options: { ...withAdvice(a).options, repeats: 3 } });
    expect(pointsAndRepeats(r)).toBe('2 points, 4 repeats (1–3 a point)');
    expect(pointsAndRepeats({ ...r, points: [points[0]] })).toBe('1 point × 3 repeats');
    const fields = new Map(runHeader(r).fields.map((f) => [f.label, f.value]));
    expect(fields.get('JSON.parse ceiling')).toBe('not measured by advise');
    expect(fields.get('Repeats')).toMatch(/^\d+ measurements \(a probe, or a confirmation round of the finalists\) · seed \d+$/);
    expect(runEntry('advise-20261125-101500', r).headline).toBe('2 points, 4 repeats (1–3 a point) · answer for 20 k events/s: sse, 200 rows every 10 ms ×1');
  });

  it('shows the set beside the winner, each marked equivalent or cannot tell, as report.json holds it', async () => {
    for (const [mark, tab] of [
      // 1% more in every round: the CI inside ±5%.
      ['equivalent', [5.05, 5.1505, 5.1005]],
      // 0%, 8% more, 2% less: the CI straddles the margin.
      ['cannot tell', [5, 5.454, 4.998]],
    ] as const) {
      const a = await answer({ tab, p99: 10 });
      const r = withAdvice(a);
      // The shape check takes the set, and a script reads it back as written.
      expect(parseReport(JSON.parse(JSON.stringify(r)), 'report.json').advice!.equivalent).toEqual(a.equivalent);
      const v = adviceView(r)!;
      expect(v.set.map((m) => [m.id, m.mark])).toEqual([
        [a.winner!.candidate.id, 'chosen'],
        [a.runnerUp!.candidate.id, mark],
      ]);
      expect(v.set[1].cpu).toMatch(/^\d+% (more|less), CI /);
      // sse and ws are as simple: the transports' order put sse first.
      expect(v.set[1].decided).toMatch(
        /^as simple on every criterion.*: the order of last resort decided \(sse before ws in the transports' order \(sse, ws\)\)$/,
      );
      expect(v.details.some((d) => d.startsWith(mark === 'equivalent' ? 'Equally good within the margins' : 'Cannot tell apart'))).toBe(true);
    }
    // A finalist dearer on its CI is not in the set: the winner stands alone.
    expect(adviceView(withAdvice(await answer()))!.set).toEqual([]);
  });

  it("says why each other transport was not chosen, one row per transport searched, and leaves the terminal's Rejected line out", async () => {
    // sse cheapest, ws 10% dearer in every round (dearer), fetch far past the p99 bound (never sustains).
    let clock = 0;
    let probes = 0;
    const window = (c: Candidate, round: number) =>
      measured(candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), {
        round,
        eps: c.offeredEventsPerSec,
        tab: c.transport === 'sse' ? 5 : 5.5,
        p99: c.transport === 'fetch' ? 900 : 10,
      });
    const a = await advise({
      target: TARGET,
      transports: ['sse', 'ws', 'fetch'],
      space: { ticksMs: [10], connections: [1], workers: [], origins: [1], encodings: ['json'], compression: false },
      budgetSec: 300,
      now: () => clock,
      estimate: { probeSec: () => 6, repeatSec: () => 9 },
      measurer: {
        probe: async (c) => ((clock += 6), window(c, 100 + probes++)),
        confirm: async (cs, round) => ((clock += 9 * cs.length), cs.map((c) => window(c, round))),
      },
    });
    const v = adviceView(withAdvice(a))!;
    expect(v.transports.map((t) => [t.transport, t.candidateId, t.reached])).toEqual([
      ['sse', 'sse-b200-c1-i10', 'chosen'],
      ['ws', 'ws-b200-c1-i10', 'runner-up'],
      ['fetch', 'fetch-b200-c1-i10', 'probe'],
    ]);
    expect(v.transports[1].why).toMatch(/^10% more renderer CPU per event, CI/);
    expect(v.transports[2].why).toMatch(/^not sustained in its probe: .*p99/);
    // The terminal says the same in its Rejected line; the viewer's table replaces it.
    const words = adviceText(a, machineWordsOf(withAdvice(a).environment));
    expect(words.find((l) => l.startsWith('  Rejected: '))).toContain(`fetch (${v.transports[2].why})`);
    expect(v.details.some((d) => d.startsWith('Rejected: '))).toBe(false);
  });

  it('says a finalist dearer only than another finalist is dearer than that one, and report.json names it', async () => {
    // sse noisy round to round (its CI against either other cannot tell), ws steady, fetch 30%
    // above ws in every round: dearer than ws, while against the winner (sse) the CI straddles.
    const SSE = [5, 7, 4];
    const WS = [5, 5.05, 5.1];
    const window = (c: Candidate, round: number) => {
      const r = Math.max(0, round) % 3;
      const tab = c.transport === 'sse' ? SSE[r] : c.transport === 'ws' ? WS[r] : 1.3 * WS[r];
      return measured(candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), { round, eps: c.offeredEventsPerSec, tab, p99: 10 });
    };
    const a = await threeWay(window);
    expect(a.winner!.candidate.transport).toBe('sse');
    const fetch = a.tried.find((t) => t.candidate.transport === 'fetch' && t.confirmed)!;
    expect(fetch.lostOn).toBe('cpu');
    expect(fetch.cpuVsWinner && costReadingOf(fetch.cpuVsWinner)).toBe('cannot-tell');
    expect(fetch.dearerThan).toMatchObject({ of: fetch.candidate.id, against: 'ws-b200-c1-i10' });
    expect(fetch.dearerThan!.ciLow).toBeGreaterThan(1);
    const r = withAdvice(a);
    expect(parseReport(JSON.parse(JSON.stringify(r)), 'report.json').advice!.tried.find((t) => t.candidate.id === fetch.candidate.id)!.dearerThan).toEqual(
      fetch.dearerThan,
    );
    const row = adviceView(r)!.transports.find((t) => t.transport === 'fetch')!;
    expect(row.why).toMatch(/^dearer: 30% more renderer CPU per event \(CI 30–30%\) than ws-b200-c1-i10$/);
  });

  it("says a finalist whose p99 was clearly higher than another finalist's (not the winner's) lost to that one, with both p99s", async () => {
    // CPU too noisy to order any pair; sse's p99 noisy (against either other: not clearly), ws's
    // steady at 10 ms, fetch's steady at 13 ms: clearly higher than ws's, not than sse's.
    const TAB = { sse: [5, 7, 4], ws: [6, 4.5, 5.5], fetch: [4.4, 6.6, 5] } as Record<string, number[]>;
    const P99 = { sse: [8, 16, 9], ws: [10, 10.1, 10.2], fetch: [13, 13.1, 13.2] } as Record<string, number[]>;
    const window = (c: Candidate, round: number) => {
      const r = Math.max(0, round) % 3;
      return measured(candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), {
        round,
        eps: c.offeredEventsPerSec,
        tab: TAB[c.transport][r],
        p99: P99[c.transport][r],
      });
    };
    const a = await threeWay(window);
    expect(a.winner!.candidate.transport).toBe('sse');
    const fetch = a.tried.find((t) => t.candidate.transport === 'fetch' && t.confirmed)!;
    expect(fetch.lostOn, fetch.why).toBe('p99');
    expect(fetch.slowerThan).toBe('ws-b200-c1-i10');
    const row = adviceView(withAdvice(a))!.transports.find((t) => t.transport === 'fetch')!;
    expect(row.why).toMatch(/; ws-b200-c1-i10's clearly lower p99 decided \(p99 (up to )?10 ms against (up to )?13 ms\)$/);
  });

  it('names a finalist dearer per event with a clearly lower p99 as a trade-off, once, with both figures', async () => {
    // ws 20% dearer than sse in every round, at half its p99.
    const a = await answer({ tab: [6, 6.06, 6.12], p99: 5 });
    expect(a.winner!.candidate.transport).toBe('sse');
    const ws = a.tried.find((t) => t.candidate.transport === 'ws' && t.confirmed)!;
    expect(ws.lostOn).toBe('cpu');
    expect(ws.p99VsWinner).toMatchObject({ ratio: 0.5, rounds: 3 });
    expect(
      parseReport(JSON.parse(JSON.stringify(withAdvice(a))), 'report.json').advice!.tried.find((t) => t.candidate.id === ws.candidate.id)!.p99VsWinner,
    ).toEqual(ws.p99VsWinner);
    const words = adviceText(a, machineWordsOf(withAdvice(a).environment));
    const line = words.find((l) => l.startsWith('  Lower p99, at a cost: '))!;
    expect(line).toMatch(
      /^ {2}Lower p99, at a cost: ws over HTTP\/1\.1, .* \(p99 (up to )?5 ms against the winner's (up to )?10 ms \(÷ 0\.50, CI 0\.50–0\.50, 3 paired rounds\); dearer: 20% more renderer CPU per event, CI/,
    );
    // Named once: not again under Rejected.
    expect(words.find((l) => l.startsWith('  Rejected: '))?.includes(ws.candidate.id) ?? false).toBe(false);
    // Without the lower p99 (the same as sse's), no such line.
    expect(adviceText(await answer({ tab: [6, 6.06, 6.12], p99: 10 }), machineWordsOf(withAdvice(a).environment)).some((l) => l.includes('Lower p99'))).toBe(
      false,
    );
  });

  it('lets a p99 decide only past its 10% margin: 6% higher stays in the set, 20% higher loses on latency', async () => {
    const cpuEquivalent = [5.05, 5.1505, 5.1005];
    const near = await answer({ tab: cpuEquivalent, p99: 10.6 });
    expect(near.equivalent!.map((e) => e.candidate.transport)).toEqual(['ws']);
    const far = await answer({ tab: cpuEquivalent, p99: 12 });
    expect(far.equivalent ?? []).toEqual([]);
    expect(far.tried.find((t) => t.candidate.transport === 'ws' && t.confirmed)!.lostOn).toBe('p99');
  });

  it('says when the search was interrupted, with the command that goes on', async () => {
    const v = adviceView(
      withAdvice(await answer(), { interrupted: true, finishedAt: null, resumeCommand: 'npm run advise -- --resume advise-20261125-101500' }),
    )!;
    expect(v.state).toBe('interrupted');
    expect(v.caveat).toBe(
      'The search was stopped before it finished: this is its answer so far. Go on with: npm run advise -- --resume advise-20261125-101500',
    );
  });

  it('says when the report was saved mid-search, and that nothing was measured yet', () => {
    const v = adviceView(withAdvice(adviceBeforeSearch({ target: TARGET, transports: ['sse'], budgetSec: 60 }), { finishedAt: null }))!;
    expect(v.state).toBe('unfinished');
    expect(v.caveat).toMatch(/^The search had not finished when this report was saved/);
    expect(v.headline).toBe('No answer for 20 k events/s with p99 ≤ 200 ms (render none): interrupted before anything was measured.');
    expect(v.tried).toEqual([]);
    // Every candidate not measured, by why, with a few of them.
    expect(v.notMeasured).toEqual([
      {
        reason: 'cut off by the interruption',
        meaning: 'the search was interrupted before it reached them',
        count: candidateSpace(TARGET, ['sse']).length,
        examples: expect.any(Array),
      },
    ]);
    expect(v.notMeasured[0].examples).toHaveLength(3);
    expect(v.details).toContain('The search was interrupted in the screen at 0 s of its 1 min budget (0 probes).');
  });

  it('is absent from a sweep', () => {
    expect(adviceView(reportOf([]))).toBeNull();
  });
});

/** A calibration of a class as report.devices records it (puppeteer/device/emulator.ts). */
const calibrated = (device: DeviceCalibration['device'], slowdown: number, throttle: DeviceCalibration['throttle'] = 'browser'): DeviceCalibration => ({
  device,
  throttle,
  browser: 'local',
  targetIndex: 264,
  baseIndex: 1900,
  index: 266,
  speed: Math.round((1 / slowdown) * 10_000) / 10_000,
  slowdown,
  periodMs: throttle === 'browser' ? 10 : null,
  pinnedCpu: throttle === 'browser' ? 1 : null,
  readings: [{ speed: 1, index: 1900 }],
  at: '2026-11-28T08:00:00.000Z',
});

describe('an answer for a device class (issue 36)', () => {
  it("names the class with its index and how far this machine was slowed, from the run's calibration", async () => {
    const a = await answer();
    const low: Advice = { ...a, target: { ...TARGET, device: 'low-tier' } };
    const words = adviceText(low, machineWordsOf(withAdvice(low).environment), [calibrated('mid-tier', 2.4), calibrated('low-tier', 6.7)]);
    expect(words[0]).toBe(
      'Use sse over HTTP/2, 200 rows every 10 ms per connection on 1 connection, parsing on the main thread on a low-tier device (BenchmarkIndex 264, this machine slowed 6.7×).',
    );
    // The viewer says the same, from the report's own calibrations.
    expect(adviceView(withAdvice(low, { devices: [calibrated('low-tier', 6.7)] }))!.headline).toBe(words[0]);
    expect(adviceHeadline(low)).toBe('answer for 20 k events/s on low-tier: sse, 200 rows every 10 ms ×1');
    // Without a device, nothing changes.
    expect(adviceText(a, undefined, [calibrated('low-tier', 6.7)])[0]).toBe(adviceText(a)[0]);
    expect(adviceHeadline(a)).toBe('answer for 20 k events/s: sse, 200 rows every 10 ms ×1');
  });

  it('says the range when a resumed search calibrated the class again, and each way of slowing in its words', () => {
    const low = { device: 'low-tier' } as const;
    expect(deviceAnswerWords(low, [calibrated('low-tier', 7.14), calibrated('low-tier', 6.71)])).toBe(
      'on a low-tier device (BenchmarkIndex 264, this machine slowed 6.7×–7.1×)',
    );
    expect(deviceAnswerWords({ ...low, throttle: 'main-thread' }, [calibrated('low-tier', 6.7), calibrated('low-tier', 9.9, 'main-thread')])).toBe(
      "on a low-tier device (BenchmarkIndex 264, main thread only, this machine's main thread slowed 9.9×)",
    );
    expect(deviceAnswerWords({ device: 'index=500' }, [calibrated('index=500', 3)])).toBe('on a device (BenchmarkIndex 500, this machine slowed 3×)');
    expect(deviceAnswerWords(low)).toBe('on a low-tier device (BenchmarkIndex 264, not yet calibrated)');
    expect(deviceAnswerWords({})).toBe('on this machine');
  });

  it('names the class where there is no answer yet, and where nothing sustained', async () => {
    const target: Target = { ...TARGET, device: 'low-tier' };
    const v = adviceView(withAdvice(adviceBeforeSearch({ target, transports: ['sse'], budgetSec: 60 }), { finishedAt: null }))!;
    expect(v.headline).toBe(
      'No answer for 20 k events/s with p99 ≤ 200 ms (render none) on a low-tier device (BenchmarkIndex 264): interrupted before anything was measured.',
    );
    const a = await answer();
    const none: Advice = { ...a, target, winner: null, runnerUp: null, closest: null };
    expect(adviceText(none, undefined, [calibrated('low-tier', 6.7)])[0]).toBe(
      'Nothing sustained 20 k events/s with p99 ≤ 200 ms (render none) on a low-tier device (BenchmarkIndex 264, this machine slowed 6.7×).',
    );
    expect(adviceText({ ...a, winner: null, runnerUp: null, closest: null })[0]).toBe(
      'Nothing sustained 20 k events/s with p99 ≤ 200 ms (render none) on this machine.',
    );
  });

  it("runs every candidate as the class, and a report keeps the target's class for --resume", async () => {
    const a = await answer();
    const c = a.winner!.candidate;
    const p = candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }, 'advise', { device: 'low-tier' });
    expect(p).toMatchObject({ device: 'low-tier', id: `${candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }).id}-low` });
    expect(p).not.toHaveProperty('throttle');
    // The request as a new search saves it first (main.ts newPlan): what --resume reads back.
    const asked = adviceBeforeSearch({ target: { ...TARGET, device: 'index=500' }, transports: ['sse'], budgetSec: 60 });
    const r = withAdvice(asked, { devices: [calibrated('index=500', 3)] });
    expect(parseReport(JSON.parse(JSON.stringify(r)), 'report.json').advice!.target).toEqual({ ...TARGET, device: 'index=500' });
    const bad = JSON.parse(JSON.stringify(r));
    bad.advice.target.device = 'tier-3';
    expect(() => parseReport(bad, 'report.json')).toThrow(/advice\.target\.device/);
  });
});

describe('machineWordsOf', () => {
  it('names the browser, headless or not, and leaves out what is unknown', () => {
    expect(machineWordsOf(ENV)).toEqual({ cores: 2, cpuModel: 'AMD EPYC 7B13', browser: 'Chromium 156 headless' });
    expect(
      machineWordsOf({ ...ENV, chromeVersion: 'Chrome/155.0.1.2', chromePath: '/opt/google/chrome/chrome', headless: false, cpuModel: 'unknown' }),
    ).toEqual({ cores: 2, cpuModel: null, browser: 'Chrome 155' });
  });
});

describe('lostOnWords', () => {
  it("marks a headroom something other than the setup ended as a lower bound, so 'did not tell them apart' reads true", () => {
    const [w, o] = candidateSpace(TARGET, ['ws', 'ws-stream'], {
      ticksMs: [10],
      connections: [1],
      workers: [],
      origins: [1],
      encodings: ['json'],
      compression: false,
    });
    const words = lostOnWords('order', undefined, w, o, ['ws', 'ws-stream'], {
      winner: { batch: 400, eventsPerSec: 40_000, limit: 'message-limit', atLeast: true },
      other: { batch: 200, eventsPerSec: 20_000, limit: 'budget', atLeast: true },
    });
    expect(words).toBe(
      "as simple on every criterion, and headroom did not tell them apart (headroom ≥ 40 k events/s against ≥ 20 k events/s): the order of last resort decided (ws before ws-stream in the transports' order (ws, ws-stream))",
    );
    expect(
      lostOnWords('headroom', undefined, w, o, ['ws', 'ws-stream'], {
        winner: { batch: 400, eventsPerSec: 40_000, limit: 'setup', atLeast: false },
        other: null,
      }),
    ).toBe('as simple; the winner clearly sustains more (headroom 40 k events/s against none)');
  });
});
