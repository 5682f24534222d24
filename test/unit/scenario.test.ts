import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import {
  BUILTIN_DEFAULTS,
  type ScenarioFile,
  checkPointCount,
  expandScenario,
  parseScenarioFile,
  pointCount,
  scenarioMargins,
  searchesFor,
  searchPoint,
  selectPoints,
} from '../../protocol/scenario.js';
import { TRANSPORTS, type Compression, type DevtoolsMode, type DisplayMode, type Transport } from '../../protocol/wire.js';

/** Expects `parseScenarioFile(data)` to throw PUSHLAB_BAD_SCENARIO with exactly this message. */
function rejects(data: unknown, message: string): void {
  let error: unknown;
  try {
    parseScenarioFile(data);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PushlabError);
  expect((error as PushlabError).code).toBe('PUSHLAB_BAD_SCENARIO');
  expect((error as PushlabError).message).toBe(message);
}

const one = { id: 'a', batch: 1, concurrency: 1 };

describe('parseScenarioFile', () => {
  it('accepts a minimal and a full file, returning it unchanged', () => {
    const minimal = { scenarios: [one] };
    expect(parseScenarioFile(minimal)).toEqual(minimal);
    const full: ScenarioFile = {
      $schema: './protocol/scenarios.schema.json',
      default: ['b'],
      defaults: { concurrency: [1, 4], warmupSec: 0, measureSec: 0.5 },
      scenarios: [
        { id: 'a', description: 'one', batch: 10, transport: 'ws', render: ['full', 'none'] },
        { id: 'b', batch: [1, 10_000], intervalMs: [0.05, 60_000], concurrency: 500, transport: ['ws', 'sse'] },
      ],
    };
    expect(parseScenarioFile(full)).toEqual(full);
  });

  it('names the path, the rule and the value of an out-of-range array element', () => {
    rejects({ scenarios: [{ id: 'a', batch: [1, 0], concurrency: 1 }] }, 'scenarios.json: scenarios[0].batch[1] must be ≥ 1, got 0');
    rejects({ scenarios: [one, { id: 'b', batch: 1, concurrency: [2, 501] }] }, 'scenarios.json: scenarios[1].concurrency[1] must be ≤ 500, got 501');
  });

  it('names scalar range errors, in scenarios and in defaults', () => {
    rejects({ scenarios: [{ ...one, concurrency: 0 }] }, 'scenarios.json: scenarios[0].concurrency must be ≥ 1, got 0');
    rejects({ scenarios: [{ ...one, intervalMs: 0.01 }] }, 'scenarios.json: scenarios[0].intervalMs must be ≥ 0.05, got 0.01');
    rejects({ scenarios: [{ ...one, measureSec: 0.1 }] }, 'scenarios.json: scenarios[0].measureSec must be ≥ 0.5, got 0.1');
    rejects({ defaults: { batch: 0 }, scenarios: [one] }, 'scenarios.json: defaults.batch must be ≥ 1, got 0');
  });

  it('lists the allowed values of an unknown transport or render mode', () => {
    rejects({ scenarios: [{ ...one, transport: 'wss' }] }, `scenarios.json: scenarios[0].transport must be one of ${TRANSPORTS.join(', ')}, got "wss"`);
    rejects(
      { scenarios: [{ ...one, transport: ['ws', 'wss'] }] },
      `scenarios.json: scenarios[0].transport[1] must be one of ${TRANSPORTS.join(', ')}, got "wss"`,
    );
    rejects({ scenarios: [{ ...one, render: 'fancy' }] }, 'scenarios.json: scenarios[0].render must be one of full, chart, none, got "fancy"');
  });

  it('refuses bad tabs, display and compression values, naming the field, the value and what is allowed', () => {
    rejects({ scenarios: [{ ...one, tabs: 0 }] }, 'scenarios.json: scenarios[0].tabs must be ≥ 1, got 0');
    rejects({ scenarios: [{ ...one, tabs: [1, 5] }] }, 'scenarios.json: scenarios[0].tabs[1] must be ≤ 4, got 5');
    rejects({ scenarios: [{ ...one, tabs: 1.5 }] }, 'scenarios.json: scenarios[0].tabs must be an integer, got 1.5');
    rejects({ scenarios: [{ ...one, display: 'window' }] }, 'scenarios.json: scenarios[0].display must be one of headless, headful, got "window"');
    rejects(
      { scenarios: [{ ...one, compression: ['off', 'brotli'] }] },
      'scenarios.json: scenarios[0].compression[1] must be one of off, deflate, gzip, got "brotli"',
    );
    rejects(
      { scenarios: [{ ...one, compression: ['gzip', 'gzip'] }] },
      'scenarios.json: scenarios[0].compression must list each value once, got ["gzip","gzip"]',
    );
  });

  it('rejects unknown fields, in a scenario and at the top level', () => {
    rejects(
      { scenarios: [{ ...one, bogus: 2 }] },
      "scenarios.json: scenarios[0] has unknown field 'bogus'; allowed fields are in protocol/scenarios.schema.json",
    );
    rejects({ scenarios: [one], extra: 1 }, "scenarios.json: (top level) has unknown field 'extra'; allowed fields are in protocol/scenarios.schema.json");
  });

  it('rejects missing or malformed ids and a missing scenario list', () => {
    rejects({ scenarios: [{ batch: 1, concurrency: 1 }] }, "scenarios.json: scenarios[0] is missing required field 'id'");
    rejects({ scenarios: [{ ...one, id: 'A b' }] }, 'scenarios.json: scenarios[0].id must be lower-case letters, digits and dashes, got "A b"');
    rejects({}, "scenarios.json: (top level) is missing required field 'scenarios'");
    rejects(null, 'scenarios.json: (top level) must be an object, got null');
  });

  it('reports the rule of the branch that matches what was given: array rules for arrays', () => {
    rejects({ scenarios: [{ ...one, transport: ['ws', 'ws'] }] }, 'scenarios.json: scenarios[0].transport must list each value once, got ["ws","ws"]');
    rejects({ scenarios: [{ ...one, batch: [] }] }, 'scenarios.json: scenarios[0].batch must have at least 1 item, got []');
    rejects({ scenarios: [{ ...one, batch: 'many' }] }, 'scenarios.json: scenarios[0].batch must be an integer, got "many"');
  });

  it('rejects a duplicate id', () => {
    rejects({ scenarios: [one, { ...one, batch: 2 }] }, "scenarios.json: scenarios[1].id 'a' is used twice");
  });

  it('rejects a default naming a missing scenario, listing the known ones', () => {
    rejects(
      { default: ['nope'], scenarios: [one, { ...one, id: 'b' }] },
      "scenarios.json: default names 'nope', which is neither a scenario nor a group; known: a, b",
    );
  });

  it('checks groups: members must exist, and a group may not shadow a scenario', () => {
    rejects({ groups: { g: ['a', 'x'] }, scenarios: [one] }, "scenarios.json: groups.g names scenario 'x', which does not exist; known: a");
    rejects({ groups: { a: ['a'] }, scenarios: [one] }, 'scenarios.json: groups.a has the id of a scenario; give the group another name');
    const ok = { default: ['g'], groups: { g: ['a'] }, scenarios: [one] };
    expect(parseScenarioFile(ok)).toEqual(ok);
  });

  it("checks findMax: a range within the factor's limits, and one value of every other factor", () => {
    rejects(
      { scenarios: [{ ...one, findMax: { vary: 'batch', min: 50, max: 10 } }] },
      'scenarios.json: scenarios[0].findMax.min must be ≤ max, got min 50 and max 10',
    );
    rejects(
      { scenarios: [{ ...one, findMax: { vary: 'concurrency', min: 1, max: 600 } }] },
      "scenarios.json: scenarios[0].findMax.max must be ≤ 500 for vary 'concurrency', got 600",
    );
    rejects(
      { scenarios: [{ id: 'a', concurrency: [1, 2], findMax: { vary: 'batch', min: 1, max: 10 } }] },
      'scenarios.json: scenarios[0].findMax searches batch, so concurrency must be one value, got [1,2]',
    );
    rejects(
      { scenarios: [{ ...one, findMax: { vary: 'rate', min: 1, max: 2 } }] },
      'scenarios.json: scenarios[0].findMax.vary must be one of batch, concurrency, got "rate"',
    );
    // A search along batch needs no batch: the scenario then has no fixed points.
    const search = { scenarios: [{ id: 's', concurrency: 10, transport: 'sse' as const, findMax: { vary: 'batch' as const, min: 10, max: 1000 } }] };
    expect(selectPoints(parseScenarioFile(search))).toEqual([]);
  });

  it('rejects repeats out of range', () => {
    rejects({ scenarios: [{ ...one, repeats: 0 }] }, 'scenarios.json: scenarios[0].repeats must be ≥ 1, got 0');
  });

  it('rejects a scenario with no batch or concurrency unless defaults supply it', () => {
    rejects({ scenarios: [{ id: 'a', concurrency: 1 }] }, "scenarios.json: scenarios[0] ('a') sets no batch, and defaults has none");
    rejects({ scenarios: [{ id: 'a', batch: 1 }] }, "scenarios.json: scenarios[0] ('a') sets no concurrency, and defaults has none");
    const withDefaults = { defaults: { batch: 5, concurrency: 2 }, scenarios: [{ id: 'a' }] };
    expect(parseScenarioFile(withDefaults)).toEqual(withDefaults);
  });

  it("takes the run's margin in defaults (the --margin form), refuses a bad one naming the field, and not in a scenario", () => {
    const file = { defaults: { margin: 'eps=2%,cpu=8%' }, scenarios: [one] };
    expect(parseScenarioFile(file)).toEqual(file);
    expect(scenarioMargins(file)).toEqual({ eventsPerSec: 0.02, cpuPerEvent: 0.08 });
    expect(scenarioMargins({ scenarios: [one] })).toEqual({ eventsPerSec: 0.03, cpuPerEvent: 0.05 });
    // The margin is the run's, so it does not leak into a point.
    expect(Object.keys(expandScenario(one, file.defaults as ScenarioFile['defaults'])[0])).not.toContain('margin');
    expect(() => parseScenarioFile({ defaults: { margin: 'cpu=80%' }, scenarios: [one] })).toThrow(
      "scenarios.json: defaults.margin cpu must be from 0 to 50%; it takes eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to 50, e.g. eps=3%,cpu=5%; got 'cpu=80%'",
    );
    expect(() => parseScenarioFile({ scenarios: [{ ...one, margin: 'eps=3%' }] })).toThrow(/scenarios\[0\] has unknown field 'margin'/);
  });

  it('refuses an Arrow batch the server would refuse (below 16 rows), with the file, before anything starts', () => {
    rejects(
      { scenarios: [{ id: 'a', transport: ['ws', 'sse'], encoding: ['json', 'arrow'], batch: [400, 5], concurrency: 1 }] },
      "scenarios.json: scenarios[0] ('a'): batch must be an integer from 16 to 100000 with encoding=arrow (smaller batches are mostly Arrow metadata); any batch from 1 with json or msgpack; got '5'",
    );
    // The defaults count too, and 16 itself is served.
    rejects(
      { defaults: { encoding: 'arrow' }, scenarios: [{ id: 'b', transport: 'fetch', batch: 15, concurrency: 1 }] },
      "scenarios.json: scenarios[0] ('b'): batch must be an integer from 16 to 100000 with encoding=arrow (smaller batches are mostly Arrow metadata); any batch from 1 with json or msgpack; got '15'",
    );
    expect(() => parseScenarioFile({ scenarios: [{ id: 'c', transport: 'ws', encoding: 'arrow', batch: 16, concurrency: 1 }] })).not.toThrow();
    // Where no listed transport carries Arrow, the point is JSON (encodingsFor), and any batch goes.
    expect(() => parseScenarioFile({ scenarios: [{ id: 'd', transport: 'sse', encoding: 'arrow', batch: 1, concurrency: 1 }] })).not.toThrow();
  });

  it('names the source in every message', () => {
    expect(() => parseScenarioFile({ scenarios: [{ id: 'a', concurrency: 1 }] }, 'bench/x.json')).toThrow(
      "bench/x.json: scenarios[0] ('a') sets no batch, and defaults has none",
    );
  });
});

