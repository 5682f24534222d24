/**
 * The one check every reader makes of a report.json before trusting its type: the CLI
 * (`npm run report`), `npm run sweep -- --resume`, the self-contained report.html and the
 * served viewer all go through `parseReport`. Not a full schema check: it covers the fields the
 * readers dereference, so a bad file fails here with a path instead of a TypeError halfway down
 * a table or a resumed sweep.
 */
import { PushlabError } from './errors.js';
import { describeJsonValue, parseJsonText, sourceAt, syntaxErrorText } from './json-text.js';
import { ENGINES, SCHEMA_VERSION, type Report } from './report.js';
import { ENCODINGS, type Encoding } from './wire.js';

/**
 * Older versions this build reads, each with its step to the next version: a report of one of
 * them is checked like a current one (the fields checked here mean the same in both) and then
 * converted, step by step, to SCHEMA_VERSION, so every reader sees the current shape only and a
 * report written back (a resumed sweep) is of the current version.
 */
const UPGRADES: Readonly<Record<number, (data: Record<string, unknown>) => Record<string, unknown>>> = {
  // 2 → 3 only adds optional fields (protocol/report.ts, SCHEMA_VERSION), so every field of a
  // version 2 report means the same in 3. What a version 2 report leaves unsaid is said: every
  // one was measured in Chrome. A copy, so the caller's object is left as it was.
  2: (data) => {
    const environment = data.environment as Record<string, unknown>;
    return { ...data, schemaVersion: 3, environment: { ...environment, engine: environment.engine ?? 'chrome' } };
  },
};

/** Every schemaVersion this build reads: the one it writes, and those it converts on read. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [...Object.keys(UPGRADES).map(Number), SCHEMA_VERSION].sort((a, b) => a - b);

/** What a refusal says is allowed. */
const READABLE_TEXT = `this build reads schemaVersion ${SCHEMA_VERSION}, and ${READABLE_SCHEMA_VERSIONS.filter((v) => v !== SCHEMA_VERSION).join(', ')} converted to it on read`;

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isStringArray: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isArray: Check = (v) => Array.isArray(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isObjectOrNull: Check = (v) => v === null || isObject(v);
const isEngine: Check = (v) => typeof v === 'string' && (ENGINES as readonly string[]).includes(v);
const ENGINES_TEXT = `one of ${ENGINES.map((e) => `'${e}'`).join(', ')}`;
const isEncoding = (v: unknown): v is Encoding => ENCODINGS.includes(v as Encoding);
const ENCODINGS_TEXT = `one of ${ENCODINGS.map((e) => `'${e}'`).join(', ')}`;
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);

