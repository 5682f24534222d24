/**
 * The advisor's search (puppeteer/advise/search.ts) against a synthetic measurer whose
 * sustainable region and costs are chosen here, with seeded noise: it must find the cheapest
 * configuration that sustains, respect its time budget, never prefer one candidate over another
 * on noise, and, when nothing sustains, name the closest with what limited it.
 */
import { describe, expect, it } from 'vitest';
import type { Advice, Candidate, YardstickMoment } from '../../protocol/advice.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import { mulberry32 } from '../../protocol/random.js';
import type { Target } from '../../protocol/target.js';
import type { Transport } from '../../protocol/wire.js';
import { LIMITS } from '../../protocol/limits.js';
import { candidatePoint, candidateSpace, DEFAULT_SPACE, knobsBetween, spaceFor, type CandidateSpace } from '../../puppeteer/advise/candidates.js';
import { conditionsOf, confirmPoint, probePoint } from '../../puppeteer/advise/measurer.js';
import { advise, adviceBeforeSearch, DEFAULT_HEADROOM_FACTOR, type AdviseOptions } from '../../puppeteer/advise/search.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { parseFlags } from '../../protocol/flags.js';
import { adviceText, notMeasuredOf } from '../../results/advice-words.js';
import { headroomLimitOf } from '../../results/headroom.js';
import { confirmScenarioFile } from '../../puppeteer/advise/confirm.js';
import { expandScenario, parseScenarioText } from '../../protocol/scenario.js';
import { measured } from '../helpers/v2-fixture.js';
import { clearlyCannot, figuresOf, MIN_WINDOW_BATCHES, windowSecFor, worthAnotherProbe } from '../../results/advice-figures.js';

/** A machine whose costs and capacity are known: renderer CPU per million events by transport and settings. */
interface World {
  /** Renderer CPU per million events, ms, for JSON on the main thread in large messages. */
  cost: Partial<Record<Transport, number>>;
  /** MessagePack's factor on that cost, where the transport carries it. */
  msgpack?: Partial<Record<Transport, number>>;
  /** Arrow's factor on that cost, where the transport carries it. */
  arrow?: Partial<Record<Transport, number>>;
  /** Latency p99 with an idle page, ms. */
  p99: Partial<Record<Transport, number>>;
  /** The page's message bytes per event; absent: the fixture's repeats keep none. */
  bytes?: (c: Candidate) => number;
}

const WORLD: World = {
  cost: { sse: 2000, fetch: 2100, ws: 2250, 'ws-h2': 2350, 'sse-h1': 2150, 'grpc-web': 3500, poll: 4000 },
  msgpack: { fetch: 0.75, ws: 0.9, 'ws-h2': 0.9 },
  p99: { sse: 10, fetch: 10, ws: 8, 'ws-h2': 9, 'sse-h1': 12, 'grpc-web': 15, poll: 10 },
};

/**
 * The noiseless truth about a candidate in a world, on a machine `speed` times slower than its
 * fastest (the drift: CPU per event is that many times dearer, so the page sustains less).
 */
function truth(w: World, c: Candidate, speed = 1) {
  const cost =
    speed *
    w.cost[c.transport]! *
    (1 + 30 / c.batch) *
    (c.encoding === 'msgpack' ? (w.msgpack?.[c.transport] ?? 1) : 1) *
    (c.encoding === 'arrow' ? (w.arrow?.[c.transport] ?? 1) : 1) *
    (1 + 0.12 * c.workers) *
    (1 + 0.03 * (c.concurrency - 1)) *
    (1 + 0.02 * (c.origins - 1)) *
    // The browser undoes compression in its network service, not the renderer: a little more work around it.
    (c.compression ? 1.01 : 1);
  const renderer = (cost * c.offeredEventsPerSec) / 1e7;
  const main = renderer * (c.parse === 'main' ? 0.85 : 0.35);
  const worker = c.parse === 'worker' ? (renderer * 0.55) / c.workers : 0;
  const load = Math.max(main, worker) / 100;
  const delivered = load <= 1 ? 1 : 1 / load;
  const p99 = w.p99[c.transport]! + 0.3 * c.intervalMs + (c.pollMs ?? 0) + (load < 0.95 ? (8 * load) / (1 - load) : 2000);
  return { cost, renderer, main, worker, load, delivered, p99 };
}

/**
 * How the machine's speed moves within a run: d(u) at u = 0…1 of the budget, between 1 and 2
 * (the factor on CPU per event). Measured here: the machine's speed halved within one sweep
 * (docs/results/2026-11-27.md), so the shapes span the whole of 1 to 2.
 */
const DRIFTS = {
  none: () => 1,
  'ramp-up': (u: number) => 1 + u,
  'ramp-down': (u: number) => 2 - u,
  // A step mid-run, smoothed over about 5% of the run: a neighbour's job starting.
  step: (u: number) => 1 + 1 / (1 + Math.exp(-(u - 0.5) / 0.012)),
  // One slow wave over the run.
  wave: (u: number) => 1.5 - 0.5 * Math.cos(2 * Math.PI * u),
} satisfies Record<string, (u: number) => number>;
type Drift = keyof typeof DRIFTS;
const DRIFT_SHAPES: readonly Drift[] = ['ramp-up', 'ramp-down', 'step', 'wave'];

/**
 * The noise measured on this machine (issue 34): the paired log ratio of two candidates in one
 * round has sd 0.14, which is two windows' independent noise, so each window's is 0.14 / √2 ≈ 0.10.
 */
const MEASURED_CPU_SIGMA = 0.1;

interface Noise {
  /** The sd of a window's log tab CPU (default MEASURED_CPU_SIGMA). */
  cpuSigma?: number;
  /** How the machine's speed moves (default: a shape chosen by the seed, DRIFT_SHAPES). */
  drift?: Drift;
}
/** A quiet machine, for a test of exact words or of one mechanism that noise would blur: say why where it is used. */
const QUIET: Noise = { cpuSigma: 0.03, drift: 'none' };

/**
 * A synthetic measurer on a fake clock: each window has its own noise, as a busy 2-core machine
 * gives, and the machine's speed drifts through the run (by default both as measured here).
 */
function synthetic(
  w: World,
  seed: number,
  o: { budgetSec: number; target: Target; transports?: readonly Transport[]; space?: Partial<CandidateSpace>; noise?: Noise },
) {
  const cpuSigma = o.noise?.cpuSigma ?? MEASURED_CPU_SIGMA;
  const driftShape = o.noise?.drift ?? DRIFT_SHAPES[seed % DRIFT_SHAPES.length];
  // The machine's slowness at the fake clock's time (the window's middle): drifts over the budget.
  const speedAt = (sec: number) => DRIFTS[driftShape](Math.min(1, Math.max(0, sec / o.budgetSec)));
  const main = mulberry32(seed);
  // A candidate probed again (the anchor's re-probe, a second window) draws from a stream of its
  // own: the windows after it get the noise they would get without it, so a seed means one world.
  const again = mulberry32(seed ^ 0x5bd1e995);
  let stream = main;
  const random = () => stream();
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const probed = new Set<string>();
  let clock = 0;
  const log: { kind: 'probe' | 'round'; startSec: number; estimateSec: number; endSec: number }[] = [];
  const estimate = { probeSec: (c: Candidate) => 6 + 0.2 * c.concurrency, repeatSec: (c: Candidate) => 9 + 0.2 * c.concurrency };
  const window = (c: Candidate, round: number, atSec: number): MeasuredRepeat => {
    const t = truth(w, c, speedAt(atSec));
    const delivered = t.load <= 1 ? 1 - 0.004 * random() : t.delivered * (1 + 0.02 * normal());
    const eps = c.offeredEventsPerSec * delivered;
    const tab = (t.cost * Math.exp(cpuSigma * normal()) * eps) / 1e7;
    const r = measured(candidatePoint(c, o.target.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), {
      round,
      eps,
      tab,
      p99: t.p99 * Math.exp(0.25 * normal()),
    });
    r.cpu.tabMainThread = Math.min(100, t.main * delivered);
    r.cpu.tabThreads = {
      main: r.cpu.tabMainThread,
      workers: Array.from({ length: c.workers }, () => Math.min(100, t.worker * delivered)),
      io: 5,
      compositor: 2,
      pool: 3,
      other: 1,
    };
    r.verdict = t.load > 1 ? 'client-bound' : 'ok';
    if (w.bytes) {
      // Bytes per event move little between windows: a message's head over a varying count.
      r.bytesPerEvent = w.bytes(c) * (1 + 0.002 * normal());
      r.megabytesPerSec = (eps * r.bytesPerEvent) / 1e6;
    }
    return r;
  };
  const options: AdviseOptions = {
    target: o.target,
    transports: o.transports,
    space: o.space,
    budgetSec: o.budgetSec,
    now: () => clock,
    estimate,
    measurer: {
      async probe(c) {
        const e = estimate.probeSec(c);
        log.push({ kind: 'probe', startSec: clock, estimateSec: e, endSec: clock + e });
        const at = clock + e / 2;
        clock += e;
        if (!probed.has(c.id)) {
          probed.add(c.id);
          return window(c, -1, at);
        }
        stream = again;
        const r = window(c, -1, at);
        stream = main;
        return r;
      },
      async confirm(cs, round) {
        const e = cs.reduce((a, c) => a + estimate.repeatSec(c), 0);
        log.push({ kind: 'round', startSec: clock, estimateSec: e, endSec: clock + e });
        // The measurer's interleaved order: shuffled per round, results in the order given.
        const order = cs.map((c, i) => ({ c, i, k: random() })).sort((a, b) => a.k - b.k);
        const out: MeasuredRepeat[] = [];
        for (const { c, i } of order) {
          const each = estimate.repeatSec(c);
          out[i] = window(c, round, clock + each / 2);
          clock += each;
        }
        return out;
      },
    },
  };
  return { options, log, clock: () => clock, speedAt };
}

const target300k: Target = { eventsPerSec: 300_000, p99BoundMs: 100, render: 'full' };

/** Candidates that truly sustain (noiselessly, with room for the noise), and the cheapest of them. */
function expected(w: World, t: Target, transports?: readonly Transport[], space?: Partial<CandidateSpace>) {
  const all = candidateSpace(t, transports ?? (Object.keys(w.cost) as Transport[]), { ...DEFAULT_SPACE, ...space });
  const sustaining = all.filter((c) => truth(w, c).load <= 0.9 && truth(w, c).p99 <= t.p99BoundMs / 1.5);
  const cheapest = Math.min(...sustaining.map((c) => truth(w, c).cost));
  return { all, sustaining, cheapest };
}

