/**
 * Where the viewer's report comes from, pure (no fetch, no DOM): the data embedded in a
 * self-contained report.html, or, when served, the `/reports/` listing of run directories and
 * each run's report.json. main.ts does the I/O and hands the bytes here.
 */
import { formatEps, formatTimestamp, MISSING } from '../../results/format.js';
import { describeJsonValue } from '../../protocol/json-text.js';
import { parseReport } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { adviceHeadline } from '../../results/advice-words.js';
import { pointsAndRepeats } from './views.js';

/** The served listing of run directories: the main server's /reports/ route, or `npm run report -- --serve`. */
export const LISTING_URL = '/reports/';

/** The report of one run, as a sweep writes it: `reports/<runId>/report.json`. */
export function runReportUrl(name: string): string {
  return `${LISTING_URL}${encodeURIComponent(name.replace(/\/+$/, ''))}/report.json`;
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
    throw new Error(`${source}: expected a JSON array of run names or { dirs: [...] }, got ${describeJsonValue(data)}`);
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

/**
 * A report the viewer can show: the checked one, or, when the check refuses the file, what it
 * holds, with why (`refused`). The CLI views stop at a refusal; the viewer shows what it can
 * read, as each part draws on its own (render.ts), and says what it could not. Only data that is
 * no report at all (not an object) is refused outright.
 */
export interface Readable {
  report: Report;
  /** Why the check refused the file; null when it passed. */
  refused: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function readableReport(data: unknown, source: string): Readable {
  try {
    return { report: parseReport(data, source), refused: null };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (!isObject(data)) throw error;
    return { report: salvaged(data), refused: why };
  }
}

/**
 * A refused report's data, typed as a Report for the parts that can still draw it: the lists every
 * part walks are made lists (and their items objects), so one bad field costs its own part
 * and not all of them. Nothing else is trusted: each part that reads further is guarded.
 */
function salvaged(data: Record<string, unknown>): Report {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const objects = (v: unknown): Record<string, unknown>[] => list(v).filter(isObject);
  const points = objects(data.points).filter((p) => isObject(p.point) && isObject(p) && Array.isArray(p.repeats));
  return {
    ...data,
    runId: typeof data.runId === 'string' ? data.runId : '(no runId)',
    scenarios: list(data.scenarios).filter((x): x is string => typeof x === 'string'),
    rounds: objects(data.rounds),
    points,
    comparisons: objects(data.comparisons),
  } as unknown as Report;
}

const EMBEDDED = 'the report embedded in this file';

/** The JSON a self-contained report.html carries, or null for a served viewer (empty element). */
function embeddedData(text: string | null | undefined): { data: unknown } | null {
  if (text === null || text === undefined || text.trim() === '') return null;
  try {
    return { data: JSON.parse(text) };
  } catch (err) {
    throw new Error(`${EMBEDDED} is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The embedded report through the one check (what the CLI views would read), or null for a served viewer. */
export function embeddedReport(text: string | null | undefined): Report | null {
  const embedded = embeddedData(text);
  return embedded && parseReport(embedded.data, EMBEDDED);
}

/** The embedded report as the viewer shows it: checked, or as far as it reads (readableReport); null for a served viewer. */
export function embeddedReadable(text: string | null | undefined): Readable | null {
  const embedded = embeddedData(text);
  return embedded && readableReport(embedded.data, EMBEDDED);
}

/** One line of the runs index: what a run was, where, and its headline figures. */
export interface RunEntry {
  name: string;
  /** Null when the report could not be read; `error` says why. */
  report: Report | null;
  error: string | null;
  date: string;
  scenarios: string;
  chrome: string;
  machine: string;
  headline: string;
}

/**
 * One line of the index. A run the check refused but that holds a report is listed with why and
 * can still be opened (the viewer shows what it can read); each field that cannot be read is
 * missing and said in `error`. Never an exception: one once hid every other run.
 */
export function runEntry(name: string, report: Report | null, error: string | null = null): RunEntry {
  if (!report) return { name, report: null, error, date: MISSING, scenarios: MISSING, chrome: MISSING, machine: MISSING, headline: MISSING };
  const problems: string[] = error === null ? [] : [error];
  const field = (what: string, read: () => string): string => {
    try {
      return read();
    } catch (e) {
      problems.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      return MISSING;
    }
  };
  const env = (typeof report.environment === 'object' && report.environment !== null ? report.environment : {}) as Partial<Record<string, unknown>>;
  const headline = field('points', () => {
    const best = new Map<string, number>();
    for (const p of report.points) {
      const eps = p.summary?.eventsPerSec.median;
      if (eps !== undefined && eps > (best.get(p.point.transport) ?? -1)) best.set(p.point.transport, eps);
    }
    const failed = report.points.filter((p) => p.summary === null).length;
    return [
      pointsAndRepeats(report),
      ...(report.advice ? [field('advice', () => adviceHeadline(report.advice!))] : [...best].map(([t, eps]) => `best ${t} ${formatEps(eps)}`)),
      ...(failed ? [`${failed} failed`] : []),
      ...(report.interrupted ? ['interrupted'] : []),
    ].join(' · ');
  });
  return {
    name,
    report,
    date: field('startedAt', () => formatTimestamp(report.startedAt)),
    scenarios: field('scenarios', () => report.scenarios.join(', ')),
    // A refused report's environment may be anything: a field it lacks reads as missing, not 'undefined'.
    chrome: known(env.chromeVersion),
    machine: `${known(env.cpuModel)}, ${known(env.cores)} cores, ${known(env.platform)}`,
    headline,
    error: problems.length ? `partly readable: ${problems.join('; ')}` : null,
  };
}

const known = (v: unknown): string => ((typeof v === 'string' && v !== '') || typeof v === 'number' ? String(v) : MISSING);

/** `?run=A&compare=B&scenarios=x,y`: what the served viewer shows. */
export interface ViewRequest {
  run: string | null;
  compare: string | null;
  scenarios: [string, string] | null;
}

export function viewRequest(search: string): ViewRequest {
  const q = new URLSearchParams(search);
  const nonEmpty = (v: string | null) => (v === null || v.trim() === '' ? null : v.trim());
  const pair =
    nonEmpty(q.get('scenarios'))
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean) ?? [];
  if (pair.length !== 0 && pair.length !== 2) throw new Error(`?scenarios= takes two scenario ids, a,b; got '${q.get('scenarios') ?? ''}'`);
  return { run: nonEmpty(q.get('run')), compare: nonEmpty(q.get('compare')), scenarios: pair.length === 2 ? [pair[0], pair[1]] : null };
}
