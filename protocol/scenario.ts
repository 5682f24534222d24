/**
 * Scenarios: what a sweep runs. `scenarios.json` is validated once, here, against the schema
 * in scenario-schema.ts; everything after this trusts the types.
 */
import { parseLink } from './link.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { PushlabError } from './errors.js';
import { describeJsonValue, parseJsonText, sourceAt, syntaxErrorText } from './json-text.js';
import { SCENARIO_FILE_SCHEMA, type FindMaxSpec, type ScenarioFields, type ScenarioFile, type ScenarioInput } from './scenario-schema.js';
import { LIMITS, MAX_SWEEP_POINTS } from './limits.js';
import { BUILTIN_DEFAULTS } from './scenario-defaults.js';
import { DEFAULT_MARGINS, parseMargins, type Margins } from './margins.js';
import { arrowBatchMismatch, carries, offeredEventsPerSec, streamsOf, type Transport } from './wire.js';
import { crossProduct, crossProductSize, FACTOR_NAMES, FACTORS, pointFactors, pointId, type Listed, type Point } from './factors.js';

export { RENDER_MODES, type RenderMode } from './wire.js';
export type { FindMaxSpec, ScenarioFields, ScenarioFile, ScenarioInput } from './scenario-schema.js';

type OneOrMany<T> = T | T[];

export { pointId, type Point } from './factors.js';

// In a module of their own, so readers of the defaults (the report command's flags) need not
// load this file, TypeBox's schema and ajv.
export { BUILTIN_DEFAULTS } from './scenario-defaults.js';

/** The reference's latency goal (Test III): the default bound for a sustainable load, ms. */
export const DEFAULT_P99_BOUND_MS = 50;

// streamsOf lives in wire.ts, so pure readers of results (the report viewer through
// sustains.ts) need not load this file and its schema validator.
export { streamsOf } from './wire.js';

const badScenario = (message: string) => new PushlabError('PUSHLAB_BAD_SCENARIO', message);

/**
 * The scenario file's validator, compiled on first use: compiling took ~0.13 s (and its garbage)
 * of every command that imports this module, `--help` and the report viewer's readers included,
 * most of which never read a scenario file.
 */