const jsonRoundTrips = (a: Advice) => expect(JSON.parse(JSON.stringify(a))).toEqual(a);

/**
 * The search's quality at the measured noise and drift, over many seeds: a study, not a test
 * (it takes a minute); run with `ADVISE_STUDY=100 npx vitest run test/unit/advise-search.test.ts -t study`.
 * Counts seeds whose winner truly costs within 12% and 25% of the cheapest that truly sustains,
 * seeds where one within 12% is the winner or in its set, and pairs of runs of one world with
 * other noise (seed s and s + 1000: the same drift shape) whose answers each name the other's winner.
 */
describe.skipIf(!process.env.ADVISE_STUDY)('study: the search at the measured noise', () => {
  it('counts', async () => {
    const n = Number(process.env.ADVISE_STUDY);
    const transports = Object.keys(WORLD.cost) as Transport[];
    const { cheapest } = expected(WORLD, target300k);
    const run = (seed: number) => advise(synthetic(WORLD, seed, { budgetSec: 600, target: target300k, transports }).options);
    const counts = { winner: 0, within12: 0, within25: 0, near12InSet: 0, pairsAgree: 0, overBudget: 0, worst: 0 };
    for (let seed = 1; seed <= n; seed++) {
      const [a, b] = [await run(seed), await run(seed + 1000)];
      if (!a.winner) continue;
      counts.winner++;
      const ratio = truth(WORLD, a.winner.candidate).cost / cheapest;
      if (ratio <= 1.12) counts.within12++;
      if (ratio <= 1.25) counts.within25++;
      counts.worst = Math.max(counts.worst, ratio);
      const set = [a.winner.candidate, ...(a.equivalent ?? []).map((e) => e.candidate)];
      if (set.some((c) => truth(WORLD, c).cost <= cheapest * 1.12)) counts.near12InSet++;
      if (a.elapsedSec > 600) counts.overBudget++;
      const ids = (x: Advice) => [x.winner?.candidate.id, ...(x.equivalent ?? []).map((e) => e.candidate.id)];
      if (b.winner && ids(b).includes(a.winner.candidate.id) && ids(a).includes(b.winner.candidate.id)) counts.pairsAgree++;
      if (process.env.ADVISE_STUDY_SHOW)
        process.stderr.write(
          `PAIR ${seed}: ${ids(a).join(' ')} | ${ids(b).join(' ')} | finalists ${a.tried.filter((t) => t.confirmed).length}/${b.tried.filter((t) => t.confirmed).length}\n`,
        );
    }
    process.stderr.write(`STUDY ${JSON.stringify({ seeds: n, ...counts })}\n`);
  }, 600_000);
});

