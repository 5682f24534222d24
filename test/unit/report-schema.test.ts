/**
 * One schema bump for the round (version 3), with version 2 converted on read by the one check
 * (protocol/report-check.ts): a version 2 report opens in every reader (the CLI's, the viewer's
 * loader) as version 3, gives the views the same output as before, compares against a version
 * 3 run, and the example the viewer ships is version 3. Another version is refused, naming it
 * and what this build reads. (Resuming a version 2 sweep: test/browser/sweep-resume.test.ts; the CLI:
 * test/commands/report-cli.test.ts.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareReports } from '../../results/compare.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { PushlabError } from '../../protocol/errors.js';
import { parseReport, parseReportText, READABLE_SCHEMA_VERSIONS } from '../../protocol/report-check.js';
import { SCHEMA_VERSION, type Report } from '../../protocol/report.js';
import { formatComparison, formatTable } from '../../results/views/terminal.js';
import { embeddedReport } from '../../web/report/load.js';
import { scaledReport } from '../helpers/v2-fixture.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const v2Text = readFileSync(path.join(ROOT, 'test', 'fixtures', 'report-v2.json'), 'utf8');
const v2Raw = (): Record<string, unknown> => JSON.parse(v2Text) as Record<string, unknown>;

/** `r` with the version 4 conversion's mark taken off its repeats: what else it holds is as written. */
const unmarked = (r: Report) => ({
  ...r,
  points: r.points.map((p) => ({ ...p, repeats: p.repeats.map((x) => (x.status === 'ok' ? (({ latencyBook: _b, ...rest }) => rest)(x) : x)) })),
});

