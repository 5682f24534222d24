/**
 * The report viewer's pure parts: formatting, loading checks and every view, against a small
 * report shaped like a real 2-core sweep of the `batch` scenario (one point failed).
 */
import { describe, expect, it } from 'vitest';
import type { MeasuredRepeat, PointResult, Report } from '../protocol/report.js';
import { formatCompact, formatEps, formatMs, formatPercent, formatRatio, formatTimestamp, MISSING } from '../web/src/report/format.js';
import { parseReport, ReportError, reportUrlFromSearch, runNamesFromListing, runReportUrl } from '../web/src/report/load.js';
import { REFERENCE_FIGURES } from '../protocol/reference.js';
import {
  latencyBoxes,
  logAxis,
  logPosition,
  pointsTableColumns,
  pointsTableRows,
  referenceLabel,
  runHeader,
  runSummary,
  seriesByScenario,
  type BarScenario,
  type LineScenario,
} from '../web/src/report/views.js';

type Point = PointResult['point'];

function point(transport: Point['transport'], batch: number, concurrency = 10, scenario = 'batch'): Point {
  return {
    id: `${scenario}/${transport}-b${batch}-c${concurrency}-i1-full`,
    scenario,
    transport,
    batch,
    concurrency,
    intervalMs: 1,
    render: 'full',
    parse: 'main',
    workers: 0,
    warmupSec: 2,
    measureSec: 5,
    repeats: 1,
    offeredEventsPerSec: batch * concurrency * 1000,
  };
}

/** A point measured once (round 0): the viewer shows its one repeat. */
function measured(p: Point, eps: number, tabMain: number, tabProcess: number, p50: number): PointResult {
  const offered = p.offeredEventsPerSec;
  const repeat: MeasuredRepeat = {
    status: 'ok',
    round: 0,
    attempts: 1,
    verdict: eps / offered > 0.98 ? 'ok' : 'client-bound',
    notes: eps / offered > 0.98 ? [] : [`tab main thread ${tabMain} % busy`],
    startedAt: '2026-11-22T01:30:05.000Z',
    windowSec: 5.01,
    settleSec: 0.25,
    ceilingEventsPerSec: null,
    ceilingRatio: null,
    efficiency: { eventsPerCpuSecRenderer: null, eventsPerCpuSecMainThread: null, eventsPerCpuSecChrome: null, rendererCpuMsPerMillionEvents: null },
    eventsPerSec: eps,
    batchesPerSec: eps / p.batch,
    megabytesPerSec: (eps * 121) / 1e6,
    deliveredRatio: eps / offered,
    page: {
      events: eps * 5,
      batches: (eps * 5) / p.batch,
      bytes: eps * 5 * 121,
      gaps: 0,
      duplicates: 0,
      reconnects: 0,
      errors: 0,
      perConnectionBatchesPerSec: { min: 98, median: 100, max: 101 },
    },
    latency: { count: 24_800, minMs: 0.21, p25Ms: 0.35, p50Ms: p50, p75Ms: p50 * 1.6, p95Ms: p50 * 4, p99Ms: p50 * 9, maxMs: 48.3, meanMs: p50 * 1.3 },
    cpu: {
      chrome: { browser: 3.1, renderers: tabProcess + 2, network: 21.4, gpu: 0, other: 0.4, total: tabProcess + 27 },
      tabProcess,
      tabMainThread: tabMain,
      tabThreads: null,
      server: 38.2,
      host: 171.5,
    },
    server: {
      eventsSent: offered * 5,
      batchesSent: (offered * 5) / p.batch,
      batchesShed: 0,
      eventsPerSec: offered,
      pacingRatio: 0.999,
      batchesBehind: 0,
      eventLoopUtilization: 0.41,
      latenessMs: { p50: 0.6, p99: 2.9, max: 6.1 },
      rssBytes: 98_000_000,
    },
  };
  return { point: p, repeats: [repeat], summary: null, verdict: repeat.verdict, unsteady: [], notes: repeat.notes };
}

const failed: PointResult = {
  point: point('ws', 400),
  repeats: [
    {
      status: 'failed',
      round: 0,
      error: 'page did not open 10 connections within 10000 ms (7 open)',
      attempts: 2,
      verdict: 'failed',
      notes: [],
      startedAt: '2026-11-22T01:31:10.000Z',
    },
  ],
  summary: null,
  verdict: 'failed',
  unsteady: [],
  notes: [],
};

