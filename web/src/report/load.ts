/**
 * Where the viewer's report comes from, and the one check it makes of what it got. Pure (no
 * fetch, no DOM): main.ts does the I/O and hands the bytes here. Everything after
 * `parseReport` trusts the Report type, so the checks here cover every field a view reads.
 */
import { SCHEMA_VERSION, type Report } from '../../../protocol/report.js';

/** A report that cannot be shown; the message names the source and what is wrong. */
export class ReportError extends Error {
  override name = 'ReportError';
}

/** The server lists `reports/` here (see server/app.ts). */
export const LISTING_URL = '/reports/';

/** The report of one run, as a sweep writes it: `reports/<runId>/report.json`. */
export function runReportUrl(name: string): string {
  return `${LISTING_URL}${encodeURIComponent(name.replace(/\/+$/, ''))}/report.json`;
}

/**
 * The `?report=` parameter resolved against the page, or null when absent. Only same-origin
 * URLs are accepted: the viewer is served next to the reports, and a link that silently
 * fetched from elsewhere would show someone else's numbers under our header.
 */
export function reportUrlFromSearch(search: string, pageHref: string): string | null {
  const raw = new URLSearchParams(search).get('report');
  if (raw === null || raw.trim() === '') return null;
  const page = new URL(pageHref);
  let url: URL;
  try {
    url = new URL(raw, page);
  } catch {
    throw new ReportError(`?report=${raw} is not a URL`);
  }
  if (url.origin !== page.origin) {
    throw new ReportError(`?report=${raw} is on ${url.origin}; only reports on this server (${page.origin}) can be opened this way`);
  }
  return url.pathname + url.search;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Run names from the `/reports/` listing, newest first. Two shapes are accepted: a plain array of
 * names (directories may end in '/'), and `{ dirs, files }`, which is what
 * server/reports.ts actually serves. From a plain array, names that look like files (README.md) are
 * dropped, because only directories hold a report.json.
 */
export function runNamesFromListing(data: unknown, source = LISTING_URL): string[] {
  let names: string[];
  if (isStringArray(data)) {
    names = data.filter((n) => n.endsWith('/') || !/\.[a-z0-9]{1,5}$/i.test(n));
  } else if (data !== null && typeof data === 'object' && isStringArray((data as { dirs?: unknown }).dirs)) {
    names = (data as { dirs: string[] }).dirs;
  } else {
    throw new ReportError(`${source}: expected a JSON array of run names or { dirs: [...] }, got ${describeValue(data)}`);
  }
  const clean = [...new Set(names.map((n) => n.replace(/\/+$/, '')).filter((n) => n !== ''))];
  return sortRunsNewestFirst(clean);
}

/**
 * Run ids are timestamps (`20261122-013000`), so newest first is reverse lexical order for
 * them; named runs (`example`) follow, alphabetically, so they never hide the latest run.
 */
export function sortRunsNewestFirst(names: readonly string[]): string[] {
  const stamped = names.filter((n) => /^\d/.test(n)).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const named = names.filter((n) => !/^\d/.test(n)).sort((a, b) => a.localeCompare(b, 'en'));
  return [...stamped, ...named];
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function need(obj: Record<string, unknown>, path: string, key: string, check: Check, what: string, source: string): void {
  if (!check(obj[key])) throw new ReportError(`${source}: ${path}${key} must be ${what}, got ${describeValue(obj[key])}`);
}

/**
 * Checks parsed JSON is a report this viewer can show, and returns it typed. Not a full schema
 * check: it covers the fields every view dereferences, so a bad file fails here with a path
 * instead of rendering "undefined" halfway down the table.
 */
export function parseReport(data: unknown, source: string): Report {
  if (!isObject(data)) throw new ReportError(`${source}: expected a JSON object, got ${describeValue(data)}`);
  if (data.schemaVersion !== SCHEMA_VERSION) {
    throw new ReportError(
      data.schemaVersion === undefined
        ? `${source}: has no schemaVersion; is it a pushlab report.json?`
        : `${source}: schemaVersion is ${describeValue(data.schemaVersion)}; this viewer reads schemaVersion ${SCHEMA_VERSION}`,
    );
  }
  need(data, '', 'runId', isString, 'a string', source);
  need(data, '', 'startedAt', isString, 'a string', source);
  need(data, '', 'finishedAt', (v) => v === null || isString(v), 'a string or null', source);
  need(data, '', 'scenarios', isStringArray, 'an array of scenario ids', source);
  need(data, '', 'environment', isObject, 'an object', source);
  const env = data.environment as Record<string, unknown>;
  for (const key of ['chromeVersion', 'nodeVersion', 'cpuModel', 'platform']) need(env, 'environment.', key, isString, 'a string', source);
  need(env, 'environment.', 'cores', isNumber, 'a number', source);
  need(env, 'environment.', 'headless', isBoolean, 'true or false', source);
  need(env, 'environment.', 'networkEnabled', isBoolean, 'true or false', source);
  need(env, 'environment.', 'launchArgs', isStringArray, 'an array of strings', source);
  need(data, '', 'points', Array.isArray, 'an array', source);
  (data.points as unknown[]).forEach((p, i) => {
    const at = `points[${i}].`;
    if (!isObject(p)) throw new ReportError(`${source}: points[${i}] must be an object, got ${describeValue(p)}`);
    need(p, at, 'status', (v) => v === 'ok' || v === 'failed', "'ok' or 'failed'", source);
    need(p, at, 'verdict', isString, 'a string', source);
    need(p, at, 'notes', isStringArray, 'an array of strings', source);
    need(p, at, 'point', isObject, 'an object', source);
    const point = p.point as Record<string, unknown>;
    for (const key of ['id', 'scenario', 'transport', 'render']) need(point, `${at}point.`, key, isString, 'a string', source);
    for (const key of ['batch', 'concurrency', 'intervalMs', 'offeredEventsPerSec']) need(point, `${at}point.`, key, isNumber, 'a number', source);
  });
  return data as unknown as Report;
}