describe('expandScenario', () => {
  it('fills in the built-in defaults', () => {
    expect(expandScenario({ id: 'one', batch: 100, concurrency: 1, transport: 'ws' })).toEqual([
      {
        id: 'one/ws-b100-c1-i1-full',
        scenario: 'one',
        transport: 'ws',
        batch: 100,
        concurrency: 1,
        intervalMs: 1,
        render: 'full',
        parse: 'main',
        workers: 0,
        warmupSec: BUILTIN_DEFAULTS.warmupSec,
        measureSec: BUILTIN_DEFAULTS.measureSec,
        repeats: 3,
        offeredEventsPerSec: 100_000,
      },
    ]);
    expect(BUILTIN_DEFAULTS.warmupSec).toBe(2);
    expect(BUILTIN_DEFAULTS.parse).toBe('main');
    expect(BUILTIN_DEFAULTS.measureSec).toBe(5);
  });

  it('expands to the cross product, batch varying fastest and transport slowest', () => {
    const points = expandScenario({
      id: 'grid',
      transport: ['ws', 'sse'],
      render: ['full', 'none'],
      intervalMs: [1, 2],
      concurrency: [1, 3],
      batch: [10, 20, 30],
    });
    expect(points).toHaveLength(2 * 2 * 2 * 2 * 3);
    expect(new Set(points.map((p) => p.id)).size).toBe(points.length);
    expect(points.slice(0, 4).map((p) => p.id)).toEqual([
      'grid/ws-b10-c1-i1-full',
      'grid/ws-b20-c1-i1-full',
      'grid/ws-b30-c1-i1-full',
      'grid/ws-b10-c3-i1-full',
    ]);
    expect(points.at(-1)?.id).toBe('grid/sse-b30-c3-i2-none');
    expect(points.filter((p) => p.transport === 'sse')).toHaveLength(24);
  });

  it('multiplies worker counts only into parse mode worker, and names those points by them', () => {
    const points = expandScenario({ id: 'p', batch: 400, concurrency: 10, transport: 'sse', parse: ['main', 'worker'], workers: [1, 2] });
    expect(points.map((p) => [p.id, p.parse, p.workers])).toEqual([
      ['p/sse-b400-c10-i1-full', 'main', 0],
      ['p/sse-b400-c10-i1-full-w1', 'worker', 1],
      ['p/sse-b400-c10-i1-full-w2', 'worker', 2],
    ]);
  });

  it('multiplies pollMs into poll points only, origins into main-origin transports only, and devtools into all; counts match', () => {
    const s = {
      id: 's',
      batch: 20,
      concurrency: 4,
      transport: ['poll', 'sse-h1', 'ws-h2', 'fetch'] as Transport[],
      pollMs: [20, 50],
      origins: [1, 2],
      devtools: ['off', 'network'] as DevtoolsMode[],
    };
    const points = expandScenario(s);
    expect(points.map((p) => p.id)).toEqual([
      's/poll-b20-c4-i1-full-p20',
      's/poll-b20-c4-i1-full-p20-dt',
      's/poll-b20-c4-i1-full-p20-o2',
      's/poll-b20-c4-i1-full-p20-o2-dt',
      's/poll-b20-c4-i1-full-p50',
      's/poll-b20-c4-i1-full-p50-dt',
      's/poll-b20-c4-i1-full-p50-o2',
      's/poll-b20-c4-i1-full-p50-o2-dt',
      's/sse-h1-b20-c4-i1-full',
      's/sse-h1-b20-c4-i1-full-dt',
      's/ws-h2-b20-c4-i1-full',
      's/ws-h2-b20-c4-i1-full-dt',
      's/fetch-b20-c4-i1-full',
      's/fetch-b20-c4-i1-full-dt',
      's/fetch-b20-c4-i1-full-o2',
      's/fetch-b20-c4-i1-full-o2-dt',
    ]);
    expect(pointCount(s)).toBe(points.length);
    // Defaults stay out of the point, so ids and older reports read as before.
    expect(points[0]).not.toHaveProperty('origins');
    expect(points[0]).not.toHaveProperty('devtools');
    expect(points[8]).not.toHaveProperty('pollMs');
  });

  it('multiplies tabs and display into every transport and compression into the transports that carry it; counts match', () => {
    const s = {
      id: 'f',
      batch: 20,
      concurrency: 4,
      transport: ['ws', 'sse', 'poll'] as Transport[],
      tabs: [1, 2],
      display: ['headless', 'headful'] as DisplayMode[],
      compression: ['off', 'deflate', 'gzip'] as Compression[],
    };
    const points = expandScenario(s);
    const ids = points.map((p) => p.id);
    // ws carries deflate only, sse gzip only, poll neither: 2 + 2 + 1 compressions, × 2 tabs × 2 displays.
    expect(points).toHaveLength((2 + 2 + 1) * 2 * 2);
    expect(pointCount(s)).toBe(points.length);
    expect(new Set(ids).size).toBe(points.length);
    expect(ids.filter((id) => id.startsWith('f/ws-'))).toEqual([
      'f/ws-b20-c4-i1-full',
      'f/ws-b20-c4-i1-full-deflate',
      'f/ws-b20-c4-i1-full-hf',
      'f/ws-b20-c4-i1-full-hf-deflate',
      'f/ws-b20-c4-i1-full-t2',
      'f/ws-b20-c4-i1-full-t2-deflate',
      'f/ws-b20-c4-i1-full-t2-hf',
      'f/ws-b20-c4-i1-full-t2-hf-deflate',
    ]);
    expect(ids.filter((id) => id.startsWith('f/sse-') && id.endsWith('-gzip'))).toHaveLength(4);
    expect(ids.filter((id) => id.startsWith('f/poll-'))).toEqual([
      'f/poll-b20-c4-i1-full-p50',
      'f/poll-b20-c4-i1-full-p50-hf',
      'f/poll-b20-c4-i1-full-p50-t2',
      'f/poll-b20-c4-i1-full-p50-t2-hf',
    ]);
    const [plain, deflate] = points;
    // A named display stays on the point (its repeats record the browser); defaults stay out.
    expect(plain).toMatchObject({ display: 'headless' });
    expect(plain).not.toHaveProperty('tabs');
    expect(plain).not.toHaveProperty('compression');
    expect(deflate.compression).toBe('deflate');
    // A scenario that names no display leaves it out: the point runs in the sweep's browser.
    expect(expandScenario({ id: 'n', batch: 1, concurrency: 1, transport: 'ws' })[0]).not.toHaveProperty('display');
  });

  it('offers tabs × batch × concurrency × 1000 / intervalMs with several tabs', () => {
    const [one, three] = expandScenario({ id: 't', transport: 'sse', batch: 100, concurrency: 10, tabs: [1, 3] });
    expect(one.offeredEventsPerSec).toBe(1_000_000);
    expect(three.id).toBe('t/sse-b100-c10-i1-full-t3');
    expect(three.offeredEventsPerSec).toBe(3_000_000);
  });

  it('leaves a transport uncompressed when the list names no kind it carries', () => {
    const points = expandScenario({ id: 'c', transport: ['ws', 'fetch', 'grpc-web'], batch: 20, concurrency: 4, compression: 'gzip' });
    expect(points.map((p) => p.id)).toEqual(['c/ws-b20-c4-i1-full', 'c/fetch-b20-c4-i1-full-gzip', 'c/grpc-web-b20-c4-i1-full']);
  });

  it('computes offered events/s as batch × concurrency × 1000 / intervalMs', () => {
    const [p] = expandScenario({ id: 's', transport: 'sse', batch: 50, concurrency: 4, intervalMs: 0.5 });
    expect(p.id).toBe('s/sse-b50-c4-i0.5-full');
    expect(p.offeredEventsPerSec).toBe(400_000);
  });

  it('lets the scenario override the file defaults, which override the built-ins', () => {
    const points = expandScenario({ id: 's', batch: 1, warmupSec: 1 }, { concurrency: 2, transport: 'sse', warmupSec: 9, measureSec: 3, render: 'chart' });
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ transport: 'sse', concurrency: 2, warmupSec: 1, measureSec: 3, render: 'chart' });
  });

  it('refuses a scenario that has no batch or concurrency anywhere', () => {
    expect(() => expandScenario({ id: 'x', batch: 1 })).toThrow(PushlabError);
    expect(() => expandScenario({ id: 'x', batch: 1 })).toThrow("scenario 'x' needs batch and concurrency");
  });
});

