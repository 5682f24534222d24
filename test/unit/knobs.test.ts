/** What each knob bought: points one setting apart, paired by round, named by their settings. */
import { describe, expect, it } from 'vitest';
import type { BrowserHost } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { knobBetween, knobComparisons } from '../../results/knobs.js';
import { knobLines } from '../../results/views/terminal.js';
import { measured, point, result } from '../helpers/v2-fixture.js';

const base = point('sse', 400, 10, 'fastest');
const variant = (id: string, o: Partial<Point>): Point => ({ ...base, id: `fastest/${id}`, ...o });
const workers = variant('w2', { parse: 'worker', workers: 2 });
const origins = variant('w2-o2', { parse: 'worker', workers: 2, origins: 2 });
const larger = variant('b4000-i10', { batch: 4000, intervalMs: 10 });
const byRound = (p: Point, eps: number[], tab = [100, 100, 100]) =>
  result(
    p,
    eps.map((e, round) => measured(p, { round, eps: e, tab: tab[round] })),
  );

describe('knobBetween', () => {
  it('finds the one setting two points differ in, at the same transport and load', () => {
    expect(knobBetween(base, workers)?.name).toBe('parsing');
    expect(knobBetween(workers, origins)?.name).toBe('origins');
    // Batch and interval together at one offered rate: the message size.
    expect(knobBetween(base, larger)?.name).toBe('message size');
    expect(knobBetween(base, variant('mp', { encoding: 'msgpack' }))?.name).toBe('encoding');
    expect(knobBetween(base, variant('dt', { devtools: 'network' }))?.name).toBe('DevTools');
    expect(knobBetween(base, variant('none', { render: 'none' }))?.name).toBe('render');
    expect(knobBetween(variant('hl', { display: 'headless' }), variant('hf', { display: 'headful' }))?.name).toBe('display');
    expect(knobBetween(base, variant('gz', { compression: 'gzip' }))?.name).toBe('compression');
  });

  it('compares nothing that differs in two settings, in transport, or in the load', () => {
    expect(knobBetween(base, origins)).toBeNull();
    expect(knobBetween(base, { ...workers, transport: 'ws' })).toBeNull();
    expect(knobBetween(base, point('sse', 200, 10, 'fastest'))).toBeNull();
    expect(knobBetween(base, point('sse', 400, 20, 'fastest'))).toBeNull();
    expect(knobBetween(base, { ...base, id: 'other/x' })).toBeNull();
    // More tabs is more load, not a knob: never compared, even at one offered rate.
    expect(knobBetween(base, { ...base, id: 'fastest/t2', tabs: 2 })).toBeNull();
  });
});

describe('knobComparisons', () => {
  it('puts the baseline first whatever the order, and says what the knob bought with its CI', () => {
    const main = byRound(base, [2.0e6, 2.1e6, 2.2e6]);
    const two = byRound(workers, [2.4e6, 2.52e6, 2.64e6], [120, 120, 120]);
    const [eps, cpu] = knobComparisons([two, main]);
    expect(eps).toMatchObject({ a: base.id, b: workers.id, knob: 'parsing', from: 'main thread', to: '2 Workers', metric: 'eventsPerSec', better: 'b' });
    expect(eps.ratios).toEqual([1.2, 1.2, 1.2]);
    expect(eps.text).toBe('2 Workers faster than main thread by 20% (CI 20–20%), 3 rounds');
    expect(eps.context).toBe('sse 400 × 10 every 1 ms');
    // 120% of a core for 1.2× the events: the same CPU per event.
    expect(cpu).toMatchObject({ metric: 'rendererCpuMsPerMillionEvents', better: 'none' });
  });

  it('names the settings both points share in each line', () => {
    const knobs = knobComparisons([byRound(workers, [2e6, 2.1e6, 2.2e6]), byRound(origins, [2.2e6, 2.3e6, 2.5e6])]);
    const [line] = knobLines({ knobs });
    expect(line).toMatch(/^origins, sse 400 × 10 every 1 ms, 2 Workers: 2 origins faster than 1 origin by \d+% \(CI [\d.]+–[\d.]+%\), 3 rounds; /);
  });

  it('finds no pair among points that are transports apart, as in the matrix', () => {
    expect(knobComparisons([byRound(base, [1e6, 1e6, 1e6]), byRound({ ...base, id: 'fastest/ws', transport: 'ws' }, [1e6, 1e6, 1e6])])).toEqual([]);
  });

  it('pairs only rounds measured on the same kind of host (a sharded sweep)', () => {
    const on = (r: ReturnType<typeof byRound>, ids: string[]) => ({ ...r, repeats: r.repeats.map((x, i) => ({ ...x, browserId: ids[i] })) });
    const main = on(byRound(base, [2.0e6, 2.1e6, 2.2e6]), ['desk', 'arm', 'desk2']);
    const two = on(byRound(workers, [2.4e6, 2.52e6, 2.64e6]), ['desk', 'desk', 'desk']);
    const kind = (id: string, k: string) => ({ id, kind: k }) as unknown as BrowserHost;
    // desk and desk2 are two machines of one kind; arm is another kind: round 1 is not paired.
    const hosts = [kind('desk', 'x86 · 8 cores'), kind('desk2', 'x86 · 8 cores'), kind('arm', 'arm · 8 cores')];
    const [eps] = knobComparisons([main, two], hosts);
    expect(eps.rounds).toEqual([0, 2]);
    // Without the hosts, each browser is its own kind: only round 0 (desk on both sides) pairs.
    expect(knobComparisons([main, two])[0].rounds).toEqual([0]);
  });
});