const REPORT: Report = {
  schemaVersion: 2,
  interrupted: false,
  resumeCommand: null,
  options: { repeats: 1, seed: 1, auto: false, maxRepeats: 10, timeBudgetSec: null, findMax: false, retries: 1, file: 'scenarios.json' },
  rounds: [
    {
      index: 0,
      seed: 1,
      order: [],
      startedAt: '2026-11-22T01:30:00.000Z',
      finishedAt: '2026-11-22T01:33:12.000Z',
      parseCeilings: [{ batch: 50, eventsPerSec: 1_000_000, messages: 200, bytesPerMessage: 6600, durationMs: 1500 }],
    },
  ],
  comparisons: [],
  saturation: [],
  runId: '20261122-013000',
  startedAt: '2026-11-22T01:30:00.000Z',
  finishedAt: '2026-11-22T01:33:12.400Z',
  scenarios: ['batch'],
  environment: {
    chromeVersion: '142.0.7444.59',
    chromePath: '/usr/bin/chromium',
    nodeVersion: 'v20.20.2',
    platform: 'linux x64',
    cpuModel: 'AMD EPYC 7B13',
    cores: 2,
    memoryBytes: 8 * 1024 ** 3,
    headless: true,
    launchArgs: ['--headless', '--no-sandbox', '--disable-gpu'],
    networkEnabled: false,
    serverUrl: 'https://127.0.0.1:8443',
  },
  points: [
    measured(point('ws', 50), 499_100, 62.5, 81.3, 0.62),
    failed,
    measured(point('sse', 50), 498_700, 66.1, 88.9, 0.71),
    measured(point('sse', 400), 1_523_000, 99.4, 131.7, 4.8),
  ],
};

/** The same run with only the points of batch 50: nothing numeric varies, so bars. */
const SINGLE: Report = { ...REPORT, points: REPORT.points.filter((r) => r.point.batch === 50) };

describe('format', () => {
  it('writes numbers with units and SI prefixes', () => {
    expect(formatEps(1_523_000)).toBe('1.52 M EPS');
    expect(formatEps(12_340)).toBe('12.3 k EPS');
    expect(formatEps(850)).toBe('850 EPS');
    expect(formatCompact(999_600)).toBe('1 M');
    expect(formatPercent(95.2)).toBe('95 %');
    expect(formatPercent(7.46)).toBe('7.5 %');
    expect(formatPercent(131.7)).toBe('132 %');
    expect(formatMs(0.4123)).toBe('0.412 ms');
    expect(formatMs(1234.5)).toBe('1,235 ms');
    expect(formatEps(undefined)).toBe(MISSING);
    expect(formatTimestamp('2026-11-22T01:30:00.000Z')).toBe('2026-11-22 01:30:00 UTC');
  });

  it('never rounds a lossy delivered ratio up to 100 %', () => {
    expect(formatRatio(0.9996)).toBe('99.9 %');
    expect(formatRatio(1)).toBe('100 %');
    expect(formatRatio(0.5123)).toBe('51.2 %');
  });
});

describe('load', () => {
  const roundTrip = (r: unknown): unknown => JSON.parse(JSON.stringify(r));

  it('accepts a report and rejects another schema version by name', () => {
    expect(parseReport(roundTrip(REPORT), 'report.json').runId).toBe('20261122-013000');
    expect(() => parseReport({ ...REPORT, schemaVersion: 1 }, '/reports/x/report.json')).toThrow(
      '/reports/x/report.json: schemaVersion is 1; this viewer reads schemaVersion 2',
    );
    expect(() => parseReport([], 'a.json')).toThrow(ReportError);
  });

  it('names the path of a broken field', () => {
    const broken = roundTrip(REPORT) as { points: { point: Record<string, unknown> }[] };
    broken.points[2].point.batch = 'fifty';
    expect(() => parseReport(broken, 'r.json')).toThrow('r.json: points[2].point.batch must be a number, got "fifty"');
  });

  it('reads both listing shapes, newest run first, files dropped', () => {
    expect(runNamesFromListing(['example/', '20261121-230000', 'README.md', '20261122-013000/'])).toEqual([
      '20261122-013000',
      '20261121-230000',
      'example',
    ]);
    expect(runNamesFromListing({ dirs: ['example', '20261122-013000'], files: ['README.md'] })).toEqual(['20261122-013000', 'example']);
    expect(() => runNamesFromListing('<html>')).toThrow(ReportError);
  });

  it('builds run URLs and takes ?report= from this origin only', () => {
    expect(runReportUrl('20261122-013000/')).toBe('/reports/20261122-013000/report.json');
    const page = 'https://127.0.0.1:8443/report.html';
    expect(reportUrlFromSearch('', page)).toBeNull();
    expect(reportUrlFromSearch('?report=/reports/example/report.json', page)).toBe('/reports/example/report.json');
    expect(() => reportUrlFromSearch('?report=https://example.com/r.json', page)).toThrow(/only reports on this server/);
  });
});

