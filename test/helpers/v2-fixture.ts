/**
 * Builders for fixtures of the repeats-and-statistics schema (version 2 on, as this build
 * writes it: SCHEMA_VERSION) with figures chosen by the test, so expected statistics can be
 * computed by hand. Not a test file itself.
 */
import type { FailedRepeat, MeasuredRepeat } from '../../protocol/repeat-figures.js';
import { SCHEMA_VERSION, type PointResult, type Report } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { efficiencyOf } from '../../results/cpu.js';
import { describe as describeStat } from '../../results/stats.js';

export function point(transport: Point['transport'], batch: number, concurrency = 10, scenario = 'test1-batch', intervalMs = 1): Point {
  return {
    id: `${scenario}/${transport}-b${batch}-c${concurrency}-i${intervalMs}-full`,
    scenario,
    transport,
    batch,
    concurrency,
    intervalMs,
    render: 'full',
    parse: 'main',
    workers: 0,
    warmupSec: 2,
    measureSec: 5,
    repeats: 3,
    offeredEventsPerSec: (batch * concurrency * 1000) / intervalMs,
  };
}

export interface RepeatFigures {
  round: number;
  eps: number;
  /** Tab renderer CPU, % of one core. */
  tab?: number;
  p99?: number;
  shed?: number;
  verdict?: MeasuredRepeat['verdict'];
  notes?: string[];
  startedBehind?: boolean;
}

export function measured(p: Point, f: RepeatFigures): MeasuredRepeat {
  const tab = f.tab ?? 80;
  const cpu = {
    chrome: { browser: 3, renderers: tab + 2, network: 20, gpu: 0, other: 0.5, total: tab + 25.5 },
    tabProcess: tab,
    tabMainThread: Math.min(100, tab * 0.8),
    tabThreads: null,
    server: 35,
    host: 170,
  };
  return {
    status: 'ok',
    verdict: f.verdict ?? 'ok',
    round: f.round,
    startedAt: '2026-11-22T01:30:05.000Z',
    attempts: 1,
    notes: f.notes ?? [],
    ...(f.startedBehind === undefined ? {} : { startedBehind: f.startedBehind }),
    windowSec: 5,
    settleSec: 0.3,
    eventsPerSec: f.eps,
    batchesPerSec: f.eps / p.batch,
    megabytesPerSec: (f.eps * 121) / 1e6,
    deliveredRatio: f.eps / p.offeredEventsPerSec,
    ceilingEventsPerSec: 2_000_000,
    ceilingRatio: f.eps / 2_000_000,
    efficiency: efficiencyOf(f.eps, cpu),
    page: {
      events: f.eps * 5,
      batches: (f.eps * 5) / p.batch,
      bytes: f.eps * 5 * 121,
      gaps: f.shed ?? 0,
      duplicates: 0,
      reconnects: 0,
      errors: 0,
      perConnectionBatchesPerSec: { min: 98, median: 100, max: 101 },
    },
    latency: { count: 1000, minMs: 0.2, p25Ms: 0.4, p50Ms: 1, p75Ms: 2, p95Ms: 5, p99Ms: f.p99 ?? 9, maxMs: 40, meanMs: 1.5 },
    cpu,
    server: {
      eventsSent: p.offeredEventsPerSec * 5,
      batchesSent: (p.offeredEventsPerSec * 5) / p.batch,
      batchesShed: f.shed ?? 0,
      eventsPerSec: p.offeredEventsPerSec,
      pacingRatio: 1,
      batchesBehind: 0,
      eventLoopUtilization: 0.3,
      latenessMs: { p50: 0.1, p99: 1, max: 3 },
      rssBytes: 80e6,
    },
  };
}

export function failed(round: number, error = 'renderer crashed'): FailedRepeat {
  return { status: 'failed', verdict: 'failed', round, startedAt: '2026-11-22T01:31:00.000Z', attempts: 2, notes: [], error, cause: 'renderer crashed' };
}

/** A point result with its repeats; summary, verdict and flags are left to the code under test. */
export function result(p: Point, repeats: PointResult['repeats']): PointResult {
  return { point: p, repeats, summary: null, verdict: 'ok', unsteady: [], notes: [] };
}

export function report(points: PointResult[], extra: Partial<Report> = {}): Report {
  return {
    schemaVersion: SCHEMA_VERSION,
    runId: '2026-11-22T01-30-00-timeplus',
    startedAt: '2026-11-22T01:30:00.000Z',
    finishedAt: '2026-11-22T01:49:00.000Z',
    interrupted: false,
    resumeCommand: null,
    scenarios: ['timeplus'],
    environment: {
      chromeVersion: '156.0.0.0',
      chromePath: '/usr/bin/chromium',
      nodeVersion: 'v20.20.2',
      platform: 'linux',
      cpuModel: 'test CPU',
      cores: 2,
      memoryBytes: 8e9,
      headless: true,
      launchArgs: [],
      networkEnabled: false,
      serverUrl: 'https://127.0.0.1:8443',
    },
    options: { repeats: 3, seed: 1, auto: false, maxRepeats: 10, timeBudgetSec: null, findMax: false, retries: 1, file: 'scenarios.json' },
    rounds: [],
    points,
    comparisons: [],
    saturation: [],
    ...extra,
  };
}

/** A copy of a run that delivered `factor` times the events: EPS and the delivered ratio with it, summaries recomputed. */
export function scaledReport(r: Report, factor: number): Report {
  const copy = structuredClone(r);
  for (const p of copy.points) {
    const ok = p.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok');
    for (const x of ok) {
      x.eventsPerSec *= factor;
      x.deliveredRatio *= factor;
    }
    if (p.summary) {
      p.summary.eventsPerSec = describeStat(ok.map((x) => x.eventsPerSec));
      p.summary.deliveredRatio = describeStat(ok.map((x) => x.deliveredRatio));
    }
  }
  return copy;
}
