/**
 * Scenarios: what a sweep runs. `scenarios.json` is validated once, here, against the schema
 * in scenario-schema.ts; everything after this trusts the types.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { PushlabError } from './errors.js';
import { describeJsonValue, parseJsonText, sourceAt, syntaxErrorText } from './json-text.js';
import { SCENARIO_FILE_SCHEMA, type FindMaxSpec, type ScenarioFields, type ScenarioFile, type ScenarioInput } from './scenario-schema.js';
import { LIMITS, MAX_SWEEP_POINTS } from './limits.js';
import { DEFAULT_MARGINS, parseMargins } from './margins.js';
import type { Engine } from './engine.js';
import type { Margins } from './margins.js';
import {
  arrowBatchMismatch,
  carries,
  CLASSIC_TRANSPORTS,
  compressionOf,
  DEFAULT_POLL_MS,
  ENCODING_TAGS,
  offeredEventsPerSec,
  streamsOf,
  TRANSPORT_INFO,
  type BinaryEncoding,
  type Compression,
  type DisplayMode,
  type Encoding,
  type ParseMode,
  type RenderMode,
  type StreamCompression,
  type Transport,
} from './wire.js';

export { RENDER_MODES, type RenderMode } from './wire.js';
export type { FindMaxSpec, ScenarioFields, ScenarioFile, ScenarioInput } from './scenario-schema.js';

type OneOrMany<T> = T | T[];

/**
 * Built-in values under the file's `defaults`: the reference's two transports and 1 ms interval.
 * `display` has none: a point runs in the sweep's own browser unless its scenario names one.
 */
export const BUILTIN_DEFAULTS: Required<Omit<ScenarioFields, 'batch' | 'concurrency' | 'findMax' | 'display' | 'engine'>> & { engine: Engine } = {
  transport: [...CLASSIC_TRANSPORTS],
  intervalMs: 1,
  render: 'full',
  parse: 'main',
  workers: 1,
  pollMs: DEFAULT_POLL_MS,
  origins: 1,
  encoding: 'json',
  devtools: 'off',
  tabs: 1,
  compression: 'off',
  engine: 'chrome',
  warmupSec: 2,
  measureSec: 5,
  repeats: 3,
};

/** The reference's latency goal (Test III): the default bound for a sustainable load, ms. */
export const DEFAULT_P99_BOUND_MS = 50;

/** One measured configuration: a single value for every factor. */
export interface Point {
  /**
   * `<scenario>/<transport>-b<batch>-c<concurrency>-i<intervalMs>-<render>[-w<workers>][-p<pollMs>][-o<origins>][-mp][-dt][-t<tabs>][-hf][-deflate|-gzip][-ff]`:
   * stable.
   */
  id: string;
  scenario: string;
  transport: Transport;
  batch: number;
  concurrency: number;
  intervalMs: number;
  render: RenderMode;
  parse: ParseMode;
  /** Workers parsing (parse mode worker); 0 on the main thread. */
  workers: number;
  /** `poll` points only: ms between the starts of two requests. */
  pollMs?: number;
  /** Origins the connections are spread over, when more than 1 (main-origin transports only). */
  origins?: number;
  /** `msgpack` or `arrow` for binary batches (transports that carry it, TransportInfo.encodings); absent for JSON. */
  encoding?: BinaryEncoding;
  /** `network` when the CDP Network domain was on during the point; absent when off. */
  devtools?: 'network';
  /** Tabs streaming the point at once in one browser, when more than 1: EPS and offered are their totals. */
  tabs?: number;
  /**
   * The browser the point runs in, when its scenario names one (`headful`: `-hf` in the id);
   * absent: the sweep's own browser. Its repeats then record the browser's build and mode.
   */
  display?: DisplayMode;
  /**
   * `firefox` when the point runs in Firefox (`-ff` in the id); absent (or `chrome`): Chrome,
   * as in every report before version 3. A sweep leaves it out for Chrome, so a Chrome point's
   * id stays what it was.
   */
  engine?: Engine;
  /** `deflate` or `gzip` when the stream is compressed (the kind its transport carries); absent when off. */
  compression?: StreamCompression;
  /** The longest warm-up, s: the window opens once both ends caught up, after at least 1 s. */
  warmupSec: number;
  measureSec: number;
  /** Times this point is measured (one repeat per round). */
  repeats: number;
  /** batch × concurrency × tabs × 1000 / intervalMs. */
  offeredEventsPerSec: number;
}

