/**
 * The factor registry (protocol/factors.ts) must not move a point: every id, the expansion's
 * order and each point's fields are pinned to what the code made before the registry (main
 * 963ba91), on scenarios.json and on scenarios that vary every factor at once. The baseline in
 * fixtures/expansion-baseline.json was written by that code: ids in full (or every 97th and the
 * last, with a hash of them all), and a hash of the points as JSON, key order included.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandScenario, parseScenarioText, pointCount, pointId, type ScenarioFields, type ScenarioInput } from '../../protocol/scenario.js';
import { FACTORS } from '../../protocol/factors.js';
import { KNOBS } from '../../results/knobs.js';
import { pointLabel, varyingFactors } from '../../web/report/views.js';

interface Baseline {
  count: number;
  pointsSha256: string;
  ids: string[];
  idsSha256?: string;
}

const baseline = JSON.parse(readFileSync(new URL('../fixtures/expansion-baseline.json', import.meta.url), 'utf8')) as Record<string, Baseline>;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const VARIED: { s: ScenarioInput; d?: ScenarioFields }[] = [
  {
    s: {
      id: 'all',
      // The transports there were when the baseline was written (ws-stream came later: its
      // points are new, not moved).
      transport: ['ws', 'ws-h2', 'sse', 'sse-h1', 'fetch', 'grpc-web', 'poll'],
      batch: [1, 400],
      concurrency: [1, 10],
      intervalMs: [1, 0.5],
      render: ['full', 'none'],
      parse: ['main', 'worker'],
      workers: [1, 2],
      pollMs: [10, 25],
      origins: [1, 2],
      encoding: ['json', 'msgpack', 'arrow'],
      devtools: ['off', 'network'],
      tabs: [1, 2],
      compression: ['off', 'deflate', 'gzip'],
    },
  },
  { s: { id: 'disp', transport: 'sse', batch: 10, concurrency: 2, display: ['headless', 'headful'], engine: ['chrome', 'firefox'] } },
  { s: { id: 'ff', transport: ['ws', 'fetch'], batch: 100, concurrency: 1, engine: 'firefox', compression: ['gzip', 'deflate'], encoding: 'msgpack' } },
  { s: { id: 'poll', transport: 'poll', concurrency: 3, pollMs: [1, 2.5] }, d: { batch: [5, 6], render: 'chart', workers: 3, parse: 'worker' } },
  { s: { id: 'only-workers', parse: 'worker', workers: [1, 4], batch: 50, concurrency: 4, tabs: 3, origins: 4 } },
];

function expectAsBefore(key: string, s: ScenarioInput, d?: ScenarioFields): void {
  const want = baseline[key];
  const points = expandScenario(s, d);
  expect(points.length, key).toBe(want.count);
  expect(pointCount(s, d), key).toBe(want.count);
  const ids = points.map((p) => p.id);
  if (want.idsSha256 === undefined) expect(ids, key).toEqual(want.ids);
  else {
    expect(
      ids.filter((_, i) => i % 97 === 0 || i === ids.length - 1),
      key,
    ).toEqual(want.ids);
    expect(sha(ids.join('\n')), key).toBe(want.idsSha256);
  }
  expect(sha(JSON.stringify(points)), `${key}: the points as JSON, key order included`).toBe(want.pointsSha256);
}

describe('point expansion as before the factor registry', () => {
  const file = parseScenarioText(readFileSync(new URL('../../scenarios.json', import.meta.url), 'utf8'), 'scenarios.json');
  it.each(file.scenarios.map((s) => [s.id, s] as const))('scenarios.json %s', (id, s) => expectAsBefore(`scenarios.json:${id}`, s, file.defaults));
  it.each(VARIED.map((v) => [v.s.id, v] as const))('varied %s', (id, { s, d }) => expectAsBefore(`varied:${id}`, s, d));
});

describe('pointId', () => {
  it('gives the ids it gave before the registry', () => {
    const base = { scenario: 's', transport: 'ws', batch: 400, concurrency: 10, intervalMs: 1, render: 'full', parse: 'main', workers: 0 } as const;
    expect(pointId(base)).toBe('s/ws-b400-c10-i1-full');
    expect(pointId({ ...base, parse: 'worker', workers: 2, intervalMs: 0.5, render: 'none' })).toBe('s/ws-b400-c10-i0.5-none-w2');
    expect(pointId({ ...base, transport: 'poll', pollMs: 25 })).toBe('s/poll-b400-c10-i1-full-p25');
    expect(pointId({ ...base, transport: 'sse', origins: 2, encoding: 'msgpack', devtools: 'network', tabs: 3 })).toBe('s/sse-b400-c10-i1-full-o2-mp-dt-t3');
    expect(pointId({ ...base, transport: 'fetch', encoding: 'arrow', display: 'headful', compression: 'gzip', engine: 'firefox' })).toBe(
      's/fetch-b400-c10-i1-full-ar-hf-gzip-ff',
    );
    expect(pointId({ ...base, display: 'headless', engine: 'chrome', compression: 'deflate' })).toBe('s/ws-b400-c10-i1-full-deflate');
    expect(
      pointId({
        ...base,
        parse: 'worker',
        workers: 1,
        transport: 'poll',
        pollMs: 2.5,
        origins: 4,
        encoding: 'msgpack',
        devtools: 'network',
        tabs: 2,
        display: 'headful',
        compression: 'gzip',
        engine: 'firefox',
      }),
    ).toBe('s/poll-b400-c10-i1-full-w1-p2.5-o4-mp-dt-t2-hf-gzip-ff');
  });
});

describe('one vocabulary', () => {
  it('the knobs and the viewer say a setting in its factor words', () => {
    const [off, gzip] = expandScenario({ id: 's', transport: 'sse', batch: 10, concurrency: 1, compression: ['off', 'gzip'] });
    const knob = KNOBS.find((k) => k.name === 'compression')!;
    expect([knob.label(off), knob.label(gzip)]).toEqual(['no compression', 'gzip compression']);
    expect([off, gzip].map((p) => pointLabel(p, varyingFactors([off, gzip])))).toEqual(['sse · no compression', 'sse · gzip compression']);
    expect(FACTORS.compression.words(gzip)).toBe('gzip compression');
  });
});
