/**
 * Repeats → summary, verdict and unsteady flags; pairs → paired verdicts. Expected intervals
 * were computed independently with scipy 1.17 (t on the log ratios, `scipy.stats.t.ppf`).
 */
import { describe, expect, it } from 'vitest';
import { efficiencyOf } from '../../results/cpu.js';
import { needsMoreRepeats, pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { majorityVerdict } from '../../results/verdict.js';
import { verdictLines } from '../../results/views/terminal.js';
import { failed, measured, point, report, result } from '../helpers/v2-fixture.js';

const ws = point('ws', 400);
const sse = point('sse', 400);

describe('summarisePoint', () => {
  it('gives every figure its statistics over the measured repeats', () => {
    const repeats = [measured(ws, { round: 0, eps: 500e3 }), measured(ws, { round: 1, eps: 600e3 }), measured(ws, { round: 2, eps: 700e3 }), failed(3)];
    const { summary, verdict } = summarisePoint(ws, repeats);
    expect(summary!.n).toBe(3);
    expect(summary!.eventsPerSec.median).toBe(600e3);
    expect(summary!.eventsPerSec.mean).toBeCloseTo(600e3, 6);
    expect(summary!.eventsPerSec.sd).toBeCloseTo(100e3, 6);
    // scipy.stats.ttest_1samp([500e3, 600e3, 700e3], 0).confidence_interval()
    expect(summary!.eventsPerSec.ciLow).toBeCloseTo(351586.228824967, 3);
    expect(summary!.eventsPerSec.ciHigh).toBeCloseTo(848413.771175033, 3);
    expect(summary!.deliveredRatio.median).toBeCloseTo(0.15, 12);
    expect(summary!.cpu.tabProcess).toMatchObject({ n: 3, median: 80, sd: 0 });
    expect(summary!.latencyP99Ms!.median).toBe(9);
    // 80% of a core for 600k EPS: 750k events per renderer CPU-second; 1333 ms per million events.
    expect(summary!.efficiency.eventsPerCpuSecRenderer!.median).toBeCloseTo(750e3, 6);
    expect(summary!.efficiency.rendererCpuMsPerMillionEvents!.median).toBeCloseTo(1333.3333, 3);
    expect(verdict).toBe('ok');
  });

  it('skips missing figures, and gives null for a figure no repeat has', () => {
    const a = measured(ws, { round: 0, eps: 500e3 });
    const b = measured(ws, { round: 1, eps: 600e3 });
    const { summary } = summarisePoint(ws, [
      { ...a, ceilingRatio: null, cpu: { ...a.cpu, host: null } },
      { ...b, cpu: { ...b.cpu, host: null } },
    ]);
    expect(summary!.ceilingRatio).toMatchObject({ n: 1, median: 0.3 });
    expect(summary!.cpu.host).toBeNull();
  });

  it('is failed with no summary when no repeat measured', () => {
    const out = summarisePoint(ws, [failed(0), failed(1, 'timeout')]);
    expect(out.summary).toBeNull();
    expect(out.verdict).toBe('failed');
    expect(out.unsteady).toEqual([
      { kind: 'failed-repeats', rounds: [0, 1], message: '2 of 2 repeats failed: round 1: renderer crashed; round 2: renderer crashed' },
    ]);
  });

  it('flags over-delivery, a backlog, outliers and failed repeats with their rounds', () => {
    const p = point('sse', 50, 10); // offers 500k EPS
    const { unsteady } = summarisePoint(p, [
      measured(p, { round: 0, eps: 536e3 }),
      measured(p, { round: 1, eps: 490e3, startedBehind: true }),
      measured(p, { round: 2, eps: 300e3 }),
      measured(p, { round: 3, eps: 495e3 }),
      failed(4),
    ]);
    expect(unsteady).toEqual([
      { kind: 'over-delivery', rounds: [0], message: 'delivered above 103% of offered in round 1 (up to 107.2%): a backlog drained inside the window' },
      { kind: 'backlog', rounds: [1], message: 'the window started before page and server had caught up in round 2' },
      { kind: 'outlier', rounds: [2], message: 'EPS more than 25% from the median 493 k in round 3 (300 k)' },
      { kind: 'failed-repeats', rounds: [4], message: '1 of 5 repeats failed: round 5: renderer crashed' },
    ]);
  });

  it("flags a point whose repeats mix transit (a version 3 run's, resumed) with event age, and not one of either alone", () => {
    const p = point('sse', 50, 10);
    const old = (round: number) => ({ ...measured(p, { round, eps: 495e3 }), latencyBook: 'transit' as const });
    const mixed = summarisePoint(p, [old(0), old(1), measured(p, { round: 2, eps: 497e3 })]).unsteady;
    expect(mixed).toEqual([
      {
        kind: 'mixed-latency',
        rounds: [0, 1],
        message:
          'latency is transit in rounds 1, 2 (measured before event age, from a version 2 or 3 report) and event age in the others: the latency median mixes the two, and transit leaves out the wait to fill a batch',
      },
    ]);
    expect(summarisePoint(p, [old(0), old(1)]).unsteady).toEqual([]);
  });

  it('is steady when the repeats agree', () => {
    const p = point('sse', 50, 10);
    expect(summarisePoint(p, [measured(p, { round: 0, eps: 495e3 }), measured(p, { round: 1, eps: 499e3 })]).unsteady).toEqual([]);
  });

  it('merges repeated notes, naming the rounds', () => {
    const { notes } = summarisePoint(ws, [
      measured(ws, { round: 0, eps: 5e5, notes: ['tab main thread 95% busy', '3 duplicate batches'] }),
      measured(ws, { round: 1, eps: 5e5, notes: ['tab main thread 95% busy'] }),
    ]);
    expect(notes).toEqual(['tab main thread 95% busy (rounds 1, 2)', '3 duplicate batches (round 1)']);
  });
});

describe('majorityVerdict', () => {
  const r = (round: number, verdict: 'ok' | 'client-bound' | 'host-bound') => measured(ws, { round, eps: 5e5, verdict });
  it('takes the verdict most repeats reached, and the worse one on a tie', () => {
    expect(majorityVerdict([r(0, 'ok'), r(1, 'client-bound'), r(2, 'ok')])).toBe('ok');
    expect(majorityVerdict([r(0, 'ok'), r(1, 'client-bound')])).toBe('client-bound');
    expect(majorityVerdict([r(0, 'host-bound'), r(1, 'client-bound')])).toBe('host-bound');
    expect(majorityVerdict([])).toBe('failed');
  });
});

describe('efficiencyOf', () => {
  it('divides EPS by CPU in cores, and gives null where the CPU was 0', () => {
    expect(efficiencyOf(1e6, { tabProcess: 50, tabMainThread: 0, chrome: { total: 200 } })).toEqual({
      eventsPerCpuSecRenderer: 2e6,
      eventsPerCpuSecMainThread: null,
      eventsPerCpuSecChrome: 5e5,
      rendererCpuMsPerMillionEvents: 500,
    });
    expect(efficiencyOf(0, { tabProcess: 50, tabMainThread: 10, chrome: { total: 60 } }).rendererCpuMsPerMillionEvents).toBeNull();
  });
});

describe('needsMoreRepeats', () => {
  const withEps = (eps: number[]) => {
    const r = result(
      ws,
      eps.map((e, round) => measured(ws, { round, eps: e })),
    );
    return { ...r, summary: summarisePoint(ws, r.repeats).summary };
  };
  it('asks for more while the EPS CI is wider than ±5% of the median, or n < 2', () => {
    expect(needsMoreRepeats(withEps([5e5]))).toBe(true);
    expect(needsMoreRepeats(withEps([500e3, 600e3, 700e3]))).toBe(true);
    expect(needsMoreRepeats(withEps([600e3, 601e3, 602e3]))).toBe(false);
    expect(needsMoreRepeats(withEps([500e3, 600e3, 700e3]), 0.5)).toBe(false);
    expect(needsMoreRepeats(result(ws, [failed(0)]))).toBe(true);
  });
});

describe('pairedComparisons', () => {
  const wsEps = [500e3, 600e3, 700e3];
  const wsTab = [90, 95, 92];
  const sseEps = [600e3, 750e3, 840e3];
  const sseTab = [40, 45, 41];
  const wsResult = result(
    ws,
    wsEps.map((eps, round) => measured(ws, { round, eps, tab: wsTab[round] })),
  );
  const sseResult = result(
    sse,
    sseEps.map((eps, round) => measured(sse, { round, eps, tab: sseTab[round] })),
  );

  it('gives per-round ratios, their geometric mean and CI, and the verdict for EPS and renderer CPU', () => {
    const [eps, cpu] = pairedComparisons([wsResult, sseResult]);
    expect(eps).toMatchObject({ a: ws.id, b: sse.id, metric: 'eventsPerSec', rounds: [0, 1, 2], better: 'b' });
    expect(eps.ratios).toEqual([1.2, 1.25, 1.2]);
    expect(eps.ratio).toBeCloseTo(1.21644039911468, 12);
    expect(eps.ciLow).toBeCloseTo(1.1472654787506753, 12);
    expect(eps.ciHigh).toBeCloseTo(1.2897862543634135, 12);
    expect(eps.text).toBe('sse faster than ws by 22% (CI 15–29%), 3 rounds');
    expect(cpu).toMatchObject({ metric: 'rendererCpuMsPerMillionEvents', better: 'b' });
    expect(cpu.ratio).toBeCloseTo(0.3735453244766874, 12);
    expect(cpu.ciLow).toBeCloseTo(0.362116974358659, 12);
    expect(cpu.ciHigh).toBeCloseTo(0.3853343513805847, 12);
    expect(cpu.text).toBe('sse uses 63% less renderer CPU per event than ws (CI 61–64%), 3 rounds');
  });

  it('says the same thing with the sides swapped', () => {
    const [eps, cpu] = pairedComparisons([sseResult, wsResult]);
    expect(eps.better).toBe('a');
    expect(eps.text).toBe('sse faster than ws by 22% (CI 15–29%), 3 rounds');
    expect(cpu.better).toBe('a');
    expect(cpu.text).toBe('sse uses 63% less renderer CPU per event than ws (CI 61–64%), 3 rounds');
  });

  it('says when the noise hides any difference', () => {
    const close = result(
      sse,
      [540e3, 570e3, 730e3].map((eps, round) => measured(sse, { round, eps })),
    );
    const [eps] = pairedComparisons([wsResult, close]);
    expect(eps.better).toBe('none');
    expect(eps.text).toBe('no clear EPS difference (sse ÷ ws 1.02, CI 0.87–1.21, 3 rounds; margin ±3%)');
    expect(eps.equivalence).toEqual({ kind: 'unclear', margin: 0.03 });
  });

  it('reads every difference against the practical margin: both kept up, equivalent, significant but within it, beyond it', () => {
    // Both delivered what was offered (4 M): EPS is the offered rate on both, not a race, even
    // where window rounding gives a CI that excludes 1 (the matrix's "faster by 0.1%").
    const full = (p: typeof ws, f: number[]) =>
      result(
        p,
        f.map((x, round) => measured(p, { round, eps: p.offeredEventsPerSec * x, tab: 80 })),
      );
    const [keptUp] = pairedComparisons([full(ws, [1, 1.001, 0.999]), full(sse, [1.001, 1.002, 1.0])]);
    expect(keptUp).toMatchObject({ better: 'none', equivalence: { kind: 'both-kept-up', margin: 0.03 } });
    expect(keptUp.ciLow).toBeGreaterThan(1);
    expect(keptUp.text).toBe('EPS: both kept up (each delivered ≥ 99% of offered), not a race (sse ÷ ws 1.00, 3 rounds)');
    // Kept up by the median round with one round short (a Grid run: sse 64.5% in round 2): the
    // short round is named, so the quotient below 1 is not left unexplained.
    const [shortRound] = pairedComparisons([full(ws, [1, 1, 1]), full(sse, [1, 0.645, 1])]);
    expect(shortRound.equivalence?.kind).toBe('both-kept-up');
    expect(shortRound.text).toBe(
      'EPS: both kept up in the median round (each delivered ≥ 99% of offered), not a race (sse ÷ ws 0.86, 3 rounds; below 99% in round 2 (sse 64.5%))',
    );
    // Below the offered rate, ratios 1.01, 1.005, 1.015: the CI is inside ±3%, equivalent.
    const part = (p: typeof ws, eps: number[], tab: number[]) =>
      result(
        p,
        eps.map((e, round) => measured(p, { round, eps: e, tab: tab[round] })),
      );
    const [eq] = pairedComparisons([part(ws, [2e6, 2.1e6, 2.2e6], [80, 80, 80]), part(sse, [2.02e6, 2.1105e6, 2.233e6], [80, 80, 80])]);
    expect(eq).toMatchObject({ better: 'none', equivalence: { kind: 'equivalent' } });
    expect(eq.text).toBe('EPS equivalent within ±3% (sse ÷ ws 1.01, CI 1.00–1.02, 3 rounds)');
    // Ratios 1.04, 1.05, 1.06: significant (CI excludes 1) but reaching into the margin: not a finding.
    const [within] = pairedComparisons([part(ws, [2e6, 2e6, 2e6], [80, 80, 80]), part(sse, [2.08e6, 2.1e6, 2.12e6], [80, 80, 80])]);
    expect(within.ciLow).toBeGreaterThan(1);
    expect(within.ciLow).toBeLessThan(1.03);
    expect(within).toMatchObject({ better: 'none', equivalence: { kind: 'unclear' } });
    // The same CPU ratios against ±5% are beyond it only when the whole CI is.
    const [, cpu] = pairedComparisons([part(ws, [2e6, 2e6, 2e6], [80, 80, 80]), part(sse, [2e6, 2e6, 2e6], [88, 89, 90])]);
    expect(cpu).toMatchObject({ better: 'a', equivalence: { kind: 'different', margin: 0.05 } });
    expect(cpu.text).toMatch(/^ws uses 10% less renderer CPU per event than sse \(CI/);
    // Margins are settable: at ±15% the same CPU difference is equivalent.
    const [, loose] = pairedComparisons([part(ws, [2e6, 2e6, 2e6], [80, 80, 80]), part(sse, [2e6, 2e6, 2e6], [88, 89, 90])], undefined, {
      eventsPerSec: 0.03,
      cpuPerEvent: 0.15,
    });
    expect(loose.text).toMatch(/^renderer CPU per event equivalent within ±15% \(sse ÷ ws 1\.11, CI/);
  });

  it('uses only rounds where both measured, and says a CI needs two', () => {
    const sseOneRound = result(sse, [failed(0), measured(sse, { round: 1, eps: 720e3 }), failed(2)]);
    const [eps] = pairedComparisons([wsResult, sseOneRound]);
    expect(eps).toMatchObject({ rounds: [1], ratios: [1.2], ciLow: null, ciHigh: null, better: 'none' });
    expect(eps.text).toBe('EPS: sse ÷ ws 1.20 in 1 round (a CI needs ≥ 2 rounds)');
    expect(pairedComparisons([wsResult, result(sse, [failed(0)])])).toEqual([]);
  });

  it('compares each of three transports with the first listed, and never points that differ in more', () => {
    const fetchPoint = point('fetch', 400);
    const fetch = result(fetchPoint, [measured(fetchPoint, { round: 0, eps: 1e5 })]);
    const other = result(point('sse', 50), [measured(point('sse', 50), { round: 0, eps: 1e5 })]);
    const pairs = pairedComparisons([wsResult, sseResult, fetch, other]).filter((c) => c.metric === 'eventsPerSec');
    expect(pairs.map((c) => [c.a, c.b])).toEqual([
      [ws.id, sse.id],
      [ws.id, fetchPoint.id],
    ]);
  });

  it('pairs a poll point with the other transports whatever its poll interval', () => {
    const pollPoint = { ...point('poll', 400), pollMs: 50, id: 'test1-batch/poll-b400-c10-i1-full-p50' };
    const poll = result(pollPoint, [measured(pollPoint, { round: 0, eps: 1e5 })]);
    const pairs = pairedComparisons([wsResult, poll]).filter((c) => c.metric === 'eventsPerSec');
    expect(pairs.map((c) => [c.a, c.b])).toEqual([[ws.id, pollPoint.id]]);
  });
});

describe('verdictLines', () => {
  it('gives one line per pair with both metrics, labelled by what tells the pair apart', () => {
    const ws3 = point('ws', 250, 20, 'test3-20x250', 50);
    const sse3 = point('sse', 250, 20, 'test3-20x250', 50);
    const points = [
      result(
        ws,
        [500e3, 600e3, 700e3].map((eps, round) => measured(ws, { round, eps, tab: 90 })),
      ),
      result(
        sse,
        [600e3, 750e3, 840e3].map((eps, round) => measured(sse, { round, eps, tab: 40 })),
      ),
      result(ws3, [measured(ws3, { round: 0, eps: 1e5, tab: 76 })]),
      result(sse3, [measured(sse3, { round: 0, eps: 1e5, tab: 17 })]),
    ];
    const lines = verdictLines(report(points, { comparisons: pairedComparisons(points) }));
    expect(lines).toEqual([
      // python3: per-round CPU ratios (4/9) ÷ [1.2, 1.25, 1.2]; exp(mean ± t.ppf(0.975, 2) × se) of their logs
      'test1-batch b400 c10: sse faster than ws by 22% (CI 15–29%), 3 rounds; sse uses 63% less renderer CPU per event than ws (CI 61–66%), 3 rounds',
      // python3: (17 / 1e5) ÷ (76 / 1e5) = 0.2237
      // Both delivered all of the 100 k offered: EPS is no race, whatever the rounds.
      'test3-20x250 b250 c20: EPS: both kept up (each delivered ≥ 99% of offered), not a race (sse ÷ ws 1.00, 1 round); renderer CPU per event: sse ÷ ws 0.22 in 1 round (a CI needs ≥ 2 rounds)',
    ]);
  });

  it("names a field only when it varies within the pair's own scenario, in words", () => {
    const tabs = (t: 'ws' | 'sse', n: number) => ({ ...point(t, 100, 10, 'factors-tabs'), tabs: n, id: `factors-tabs/${t}-b100-c10-i1-full-t${n}` });
    const other = { ...point('ws', 20, 10, 'factors-display'), display: 'headful' as const, id: 'factors-display/ws-b20-c10-i1-full-hf' };
    const points = [tabs('ws', 1), tabs('sse', 1), tabs('ws', 2), tabs('sse', 2), other].map((p) => result(p, [measured(p, { round: 0, eps: 1e6, tab: 50 })]));
    const labels = verdictLines(report(points, { comparisons: pairedComparisons(points) })).map((l) => l.split(':')[0]);
    // display varies in the run, but not within factors-tabs: it is not named there.
    expect(labels).toEqual(['factors-tabs b100 c10 1 tab', 'factors-tabs b100 c10 2 tabs']);
  });
});