// streamsOf lives in wire.ts, so pure readers of results (the report viewer through
// sustains.ts) need not load this file and its schema validator.
export { streamsOf } from './wire.js';

const badScenario = (message: string) => new PushlabError('PUSHLAB_BAD_SCENARIO', message);

const validate = new Ajv({ allErrors: false, strict: false }).compile<ScenarioFile>(SCENARIO_FILE_SCHEMA);

/** `/scenarios/2/batch/3` → `scenarios[2].batch[3]`. */
function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

function valueAt(data: unknown, instancePath: string): unknown {
  let v: unknown = data;
  for (const part of instancePath.split('/').slice(1)) {
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v;
}

/** `/scenarios/2/batch` → ['scenarios', '2', 'batch'] (JSON Pointer, RFC 6901). */
const pointerParts = (instancePath: string): string[] =>
  instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));

function describe(error: ErrorObject, data: unknown, source: string, text: string | undefined): string {
  // anyOf wraps the useful message; ajv reports the deepest failing keyword first.
  const where = pathOf(error.instancePath) || '(top level)';
  // As written in the file: `1e999` parses to Infinity, which JSON would show as `null`.
  const value = valueAt(data, error.instancePath);
  const got = describeJsonValue(value, text === undefined ? undefined : sourceAt(text, pointerParts(error.instancePath)), Number.POSITIVE_INFINITY);
  const p = error.params as Record<string, unknown>;
  let rule: string;
  switch (error.keyword) {
    case 'minimum':
      rule = `must be ≥ ${String(p.limit)}`;
      break;
    case 'maximum':
      rule = `must be ≤ ${String(p.limit)}`;
      break;
    case 'enum':
      rule = `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
      break;
    case 'additionalProperties':
      rule = `has unknown field '${String(p.additionalProperty)}'`;
      return `${source}: ${where} ${rule}; allowed fields are in protocol/scenarios.schema.json`;
    case 'required':
      rule = `is missing required field '${String(p.missingProperty)}'`;
      return `${source}: ${where} ${rule}`;
    case 'uniqueItems':
      rule = 'must list each value once';
      break;
    case 'minItems':
      rule = `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
      break;
    case 'type':
      rule = `must be ${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type)}`;
      break;
    case 'pattern':
      rule = 'must be lower-case letters, digits and dashes';
      break;
    default:
      rule = error.message ?? error.keyword;
  }
  return `${source}: ${where} ${rule}, got ${got}`;
}

/** Parses scenario file text: JSON (a syntax error by line and column), then the schema. */
export function parseScenarioText(text: string, source: string): ScenarioFile {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw badScenario(`${source}: not valid JSON: ${syntaxErrorText(parsed.error)}`);
  return parseScenarioFile(parsed.value, source, text);
}

/**
 * Validates parsed JSON as a scenario file; throws PUSHLAB_BAD_SCENARIO naming path, value and
 * rule. `text`: the file it came from, when there is one, so a value is shown as written.
 */
export function parseScenarioFile(data: unknown, source = 'scenarios.json', text?: string): ScenarioFile {
  if (!validate(data)) {
    const errors = validate.errors ?? [];
    // Prefer the innermost error, and within an anyOf(scalar | array) field the branch that
    // matches what was given: an array's problem is an array rule, a scalar's a scalar rule.
    const branchFits = (e: ErrorObject) => {
      const isArray = Array.isArray(valueAt(data, e.instancePath));
      return e.schemaPath.includes(isArray ? '/anyOf/1/' : '/anyOf/0/') ? 0 : 1;
    };
    const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length || branchFits(a) - branchFits(b))[0];
    throw badScenario(best ? describe(best, data, source, text) : `${source}: invalid`);
  }
  return checkReferences(data, source);
}