let validator: ValidateFunction<ScenarioFile> | null = null;
const validate = () => (validator ??= new Ajv({ allErrors: false, strict: false }).compile<ScenarioFile>(SCENARIO_FILE_SCHEMA));

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
  const valid = validate();
  if (!valid(data)) {
    const errors = valid.errors ?? [];
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

/**
 * The run's rows file from a file's `defaults.rows` (protocol/rows-file.ts), resolved against the
 * scenario file's own folder (a path joined as text: no Node import here); '' for the car rows.
 */
export function scenarioRows(file: ScenarioFile, source: string): string {
  const rows = file.defaults?.rows;
  if (rows === undefined) return '';
  if (rows.startsWith('/')) return rows;
  const slash = source.lastIndexOf('/');
  return slash < 0 ? rows : `${source.slice(0, slash + 1)}${rows}`;
}

/** The run's chart field: `--chart-field`, else the file's `defaults.chartField` unless `--rows` replaced the file's rows (its fields are another file's); '' for the first numeric one. */
export function scenarioChartField(file: ScenarioFile, chartFlag: string, rowsFlag: string): string {
  if (chartFlag || rowsFlag) return chartFlag;
  return file.defaults?.chartField ?? '';
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
    // The schema checks a link's shape; its numbers (rtt, jitter against rtt, rate) here.
    for (const link of many(merged.link ?? 'off')) {
      const l = parseLink(link);
      if (!l.ok) throw badScenario(`${source}: scenarios[${i}] ('${s.id}').link ${l.error}`);
    }
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

/**
 * The factors a Firefox point cannot have, refused when the file is read rather than failing
 * every repeat: `devtools: network` is Chrome's CDP Network domain; `tabs` > 1 needs each
 * tab's own CPU, and Firefox runs the tabs of one site in one content process; `display`
 * launches the other mode's Chrome.
 * Each factor's `firefox` rule (protocol/factors.ts) says which.
 */
export function checkFirefoxFields(f: ScenarioFields, where: string): void {
  for (const name of FACTOR_NAMES) {
    const rule = FACTORS[name].firefox as { refuses(listed: readonly unknown[]): boolean; mustBe: string } | null;
    const value = f[name];
    if (rule === null || value === undefined || !rule.refuses(many<unknown>(value))) continue;
    throw badScenario(
      `${where} runs in firefox, so ${name} must be ${rule.mustBe}, got ${JSON.stringify(value)}; put the Chrome-only values in a scenario of their own`,
    );
  }
}

function checkFindMax(f: FindMaxSpec, merged: ScenarioFields, where: string): void {
  if (f.min > f.max) throw badScenario(`${where}.min must be ≤ max, got min ${f.min} and max ${f.max}`);
  const limit = LIMITS[f.vary].max;
  if (f.max > limit) throw badScenario(`${where}.max must be ≤ ${limit} for vary '${f.vary}', got ${f.max}`);
  // One search per transport: every other factor must be a single value, or the search is ambiguous.
  for (const field of FACTOR_NAMES) {
    if (field === f.vary || FACTORS[field].findMax === 'one search each') continue;
    const v = merged[field];
    if (Array.isArray(v) && v.length > 1) {
      throw badScenario(`${where} searches ${f.vary}, so ${field} must be one value, got ${JSON.stringify(v)}`);
    }
  }
}

const many = <T>(v: OneOrMany<T>): T[] => (Array.isArray(v) ? v : [v]);

/** A scenario's factors, merged over the file's defaults and the built-in ones, as lists. */
function listedOf(s: ScenarioInput, defaults: ScenarioFields) {
  const f = { ...BUILTIN_DEFAULTS, ...defaults, ...s };
  return f satisfies Listed;
}

/**
 * Expands one scenario to its points: the cross product of every array-valued field, in the
 * registry's expansion order (transports outermost, batch innermost). A factor that does not
 * apply to a transport (pollMs but for poll, origins off the main origin, encodings and
 * compressions it does not carry) does not multiply its points; defaults are left out of the
 * point, so its id and older reports stay as they were.
 */
export function expandScenario(s: ScenarioInput, defaults: ScenarioFields = {}): Point[] {
  const f = listedOf(s, defaults);
  if (f.batch === undefined && s.findMax?.vary === 'batch') return [];
  if (f.batch === undefined || f.concurrency === undefined) {
    throw badScenario(`scenario '${s.id}' needs batch and concurrency`);
  }
  return crossProduct(f).map((values) => {
    const factors = pointFactors(values);
    return {
      id: pointId({ scenario: s.id, ...factors }),
      scenario: s.id,
      ...factors,
      // A hidden-long point's grace, which its browser is launched with (protocol/tab-state.ts).
      ...(factors.tab === 'hidden-long' ? { hiddenLongGraceSec: f.hiddenLongGraceSec } : {}),
      warmupSec: f.warmupSec,
      measureSec: f.measureSec,
      repeats: f.repeats,
      offeredEventsPerSec:
        offeredEventsPerSec({ batch: factors.batch, interval: factors.intervalMs }) * streamsOf({ concurrency: factors.concurrency, tabs: factors.tabs }),
    };
  });
}

/** How many points `expandScenario` makes of `s`, counted by the same cross product without making them. */
export function pointCount(s: ScenarioInput, defaults: ScenarioFields = {}): number {
  const f = listedOf(s, defaults);
  if (f.batch === undefined && s.findMax?.vary === 'batch') return 0;
  return crossProductSize(f);
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
  const largest = [...counts]
    .sort((a, b) => b.n - a.n)
    .slice(0, 3)
    .map((c) => `${c.id} ${n(c.n)}`);
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
      if (!s)
        throw new PushlabError(
          'PUSHLAB_BAD_FLAG',
          `--scenario names '${id}', which is neither a scenario nor a group in the scenario file; known: ${[...byId.keys(), ...Object.keys(groups)].join(', ')}`,
        );
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