describe('run header', () => {
  it('lists the environment and flags a run measured with the Network domain on', () => {
    const header = runHeader(REPORT);
    const value = (label: string) => header.fields.find((f) => f.label === label);
    expect(header.runId).toBe('20261122-013000');
    expect(value('Chrome')?.value).toBe('142.0.7444.59');
    expect(value('Cores')?.value).toBe('2');
    expect(value('Duration')?.value).toBe('3 min 12 s');
    expect(value('CDP Network domain')?.warning).toBeUndefined();
    expect(header.launchArgs).toContain('--no-sandbox');

    const noisy = runHeader({ ...REPORT, finishedAt: null, environment: { ...REPORT.environment, networkEnabled: true } });
    expect(noisy.fields.find((f) => f.label === 'CDP Network domain')?.warning).toMatch(/halve EPS/);
    expect(noisy.fields.find((f) => f.label === 'Finished')?.value).toBe('not finished');
  });

  it('summarises points, failures and the best EPS per transport', () => {
    expect(runSummary(REPORT)).toEqual({
      points: 4,
      ok: 3,
      failed: 1,
      best: [
        { transport: 'ws', eventsPerSec: 499_100, pointId: 'batch/ws-b50-c10-i1-full' },
        { transport: 'sse', eventsPerSec: 1_523_000, pointId: 'batch/sse-b400-c10-i1-full' },
      ],
    });
  });
});

describe('points table', () => {
  it('has one formatted row per point, in report order', () => {
    const rows = pointsTableRows(REPORT);
    expect(rows.map((r) => r.pointId)).toEqual(REPORT.points.map((r) => r.point.id));
    const sse400 = rows[3].cells;
    expect(sse400.eps.text).toBe('1.52 M EPS');
    expect(sse400.offered.text).toBe('4 M EPS');
    expect(sse400.delivered.text).toBe('38.1 %');
    expect(sse400.tabMain.text).toBe('99 %');
    expect(sse400.tabProcess.text).toBe('132 %');
    expect(sse400.host.text).toBe('172 %');
    expect(sse400.p50.text).toBe('4.8 ms');
    expect(sse400.verdict.text).toBe('client-bound');
    expect(sse400.notes.text).toBe('tab main thread 99.4 % busy');
    expect(sse400.error.text).toBe('');
    // Parsed on the main thread: no Worker figures.
    expect(sse400.workers.text).toBe(MISSING);
  });

  it('shows each parsing Worker\'s CPU and the renderer by thread', () => {
    const base = REPORT.points[3];
    const repeat = base.repeats[0] as MeasuredRepeat;
    const withWorkers: PointResult = {
      ...base,
      point: { ...base.point, parse: 'worker', workers: 2 },
      repeats: [{ ...repeat, cpu: { ...repeat.cpu, tabThreads: { main: 4.2, workers: [97.5, 88], io: 12, compositor: 0, pool: 6.1, other: 0.3 } } }],
    };
    const [row] = pointsTableRows({ ...REPORT, points: [withWorkers] });
    expect(row.cells.parse.text).toBe('w2');
    expect(row.cells.workers.text).toBe('98 % / 88 %');
    expect(row.cells.tabProcess.title).toBe('by thread: main 4.2 %, workers 98 % / 88 %, IO 12 %, compositor 0 %, thread pool (GC) 6.1 %, other 0.3 %');
  });

  it('marks a failed point and shows its error instead of numbers', () => {
    const row = pointsTableRows(REPORT)[1];
    expect(row.status).toBe('failed');
    expect(row.cells.eps.text).toBe(MISSING);
    expect(row.cells.p99.text).toBe(MISSING);
    expect(row.cells.error.text).toMatch(/did not open 10 connections/);
    expect(row.cells.verdict.title).toBe('2 attempts');
  });

  it('states the host maximum from the core count, and drops the error column when nothing failed', () => {
    const columns = pointsTableColumns(REPORT);
    expect(columns.find((c) => c.key === 'host')?.label).toBe('host (max 200)');
    expect(columns.some((c) => c.key === 'error')).toBe(true);
    expect(pointsTableColumns(SINGLE).some((c) => c.key === 'error')).toBe(false);
  });
});