/** The run's margins from a file's `defaults.margin` (checked when the file was read), else the defaults. */
export function scenarioMargins(file: ScenarioFile): Margins {
  if (file.defaults?.margin === undefined) return DEFAULT_MARGINS;
  const m = parseMargins(file.defaults.margin);
  return m.ok ? m.value : DEFAULT_MARGINS;
}

function checkReferences(data: ScenarioFile, source: string): ScenarioFile {
  if (data.defaults?.margin !== undefined) {
    const m = parseMargins(data.defaults.margin, DEFAULT_MARGINS, `${source}: defaults.margin`);
    if (!m.ok) throw badScenario(m.error.message);
  }
  const ids = new Set<string>();
  data.scenarios.forEach((s, i) => {
    if (ids.has(s.id)) throw badScenario(`${source}: scenarios[${i}].id '${s.id}' is used twice`);
    ids.add(s.id);
    const merged = { ...data.defaults, ...s };
    for (const field of ['batch', 'concurrency'] as const) {
      // A search along batch needs no batch of its own: it has no fixed points then.
      if (merged[field] === undefined && s.findMax?.vary !== field) {
        throw badScenario(`${source}: scenarios[${i}] ('${s.id}') sets no ${field}, and defaults has none`);
      }
    }
    if (s.findMax) checkFindMax(s.findMax, merged, `${source}: scenarios[${i}].findMax`);
    checkArrowBatches(merged, `${source}: scenarios[${i}] ('${s.id}')`);
    if (many(merged.engine ?? 'chrome').includes('firefox')) checkFirefoxFields(merged, `${source}: scenarios[${i}] ('${s.id}')`);
  });
  for (const [group, members] of Object.entries(data.groups ?? {})) {
    if (ids.has(group)) throw badScenario(`${source}: groups.${group} has the id of a scenario; give the group another name`);
    for (const id of members) {
      if (!ids.has(id)) throw badScenario(`${source}: groups.${group} names scenario '${id}', which does not exist; known: ${[...ids].join(', ')}`);
    }
  }
  const groups = Object.keys(data.groups ?? {});
  for (const id of data.default ?? []) {
    if (!ids.has(id) && !groups.includes(id)) {
      throw badScenario(`${source}: default names '${id}', which is neither a scenario nor a group; known: ${[...ids, ...groups].join(', ')}`);
    }
  }
  return data;
}

/**
 * The factors a Firefox point cannot have, refused when the file is read rather than failing
 * every repeat: `devtools: network` is Chrome's CDP Network domain; `tabs` > 1 needs each
 * tab's own CPU, and Firefox runs the tabs of one site in one content process; `display`
 * launches the other mode's Chrome.
 */
/**
 * An Arrow point whose batch the server would refuse (ARROW_BATCH, protocol/wire.ts) is refused
 * with the file, before anything starts, rather than failing each of its points at run time.
 * Only where a listed transport carries Arrow: `encoding` leaves the others JSON.
 */
function checkArrowBatches(f: ScenarioFields, where: string): void {
  if (f.batch === undefined || !many(f.encoding ?? 'json').includes('arrow')) return;
  if (!many(f.transport ?? BUILTIN_DEFAULTS.transport).some((t) => carries(t, 'arrow'))) return;
  for (const batch of many(f.batch)) {
    const refused = arrowBatchMismatch({ batch, encoding: 'arrow' });
    if (refused) throw badScenario(`${where}: ${refused.message}`);
  }
}