describe('advise: a target several transports sustain', () => {
  it('finds the cheapest sustaining region at the measured noise and drift, within the budget, for several seeds', async () => {
    // The measured world: σ 0.10 per window and the machine's speed moving 1–2× through the run
    // (a shape per seed). The winner must truly sustain on the machine at its fastest, and cost
    // at most 25% more than the cheapest in most seeds (3–5 paired rounds at σ 0.10 give a paired
    // CI about ±20% wide, so a cannot-tell finalist can hide up to about that), within 12% in
    // many; never past EXPLORE_COST_RATIO's 1.5× and the screen's noise (worst of 100 seeds
    // when this was written: 1.55×).
    const { cheapest } = expected(WORLD, target300k);
    let [within12, within25, falselyDearer] = [0, 0, 0];
    for (let seed = 1; seed <= 20; seed++) {
      const { options, log } = synthetic(WORLD, seed, { budgetSec: 600, target: target300k, transports: Object.keys(WORLD.cost) as Transport[] });
      const a = await advise(options);
      expect(a.winner, `seed ${seed}`).not.toBeNull();
      const w = a.winner!.candidate;
      const t = truth(WORLD, w);
      expect(t.load <= 1 && t.p99 <= target300k.p99BoundMs, `seed ${seed}: ${w.id} truly sustains`).toBe(true);
      expect(t.cost, `seed ${seed}: ${w.id}`).toBeLessThanOrEqual(cheapest * 1.6);
      if (t.cost <= cheapest * 1.25) within25++;
      if (t.cost <= cheapest * 1.12) within12++;
      // The truly cheapest finalist is the winner, in the answer's set, or behind a clearly lower
      // paired p99 (the latency rule, which noise fools at its 5%): never rejected as dearer.
      const finalists = a.tried.filter((x) => x.confirmed?.sustains.sustains);
      const truest = finalists.sort((x, y) => truth(WORLD, x.candidate).cost - truth(WORLD, y.candidate).cost)[0];
      // A paired CI wholly above 1 is wrong 2.5% of the time, and a search makes several such
      // comparisons: the truest can be called dearer now and then, never by much.
      if (truest.candidate.id !== w.id && truest.lostOn === 'cpu') {
        falselyDearer++;
        expect(t.cost, `seed ${seed}: ${truest.why}`).toBeLessThanOrEqual(cheapest * 1.25);
      } else if (truest.candidate.id !== w.id) expect(['simplicity', 'order', 'headroom', 'p99'], `seed ${seed}: ${truest.why}`).toContain(truest.lostOn);
      if (truest.lostOn !== 'p99' && truest.lostOn !== 'cpu' && truest.candidate.id !== w.id)
        expect(a.equivalent!.map((e) => e.candidate.id)).toContain(truest.candidate.id);
      expect(a.winner!.figures.sustains.sustains).toBe(true);
      // Confirmed in paired rounds, at least the minimum three, unless the budget cut a second
      // group short (a machine that slowed mid-run failed the first group's confirmation).
      if (a.search?.stoppedIn !== 'confirm') expect(a.winner!.figures.sustains.figures.repeats).toBeGreaterThanOrEqual(3);
      // The budget: no measurement ended past it by its estimate.
      for (const m of log) expect(m.endSec, `seed ${seed}`).toBeLessThanOrEqual(600);
      expect(a.elapsedSec).toBeLessThanOrEqual(600);
      jsonRoundTrips(a);
    }
    // Of these 20 seeds, measured when this was written: 19 within 25%, 18 within 12%, the truest
    // called dearer in 2 (of 100 seeds, the study below: 97 and 95 since a near-cheapest best tries
    // its simpler neighbours first; 95 and 86 before; 72 and 66 before the screen was
    // drift-corrected, in the narrower space).
    expect(within25).toBeGreaterThanOrEqual(17);
    expect(within12).toBeGreaterThanOrEqual(15);
    expect(falselyDearer).toBeLessThanOrEqual(2);
  });

  it('asked the same question twice (the same world, other noise), both answers land in the cheapest region, and some name each other', async () => {
    const transports = Object.keys(WORLD.cost) as Transport[];
    const { cheapest } = expected(WORLD, target300k);
    const named = (a: Advice) => [a.winner?.candidate.id, ...(a.equivalent ?? []).map((e) => e.candidate.id)];
    let [agree, bothNear] = [0, 0];
    for (let seed = 1; seed <= 20; seed++) {
      // Seed s and s + 1000: the same drift shape (the seed's, modulo four), other noise.
      const [a, b] = await Promise.all([seed, seed + 1000].map((x) => advise(synthetic(WORLD, x, { budgetSec: 600, target: target300k, transports }).options)));
      if (a.winner && b.winner && named(a).includes(b.winner.candidate.id) && named(b).includes(a.winner.candidate.id)) agree++;
      if ([a, b].every((x) => x.winner && truth(WORLD, x.winner.candidate).cost <= cheapest * 1.25)) bothNear++;
    }
    // Measured when this was written (wider space, drift-corrected screen, simpler neighbours
    // first): both within 25% of the cheapest in 17 of these 20 pairs; each naming the other's
    // choice in 2 (28 of 100 in the study above; 20 before the simpler neighbours went first).
    // Far from "the same answer twice": the set is the finalists the paired rounds could not
    // order, and two runs through a flat cheap region (fetch with MessagePack at ticks 1–50 ms on
    // 1–2 connections, all within about 10%) confirm different members of it (issue 34 keeps
    // this open). The floors guard against it getting worse.
    expect(bothNear).toBeGreaterThanOrEqual(15);
    expect(agree).toBeGreaterThanOrEqual(1);
  });

  it('records every candidate tried with why, the runner-up with its CPU difference, the rejected with reasons, and the headroom', async () => {
    const { options } = synthetic(WORLD, 7, { budgetSec: 900, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
    const a = await advise(options);
    const w = a.winner!.candidate;
    for (const t of a.tried) {
      expect(t.why, t.candidate.id).not.toBe('');
      expect(t.repeats.length).toBeGreaterThan(0);
    }
    expect(a.tried.filter((t) => t.outcome === 'winner').map((t) => t.candidate.id)).toEqual([w.id]);
    expect(a.runnerUp).not.toBeNull();
    expect(a.runnerUp!.cpuVsWinner).toMatchObject({ of: a.runnerUp!.candidate.id, against: w.id });
    expect(a.runnerUp!.cpuVsWinner!.rounds).toBeGreaterThanOrEqual(3);
    expect(a.rejected.length).toBeGreaterThan(0);
    for (const r of a.rejected) expect(r.reason).not.toBe('');
    expect(a.rejected.map((r) => r.candidateId)).not.toContain(w.id);
    expect(a.rejected.map((r) => r.candidateId)).not.toContain(a.runnerUp!.candidate.id);
    // A transport's first rejected entry (the one the words name) is its best attempt: its
    // finalist, else its cheapest probe that sustained, not its first, plain probe. Cheapest as
    // the screen compares them, corrected for the drift the anchor's readings show: on this quiet
    // machine the correction is the curve's own noise, a few percent, so within 10% of the raw cheapest.
    const firstOf = new Map<string, string>();
    for (const r of a.rejected) if (!firstOf.has(r.transport)) firstOf.set(r.transport, r.candidateId);
    const probeCost = (t: Advice['tried'][number]) => t.probe?.cpuMsPerMillionEvents?.median ?? Number.POSITIVE_INFINITY;
    for (const [transport, id] of firstOf) {
      const mine = a.tried.filter((t) => t.candidate.transport === transport && t.outcome !== 'winner' && t.outcome !== 'runner-up');
      if (mine.some((t) => t.confirmed)) continue;
      const best = mine.filter((t) => t.probe?.sustains.sustains).sort((x, y) => probeCost(x) - probeCost(y))[0];
      const chosen = mine.find((t) => t.candidate.id === id)!;
      if (best) expect(probeCost(chosen), `${transport}: ${id} against ${best.candidate.id}`).toBeLessThanOrEqual(probeCost(best) * 1.1);
    }
    // Every transport was screened, poll (the dearest) included.
    expect(new Set(a.tried.map((t) => t.candidate.transport))).toEqual(new Set(Object.keys(WORLD.cost)));
    // Headroom: the true knee of the winner's tick and connections is where the main thread
    // reaches about 92% (p99 = the bound); the search ends within a bracket step below it.
    expect(a.headroom).not.toBeNull();
    const h = a.headroom!;
    expect(h.candidateId).toBe(w.id);
    if (h.batch === null) throw new Error(`seed 7: the winner's own batch did not hold in its headroom search: ${JSON.stringify(h.firstPast)}`);
    expect(h.batch).toBeGreaterThan(w.batch);
    expect(h.eventsPerSec).toBe((h.batch * w.concurrency * 1000) / w.intervalMs);
    const knee = (b: number) => {
      const t = truth(WORLD, { ...w, batch: b, offeredEventsPerSec: (b * w.concurrency * 1000) / w.intervalMs });
      return t.load <= 1 && t.p99 <= 100;
    };
    expect(knee(h.batch)).toBe(true);
    const top = h.batch;
    if (!h.atLeast && h.stopped === null) expect(knee(Math.ceil(top * 1.3))).toBe(false);
    // The words, as the issue's example reads.
    const text = adviceText(a, { cores: 2, cpuModel: 'AMD EPYC', browser: 'Chromium 156 headless' });
    expect(text[0]).toBe(
      `Use fetch over HTTP/2, ${w.batch} rows every ${w.intervalMs} ms per connection on ${w.concurrency === 1 ? '1 connection' : `${w.concurrency} connections`}, parsing on the main thread, MessagePack.`,
    );
    expect(text[1]).toMatch(
      /^ {2}Sustains 300 k events\/s: p99 \d+ ms \((range|CI) \d+–\d+( over \d repeats)?\), delivered (100|99\.\d)%; tab renderer \d+% of a core \(CI \d+–\d+\)\.$/,
    );
    expect(text[2]).toMatch(/^ {2}Headroom: keeps up to (at least )?[\d.]+ [kM] events\/s with the same tick and connections/);
    // With the input clause's figure (the winner's repeats measured input): said beside delivered.
    const f = a.winner!.figures;
    const answered = adviceText({
      ...a,
      winner: { ...a.winner!, figures: { ...f, sustains: { ...f.sustains, figures: { ...f.sustains.figures, inputDelayP99Ms: 5.24 } } } },
    });
    expect(answered[1]).toMatch(/, delivered (100|99\.\d)%, input delay p99 5\.2 ms; tab renderer /);
    // (After the set's lines when the paired rounds could not order some finalists.)
    expect(text.find((l) => l.startsWith('  Runner-up: '))).toMatch(
      /^ {2}Runner-up: .*, (\d+% more renderer CPU per event \(CI|renderer CPU per event equivalent within ±5%|cannot tell renderer CPU per event apart at ±5%|no clear difference in renderer CPU per event at ±5%)/,
    );
    expect(text.find((l) => l.startsWith('  Rejected: '))).toMatch(/poll \(/);
    expect(text.at(-1)).toBe('Machine: 2 cores AMD EPYC, Chromium 156 headless; these figures hold for this machine and browser.');
    // The headroom search found the winner's own batch not sustaining (no knee): no line may say
    // it keeps up to it, finished or cut by the budget; nor may a report written before `limit`,
    // whose batch fell back to the winner's.
    const rate = (w.batch * w.concurrency * 1000) / w.intervalMs;
    const lost = { batch: w.batch, eventsPerSec: rate, reason: 'p99 140 ms, over the 100 ms bound' };
    const none = `  Headroom: none shown: measured again in the headroom search, the same setup (${w.batch} rows every ${w.intervalMs} ms) did not sustain (p99 140 ms, over the 100 ms bound); the confirmation above still holds, with no margin measured above 300 k events/s.`;
    for (const stopped of [null, 'budget'] as const) {
      const now = { ...h, batch: null, eventsPerSec: null, atLeast: false, limit: stopped ?? ('not-held' as const), firstPast: lost, stopped };
      const before = { ...h, batch: w.batch, eventsPerSec: rate, atLeast: false, limit: undefined, firstPast: lost, stopped };
      for (const headroom of [now, before]) {
        const line = adviceText({ ...a, headroom }).find((l) => l.startsWith('  Headroom: '))!;
        expect(line, String(stopped)).toBe(none);
      }
    }
  });

  it("writes the answer as a scenario file a plain sweep runs: the runner-up and the advised setup, one point each, the candidates' own", async () => {
    const { options } = synthetic(WORLD, 7, { budgetSec: 900, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
    const a = await advise(options);
    const file = confirmScenarioFile(a)!;
    // It is a valid scenario file by the sweep's own check.
    expect(parseScenarioText(JSON.stringify(file), 'confirm.json')).toEqual(file);
    expect(file.default).toEqual(['runner-up', 'advised']);
    const pointOf = (id: string) => {
      const points = expandScenario(
        file.scenarios.find((s) => s.id === id)!,
        file.defaults,
      );
      expect(points).toHaveLength(1);
      return points[0];
    };
    const timing = { warmupSec: 2, measureSec: 5, repeats: 3 };
    for (const [id, c] of [
      ['advised', a.winner!.candidate],
      ['runner-up', a.runnerUp!.candidate],
    ] as const) {
      const want = candidatePoint(c, 'full', timing, id);
      expect(pointOf(id)).toEqual(want);
    }
    expect(confirmScenarioFile({ ...a, runnerUp: null })).toBeNull();
  });

  it('the confirm file holds every condition the answer was measured under, and its events, so the sweep measures what the search did', async () => {
    const { options } = synthetic(WORLD, 7, { budgetSec: 900, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
    const searched = await advise(options);
    // Every condition at once (each is independent in the file), as a search run under them would record its target.
    const target: Target = {
      ...target300k,
      device: 'mid-tier',
      throttle: 'main-thread',
      pace: 'recorded',
      renderModule: { path: 'examples/react-table/rows-table.tsx', sha256: 'c0'.repeat(32) },
      tab: 'hidden-long',
      hiddenLongGraceSec: 30,
      link: '50ms±10ms,5mbit',
    };
    const a: Advice = { ...searched, target };
    const file = confirmScenarioFile(a, { rows: '/data/trades.ndjson', chartField: 'price' })!;
    expect(parseScenarioText(JSON.stringify(file), 'confirm.json')).toEqual(file);
    // The events are the run's, as a sweep's scenario file names them: read from this absolute path wherever the file lies.
    expect(file.defaults).toEqual({ rows: '/data/trades.ndjson', chartField: 'price' });
    const timing = { warmupSec: 2, measureSec: 5, repeats: 3 };
    for (const [id, c] of [
      ['advised', a.winner!.candidate],
      ['runner-up', a.runnerUp!.candidate],
    ] as const) {
      const scenario = file.scenarios.find((s) => s.id === id)!;
      const [point] = expandScenario(scenario, file.defaults);
      // The sweep builds the module from the scenario's path (and sets it on the point then); every other field is the search's own point.
      const { renderModule, ...rest } = candidatePoint(c, target.render, timing, id, conditionsOf(target));
      expect(point).toEqual(rest);
      expect(scenario.renderModule).toBe(renderModule!.path);
    }
    // Without a rows file, the car rows: no defaults at all.
    expect(confirmScenarioFile(a, { rows: '', chartField: '' })!.defaults).toBeUndefined();
  });

  it('tries the cheapest setting found on every transport that can take it, before calling a transport dear', async () => {
    // Arrow cuts every binary transport's cost 5×. grpc-web, the dearest on JSON, carries no
    // MessagePack, so its first encoding move reaches Arrow while ws and fetch try MessagePack:
    // on 2026-11-27 the search then called ws and fetch "dear" against grpc-web's Arrow (their
    // JSON costs), never tried them with Arrow, and advised grpc-web.
    const world: World = { ...WORLD, msgpack: { ws: 0.95, fetch: 0.95, 'ws-h2': 0.95 }, arrow: { ws: 0.2, 'ws-h2': 0.2, fetch: 0.2, 'grpc-web': 0.2 } };
    const transports = Object.keys(world.cost) as Transport[];
    for (const seed of [1, 2, 3, 4, 5]) {
      const { options } = synthetic(world, seed, { budgetSec: 600, target: target300k, transports, noise: QUIET });
      const a = await advise(options);
      const w = a.winner!.candidate;
      expect(w.encoding, `seed ${seed}: ${w.id}`).toBe('arrow');
      // ws and fetch with Arrow were measured, and the winner is one of them, or tied with it.
      const arrowTried = new Set(a.tried.filter((t) => t.candidate.encoding === 'arrow').map((t) => t.candidate.transport));
      for (const t of ['ws', 'fetch', 'grpc-web'] as const) expect(arrowTried.has(t), `seed ${seed}: ${t} with Arrow`).toBe(true);
      // Within 12%: in the wider space a 1 ms tick with Arrow can win on its clearly lower p99
      // over a 10 ms one its paired CPU cannot tell apart (seed 4: 462 against 424, 9% apart).
      expect(truth(world, w).cost, `seed ${seed}: ${w.id}`).toBeLessThanOrEqual(expected(world, target300k, transports).cheapest * 1.12);
    }
  });

  it('--objective bytes minimises bytes per event: another winner than the renderer, and the answer says what the renderer would choose and why', async () => {
    // Arrow costs the renderer 15% more than JSON here, and a fifth of its bytes; MessagePack cuts
    // fetch's renderer CPU to 0.75 (the renderer's pick, as in WORLD) and bytes to 95 per event.
    const bytes = (c: Candidate) => ({ json: 133, msgpack: 95, arrow: 22 })[c.encoding] + 400 / c.batch;
    const world: World = { ...WORLD, arrow: { ws: 1.15, 'ws-h2': 1.15, fetch: 1.15, 'grpc-web': 1.15 }, bytes };
    const transports = Object.keys(world.cost) as Transport[];
    for (const seed of [1, 2, 3]) {
      const byRenderer = await advise(synthetic(world, seed, { budgetSec: 600, target: target300k, transports, noise: QUIET }).options);
      const target = { ...target300k, objective: 'bytes' as const };
      const a = await advise(synthetic(world, seed, { budgetSec: 600, target, transports, noise: QUIET }).options);
      expect([byRenderer.winner!.candidate.transport, byRenderer.winner!.candidate.encoding], `seed ${seed}`).toEqual(['fetch', 'msgpack']);
      const w = a.winner!.candidate;
      expect(w.encoding, `seed ${seed}: ${w.id}`).toBe('arrow');
      // What decided is recorded with the figures, and the comparisons name the figure compared.
      expect(a.winner!.figures.objective!.name).toBe('bytes');
      expect(a.winner!.figures.objective!.median).toBeCloseTo(a.winner!.figures.costs!.bytesPerEvent.median!, 9);
      expect(a.winner!.figures.costs!.bytesPerEvent.median!).toBeLessThan(bytes({ ...w, encoding: 'msgpack' }));
      if (a.runnerUp?.cpuVsWinner) expect(a.runnerUp.cpuVsWinner.objective).toBe('bytes');
      // The renderer's own pick was confirmed beside the bytes finalists, so the reason is paired.
      const rendererPick = a.tried.find((t) => t.confirmed && t.candidate.encoding === 'msgpack' && t.candidate.transport === 'fetch');
      expect(rendererPick, `seed ${seed}`).toBeDefined();
      const text = adviceText(a);
      const line = text.find((l) => l.includes('Chosen for the lowest bytes per event'));
      expect(line, text.join('\n')).toMatch(
        /--objective bytes: the page's message bytes, on the wire: after compression where the point compresses; [\d.]+ bytes per event\); --objective renderer would choose fetch over HTTP\/2, .*MessagePack(, spread over 2 origins)?(, (gzip|deflate) compression)? instead: [\d,]+ against [\d,]+ ms of renderer CPU per million events: \d+% less renderer CPU per event than the winner \(÷ 0\.\d+, CI [\d.]+–[\d.]+, \d paired rounds\); but [\d.]+ against the winner's [\d.]+ bytes per event\.$/,
      );
      // Every finalist's costs, in a table of one row each.
      const rows = text.filter((l) => /^ {4}\| [a-z]/.test(l) && !l.includes('| finalist'));
      expect(rows.length).toBe(a.tried.filter((t) => t.confirmed).length);
      jsonRoundTrips(a);
    }
    // The renderer's answer names its objective and says every other cost is in the table.
    const a = await advise(synthetic(world, 1, { budgetSec: 600, target: target300k, transports, noise: QUIET }).options);
    expect(adviceText(a).find((l) => l.startsWith('  Chosen for'))).toMatch(/^ {2}Chosen for the lowest renderer CPU per event \(--objective renderer: /);
  });

  it('never prefers one over another on noise: equal CPU per event goes to the clearly lower latency, never to a median', async () => {
    // sse and fetch cost the same; fetch's page sees rows 30 ms sooner.
    const twins: World = { cost: { sse: 2000, fetch: 2000 }, p99: { sse: 45, fetch: 10 } };
    const space = { encodings: ['json'] as const, workers: [], connections: [1], ticksMs: [10], compression: false };
    let compared = 0;
    for (let seed = 11; seed <= 30; seed++) {
      const { options } = synthetic(twins, seed, { budgetSec: 600, target: target300k, transports: ['sse', 'fetch'], space, noise: QUIET });
      const a = await advise(options);
      expect(a.winner!.candidate.transport, `seed ${seed}`).toBe('fetch');
      // The sse twin is not called dearer; the line names what decided: fetch's clearly lower p99.
      const t = a.tried.find((x) => x.candidate.transport === 'sse' && x.confirmed?.sustains.sustains);
      if (!t) continue;
      compared++;
      expect(['equivalent', 'unclear']).toContain(t.cpuVsWinner!.kind);
      expect(t.lostOn, `seed ${seed}`).toBe('p99');
      expect(a.runnerUp!.candidate.id).toBe(t.candidate.id);
      expect(adviceText(a).find((l) => l.startsWith('  Runner-up: '))).toMatch(
        /; the winner's clearly lower p99 decided \(p99 up to \d+ ms against up to \d+ ms\)\.$/,
      );
      // Behind on latency, it is not in the set of equally good answers.
      expect(a.equivalent).toEqual([]);
    }
    // The sse twin sustained its confirmation in most seeds (its p99 is 45 ms against a 100 ms bound).
    expect(compared).toBeGreaterThanOrEqual(10);
  });
});

describe('advise: the budget', () => {
  it('starts no measurement that would end past the budget, and says what it could not try', async () => {
    for (const [budgetSec, seed] of [60, 120, 240].flatMap((b) => [1, 2, 3].map((seed) => [b, seed] as const))) {
      const { options, log } = synthetic(WORLD, seed, { budgetSec, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
      const a = await advise(options);
      // Even a minute leaves room for a probe and a confirmation of it.
      expect(a.winner, `budget ${budgetSec}`).not.toBeNull();
      expect(a.winner!.figures.sustains.figures.repeats).toBeGreaterThanOrEqual(3);
      for (const m of log) expect(m.endSec, `budget ${budgetSec}`).toBeLessThanOrEqual(budgetSec);
      expect(a.stopped).toBe('budget');
      expect(a.notTried.length).toBeGreaterThan(0);
      // The moves the screen had next are out of budget, the rest not reached (or pruned).
      expect(a.notTried.some((n) => n.reason === 'outOfBudget' && n.why.startsWith('the time budget ran out before it was measured'))).toBe(true);
      expect(a.search).toMatchObject({ ended: 'budget', screen: { ended: 'budget' } });
      // Every candidate of the space is accounted for: tried or not, never both.
      const space = candidateSpace(target300k, Object.keys(WORLD.cost) as Transport[]);
      expect(a.tried.length + a.notTried.length).toBe(space.length);
      expect(adviceText(a).join('\n')).toMatch(
        new RegExp(
          `The budget stopped it: it ended the screen at [\\d a-z]+, keeping room to confirm what it found; the search ended at [\\d a-z]+ of its ${budgetSec / 60} min`,
        ),
      );
    }
  });

  it('measures nothing when not even one probe and its confirmation fit, and says so', async () => {
    const { options, log } = synthetic(WORLD, 5, { budgetSec: 20, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
    const a = await advise(options);
    expect(log).toEqual([]);
    expect(a).toMatchObject({ winner: null, closest: null, stopped: 'budget', tried: [] });
    expect(adviceText(a)[0]).toBe(
      'No answer for 300 k events/s with p99 ≤ 100 ms (render full): the time budget of 20 s leaves no room for one probe and its confirmation.',
    );
  });
});

describe('advise: the account of what the search did (issue 34)', () => {
  const all = Object.keys(WORLD.cost) as Transport[];
  /** The account's counts and examples agree with the list they count; every entry has its reason. */
  const agrees = (a: Advice) => {
    const byReason = new Map<string, string[]>();
    for (const n of a.notTried) byReason.set(n.reason!, [...(byReason.get(n.reason!) ?? []), n.candidate.id]);
    for (const [reason, bucket] of Object.entries(a.search!.notMeasured)) {
      const ids = byReason.get(reason) ?? [];
      expect(bucket.count, reason).toBe(ids.length);
      expect(bucket.examples, reason).toEqual(ids.slice(0, 3));
    }
    expect(a.search!.ended).toBe(a.stopped ?? 'converged');
  };

  it('says the search converged, when, what it measured, and splits what it did not measure by why', async () => {
    const { options, log } = synthetic(WORLD, 3, { budgetSec: 3600, target: target300k, transports: all, noise: QUIET });
    const a = await advise(options);
    agrees(a);
    const s = a.search!;
    expect(s).toMatchObject({ ended: 'converged', stoppedIn: null, screen: { ended: 'converged' } });
    expect(s.screen!.endedSec).toBeLessThan(a.elapsedSec);
    // Every measurement is counted where it belongs.
    // The winner's and the runner-up's headroom searches both measure.
    const probes = log.filter((m) => m.kind === 'probe').length;
    const hs = [a.headroom!, ...(a.runnerUp?.headroom ? [a.runnerUp.headroom] : [])];
    const sum = (of: (h: (typeof hs)[number]) => number) => hs.reduce((n, h) => n + of(h), 0);
    expect(s.measurements.probes + sum((h) => h.probes)).toBe(probes);
    expect(s.measurements.confirmRounds + sum((h) => h.confirmations) * 3).toBe(log.length - probes);
    expect(s.measurements.headroomRepeats).toBe(sum((h) => h.repeats.length));
    // Converged: nothing was out of budget or cut off; poll and grpc-web cost far more than fetch's best and were pruned.
    expect(s.notMeasured.outOfBudget.count + s.notMeasured.interrupted.count).toBe(0);
    expect(s.notMeasured.notReached.count).toBeGreaterThan(0);
    expect(s.notMeasured.prunedDear.count).toBeGreaterThan(0);
    for (const n of a.notTried.filter((x) => x.reason === 'prunedDear'))
      expect(n.why).toMatch(new RegExp(`^not explored: ${n.candidate.transport}'s best costs \\d+% more`));
    const text = adviceText(a);
    const minutes = (sec: number) => `${Math.floor(Math.round(sec) / 60)} min${Math.round(sec) % 60 ? ` ${Math.round(sec) % 60} s` : ''}`;
    expect(text).toContain(
      `  The search converged: it ended by itself at ${minutes(a.elapsedSec)} of its 60 min budget, nothing left worth measuring (the screen converged at ${minutes(s.screen!.endedSec)}; ${s.measurements.probes} probes, ${s.measurements.confirmRounds} paired rounds, ${s.measurements.headroomRepeats} repeats of headroom).`,
    );
    const parts = [
      `${s.notMeasured.notReached.count} not reached`,
      `${s.notMeasured.prunedDear.count} pruned as dear`,
      ...(s.notMeasured.prunedHopeless.count ? [`${s.notMeasured.prunedHopeless.count} pruned as hopeless`] : []),
    ];
    expect(text).toContain(
      `  Not measured: ${a.notTried.length} of ${a.notTried.length + a.tried.length} candidates: ${parts.join(', ')}; every one is listed in the report with why.`,
    );
    jsonRoundTrips(a);
  });

  it('when the budget stops the screen, counts as out of budget only the moves it had next', async () => {
    for (const seed of [1, 2, 3]) {
      const { options } = synthetic(WORLD, seed, { budgetSec: 150, target: target300k, transports: all, noise: QUIET });
      const a = await advise(options);
      agrees(a);
      expect(a.search!.stoppedIn).toBe('screen');
      const out = a.notTried.filter((n) => n.reason === 'outOfBudget').map((n) => n.candidate);
      expect(out.length, `seed ${seed}`).toBeGreaterThan(0);
      const tried = a.tried.map((t) => t.candidate);
      const plain = (c: Candidate) => c.parse === 'main' && c.origins === 1 && c.encoding === 'json';
      // A basic shape, one setting from a measured candidate of its transport, or another transport's setting.
      for (const c of out)
        expect(
          plain(c) || tried.some((t) => t.transport === c.transport && knobsBetween(t, c).length === 1) || tried.some((t) => knobsBetween(t, c).length === 0),
          `seed ${seed}: ${c.id}`,
        ).toBe(true);
      // The rest of the space was not reached, and says the budget ended the screen.
      const far = a.notTried.filter((n) => n.reason === 'notReached');
      expect(far.length).toBeGreaterThan(out.length);
      for (const n of far) expect(n.why).toBe('not reached: the time budget ended the screen before a measured neighbour led here');
    }
  });

  it('a report saved mid-search accounts for it as interrupted, in the stage under way', async () => {
    // A budget that reaches the headroom search: the space holds 15,000-row batches on one connection since the server's limit is 100,000.
    const { options } = synthetic(WORLD, 5, { budgetSec: 900, target: target300k, transports: all, noise: QUIET });
    const saved: Advice[] = [];
    let snapshot: (() => Advice) | null = null;
    await advise({ ...options, onStart: (f) => (snapshot = f), onMeasured: () => saved.push(snapshot!()) });
    for (const a of saved) {
      agrees(a);
      expect(a.search!.ended).toBe('interrupted');
      expect(a.search!.stoppedIn).not.toBeNull();
    }
    expect(new Set(saved.map((a) => a.search!.stoppedIn))).toEqual(new Set(['screen', 'confirm', 'headroom']));
    // While the screen runs what it has not reached is cut off; once it converged, not reached.
    expect(saved[0].search!.notMeasured.interrupted.count).toBeGreaterThan(0);
    expect(saved.at(-1)!.search!.notMeasured.interrupted.count).toBe(0);
  });

  it('counts the not-measured of a report written before the account by their words', () => {
    const c = candidateSpace(target300k, ['sse']);
    const a = {
      tried: [],
      notTried: [
        { candidate: c[0], why: "not explored: sse's best costs 80% more renderer CPU per event than the cheapest that sustained" },
        { candidate: c[1], why: "not explored: sse's best came nowhere near (delivered 40%) while other transports sustained" },
        { candidate: c[2], why: 'the time budget ran out before it was measured' },
        { candidate: c[3], why: "not reached: the search moves one setting at a time from each transport's best, and no measured neighbour led here" },
      ],
    } as unknown as Advice;
    expect(Object.fromEntries(Object.entries(notMeasuredOf(a)).map(([k, v]) => [k, v.count]))).toEqual({
      notReached: 1,
      prunedDear: 1,
      prunedHopeless: 1,
      outOfBudget: 1,
      interrupted: 0,
    });
  });
});

describe('advise: Ctrl-C', () => {
  it('stops at an interrupted measurement, keeping what was measured and saying what was not', async () => {
    const { options, log } = synthetic(WORLD, 4, { budgetSec: 600, target: target300k, transports: Object.keys(WORLD.cost) as Transport[], noise: QUIET });
    const measured: string[] = [];
    const probe = options.measurer.probe;
    let n = 0;
    const a = await advise({
      ...options,
      measurer: { ...options.measurer, probe: async (c) => (++n > 9 ? null : probe(c)) },
      onMeasured: (e) => measured.push(`${e.stage} ${e.candidates.map((c) => c.id).join(',')}`),
    });
    expect(a.stopped).toBe('interrupted');
    // Nine probes: eight candidates and one reading of the anchor (its first probe, then six more, then its re-probe).
    expect(a.tried).toHaveLength(8);
    expect(measured).toHaveLength(8);
    expect(log).toHaveLength(9);
    expect(a.headroom).toBeNull();
    expect(a.notTried.every((x) => x.why === 'interrupted before it was measured' || x.why.startsWith('not explored'))).toBe(true);
    expect(a.search).toMatchObject({ ended: 'interrupted', stoppedIn: 'screen', screen: { ended: 'interrupted' } });
    expect(a.search!.notMeasured.interrupted.count).toBeGreaterThan(0);
    const text = adviceText(a);
    expect(text[0]).toBe('No confirmed answer for 300 k events/s with p99 ≤ 100 ms (render full): interrupted before a confirmation.');
    expect(text[1]).toMatch(/^ {2}Sustained in one probe window, not confirmed \(cheapest first\): \w/);
    // Had a confirmation run and failed, the stop came before the others, not before any.
    const dropped = a.tried.findIndex((t) => t.probe !== null && !t.probe.sustains.sustains);
    expect(dropped).toBeGreaterThanOrEqual(0);
    const oneConfirmed = { ...a, tried: a.tried.map((t, i) => (i === dropped ? { ...t, confirmed: t.probe } : t)) };
    expect(adviceText(oneConfirmed)[0]).toBe(
      'No confirmed answer for 300 k events/s with p99 ≤ 100 ms (render full): 1 confirmed candidate did not sustain it, and the search was interrupted before the others were confirmed.',
    );
  });
});

describe('advise: nothing sustains', () => {
  it('names the closest, what limited it, and what the measurements say would help', async () => {
    const target: Target = { eventsPerSec: 2_000_000, p99BoundMs: 100, render: 'full' };
    const { options } = synthetic(WORLD, 9, { budgetSec: 600, target, transports: ['sse', 'ws', 'poll'], noise: QUIET });
    const a = await advise(options);
    expect(a.winner).toBeNull();
    expect(a.headroom).toBeNull();
    const c = a.closest!;
    // On the main thread the page takes about a third of 2 M; in two Workers over half.
    expect(c.candidate.parse).toBe('worker');
    expect(c.limit).toMatch(/^client-bound: (parsing Workers at \d+% of a core|the tab's main thread at \d+%)$/);
    expect(c.helps.some((h) => /^parsing in \d Workers? instead of (on the main thread|in \d Workers?) got further: \d+(\.\d)?% delivered/.test(h))).toBe(true);
    expect(c.helps.some((h) => h.startsWith('the closest other transport: '))).toBe(true);
    // The closest came closer than anything else measured.
    for (const t of a.tried) expect((t.confirmed ?? t.probe)!.closeness).toBeLessThanOrEqual(c.figures.closeness);
    const text = adviceText(a);
    expect(text[0]).toBe('Nothing sustained 2 M events/s with p99 ≤ 100 ms (render full) on this machine.');
    expect(text[1]).toMatch(/^ {2}Closest: (sse|ws|poll) over HTTP\/[12](\.1)?, .*parsing in \d Workers?.*: [\d.]+% delivered.*; client-bound: /);
    expect(text[2]).toMatch(/^ {2}What the measurements say: /);
    jsonRoundTrips(a);
  });
});

describe('candidateSpace', () => {
  it('offers the rate at every tick that gives whole rows, with knobs only where they matter', () => {
    const all = candidateSpace(target300k, ['sse', 'ws', 'sse-h1', 'poll']);
    const ids = new Set(all.map((c) => c.id));
    expect(ids.has('sse-b300-c1-i1')).toBe(true);
    expect(ids.has('sse-b3000-c1-i10')).toBe(true);
    // 15,000 rows is within the server's 100,000: the 50 ms tick takes one connection, or two of 7,500.
    expect(ids.has('sse-b15000-c1-i50')).toBe(true);
    expect(ids.has('sse-b7500-c2-i50')).toBe(true);
    expect(ids.has('sse-b7500-c2-i50-o2')).toBe(true);
    // Origins only for HTTP/2 on the main origin; msgpack only where the transport carries it.
    expect([...ids].some((id) => /^(ws|sse-h1)-.*-o2/.test(id))).toBe(false);
    expect(ids.has('ws-b300-c1-i1-mp')).toBe(true);
    expect([...ids].some((id) => id.startsWith('sse') && id.endsWith('-mp'))).toBe(false);
    // Poll polls at a quarter of the bound.
    expect(ids.has('poll-b300-c1-i1-p25')).toBe(true);
    for (const c of all) expect(c.offeredEventsPerSec).toBeGreaterThanOrEqual(300_000);
    for (const c of all) expect(c.offeredEventsPerSec).toBeLessThanOrEqual(300_000 * 1.05);
  });

  it("with a --rows file's events, leaves out grpc-web's default protobuf rows and keeps its Arrow", () => {
    const rows = candidateSpace(target300k, ['grpc-web', 'ws'], { ...DEFAULT_SPACE, fileEvents: true });
    const car = candidateSpace(target300k, ['grpc-web', 'ws']);
    const grpc = (cs: typeof rows) => cs.filter((c) => c.transport === 'grpc-web');
    expect(grpc(car).some((c) => (c.encoding ?? 'json') === 'json')).toBe(true);
    expect(grpc(rows).length).toBeGreaterThan(0);
    expect(grpc(rows).every((c) => c.encoding === 'arrow')).toBe(true);
    // Every other transport keeps its whole space.
    expect(rows.filter((c) => c.transport === 'ws').length).toBe(car.filter((c) => c.transport === 'ws').length);
  });

  it('at a rate too low for whole rows at any tick, sends one row per message at its own tick', () => {
    const all = candidateSpace({ eventsPerSec: 10, p99BoundMs: 100 }, ['sse']);
    expect(all.filter((c) => c.parse === 'main' && c.origins === 1 && !c.compression).map((c) => c.id)).toEqual([
      'sse-b1-c1-i100',
      'sse-b1-c2-i200',
      'sse-b1-c4-i400',
      'sse-b1-c8-i800',
    ]);
  });
});

describe('advise with a render module (issue 35)', () => {
  const MODULE = { path: 'examples/react-table/rows-table.tsx', sha256: 'c0'.repeat(32) };
  const withModule: Target = { ...target300k, renderModule: MODULE };
  const transports = Object.keys(WORLD.cost) as Transport[];

  it('the space holds main-thread parsing only: the same candidates as without a module, the Worker ones left out', () => {
    const all = candidateSpace(target300k, transports);
    const mine = candidateSpace(withModule, transports, spaceFor(withModule));
    expect(all.some((c) => c.parse === 'worker')).toBe(true);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((c) => c.parse === 'main' && c.workers === 0)).toBe(true);
    expect(mine.map((c) => c.id)).toEqual(all.filter((c) => c.parse === 'main').map((c) => c.id));
    // Filtered, not replaced: a space's other lists are kept as given; without a module it is left alone.
    const narrow: CandidateSpace = { ...DEFAULT_SPACE, connections: [1], encodings: ['json'] };
    expect(spaceFor(withModule, narrow)).toEqual({ ...narrow, workers: [] });
    expect(spaceFor(target300k, narrow)).toBe(narrow);
  });

  it('the search measures main-thread candidates only, and its answer keeps the module as asked', async () => {
    const { options } = synthetic(WORLD, 7, { budgetSec: 600, target: withModule, transports, noise: QUIET });
    const a = await advise(options);
    expect(a.tried.length).toBeGreaterThan(0);
    expect(a.tried.every((t) => t.candidate.parse === 'main')).toBe(true);
    expect(a.notTried.every((t) => t.candidate.parse === 'main')).toBe(true);
    expect(a.target.renderModule).toEqual(MODULE);
    // The first save (before anything is measured) plans the same space.
    const before = adviceBeforeSearch({ target: withModule, transports, budgetSec: 600 });
    expect(before.notTried.map((t) => t.candidate.id)).toEqual(candidateSpace(withModule, transports, spaceFor(withModule)).map((c) => c.id));
    expect(before.target.renderModule).toEqual(MODULE);
    jsonRoundTrips(a);
    // The answer names the page and the events, the advised encoding's bytes with them.
    const line = adviceText(a).find((l) => l.startsWith('Measured with: '));
    expect(line).toBe(
      `Measured with: events the lab's car rows; page examples/react-table/rows-table.tsx (render module, sha256 c0c0c0c0c0c0…). The answer holds for events and a page like these.`,
    );
  });

  it("every candidate's point (probe, confirmation) names the module, as a sweep's does; the id does not", () => {
    const c = candidateSpace(withModule, ['ws'], spaceFor(withModule))[0];
    for (const p of [probePoint(c, withModule), confirmPoint(c, withModule)]) {
      expect(p.renderModule).toEqual(MODULE);
      expect(p.parse).toBe('main');
      expect(p.render).toBe('full');
    }
    expect(probePoint(c, withModule).id).toBe(probePoint(c, target300k).id);
    expect(probePoint(c, target300k)).not.toHaveProperty('renderModule');
  });

  it("the confirm file draws with the module too, as the sweep reads a scenario's renderModule", async () => {
    const { options } = synthetic(WORLD, 7, { budgetSec: 900, target: withModule, transports, noise: QUIET });
    const file = confirmScenarioFile(await advise(options))!;
    expect(parseScenarioText(JSON.stringify(file), 'confirm.json')).toEqual(file);
    for (const s of file.scenarios) expect(s.renderModule).toBe(MODULE.path);
  });

  it('--render chart or none beside --render-module is refused, naming both flags', () => {
    for (const render of ['chart', 'none']) {
      expect(() =>
        checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '300k', '--p99', '100ms', '--render', render, '--render-module', 'my-table.tsx'], '')),
      ).toThrow(
        `--render-module draws in place of pushlab's table and charts, so it needs --render full; got --render ${render} with --render-module my-table.tsx`,
      );
    }
    // --render full (the default) takes it; --resume takes it too (the recorded search's module, checked by main.ts).
    expect(() => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '300k', '--p99', '100ms', '--render-module', 'my-table.tsx'], ''))).not.toThrow();
    expect(() => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--resume', 'advise-20261125-101500', '--render-module', 'my-table.tsx'], ''))).not.toThrow();
  });
});

describe('advise: a probe too coarse to drop on (issue 33)', () => {
  for (const [what, batches, delivered] of [
    ['one batch from the line it would be dropped at (250 batches at 89.8%: one more is 90.2%)', 250, 0.898],
    ['a window of 40 batches (a 50 ms tick for 2 s: one batch is 2.5% of it)', 40, 0.85],
  ] as const) {
    it(`probes a candidate once more before dropping it: ${what}, and judges both windows`, async () => {
      const { options } = synthetic(WORLD, 7, { budgetSec: 600, target: target300k, transports: ['sse'], noise: QUIET });
      const probe = options.measurer.probe;
      let first: string | null = null;
      const probes = new Map<string, number>();
      const a = await advise({
        ...options,
        measurer: {
          ...options.measurer,
          probe: async (c) => {
            probes.set(c.id, (probes.get(c.id) ?? 0) + 1);
            const r = (await probe(c)) as MeasuredRepeat;
            first ??= c.id;
            if (c.id !== first || probes.get(c.id)! > 1) return r;
            // A window scheduled to hold `batches` (its length × the candidate's batches per second), which it received.
            const windowSec = (batches * c.intervalMs) / (1000 * c.concurrency);
            return { ...r, windowSec, deliveredRatio: delivered, eventsPerSec: c.offeredEventsPerSec * delivered, page: { ...r.page, batches } };
          },
        },
      });
      const tried = a.tried.find((t) => t.candidate.id === first)!;
      expect(probes.get(first!)).toBe(2);
      expect(tried.repeats.filter((r) => r.purpose === 'probe')).toHaveLength(2);
      expect(tried.probe!.sustains.figures.repeats).toBe(2);
      // Judged on both windows, it was not dropped as "clearly cannot".
      expect(tried.why).not.toMatch(/^clearly cannot sustain/);
    });
  }

  it('counts how coarse a window was by its schedule, not by what a starved page received, and probes again only for the delivered share or the p99', () => {
    const c = candidateSpace(target300k, ['sse'])[0];
    const p = candidatePoint(c, 'full', { warmupSec: 1, measureSec: 2, repeats: 1 });
    const scheduled = (windowSec: number) => Math.round((windowSec * c.concurrency * 1000) / c.intervalMs);
    // 10 s scheduled to hold ≥ 200 batches; the page got 40 of them: starved, not coarse.
    const starved = measured(p, { round: -1, eps: c.offeredEventsPerSec * 0.2, p99: 30 });
    starved.windowSec = 10;
    starved.page = { ...starved.page, batches: 40 };
    const f = figuresOf(c, [starved], 100);
    expect(f.sustains.figures.fewestBatches).toBe(scheduled(10));
    expect(scheduled(10)).toBeGreaterThanOrEqual(MIN_WINDOW_BATCHES);
    expect(worthAnotherProbe(f)).toBe(false);
    // A coarse window that lost batches (gaps) or did not answer input needs no second window.
    const coarse = measured(p, { round: -1, eps: c.offeredEventsPerSec * 0.85, p99: 30 });
    coarse.windowSec = (40 * c.intervalMs) / (1000 * c.concurrency);
    coarse.page = { ...coarse.page, batches: 34 };
    expect(worthAnotherProbe(figuresOf(c, [coarse], 100))).toBe(true);
    const lost = { ...coarse, page: { ...coarse.page, gaps: 3 } };
    expect(worthAnotherProbe(figuresOf(c, [lost], 100))).toBe(false);
    const deaf = { ...coarse, input: { sent: 1, handled: 0, delayMs: coarse.latency, nextFrameMs: coarse.latency, longFrames: null, unansweredMs: 2000 } };
    expect(worthAnotherProbe(figuresOf(c, [deaf], 100))).toBe(false);
  });

  it('drops on one window a probe that is neither coarse nor near the line', () => {
    const c = candidateSpace(target300k, ['sse'])[0];
    const r = measured(candidatePoint(c, 'full', { warmupSec: 1, measureSec: 2, repeats: 1 }), { round: -1, eps: c.offeredEventsPerSec * 0.7, p99: 30 });
    r.page = { ...r.page, batches: 250 };
    const f = figuresOf(c, [r], 100);
    expect(clearlyCannot(f, 100)).toBe(true);
    expect(worthAnotherProbe(f)).toBe(false);
  });
});

describe('windows long enough (issue 33)', () => {
  it('lengthens a slow tick window to 200 batches, up to 10 s', () => {
    // 50 ms on one connection: 20 batches/s, so 10 s; on 4: 5 s; a 1 ms tick keeps the base.
    expect([windowSecFor(20, 2), windowSecFor(80, 2), windowSecFor(1000, 2), windowSecFor(10, 5), windowSecFor(80, 5)]).toEqual([10, 3, 2, 10, 5]);
    expect(MIN_WINDOW_BATCHES).toBe(200);
  });
});

describe("advise: the machine's drift (issue 33)", () => {
  /** A measurer with a yardstick whose ceiling is given per moment (null: the reading fails); the readings' order among the measurements. */
  function withYardstick(ceilings: Partial<Record<YardstickMoment, number | null>>, budgetSec = 900, readingSec = 2) {
    const { options, log } = synthetic(WORLD, 7, { budgetSec, target: target300k, transports: ['sse', 'ws', 'fetch'], noise: QUIET });
    const events: string[] = [];
    const drifts: string[] = [];
    const probe = options.measurer.probe;
    const confirm = options.measurer.confirm;
    const run = advise({
      ...options,
      estimate: { ...options.estimate, yardstickSec: () => readingSec },
      measurer: {
        probe: async (c) => {
          events.push(`probe ${c.id}`);
          return probe(c);
        },
        confirm: async (cs, round) => {
          events.push('confirm');
          return confirm(cs, round);
        },
        yardstick: async (at) => {
          events.push(at);
          const eventsPerSec = ceilings[at] ?? null;
          const parseCeilings =
            eventsPerSec === null ? [] : [{ batch: 1000, encoding: 'json' as const, eventsPerSec, messages: 4000, bytesPerMessage: 121_000, durationMs: 1000 }];
          return { measuredAt: '2026-11-27T23:00:00.000Z', tookSec: readingSec, parseCeilings, ...(eventsPerSec === null ? { error: 'Target closed' } : {}) };
        },
      },
      onDrift: (_d, what) => drifts.push(what),
    });
    return { run, events, drifts, log };
  }

  it('reads the yardstick at the start, between the stages and at the end, and re-probes the anchor as the screen ends', async () => {
    const { run, events, drifts } = withYardstick({ start: 2_000_000, 'screen-confirm': 1_900_000, 'confirm-headroom': 1_500_000, end: 1_800_000 });
    const a = await run;
    expect(a.winner).not.toBeNull();
    const at = (e: string) => events.indexOf(e);
    const firstConfirm = at('confirm');
    const lastConfirmBeforeHeadroom = events.lastIndexOf('confirm', at('confirm-headroom'));
    expect(events[0]).toBe('start');
    expect(at('screen-confirm')).toBeLessThan(firstConfirm);
    expect(events.slice(0, at('screen-confirm')).every((e) => e === 'start' || e.startsWith('probe '))).toBe(true);
    expect(at('confirm-headroom')).toBeGreaterThan(lastConfirmBeforeHeadroom);
    expect(events.at(-1)).toBe('end');
    expect(a.drift!.readings.map((r) => [r.index, r.at])).toEqual([
      [0, 'start'],
      [1, 'screen-confirm'],
      [2, 'confirm-headroom'],
      [3, 'end'],
    ]);
    // The anchor: the first probed that kept up, probed again through the screen (issue 34) and
    // a last time just before the screen's reading; every reading is kept with its drift factor.
    const anchor = a.drift!.anchor!;
    const firstKept = a.tried.find((t) => t.repeats[0].repeat.status === 'ok' && t.repeats[0].repeat.deliveredRatio >= 0.99)!;
    expect(anchor.candidateId).toBe(firstKept.candidate.id);
    expect(events[at('screen-confirm') - 1]).toBe(`probe ${anchor.candidateId}`);
    const readings = anchor.readings!;
    expect(readings.length).toBeGreaterThanOrEqual(3);
    expect(events.filter((e) => e === `probe ${anchor.candidateId}`)).toHaveLength(readings.length);
    expect(readings[0].repeat).toBeNull();
    expect(readings[0].factor).toBeCloseTo(1, 9);
    expect(readings.at(-1)!.repeat).toEqual(anchor.repeat);
    for (let i = 1; i < readings.length; i++) expect(readings[i].atSec).toBeGreaterThan(readings[i - 1].atSec);
    // No more than one probe in seven is the anchor's.
    expect(readings.length - 1).toBeLessThanOrEqual(Math.ceil(events.filter((e) => e.startsWith('probe ')).length / 7));
    const [first, second] = [firstKept.repeats[0].repeat, anchor.repeat];
    if (first.status !== 'ok' || second.status !== 'ok') throw new Error('the synthetic measurer measures every window');
    expect(anchor.cpuPerEventRatio).toBeCloseTo(second.efficiency.rendererCpuMsPerMillionEvents! / first.efficiency.rendererCpuMsPerMillionEvents!, 9);
    // Its re-probe is not one of its own repeats: the candidate is judged by its screen as before.
    expect(firstKept.repeats.filter((r) => r.purpose === 'probe')).toHaveLength(1);
    expect(drifts).toEqual(['reading', 'anchor', 'reading', 'reading', 'reading']);
    // 2 M at the start, 1.5 M after the confirmation: the sweep's sentence, in the answer.
    const text = adviceText(a, { cores: 2, cpuModel: null, browser: null });
    expect(text.find((l) => l.includes('unsteady machine'))).toMatch(
      /^ {2}unsteady machine: the in-page JSON\.parse ceiling at batch 1000 \(no network, the same work every reading\) was 2 M events\/s at the start and 1\.5 M events\/s after the confirmation \(25% lower\)/,
    );
    jsonRoundTrips(a);
  });

  it('keeps a failed reading with its error and goes on; a steady yardstick says nothing', async () => {
    const { run } = withYardstick({ start: 2_000_000, 'screen-confirm': null, 'confirm-headroom': 1_900_000, end: 1_950_000 });
    const a = await run;
    expect(a.winner).not.toBeNull();
    expect(a.drift!.readings[1]).toMatchObject({ at: 'screen-confirm', parseCeilings: [], error: 'Target closed' });
    expect(a.drift!.readings).toHaveLength(4);
    expect(adviceText(a).some((l) => l.includes('unsteady machine'))).toBe(false);
  });

  it('keeps room in the budget for the readings still to come and the anchor', async () => {
    // Readings of 40 s each: a screen probe leaves room for three, the confirmation for two, the headroom for one.
    const { run, log, events } = withYardstick({ start: 2e6, 'screen-confirm': 2e6, 'confirm-headroom': 2e6, end: 2e6 }, 400, 40);
    const a = await run;
    expect(a.winner).not.toBeNull();
    expect(a.drift!.anchor).not.toBeNull();
    // Where each measurement is among the events, and the readings still to come there.
    const positions = events.flatMap((e, i) => (e.startsWith('probe ') || e === 'confirm' ? [i] : []));
    expect(positions).toHaveLength(log.length);
    const left = (i: number) => ['screen-confirm', 'confirm-headroom', 'end'].filter((m) => !events.slice(0, positions[i]).includes(m)).length;
    for (const [i, m] of log.entries()) expect(m.endSec + 40 * left(i), `measurement ${i}`).toBeLessThanOrEqual(400);
  });
});

describe('advise: the answer is a set (issue 34)', () => {
  /**
   * A measurer whose renderer CPU per event each candidate pays in each confirming round is given
   * (by transport and connections, ms per million events; a probe pays round 0's, the headroom
   * search's rounds 3, 4, 5 pay rounds 0, 1, 2's), with the p99
   * given the same way, and a page that takes everything up to `capacity` events/s.
   */
  function controlled(o: {
    transports: Transport[];
    cost: (c: Candidate, round: number) => number;
    p99?: (c: Candidate, round: number) => number;
    capacity?: (c: Candidate) => number;
    /** Every measurement after the confirmation fails its p99 (the headroom search measures the winner again). */
    failAfterConfirm?: boolean;
    finalists?: number;
    prefer?: AdviseOptions['prefer'];
    headroomFactor?: number;
    /** The server's largest batch (a --rows pool's: CandidateSpace.maxBatch); absent, LIMITS.batch.max. */
    maxBatch?: number;
  }) {
    let clock = 0;
    let confirmed = 0;
    const window = (c: Candidate, round: number) => {
      const capacity = o.capacity?.(c) ?? Number.POSITIVE_INFINITY;
      const eps = Math.min(c.offeredEventsPerSec, capacity);
      const late = (o.failAfterConfirm && confirmed >= 3) || eps < c.offeredEventsPerSec;
      const r = measured(candidatePoint(c, 'full', { warmupSec: 1, measureSec: 2, repeats: 1 }), {
        round,
        eps,
        tab: (o.cost(c, Math.max(0, round) % 3) * eps) / 1e7,
        p99: late ? 900 : (o.p99?.(c, Math.max(0, round) % 3) ?? 12),
      });
      return r;
    };
    return advise({
      target: target300k,
      transports: o.transports,
      space: { ticksMs: [10], connections: [1, 2], workers: [], origins: [1], encodings: ['json'], compression: false, maxBatch: o.maxBatch },
      budgetSec: 900,
      now: () => clock,
      estimate: { probeSec: () => 6, repeatSec: () => 9 },
      finalists: o.finalists ?? 4,
      confirmRounds: 3,
      maxConfirmRounds: 3,
      ...(o.prefer ? { prefer: o.prefer } : {}),
      ...(o.headroomFactor ? { headroomFactor: o.headroomFactor } : {}),
      measurer: {
        probe: async (c) => ((clock += 6), window(c, -1)),
        confirm: async (cs, round) => {
          clock += 9 * cs.length;
          const out = cs.map((c) => window(c, round));
          if (cs.length > 1) confirmed++;
          return out;
        },
      },
    });
  }
  const key = (c: Candidate) => `${c.transport}-c${c.concurrency}`;
  const line = (a: Advice, start: string) => adviceText(a).find((l) => l.startsWith(start));

  it('picks the simpler of two equivalent finalists, whichever median is lower, and lists the other as equivalent', async () => {
    // ws on 2 connections costs 1% less in every round, or 1% more: inside ±5% either way.
    for (const [what, c2] of [
      ['2 connections has the lower median', [990, 995, 1000]],
      ['1 connection has the lower median', [1010, 1005, 1000]],
    ] as const) {
      const a = await controlled({ transports: ['ws'], cost: (c, r) => (c.concurrency === 1 ? 1000 : c2[r]) });
      expect(a.winner!.candidate.concurrency, what).toBe(1);
      expect(a.equivalent, what).toHaveLength(1);
      const e = a.equivalent![0];
      expect([key(e.candidate), e.reading, e.lostOn, e.criterion], what).toEqual(['ws-c2', 'equivalent', 'simplicity', 'connections']);
      expect(e.cpuVsWinner).toMatchObject({ of: e.candidate.id, against: a.winner!.candidate.id, rounds: 3 });
      expect(e.p99VsWinner).toMatchObject({ ratio: 1, rounds: 3 });
      expect(a.prefer).toEqual(['connections', 'parsing', 'origins', 'encoding', 'compression']);
      // Nothing decided on a median, in the record or in the words.
      expect(a.tried.map((t) => t.lostOn)).not.toContain('median-cpu');
      const text = adviceText(a).join('\n');
      expect(text).not.toMatch(/median decided/);
      expect(line(a, '  Equally good within the margins ')).toMatch(
        /^ {2}Equally good within the margins \(renderer CPU per event against the winner, paired CI inside ±5%\): ws over HTTP\/1\.1, 1500 rows every 10 ms per connection on 2 connections, parsing on the main thread \(\d+% (less|more), CI .*; the winner is simpler: fewer connections \(1 connection against 2 connections\)\)\.$/,
      );
      expect(line(a, '  Chosen among them by ')).toBe(
        "  Chosen among them by the order of simplicity (fewer connections, the main thread before Workers, one origin before several, JSON before a binary encoding, no compression before a compressed stream; --prefer), then headroom, then the transports' order and the shorter tick; never by an unpaired median.",
      );
      expect(line(a, '  Cannot tell apart')).toBeUndefined();
      jsonRoundTrips(a);
    }
    // --prefer puts another criterion first: here none of the others tells them apart, so connections still decides.
    const a = await controlled({
      transports: ['ws'],
      cost: (c, r) => (c.concurrency === 1 ? 1000 : [990, 995, 1000][r]),
      prefer: ['encoding', 'connections', 'parsing', 'origins', 'compression'],
    });
    expect([a.winner!.candidate.concurrency, a.prefer]).toEqual([1, ['encoding', 'connections', 'parsing', 'origins', 'compression']]);
  });

  it("keeps 'cannot tell' apart from 'equivalent', and rejects a finalist whose CI says it is dearer, with its CI", async () => {
    const cost: Record<string, readonly number[]> = {
      'ws-c1': [1000, 1000, 1000],
      // Inside ±5%: equivalent.
      'ws-c2': [1010, 1005, 1000],
      // 1.00, 1.08, 0.98: the CI straddles the margin: cannot tell.
      'sse-c1': [1000, 1080, 980],
      // 7%, 10%, 13% more: the CI is wholly above 1 but reaches inside +5%: dearer, not a tie.
      'sse-c2': [1070, 1100, 1130],
    };
    const a = await controlled({ transports: ['ws', 'sse'], cost: (c, r) => cost[key(c)][r] });
    expect(key(a.winner!.candidate)).toBe('ws-c1');
    expect(a.equivalent!.map((e) => [key(e.candidate), e.reading, e.lostOn])).toEqual([
      // As simple as the winner on every criterion: the transports' order decided.
      ['sse-c1', 'cannot-tell', 'order'],
      ['ws-c2', 'equivalent', 'simplicity'],
    ]);
    const dearer = a.tried.find((t) => key(t.candidate) === 'sse-c2')!;
    expect(dearer.lostOn).toBe('cpu');
    expect(dearer.cpuVsWinner!.ciLow!).toBeGreaterThan(1);
    expect(dearer.cpuVsWinner!.ciLow!).toBeLessThan(1.05);
    // The sweep's reading calls it unclear; the advisor's calls it dearer.
    expect(dearer.cpuVsWinner!.kind).toBe('unclear');
    expect(a.equivalent!.map((e) => key(e.candidate))).not.toContain('sse-c2');
    expect(line(a, '  Equally good within the margins ')).toMatch(/: ws over HTTP\/1\.1, 1500 rows .* on 2 connections, .*\)\.$/);
    expect(line(a, '  Cannot tell apart ')).toMatch(
      /^ {2}Cannot tell apart \(the paired CI straddles the ±5% margin: neither shown equivalent nor shown dearer; more rounds could settle it\): sse over HTTP\/2, 3000 rows every 10 ms per connection on 1 connection, parsing on the main thread \(\d+% (more|less), CI \d+% less to \d+% more; as simple on every criterion, and headroom did not tell them apart \(headroom .*\): the order of last resort decided \(ws before sse in the transports' order \(ws, sse\)\)\)\.$/,
    );
    expect(line(a, '  Rejected: ')).toMatch(/sse-b1500-c2-i10 \(dearer: 10% more renderer CPU per event, CI \d–\d+%\)/);
    // The runner-up is the first of the set, with its own headroom.
    expect(key(a.runnerUp!.candidate)).toBe('sse-c1');
    expect(line(a, '  Runner-up: ')).toMatch(
      /, cannot tell renderer CPU per event apart at ±5% \(.*: the CI straddles the margin\); as simple on every criterion/,
    );
    jsonRoundTrips(a);
  });

  it('between two as simple, the one that clearly sustains more is the winner', async () => {
    // ws and sse cost the same; ws's page takes 400 k events/s, sse's 900 k.
    const a = await controlled({
      transports: ['ws', 'sse'],
      cost: (c) => (c.concurrency === 1 ? 1000 : 1500),
      capacity: (c) => (c.transport === 'ws' ? 400_000 : 900_000),
    });
    expect(key(a.winner!.candidate)).toBe('sse-c1');
    expect(key(a.runnerUp!.candidate)).toBe('ws-c1');
    const lost = a.equivalent!.find((e) => key(e.candidate) === 'ws-c1')!;
    expect(lost.lostOn).toBe('headroom');
    expect(a.headroom!.candidateId).toBe(a.winner!.candidate.id);
    expect(a.runnerUp!.headroom!.candidateId).toBe(a.runnerUp!.candidate.id);
    expect(a.runnerUp!.headroom!.limit).toBe('setup');
    expect(a.headroom!.eventsPerSec!).toBeGreaterThanOrEqual(a.runnerUp!.headroom!.firstPast!.eventsPerSec);
    expect(line(a, '  Equally good within the margins ')).toMatch(
      /; as simple; the winner clearly sustains more \(headroom [\d.]+ k events\/s against [\d.]+ k events\/s\)\)\.$/,
    );
  });

  it('names the server’s message limit when it capped the headroom, and measures the runner-up’s headroom too', async () => {
    // Everything takes any rate, and the search may go to 70× the batch: it stops at 100,000 rows, the most the server sends.
    const a = await controlled({ transports: ['ws'], cost: (c) => (c.concurrency === 1 ? 1000 : 1500), headroomFactor: 70 });
    const h = a.headroom!;
    expect([h.batch, h.limit, h.atLeast]).toEqual([LIMITS.batch.max, 'message-limit', true]);
    expect(line(a, '  Headroom: ')).toBe(
      '  Headroom: sustained 10 M events/s with the same tick and connections (100000 rows every 10 ms), the most rows per message the server sends (100,000): a cap of the lab, not of the setup, whose own limit lies above it, not measured.',
    );
    // The runner-up (dearer: 50% more) has its own headroom, capped the same way.
    const r = a.runnerUp!;
    expect(r.headroom).toMatchObject({ candidateId: r.candidate.id, batch: LIMITS.batch.max, limit: 'message-limit' });
    expect(line(a, "  Runner-up's headroom: ")).toMatch(
      /^ {2}Runner-up's headroom: sustained 20 M events\/s with the same tick and connections \(100000 rows every 10 ms\), the most rows per message the server sends/,
    );
    jsonRoundTrips(a);
  });

  it('a --rows pool’s smaller limit caps the search and is the one named; a report from before the limit was recorded reads 10,000', async () => {
    const a = await controlled({ transports: ['ws'], cost: (c) => (c.concurrency === 1 ? 1000 : 1500), maxBatch: 5000 });
    expect(a.headroom).toMatchObject({ batch: 5000, limit: 'message-limit', messageLimit: 5000, atLeast: true });
    expect(line(a, '  Headroom: ')).toContain('the most rows per message the server sends (5,000): a cap of the lab');
    // No candidate of the space asks for more than the pool serves.
    expect(candidateSpace(target300k, ['ws'], { ...DEFAULT_SPACE, maxBatch: 5000 }).every((c) => c.batch <= 5000)).toBe(true);
    // Written before the headroom's limit and message limit were: derived from its fields, against the limit then.
    const { limit: _limit, messageLimit: _messageLimit, ...old } = { ...a.headroom!, batch: 10_000, firstPast: null, stopped: null, atLeast: true };
    expect(headroomLimitOf(old)).toBe('message-limit');
    expect(headroomLimitOf({ ...old, batch: 8000 })).toBe('search-range');
  });

  it('at the default 8× the server’s message limit no longer caps a 3,000-row winner: the search range does, at 24,000 rows', async () => {
    const a = await controlled({ transports: ['ws'], cost: (c) => (c.concurrency === 1 ? 1000 : 1500) });
    const h = a.headroom!;
    expect(a.winner!.candidate.batch * DEFAULT_HEADROOM_FACTOR).toBeLessThan(LIMITS.batch.max);
    expect([h.batch, h.limit, h.atLeast]).toEqual([a.winner!.candidate.batch * DEFAULT_HEADROOM_FACTOR, 'search-range', true]);
  });

  it("never says 'keeps up' when the headroom search's own confirmation fails at the winner's batch", async () => {
    const a = await controlled({ transports: ['ws'], cost: (c) => (c.concurrency === 1 ? 1000 : 1500), failAfterConfirm: true });
    const h = a.headroom!;
    expect(a.winner!.figures.sustains.sustains).toBe(true);
    expect([h.batch, h.eventsPerSec, h.limit]).toEqual([null, null, 'not-held']);
    expect(h.firstPast!.batch).toBe(a.winner!.candidate.batch);
    const text = adviceText(a);
    expect(line(a, '  Headroom: ')).toMatch(
      /^ {2}Headroom: none shown: measured again in the headroom search, the same setup \(3000 rows every 10 ms\) did not sustain \(.*\); the confirmation above still holds/,
    );
    expect(text.join('\n')).not.toMatch(/keeps up|at least/);
    expect(a.runnerUp!.headroom).toMatchObject({ batch: null, limit: 'not-held' });
  });
});

describe('--prefer (issue 34)', () => {
  const check = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '300k', '--p99', '100ms', ...argv], 'npm run advise --'));
  it('puts the criteria named first, the others after in the default order, and refuses a criterion twice, an unknown one, or one with --resume', () => {
    expect(check().prefer).toEqual(['connections', 'parsing', 'origins', 'encoding', 'compression']);
    expect(check('--prefer', 'encoding').prefer).toEqual(['encoding', 'connections', 'parsing', 'origins', 'compression']);
    expect(check('--prefer', 'origins,parsing').prefer).toEqual(['origins', 'parsing', 'connections', 'encoding', 'compression']);
    expect(() => check('--prefer', 'encoding,encoding')).toThrow(
      "--prefer names each criterion at most once (connections, parsing, origins, encoding, compression, in the order they decide); got 'encoding,encoding', with encoding twice",
    );
    expect(() => check('--prefer', 'speed')).toThrow(
      /--prefer takes a comma-separated list of connections, parsing, origins, encoding, compression; got 'speed'/,
    );
    expect(() => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--resume', 'advise-20261128-160000', '--prefer', 'encoding'], 'x'))).toThrow(/drop --prefer/);
  });
});