describe('scenario series', () => {
  it('plots EPS and tab CPU against batch, one line per transport', () => {
    const [view] = seriesByScenario(REPORT);
    expect(view.kind).toBe('line');
    const line = view as LineScenario;
    expect(line.xFactor).toBe('batch');
    expect(line.fixed).toBe('concurrency 10 · interval 1 ms · render full');
    expect(line.failed).toBe(1);
    expect(line.eps.map((s) => s.label)).toEqual(['ws', 'sse']);
    expect(line.eps[0].points).toEqual([
      { x: 50, y: 499_100, pointId: 'batch/ws-b50-c10-i1-full', failed: false },
      { x: 400, y: null, pointId: 'batch/ws-b400-c10-i1-full', failed: true },
    ]);
    expect(line.cpu.map((s) => s.label)).toEqual(['ws tab main thread', 'ws tab process', 'sse tab main thread', 'sse tab process']);
    expect(line.cpu[3].points.map((p) => p.y)).toEqual([88.9, 131.7]);
    expect(line.reference.map(referenceLabel)).toEqual(['Timeplus Test I: SSE ≈ 3 M EPS @ batch 400 (concurrency 10)']);
  });

  it('uses concurrency when it is what varies, with the Test II figures as reference', () => {
    const conc: Report = {
      ...REPORT,
      scenarios: ['concurrency'],
      points: [10, 30, 60].map((c) => measured(point('sse', 50, c, 'concurrency'), 500_000 * (c / 10), 20 + c, 30 + c, 0.8)),
    };
    const [view] = seriesByScenario(conc) as LineScenario[];
    expect(view.xFactor).toBe('concurrency');
    expect(view.eps[0].points.map((p) => p.x)).toEqual([10, 30, 60]);
    expect(view.reference).toEqual(REFERENCE_FIGURES.filter((f) => f.factor === 'concurrency'));
  });

  it('splits lines by the second factor when batch and concurrency both vary', () => {
    const grid: Report = {
      ...REPORT,
      points: [
        measured(point('ws', 50, 10), 500_000, 50, 60, 1),
        measured(point('ws', 100, 10), 1_000_000, 70, 80, 1),
        measured(point('ws', 50, 20), 1_000_000, 70, 80, 1),
        measured(point('ws', 100, 20), 1_400_000, 95, 120, 2),
      ],
    };
    const [view] = seriesByScenario(grid) as LineScenario[];
    expect(view.xFactor).toBe('batch');
    expect(view.eps.map((s) => [s.label, s.shade])).toEqual([
      ['ws · concurrency 10', 0],
      ['ws · concurrency 20', 1],
    ]);
    expect(view.fixed).toBe('transport ws · interval 1 ms · render full');
  });

  it('falls back to one bar per point when nothing numeric varies', () => {
    const [view] = seriesByScenario(SINGLE);
    expect(view.kind).toBe('bar');
    expect((view as BarScenario).bars.map((b) => [b.label, b.eventsPerSec, b.tabMainThread])).toEqual([
      ['ws', 499_100, 62.5],
      ['sse', 498_700, 66.1],
    ]);
  });
});

describe('latency', () => {
  it('has a box per point that recorded latency, labelled within its scenario', () => {
    const boxes = latencyBoxes(REPORT);
    expect(boxes.map((b) => b.label)).toEqual(['ws · batch 50', 'sse · batch 50', 'sse · batch 400']);
    expect(boxes[2]).toMatchObject({ pointId: 'batch/sse-b400-c10-i1-full', minMs: 0.21, p50Ms: 4.8, maxMs: 48.3 });
    expect(boxes[2].p99Ms).toBeCloseTo(43.2);
  });

  it('puts latencies on a log axis of whole decades, clamping zero to the left edge', () => {
    const axis = logAxis([0.21, 48.3]);
    expect(axis).toEqual({ min: 0.1, max: 100, ticks: [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100] });
    expect(logPosition(1, axis)).toBeCloseTo(1 / 3);
    expect(logPosition(0, axis)).toBe(0);
    expect(logPosition(1e6, axis)).toBe(1);
  });
});