export function checkFirefoxFields(f: ScenarioFields, where: string): void {
  const why = (field: string, value: unknown, reason: string) =>
    badScenario(`${where} runs in firefox, so ${field} must be ${reason}, got ${JSON.stringify(value)}; put the Chrome-only values in a scenario of their own`);
  if (f.devtools !== undefined && many(f.devtools).includes('network')) throw why('devtools', f.devtools, "'off' (the Network domain is Chrome's CDP)");
  if (f.tabs !== undefined && many(f.tabs).some((t) => t > 1)) throw why('tabs', f.tabs, '1 (Firefox runs the tabs of one site in one content process, so per-tab CPU cannot be told apart)');
  if (f.display !== undefined) throw why('display', f.display, "left out (the display factor launches a Chrome of the other mode; --headful shows Firefox's window)");
}

function checkFindMax(f: FindMaxSpec, merged: ScenarioFields, where: string): void {
  if (f.min > f.max) throw badScenario(`${where}.min must be ≤ max, got min ${f.min} and max ${f.max}`);
  const limit = LIMITS[f.vary].max;
  if (f.max > limit) throw badScenario(`${where}.max must be ≤ ${limit} for vary '${f.vary}', got ${f.max}`);
  // One search per transport: every other factor must be a single value, or the search is ambiguous.
  const fixed = f.vary === 'batch' ? 'concurrency' : 'batch';
  for (const field of [fixed, 'intervalMs', 'render', 'parse', 'workers', 'pollMs', 'origins', 'encoding', 'devtools', 'tabs', 'display', 'compression', 'engine'] as const) {
    const v = merged[field];
    if (Array.isArray(v) && v.length > 1) {
      throw badScenario(`${where} searches ${f.vary}, so ${field} must be one value, got ${JSON.stringify(v)}`);
    }
  }
}

/** A point's stable id (see `Point.id`). */
export function pointId(
  p: Pick<Point, 'scenario' | 'transport' | 'batch' | 'concurrency' | 'intervalMs' | 'render' | 'parse' | 'workers' | 'pollMs' | 'origins' | 'encoding' | 'devtools' | 'tabs' | 'display' | 'compression' | 'engine'>,
): string {
  const extra =
    `${p.pollMs !== undefined ? `-p${p.pollMs}` : ''}${p.origins !== undefined ? `-o${p.origins}` : ''}${p.encoding ? `-${ENCODING_TAGS[p.encoding]}` : ''}${p.devtools ? '-dt' : ''}` +
    `${p.tabs !== undefined ? `-t${p.tabs}` : ''}${p.display === 'headful' ? '-hf' : ''}${p.compression ? `-${p.compression}` : ''}${p.engine === 'firefox' ? '-ff' : ''}`;
  return `${p.scenario}/${p.transport}-b${p.batch}-c${p.concurrency}-i${p.intervalMs}-${p.render}${p.parse === 'worker' ? `-w${p.workers}` : ''}${extra}`;
}


/** Whether a transport connects to the main origin, which the `origins` factor replicates. */
function onMainOrigin(t: Transport): boolean {
  return TRANSPORT_INFO[t].origin === 'main';
}

const many = <T>(v: OneOrMany<T>): T[] => (Array.isArray(v) ? v : [v]);

/**
 * The listed compressions a transport carries: `off`, and its own kind (TRANSPORT_INFO); a
 * list naming neither (`gzip` for `ws`) leaves it uncompressed, as `encoding` leaves SSE JSON.
 */
function compressionsFor(t: Transport, listed: OneOrMany<Compression>): Compression[] {
  const fits = many(listed).filter((c) => c === 'off' || c === compressionOf(t));
  return fits.length ? fits : ['off'];
}

/**
 * The listed encodings a transport carries (TransportInfo.encodings); a list naming none it
 * carries (`msgpack` for `sse`) leaves it JSON.
 */
function encodingsFor(t: Transport, listed: OneOrMany<Encoding>): Encoding[] {
  const fits = many(listed).filter((e) => carries(t, e));
  return fits.length ? fits : ['json'];
}