/** `points[3].point.batch` for ['points', '3', 'point', 'batch']. */
function pathText(path: readonly string[]): string {
  return path.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Checks the parsed report `data` of `source`; `text`, when given, is the file, to show values as written. */
class Checker {
  constructor(
    private readonly source: string,
    private readonly text: string | undefined,
  ) {}

  bad(message: string): PushlabError {
    return new PushlabError('PUSHLAB_BAD_REPORT', `${this.source}: ${message}`);
  }

  shown(v: unknown, path: readonly string[]): string {
    return describeJsonValue(v, this.text === undefined ? undefined : sourceAt(this.text, path));
  }

  need(obj: Record<string, unknown>, at: readonly string[], key: string, check: Check, what: string): void {
    if (!check(obj[key])) throw this.bad(`${pathText([...at, key])} must be ${what}, got ${this.shown(obj[key], [...at, key])}`);
  }

  /** The object at `at` (already checked to be one by `need`). */
  object(v: unknown, at: readonly string[]): Record<string, unknown> {
    if (!isObject(v)) throw this.bad(`${pathText(at)} must be an object, got ${this.shown(v, at)}`);
    return v;
  }
}

/** Parses report.json text; the error names the source and what is wrong. */
export function parseReportText(text: string, source: string): Report {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new PushlabError('PUSHLAB_BAD_REPORT', `${source}: not valid JSON: ${syntaxErrorText(parsed.error)}`);
  return parseReport(parsed.value, source, text);
}

/** Checks parsed JSON is a report this build can read, and returns it typed. `text`: the file it came from, when there is one. */
export function parseReport(data: unknown, source: string, text?: string): Report {
  const c = new Checker(source, text);
  if (!isObject(data)) throw c.bad(`expected a JSON object, got ${c.shown(data, [])}`);
  if (data.schemaVersion === undefined) throw c.bad('has no schemaVersion; is it a pushlab report.json?');
  const version = data.schemaVersion;
  if (typeof version !== 'number' || !READABLE_SCHEMA_VERSIONS.includes(version)) {
    const newer = typeof version === 'number' && version > SCHEMA_VERSION ? ', written by a newer pushlab: read it with that one' : '';
    throw c.bad(`${READABLE_TEXT}; got ${c.shown(version, ['schemaVersion'])}${newer}`);
  }
  c.need(data, [], 'runId', isString, 'a string');
  c.need(data, [], 'startedAt', isString, 'a string');
  c.need(data, [], 'finishedAt', orNull(isString), 'a string or null');
  c.need(data, [], 'interrupted', isBoolean, 'true or false');
  c.need(data, [], 'scenarios', isStringArray, 'an array of scenario ids');
  c.need(data, [], 'environment', isObject, 'an object');
  const env = data.environment as Record<string, unknown>;
  for (const key of ['chromeVersion', 'nodeVersion', 'cpuModel', 'platform']) c.need(env, ['environment'], key, isString, 'a string');
  c.need(env, ['environment'], 'cores', isNumber, 'a number');
  c.need(env, ['environment'], 'headless', isBoolean, 'true or false');
  c.need(env, ['environment'], 'networkEnabled', isBoolean, 'true or false');
  c.need(env, ['environment'], 'launchArgs', isStringArray, 'an array of strings');
  if (env.engine !== undefined) c.need(env, ['environment'], 'engine', isEngine, ENGINES_TEXT);
  c.need(data, [], 'options', isObject, 'an object');
  // A resumed sweep plans from these, and the views show the repeats and the seed.
  const options = data.options as Record<string, unknown>;
  for (const key of ['repeats', 'seed', 'maxRepeats', 'retries']) c.need(options, ['options'], key, isNumber, 'a number');
  for (const key of ['auto', 'findMax']) c.need(options, ['options'], key, isBoolean, 'true or false');
  c.need(options, ['options'], 'timeBudgetSec', orNull(isNumber), 'a number or null');
  c.need(options, ['options'], 'file', isString, 'a string');
  for (const key of ['rounds', 'points', 'comparisons', 'saturation']) c.need(data, [], key, isArray, 'an array');
  (data.rounds as unknown[]).forEach((r, i) => {
    const at = ['rounds', String(i)];
    const round = c.object(r, at);
    for (const key of ['index', 'seed']) c.need(round, at, key, isNumber, 'a number');
    c.need(round, at, 'order', isStringArray, 'an array of point ids');
    c.need(round, at, 'startedAt', isString, 'a string');
    c.need(round, at, 'finishedAt', orNull(isString), 'a string or null');
    c.need(round, at, 'parseCeilings', isArray, 'an array');
    // The views relate points to these by batch size and encoding (absent: json).
    ((Array.isArray(round.parseCeilings) ? round.parseCeilings : []) as unknown[]).forEach((x, k) => {
      const cat = [...at, 'parseCeilings', String(k)];
      const ceiling = c.object(x, cat);
      for (const key of ['batch', 'eventsPerSec']) c.need(ceiling, cat, key, isNumber, 'a number');
      if (ceiling.encoding !== undefined) c.need(ceiling, cat, 'encoding', isEncoding, ENCODINGS_TEXT);
    });
  });
  (data.points as unknown[]).forEach((p, i) => {
    const at = ['points', String(i)];
    const result = c.object(p, at);
    c.need(result, at, 'verdict', isString, 'a string');
    c.need(result, at, 'notes', isStringArray, 'an array of strings');
    c.need(result, at, 'unsteady', isArray, 'an array');
    c.need(result, at, 'summary', isObjectOrNull, 'an object or null');
    if (result.summary !== null) {
      for (const key of ['eventsPerSec', 'deliveredRatio', 'cpu', 'efficiency']) c.need(result.summary as Record<string, unknown>, [...at, 'summary'], key, isObject, 'an object');
    }
    c.need(result, at, 'point', isObject, 'an object');
    const point = result.point as Record<string, unknown>;
    for (const key of ['id', 'scenario', 'transport', 'render', 'parse']) c.need(point, [...at, 'point'], key, isString, 'a string');
    for (const key of ['batch', 'concurrency', 'intervalMs', 'offeredEventsPerSec', 'workers', 'warmupSec', 'measureSec', 'repeats']) {
      c.need(point, [...at, 'point'], key, isNumber, 'a number');
    }
    if (point.engine !== undefined) c.need(point, [...at, 'point'], 'engine', isEngine, ENGINES_TEXT);
    if (point.encoding !== undefined) c.need(point, [...at, 'point'], 'encoding', (v) => isEncoding(v) && v !== 'json', `one of ${ENCODINGS.filter((e) => e !== 'json').join(', ')} (absent for json)`);
    c.need(result, at, 'repeats', isArray, 'an array');
    (result.repeats as unknown[]).forEach((r, j) => {
      const rat = [...at, 'repeats', String(j)];
      const repeat = c.object(r, rat);
      c.need(repeat, rat, 'status', (v) => v === 'ok' || v === 'failed', "'ok' or 'failed'");
      for (const key of ['round', 'attempts']) c.need(repeat, rat, key, isNumber, 'a number');
      c.need(repeat, rat, 'verdict', isString, 'a string');
      c.need(repeat, rat, 'notes', isStringArray, 'an array of strings');
      if (repeat.status === 'failed') c.need(repeat, rat, 'error', isString, 'a string');
      else {
        c.need(repeat, rat, 'eventsPerSec', isNumber, 'a number');
        for (const key of ['efficiency', 'page', 'latency', 'cpu', 'server']) c.need(repeat, rat, key, isObject, 'an object');
        const cpu = repeat.cpu as Record<string, unknown>;
        c.need(cpu, [...rat, 'cpu'], 'chrome', isObject, 'an object');
        // Null where the engine or host could not read it (a remote Firefox), never a made-up 0.
        for (const key of ['tabProcess', 'tabMainThread']) c.need(cpu, [...rat, 'cpu'], key, orNull(isNumber), 'a number or null');
        const chrome = cpu.chrome as Record<string, unknown>;
        for (const key of ['browser', 'renderers', 'network', 'gpu', 'other', 'total']) c.need(chrome, [...rat, 'cpu', 'chrome'], key, orNull(isNumber), 'a number or null');
        if (cpu.unavailable !== undefined) c.need(cpu, [...rat, 'cpu'], 'unavailable', isStringArray, 'an array of figure names');
        if (repeat.clock !== undefined) checkClock(c, repeat, rat);
      }
    });
  });
  if (data.hosts !== undefined) {
    c.need(data, [], 'hosts', isArray, 'an array');
    (data.hosts as unknown[]).forEach((h, i) => {
      const host = c.object(h, ['hosts', String(i)]);
      if (host.clock !== undefined) checkClock(c, host, ['hosts', String(i)]);
    });
  }
  (data.comparisons as unknown[]).forEach((x, i) => {
    const at = ['comparisons', String(i)];
    const cmp = c.object(x, at);
    for (const key of ['a', 'b', 'text']) c.need(cmp, at, key, isString, 'a string');
  });
  if (data.knobs !== undefined) {
    c.need(data, [], 'knobs', isArray, 'an array');
    (data.knobs as unknown[]).forEach((x, i) => {
      const at = ['knobs', String(i)];
      const knob = c.object(x, at);
      for (const key of ['a', 'b', 'text', 'knob', 'from', 'to', 'context']) c.need(knob, at, key, isString, 'a string');
    });
  }
  if (data.advice !== undefined) c.need(data, [], 'advice', isObject, 'an object');
  let current: Record<string, unknown> = data;
  for (let v = version; v < SCHEMA_VERSION; v++) current = UPGRADES[v](current);
  return current as unknown as Report;
}

/** An optional `clock` (ClockOffset): a finite offset and an uncertainty of 0 or more, in ms. */
function checkClock(c: Checker, owner: Record<string, unknown>, at: string[]): void {
  c.need(owner, at, 'clock', isObject, 'an object { offsetMs, uncertaintyMs }');
  const clock = owner.clock as Record<string, unknown>;
  if (!isObject(clock)) return;
  c.need(clock, [...at, 'clock'], 'offsetMs', isNumber, 'a number of ms');
  c.need(clock, [...at, 'clock'], 'uncertaintyMs', (v) => isNumber(v) && (v as number) >= 0, 'a number of ms, 0 or more');
}
