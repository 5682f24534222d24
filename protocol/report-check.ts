/**
 * The one check every view makes of a report.json before trusting its type: the CLI, the
 * self-contained report.html and the served viewer all go through `parseReport`. Not a full
 * schema check: it covers the fields the views dereference, so a bad file fails here with a
 * path instead of rendering "undefined" halfway down a table.
 */
import { PushlabError } from './errors.js';
import { parseJsonText, syntaxErrorText } from './json-text.js';
import type { Report } from './report.js';

/** The schemaVersion this build reads. */
export const READABLE_SCHEMA_VERSION = 2;

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isStringArray: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isArray: Check = (v) => Array.isArray(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isObjectOrNull: Check = (v) => v === null || isObject(v);

function bad(source: string, message: string): PushlabError {
  return new PushlabError('PUSHLAB_BAD_REPORT', `${source}: ${message}`);
}

function need(obj: Record<string, unknown>, path: string, key: string, check: Check, what: string, source: string): void {
  if (!check(obj[key])) throw bad(source, `${path}${key} must be ${what}, got ${describeValue(obj[key])}`);
}

/** Parses report.json text; the error names the source and what is wrong. */
export function parseReportText(text: string, source: string): Report {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw bad(source, `not valid JSON: ${syntaxErrorText(parsed.error)}`);
  return parseReport(parsed.value, source);
}

/** Checks parsed JSON is a report this build can show, and returns it typed. */
export function parseReport(data: unknown, source: string): Report {
  if (!isObject(data)) throw bad(source, `expected a JSON object, got ${describeValue(data)}`);
  if (data.schemaVersion === undefined) throw bad(source, 'has no schemaVersion; is it a pushlab report.json?');
  if (data.schemaVersion !== READABLE_SCHEMA_VERSION) {
    throw bad(source, `this build reads schemaVersion ${READABLE_SCHEMA_VERSION}; got ${describeValue(data.schemaVersion)}`);
  }
  need(data, '', 'runId', isString, 'a string', source);
  need(data, '', 'startedAt', isString, 'a string', source);
  need(data, '', 'finishedAt', (v) => v === null || isString(v), 'a string or null', source);
  need(data, '', 'interrupted', isBoolean, 'true or false', source);
  need(data, '', 'scenarios', isStringArray, 'an array of scenario ids', source);
  need(data, '', 'environment', isObject, 'an object', source);
  const env = data.environment as Record<string, unknown>;
  for (const key of ['chromeVersion', 'nodeVersion', 'cpuModel', 'platform']) need(env, 'environment.', key, isString, 'a string', source);
  need(env, 'environment.', 'cores', isNumber, 'a number', source);
  need(env, 'environment.', 'headless', isBoolean, 'true or false', source);
  need(env, 'environment.', 'networkEnabled', isBoolean, 'true or false', source);
  need(env, 'environment.', 'launchArgs', isStringArray, 'an array of strings', source);
  need(data, '', 'options', isObject, 'an object', source);
  for (const key of ['rounds', 'points', 'comparisons', 'saturation']) need(data, '', key, isArray, 'an array', source);
  (data.points as unknown[]).forEach((p, i) => {
    const at = `points[${i}].`;
    if (!isObject(p)) throw bad(source, `points[${i}] must be an object, got ${describeValue(p)}`);
    need(p, at, 'verdict', isString, 'a string', source);
    need(p, at, 'notes', isStringArray, 'an array of strings', source);
    need(p, at, 'unsteady', isArray, 'an array', source);
    need(p, at, 'summary', isObjectOrNull, 'an object or null', source);
    need(p, at, 'point', isObject, 'an object', source);
    const point = p.point as Record<string, unknown>;
    for (const key of ['id', 'scenario', 'transport', 'render']) need(point, `${at}point.`, key, isString, 'a string', source);
    for (const key of ['batch', 'concurrency', 'intervalMs', 'offeredEventsPerSec']) need(point, `${at}point.`, key, isNumber, 'a number', source);
    need(p, at, 'repeats', isArray, 'an array', source);
    (p.repeats as unknown[]).forEach((r, j) => {
      if (!isObject(r)) throw bad(source, `${at}repeats[${j}] must be an object, got ${describeValue(r)}`);
      need(r, `${at}repeats[${j}].`, 'status', (v) => v === 'ok' || v === 'failed', "'ok' or 'failed'", source);
      need(r, `${at}repeats[${j}].`, 'round', isNumber, 'a number', source);
    });
  });
  (data.comparisons as unknown[]).forEach((c, i) => {
    if (!isObject(c)) throw bad(source, `comparisons[${i}] must be an object, got ${describeValue(c)}`);
    for (const key of ['a', 'b', 'text']) need(c, `comparisons[${i}].`, key, isString, 'a string', source);
  });
  if (data.knobs !== undefined) {
    need(data, '', 'knobs', isArray, 'an array', source);
    (data.knobs as unknown[]).forEach((c, i) => {
      if (!isObject(c)) throw bad(source, `knobs[${i}] must be an object, got ${describeValue(c)}`);
      for (const key of ['a', 'b', 'text', 'knob', 'from', 'to', 'context']) need(c, `knobs[${i}].`, key, isString, 'a string', source);
    });
  }
  return data as unknown as Report;
}