describe('schemaVersion 4, and 2 and 3 converted on read', () => {
  it('writes 4 and reads 2, 3 and 4', () => {
    expect(SCHEMA_VERSION).toBe(4);
    expect(READABLE_SCHEMA_VERSIONS).toEqual([2, 3, 4]);
  });

  it("a version 3 report's measured repeats are marked as transit (what its latency was), its failed ones and the rest as written", () => {
    const v3 = JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'advise-report.json'), 'utf8')) as Record<string, unknown>;
    expect(v3.schemaVersion).toBe(3);
    const r = parseReport(structuredClone(v3), 'advise-report.json');
    expect(r.schemaVersion).toBe(4);
    const repeats = r.points.flatMap((p) => p.repeats);
    expect(repeats.length).toBeGreaterThan(0);
    for (const x of repeats) expect(x.status === 'ok' ? x.latencyBook : undefined).toBe(x.status === 'ok' ? 'transit' : undefined);
    const { schemaVersion: _a, ...rest } = unmarked(r);
    const { schemaVersion: _b, ...raw } = v3;
    expect(rest).toEqual(raw);
    // Written back (a resumed run) and read again: still marked, now version 4.
    expect(parseReportText(JSON.stringify(r), 'r.json')).toEqual(r);
  });

  it('a version 4 repeat with another latency book is refused, naming the field', () => {
    const r = parseReport(JSON.parse(readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8')), 'example/report.json');
    const edited = structuredClone(r) as unknown as { points: { repeats: Record<string, unknown>[] }[] };
    edited.points[0].repeats[0].latencyBook = 'age';
    expect(() => parseReport(edited, 'r.json')).toThrow(/points\[0\]\.repeats\[0\]\.latencyBook must be/);
  });

  it("a version 2 report opens as version 4: Chrome said, its repeats' latency marked transit, everything else as written, the caller's object untouched", () => {
    const raw = v2Raw();
    const before = structuredClone(raw);
    const r = unmarked(parseReport(raw, 'report-v2.json'));
    expect(raw).toEqual(before);
    expect(r.schemaVersion).toBe(4);
    expect(r.environment.engine).toBe('chrome');
    const {
      schemaVersion: _a,
      environment: { engine: _e, ...env },
      ...rest
    } = r;
    const { schemaVersion: _b, environment: rawEnv, ...rawRest } = before;
    expect(rawEnv).toEqual(env);
    expect(rawRest).toEqual(rest);
  });

  it('gives every view the same output as the version 4 file it is converted to', () => {
    const fromV2 = parseReportText(v2Text, 'report-v2.json');
    const v3Text = JSON.stringify(fromV2, null, 2);
    expect(JSON.parse(v3Text).schemaVersion).toBe(4);
    const v3 = parseReportText(v3Text, 'report-v3.json');
    expect(v3).toEqual(fromV2);
    expect(formatTable(v3, { wide: true })).toBe(formatTable(fromV2, { wide: true }));
    expect(pointsCsv(v3)).toBe(pointsCsv(fromV2));
    expect(repeatsCsv(v3)).toBe(repeatsCsv(fromV2));
  });

  it('a version 2 run compares against a version 4 one, both ways', () => {
    const a = parseReportText(v2Text, 'a/report.json');
    const b = parseReportText(JSON.stringify(scaledReport(a, 0.8)), 'b/report.json');
    expect(b.schemaVersion).toBe(4);
    const cmp = compareReports(a, b);
    expect(cmp.points).toHaveLength(a.points.length);
    expect(cmp.regressions).toBeGreaterThan(0);
    expect(formatComparison(cmp)).toContain('WORSE');
    const back = compareReports(b, a);
    expect(back.regressions).toBe(0);
    expect(back.points).toHaveLength(a.points.length);
  });

  it("the viewer's loader reads a version 2 report embedded in a report.html as version 4", () => {
    const r = embeddedReport(v2Text)!;
    expect(r.schemaVersion).toBe(4);
    expect(r.environment.engine).toBe('chrome');
  });

  it("the example the viewer ships is version 4: the fixture's run, converted", () => {
    const text = readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8');
    expect(JSON.parse(text).schemaVersion).toBe(4);
    expect(parseReportText(text, 'example')).toEqual(parseReportText(v2Text, 'report-v2.json'));
    expect(text).toBe(`${JSON.stringify(parseReportText(v2Text, 'report-v2.json'), null, 2)}\n`);
  });

  it.each([
    [5, 'r.json: this build reads schemaVersion 4, and 2, 3 converted to it on read; got 5, written by a newer pushlab: read it with that one'],
    [1, 'r.json: this build reads schemaVersion 4, and 2, 3 converted to it on read; got 1'],
    ['4', 'r.json: this build reads schemaVersion 4, and 2, 3 converted to it on read; got "4"'],
    [2.5, 'r.json: this build reads schemaVersion 4, and 2, 3 converted to it on read; got 2.5'],
  ])('refuses schemaVersion %j with PUSHLAB_BAD_REPORT naming it and what is read', (version, message) => {
    const data = { ...v2Raw(), schemaVersion: version };
    expect(() => parseReport(data, 'r.json')).toThrow(message);
    try {
      parseReport(data, 'r.json');
    } catch (err) {
      expect(err).toBeInstanceOf(PushlabError);
      expect((err as PushlabError).code).toBe('PUSHLAB_BAD_REPORT');
    }
  });

  it('quotes a refused version as the file writes it', () => {
    expect(() => parseReportText(v2Text.replace('"schemaVersion": 2', '"schemaVersion": 5.0e0'), 'r.json')).toThrow('got 5.0e0, written by a newer pushlab');
  });

  it('checks the fields version 3 adds where a report has them: engine, advice', () => {
    type Raw = Record<string, unknown> & { environment: Record<string, unknown>; points: { point: Record<string, unknown> }[] };
    const bad = (edit: (r: Raw) => void) => {
      const data = JSON.parse(v2Text) as Raw;
      data.schemaVersion = 3;
      edit(data);
      return () => parseReport(data, 'r.json');
    };
    expect(bad((r) => (r.environment.engine = 'safari'))).toThrow("r.json: environment.engine must be one of 'chrome', 'firefox', got \"safari\"");
    expect(bad((r) => (r.points[1].point.engine = 7))).toThrow("r.json: points[1].point.engine must be one of 'chrome', 'firefox', got 7");
    expect(bad((r) => (r.advice = []))).toThrow('r.json: advice must be an object, got []');
    const firefox = parseReport({ ...v2Raw(), schemaVersion: 3, environment: { ...(v2Raw().environment as object), engine: 'firefox' } }, 'r.json');
    expect(firefox.environment.engine).toBe('firefox');
  });

  it("checks the sustains rule's repeat fields where a report has them: histogram, trend, loss (issue 33)", () => {
    type Raw = Record<string, unknown> & { points: { repeats: Record<string, unknown>[] }[] };
    const withRepeat = (edit: (r: Record<string, unknown>) => void) => {
      const data = JSON.parse(v2Text) as Raw;
      data.schemaVersion = 3;
      edit(data.points[0].repeats[0]);
      return () => parseReport(data, 'r.json');
    };
    const histogram = { count: 3, minUs: 900, maxUs: 5000, sumUs: 7000, buckets: [120, 300, 500], counts: [1, 1, 1] };
    expect(
      withRepeat((r) => ((r.latencyHistogram = histogram), (r.trend = { backlogStartMs: 3, backlogEndMs: 4, firstHalfMeanMs: 2, secondHalfMeanMs: null }))),
    ).not.toThrow();
    expect(withRepeat((r) => (r.latencyHistogram = { ...histogram, counts: [1, 1] }))).toThrow('buckets and counts must be the same length, got 3 and 2');
    expect(withRepeat((r) => (r.latencyHistogram = { ...histogram, buckets: [300, 120, 500] }))).toThrow('buckets must be ascending, got 300 then 120');
    expect(withRepeat((r) => (r.latencyHistogram = { ...histogram, count: 4 }))).toThrow('counts must add up to count 4, got 3');
    expect(withRepeat((r) => (r.page = { ...(r.page as object), closedMs: 'long' }))).toThrow('closedMs must be a number');
  });

  it('a version 3 report without an engine stays without one (absent: chrome, by the type)', () => {
    const r = parseReport({ ...v2Raw(), schemaVersion: 3 }, 'r.json');
    expect(r.environment.engine).toBeUndefined();
  });
});