describe('selectPoints', () => {
  const file = parseScenarioFile({
    default: ['b'],
    defaults: { concurrency: 1, transport: 'ws' },
    scenarios: [
      { id: 'a', batch: [1, 2] },
      { id: 'b', batch: 3 },
      { id: 'c', batch: 4, transport: ['ws', 'sse'] },
    ],
  });

  it('uses the file default when no ids are given', () => {
    expect(selectPoints(file).map((p) => p.id)).toEqual(['b/ws-b3-c1-i1-full']);
    expect(selectPoints(file, []).map((p) => p.id)).toEqual(['b/ws-b3-c1-i1-full']);
  });

  it('runs every scenario, in file order, when the file has no default', () => {
    const all = selectPoints({ ...file, default: undefined });
    expect(all.map((p) => p.scenario)).toEqual(['a', 'a', 'b', 'c', 'c']);
  });

  it('expands the named scenarios in the order given', () => {
    expect(selectPoints(file, ['c', 'a']).map((p) => p.id)).toEqual(['c/ws-b4-c1-i1-full', 'c/sse-b4-c1-i1-full', 'a/ws-b1-c1-i1-full', 'a/ws-b2-c1-i1-full']);
  });

  it('rejects an unknown id, listing the known ones', () => {
    expect(() => selectPoints(file, ['zzz'])).toThrow("--scenario names 'zzz', which is neither a scenario nor a group in the scenario file; known: a, b, c");
  });

  it('expands a group to its members, each scenario once', () => {
    const grouped: ScenarioFile = { ...file, groups: { both: ['c', 'a'] } };
    expect(selectPoints(grouped, ['both', 'a']).map((p) => p.scenario)).toEqual(['c', 'c', 'a', 'a']);
  });
});

