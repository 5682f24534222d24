/**
 * Where the viewer's report comes from, pure (no fetch, no DOM): the data embedded in a
 * self-contained report.html, or, when served, the `/reports/` listing of run directories and
 * each run's report.json. main.ts does the I/O and hands the bytes here.
 */
import { formatEps, formatTimestamp, MISSING } from '../../../results/format.js';
import { describeJsonValue } from '../../../protocol/json-text.js';
import { parseReport } from '../../../protocol/report-check.js';
import type { Report } from '../../../protocol/report.js';
import { adviceHeadline } from '../../../results/advice-words.js';
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

/** The JSON a self-contained report.html carries, or null for a served viewer (empty element). */
export function embeddedReport(text: string | null | undefined): Report | null {
  if (text === null || text === undefined || text.trim() === '') return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`the report embedded in this file is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return parseReport(data, 'the report embedded in this file');
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

export function runEntry(name: string, report: Report | null, error: string | null = null): RunEntry {
  if (!report) return { name, report: null, error, date: MISSING, scenarios: MISSING, chrome: MISSING, machine: MISSING, headline: MISSING };
  const env = report.environment;
  const best = new Map<string, number>();
  for (const p of report.points) {
    const eps = p.summary?.eventsPerSec.median;
    if (eps !== undefined && eps > (best.get(p.point.transport) ?? -1)) best.set(p.point.transport, eps);
  }
  const failed = report.points.filter((p) => p.summary === null).length;
  const headline = [
    pointsAndRepeats(report),
    ...(report.advice ? [adviceHeadline(report.advice)] : [...best].map(([t, eps]) => `best ${t} ${formatEps(eps)}`)),
    ...(failed ? [`${failed} failed`] : []),
    ...(report.interrupted ? ['interrupted'] : []),
  ].join(' · ');
  return {
    name,
    report,
    error: null,
    date: formatTimestamp(report.startedAt),
    scenarios: report.scenarios.join(', '),
    chrome: env.chromeVersion,
    machine: `${env.cpuModel}, ${env.cores} cores, ${env.platform}`,
    headline,
  };
}

/** `?run=A&compare=B&scenarios=x,y`: what the served viewer shows. */
export interface ViewRequest {
  run: string | null;
  compare: string | null;
  scenarios: [string, string] | null;
}

export function viewRequest(search: string): ViewRequest {
  const q = new URLSearchParams(search);
  const nonEmpty = (v: string | null) => (v === null || v.trim() === '' ? null : v.trim());
  const pair = nonEmpty(q.get('scenarios'))?.split(',').map((x) => x.trim()).filter(Boolean) ?? [];
  if (pair.length !== 0 && pair.length !== 2) throw new Error(`?scenarios= takes two scenario ids, a,b; got '${q.get('scenarios') ?? ''}'`);
  return { run: nonEmpty(q.get('run')), compare: nonEmpty(q.get('compare')), scenarios: pair.length === 2 ? [pair[0], pair[1]] : null };
}
