/**
 * `npm run report -- --format benchmark-action-bigger|smaller`: github-action-benchmark's custom
 * JSON of the recorded fixture (test/fixtures/report-v2.json) byte for byte against reviewed
 * golden files, every entry recomputed from the raw repeats, the entries the action's own
 * schema takes, and what has no entry.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarkActionJson, benchmarkActionView, BENCHMARK_ACTION_FORMATS, type BenchmarkEntry } from '../../results/views/benchmark-action.js';
import { PushlabError } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { describe as describeStat } from '../../results/stats.js';
import { summarisePoint } from '../../results/point-summary.js';
import * as v2 from '../helpers/v2-fixture.js';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures');
const load = (): Report => parseReportText(readFileSync(path.join(FIXTURES, 'report-v2.json'), 'utf8'), 'report-v2.json');
const golden = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const measured = (r: Report['points'][number]): MeasuredRepeat[] => r.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok');

/** The action's own reading of an entry (its zod BenchmarkResult) and of a range (extractRangeInfo). */
function actionReads(e: BenchmarkEntry): void {
  expect(
    Object.keys(e).every((k) => ['name', 'unit', 'value', 'range', 'extra'].includes(k)),
    Object.keys(e).join(),
  ).toBe(true);
  expect(typeof e.name).toBe('string');
  expect(typeof e.unit).toBe('string');
  expect(Number.isFinite(e.value)).toBe(true);
  if (e.range !== undefined) expect(Number(/(?:\+-|±)\s*(\d.*)/.exec(e.range)?.[1])).toBeGreaterThan(0);
  if (e.extra !== undefined) expect(typeof e.extra).toBe('string');
}

describe('github-action-benchmark JSON', () => {
  it.each(Object.keys(BENCHMARK_ACTION_FORMATS) as (keyof typeof BENCHMARK_ACTION_FORMATS)[])('%s matches the reviewed golden file exactly', (format) => {
    const { text, skipped } = benchmarkActionJson(load(), format);
    expect(text).toBe(golden(`report-v2.${format}.golden.json`));
    expect(skipped).toEqual([]);
  });

  it('bigger: events/s per point, the median of the raw repeats, ± half the CI of the mean', () => {
    const r = load();
    const { entries } = benchmarkActionView(r, 'bigger');
    expect(entries.map((e) => e.name)).toEqual(r.points.map((p) => `${p.point.id} eventsPerSec`));
    r.points.forEach((p, i) => {
      const s = describeStat(measured(p).map((x) => x.eventsPerSec));
      const e = entries[i];
      actionReads(e);
      expect(e.unit).toBe('events/s');
      expect(e.value).toBe(s.median);
      expect(e.range).toBe(`± ${Number(((s.ciHigh! - s.ciLow!) / 2).toPrecision(3))}`);
      expect(e.extra).toContain(`median of 3 repeats; 95% CI of the mean `);
      expect(e.extra).toContain(`verdict ${p.verdict}`);
      expect(e.extra).toContain(`run ${r.runId}`);
    });
  });

  it('smaller: renderer CPU per event and p99 per point, names unique across both files', () => {
    const r = load();
    const { entries } = benchmarkActionView(r, 'smaller');
    expect(entries.map((e) => [e.name, e.unit])).toEqual(
      r.points.flatMap((p) => [
        [`${p.point.id} rendererCpuMsPerMillionEvents`, 'ms of CPU per million events'],
        [`${p.point.id} latencyP99Ms`, 'ms'],
      ]),
    );
    r.points.forEach((p, i) => {
      expect(entries[2 * i].value).toBe(describeStat(measured(p).map((x) => x.efficiency.rendererCpuMsPerMillionEvents!)).median);
      expect(entries[2 * i + 1].value).toBe(describeStat(measured(p).map((x) => x.latency.p99Ms!)).median);
    });
    entries.forEach(actionReads);
    const names = [...entries, ...benchmarkActionView(r, 'bigger').entries].map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('a point with no measured repeat, or a figure not measured, has no entry and is named in skipped; one repeat has no range', () => {
    const ok = v2.point('ws', 100);
    const one = v2.point('sse', 100);
    const dead = v2.point('ws', 200);
    const okRepeats = [0, 1, 2].map((round) => v2.measured(ok, { round, eps: 900_000 + round }));
    const noLatency = okRepeats.map((x) => ({ ...x, latency: { ...x.latency, p99Ms: null } }));
    const oneRepeat = [v2.measured(one, { round: 0, eps: 500_000 })];
    const report = v2.report([
      { ...v2.result(ok, noLatency), ...summarisePoint(ok, noLatency) },
      { ...v2.result(one, oneRepeat), ...summarisePoint(one, oneRepeat) },
      { ...v2.result(dead, [v2.failed(0)]), ...summarisePoint(dead, [v2.failed(0)]) },
    ]);
    const smaller = benchmarkActionView(report, 'smaller');
    expect(smaller.entries.map((e) => e.name)).toEqual([
      `${ok.id} rendererCpuMsPerMillionEvents`,
      `${one.id} rendererCpuMsPerMillionEvents`,
      `${one.id} latencyP99Ms`,
    ]);
    expect(smaller.skipped).toEqual([
      `${ok.id} latencyP99Ms: not measured`,
      `${dead.id} rendererCpuMsPerMillionEvents: no measured repeat (failed)`,
      `${dead.id} latencyP99Ms: no measured repeat (failed)`,
    ]);
    const bigger = benchmarkActionView(report, 'bigger');
    expect(bigger.entries[1]).toEqual({
      name: `${one.id} eventsPerSec`,
      unit: 'events/s',
      value: 500_000,
      extra: `1 repeat: no CI\nverdict ${report.points[1].verdict}\nrun ${report.runId}`,
    });
  });

  it('refuses a run with nothing to chart, and two points of one id, with PUSHLAB_BAD_REPORT', () => {
    const dead = v2.point('ws', 200);
    const allFailed = v2.report([{ ...v2.result(dead, [v2.failed(0)]), ...summarisePoint(dead, [v2.failed(0)]) }]);
    expect(() => benchmarkActionJson(allFailed, 'benchmark-action-bigger')).toThrow(PushlabError);
    expect(() => benchmarkActionJson(allFailed, 'benchmark-action-bigger')).toThrow(
      `run ${allFailed.runId} has no measured figure for customBiggerIsBetter (${dead.id} eventsPerSec: no measured repeat (failed)); nothing to chart`,
    );
    const r = load();
    const twice = { ...r, points: [...r.points, r.points[0]] };
    expect(() => benchmarkActionView(twice, 'smaller')).toThrow(`points[${r.points.length}].point.id '${r.points[0].point.id}' is also points[0]'s`);
  });

  it('writes a control character in an id as its escape, not raw', () => {
    const r = load();
    r.points[0].point.id = 'smoke/\u001b]0;pwned\u0007ws';
    const [e] = benchmarkActionView(r, 'bigger').entries;
    expect(e.name).toBe('smoke/\\u001b]0;pwned\\u0007ws eventsPerSec');
  });
});