describe('searchesFor', () => {
  const f: ScenarioFile = {
    scenarios: [
      { id: 'knee', transport: ['ws', 'sse'], concurrency: 10, findMax: { vary: 'batch', min: 10, max: 1000 } },
      { id: 'plain', transport: 'sse', batch: [50, 100], concurrency: 4 },
    ],
  };

  it("runs a scenario's own search for each transport, and with --find-max a default one for the others", () => {
    const own = searchesFor(f, f.scenarios, false);
    expect(own.map((s) => [s.scenario, s.transport, s.vary, s.min, s.max, s.p99BoundMs])).toEqual([
      ['knee', 'ws', 'batch', 10, 1000, 50],
      ['knee', 'sse', 'batch', 10, 1000, 50],
    ]);
    const all = searchesFor(f, f.scenarios, true);
    expect(all.at(-1)).toMatchObject({ scenario: 'plain', transport: 'sse', vary: 'batch', min: 1, max: 1000 });
  });

  it('names a probe point by its value, with its offered rate', () => {
    const [ws] = searchesFor(f, f.scenarios, false);
    expect(searchPoint(ws, 317)).toMatchObject({ id: 'knee/ws-b317-c10-i1-full', batch: 317, concurrency: 10, offeredEventsPerSec: 3_170_000 });
  });
});