/** Expands one scenario to its points: the cross product of every array-valued field. */
export function expandScenario(s: ScenarioInput, defaults: ScenarioFields = {}): Point[] {
  const f = { ...BUILTIN_DEFAULTS, ...defaults, ...s };
  if (f.batch === undefined && s.findMax?.vary === 'batch') return [];
  if (f.batch === undefined || f.concurrency === undefined) {
    throw badScenario(`scenario '${s.id}' needs batch and concurrency`);
  }
  const points: Point[] = [];
  // Worker counts only matter in parse mode worker: main-thread points are not multiplied by them.
  const parses = many(f.parse).flatMap((parse): { parse: ParseMode; workers: number }[] =>
    parse === 'worker' ? many(f.workers).map((workers) => ({ parse, workers })) : [{ parse, workers: 0 }],
  );
  // Likewise the poll interval (poll points only) and origins (main-origin transports only).
  // Defaults are left out of the point, so its id and older reports stay as they were.
  const transports = many(f.transport).flatMap((transport) =>
    (transport === 'poll' ? many(f.pollMs) : [undefined]).flatMap((pollMs) =>
      (onMainOrigin(transport) ? many(f.origins) : [1]).flatMap((origins) =>
        encodingsFor(transport, f.encoding).flatMap((encoding) =>
          many(f.devtools).flatMap((devtools) =>
            many(f.tabs).flatMap((tabs) =>
              (f.display === undefined ? [undefined] : many(f.display)).flatMap((display) =>
                many(f.engine).flatMap((engine) =>
                compressionsFor(transport, f.compression).map((compression) => ({
                  transport,
                  ...(pollMs !== undefined ? { pollMs } : {}),
                  ...(origins > 1 ? { origins } : {}),
                  ...(encoding !== 'json' ? { encoding } : {}),
                  ...(devtools === 'network' ? { devtools } : {}),
                  ...(tabs > 1 ? { tabs } : {}),
                  ...(display !== undefined ? { display } : {}),
                  ...(compression !== 'off' ? { compression } : {}),
                  ...(engine === 'firefox' ? { engine } : {}),
                })),
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  for (const { transport, ...setup } of transports)
    for (const { parse, workers } of parses)
    for (const render of many(f.render))
      for (const intervalMs of many(f.intervalMs))
        for (const concurrency of many(f.concurrency))
          for (const batch of many(f.batch)) {
            points.push({
              id: pointId({ scenario: s.id, transport, batch, concurrency, intervalMs, render, parse, workers, ...setup }),
              scenario: s.id,
              transport,
              batch,
              concurrency,
              intervalMs,
              render,
              parse,
              workers,
              ...setup,
              warmupSec: f.warmupSec,
              measureSec: f.measureSec,
              repeats: f.repeats,
              offeredEventsPerSec: offeredEventsPerSec({ batch, interval: intervalMs }) * streamsOf({ concurrency, tabs: setup.tabs }),
            });
          }
  return points;
}

/** How many points `expandScenario` makes of `s`, counted without making them. */
export function pointCount(s: ScenarioInput, defaults: ScenarioFields = {}): number {
  const f = { ...BUILTIN_DEFAULTS, ...defaults, ...s };
  if (f.batch === undefined && s.findMax?.vary === 'batch') return 0;
  const parses = many(f.parse).reduce((a, parse) => a + (parse === 'worker' ? many(f.workers).length : 1), 0);
  const n = (v: OneOrMany<unknown> | undefined) => (v === undefined ? 1 : many(v).length);
  const transports = many(f.transport).reduce(
    (a, t) =>
      a + (t === 'poll' ? n(f.pollMs) : 1) * (onMainOrigin(t) ? n(f.origins) : 1) * encodingsFor(t, f.encoding).length * compressionsFor(t, f.compression).length,
    0,
  );
  return transports * n(f.devtools) * n(f.tabs) * n(f.display) * n(f.engine) * parses * n(f.render) * n(f.intervalMs) * n(f.concurrency) * n(f.batch);
}

/**
 * Refuses scenarios that together expand past MAX_SWEEP_POINTS, before any is expanded: the
 * cross product of a few long arrays is easily millions of points.
 */
export function checkPointCount(scenarios: readonly ScenarioInput[], defaults: ScenarioFields | undefined, source: string): void {
  const counts = scenarios.map((s) => ({ id: s.id, n: pointCount(s, defaults) }));
  const total = counts.reduce((a, c) => a + c.n, 0);
  if (total <= MAX_SWEEP_POINTS) return;
  const n = (x: number) => x.toLocaleString('en-US');
  const largest = [...counts].sort((a, b) => b.n - a.n).slice(0, 3).map((c) => `${c.id} ${n(c.n)}`);
  throw badScenario(
    `${source}: the selected scenarios expand to ${n(total)} points (${largest.join(', ')}${counts.length > 3 ? ', …' : ''}); a sweep runs at most ${n(MAX_SWEEP_POINTS)}: select fewer with --scenario, or shorten the arrays (each one multiplies the others)`,
  );
}

/**
 * The scenarios `ids` name (or the file's default list, or all), with groups replaced by their
 * members, each scenario once, in the order named.
 */
export function selectScenarios(file: ScenarioFile, ids?: readonly string[]): ScenarioInput[] {
  const wanted = ids && ids.length ? ids : (file.default ?? file.scenarios.map((s) => s.id));
  const byId = new Map(file.scenarios.map((s) => [s.id, s]));
  const groups = file.groups ?? {};
  const out = new Map<string, ScenarioInput>();
  for (const id of wanted) {
    const members = Object.hasOwn(groups, id) ? groups[id] : [id];
    for (const m of members) {
      const s = byId.get(m);
      // A flag naming what the file lacks: the flag is wrong, as docs/reliability.md's table says.
      if (!s) throw new PushlabError('PUSHLAB_BAD_FLAG', `--scenario names '${id}', which is neither a scenario nor a group in the scenario file; known: ${[...byId.keys(), ...Object.keys(groups)].join(', ')}`);
      out.set(m, s);
    }
  }
  return [...out.values()];
}

/** Picks scenarios by id or group (or the file's default list, or all) and expands them to points. */
export function selectPoints(file: ScenarioFile, ids?: readonly string[]): Point[] {
  return selectScenarios(file, ids).flatMap((s) => expandScenario(s, file.defaults));
}

/** One saturation search: a transport's point with the varied factor left open. */
export interface SearchSpec {
  scenario: string;
  transport: Transport;
  vary: FindMaxSpec['vary'];
  min: number;
  max: number;
  p99BoundMs: number;
  /** The scenario's point at `min` of the varied factor: every other field as searched. */
  base: Point;
}

/**
 * The searches these scenarios ask for: their own `findMax`, or with `all` (`--find-max`) a
 * default search for the others too: along batch (1…1,000) at the scenario's one concurrency.
 */
export function searchesFor(file: ScenarioFile, scenarios: readonly ScenarioInput[], all: boolean): SearchSpec[] {
  const out: SearchSpec[] = [];
  for (const s of scenarios) {
    let spec = s.findMax;
    if (!spec && all) {
      spec = { vary: 'batch', min: 1, max: 1000 };
      checkFindMax(spec, { ...file.defaults, ...s }, `--find-max on scenario '${s.id}'`);
    }
    if (!spec) continue;
    const { vary, min, max } = spec;
    for (const base of expandScenario({ ...s, [vary]: min }, file.defaults)) {
      out.push({ scenario: s.id, transport: base.transport, vary, min, max, p99BoundMs: spec.p99BoundMs ?? DEFAULT_P99_BOUND_MS, base });
    }
  }
  return out;
}

/** `base` with the searched factor at `value`: its id, offered rate and all. */
export function searchPoint(search: SearchSpec, value: number): Point {
  const b = search.base;
  const batch = search.vary === 'batch' ? value : b.batch;
  const concurrency = search.vary === 'concurrency' ? value : b.concurrency;
  return {
    ...b,
    id: pointId({ ...b, batch, concurrency }),
    batch,
    concurrency,
    offeredEventsPerSec: offeredEventsPerSec({ batch, interval: b.intervalMs }) * streamsOf({ concurrency, tabs: b.tabs }),
  };
}
