/**
 * Hostile and large reports for the viewer tests (test/browser/viewer-hostile.test.ts), made from the
 * recorded example run (reports/example/report.json): each is a report the CLI views read, or
 * one the check refuses, that once blanked or froze the viewer.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** A report as plain JSON data: these are edited past what the Report type allows. */
export type Data = Record<string, unknown> & { points: Record<string, unknown>[] };

export const EXAMPLE = path.resolve(import.meta.dirname, '..', '..', 'reports', 'example', 'report.json');

export async function exampleData(): Promise<Data> {
  return JSON.parse(await readFile(EXAMPLE, 'utf8')) as Data;
}

/** Floats to 4 significant digits: a clone's figures need not be exact, and 100,000 points must fit in one page. */
const rounded = (_key: string, v: unknown): unknown => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(4)) : v);

/**
 * `count` points cloned round-robin from the example's, each with a new id in its scenario.
 * Every `measuredEvery`-th keeps its summary and first repeat; the others are failed points
 * (summary null, one failed repeat), so 100,000 points stay near 100 MB of JSON.
 */
export function clonedPoints(base: Data, count: number, measuredEvery = 1): Record<string, unknown>[] {
  const templates = base.points.map(
    (p) => JSON.parse(JSON.stringify({ ...p, notes: [], unsteady: [], repeats: (p.repeats as unknown[]).slice(0, 1) }, rounded)) as Record<string, unknown>,
  );
  const failed = templates.map((t): Record<string, unknown> => ({
    ...t,
    summary: null,
    verdict: 'failed',
    repeats: [{ status: 'failed', round: 0, attempts: 1, verdict: 'failed', notes: [], error: 'page crashed', startedAt: '2026-11-23T14:24:43.451Z' }],
  }));
  const points: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const k = i % templates.length;
    const from = i % measuredEvery === 0 ? templates[k] : failed[k];
    const point = from.point as Record<string, unknown>;
    points.push({ ...from, point: { ...point, id: `${String(point.id)}-n${i}` } });
  }
  return points;
}

/** The example with `count` points (see clonedPoints) and no paired comparisons (their ids are gone). */
export function largeReport(base: Data, count: number, measuredEvery = 1): Data {
  return { ...base, runId: `large-${count}`, points: clonedPoints(base, count, measuredEvery), comparisons: [] };
}