const scenariosJson = new URL('../../scenarios.json', import.meta.url);

describe('the real scenarios.json', () => {
  const load = (): ScenarioFile => parseScenarioFile(JSON.parse(readFileSync(scenariosJson, 'utf8')) as unknown);

  it('validates, and its default selection expands to uniquely named points', () => {
    const points = selectPoints(load());
    expect(points.length).toBeGreaterThan(0);
    expect(new Set(points.map((p) => p.id)).size).toBe(points.length);
  });

  it('has a smoke scenario whose points each take under ~20 s', () => {
    const points = selectPoints(load(), ['smoke']);
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) {
      expect(p.scenario).toBe('smoke');
      expect(p.warmupSec + p.measureSec).toBeLessThanOrEqual(20);
    }
  });
});

describe('the point limit', () => {
  const scenarios: ScenarioFile['scenarios'] = [
    { id: 'plain', batch: 20, concurrency: 4 },
    { id: 'arrays', batch: [1, 2, 3], concurrency: [1, 2], render: ['full', 'none'], intervalMs: [1, 10] },
    { id: 'workers', batch: 50, concurrency: 2, parse: ['main', 'worker'], workers: [1, 2, 4] },
    { id: 'search', concurrency: 2, findMax: { vary: 'batch', min: 1, max: 100 } },
  ];

  it('counts what expandScenario makes, without making it', () => {
    for (const s of scenarios) expect(pointCount(s, { transport: ['ws', 'sse'] }), s.id).toBe(expandScenario(s, { transport: ['ws', 'sse'] }).length);
    expect(pointCount(scenarios[1])).toBe(expandScenario(scenarios[1]).length);
  });

  it('takes 2,000 points and refuses 2,001, saying how many and the limit', () => {
    const wide = (id: string, n: number) => ({ id, transport: 'sse' as const, batch: Array.from({ length: n }, (_, i) => i + 1), concurrency: 1 });
    expect(() => checkPointCount([wide('a', 1000), wide('b', 1000)], undefined, 's.json')).not.toThrow();
    expect(() => checkPointCount([wide('a', 1000), wide('b', 1000), wide('c', 1)], undefined, 's.json')).toThrow(
      's.json: the selected scenarios expand to 2,001 points (a 1,000, b 1,000, c 1); a sweep runs at most 2,000: select fewer with --scenario, or shorten the arrays (each one multiplies the others)',
    );
    // 10 factors of 10 values: counted, not built.
    const huge = {
      id: 'huge',
      batch: Array.from({ length: 100 }, (_, i) => i + 1),
      concurrency: Array.from({ length: 100 }, (_, i) => i + 1),
      intervalMs: Array.from({ length: 100 }, (_, i) => i + 1),
    };
    expect(() => checkPointCount([huge], undefined, 's.json')).toThrow(/expand to 2,000,000 points \(huge 2,000,000\)/);
  });
});
