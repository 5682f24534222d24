/**
 * Runs points one after another in one browser and emits what happens; it never prints.
 * Per point: a fresh page (a new renderer state, nothing left over from the last point),
 * every connection open before the clock starts, a warm-up outside the samples, then one
 * measured window between two samples.
 */
import { EventEmitter } from 'node:events';
import type { Browser, CDPSession } from 'puppeteer-core';
import type { PageConfig, PointResult } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { openLabPage, type LabApi } from './lab-page.js';
import { takeSample, type SampleSources } from './sampler.js';
import { settle, settleBudgetMs, unsettledNote, type SettleProbe } from './settle.js';
import type { ServerHandle } from './server-process.js';
import { summarise } from './summarise.js';

export interface RunnerEvents {
  'point-start': [point: Point, index: number, total: number];
  'point-attempt-failed': [point: Point, attempt: number, error: Error];
  'point-done': [result: PointResult, index: number, total: number];
}

export interface RunnerOptions {
  browser: Browser;
  /** Browser-level CDP session: SystemInfo lives there, not on page sessions. */
  browserSession: CDPSession;
  server: ServerHandle;
  cores: number;
  /** Extra tries for a failed point before it is recorded as failed. */
  retries: number;
  /** Slack on top of warm-up + window before a point is abandoned, ms. */
  pointSlackMs?: number;
  /** The page to measure, relative to the server URL: the lab page unless a bench says otherwise. */
  pagePath?: string;
  /** In-page JSON.parse ceiling (events/s) by batch size, for each point's ceilingRatio. */
  ceilings?: ReadonlyMap<number, number>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Runner extends EventEmitter<RunnerEvents> {
  constructor(private readonly o: RunnerOptions) {
    super();
  }

  async run(points: readonly Point[], onResult: (r: PointResult) => Promise<void>): Promise<PointResult[]> {
    const results: PointResult[] = [];
    for (const [i, point] of points.entries()) {
      this.emit('point-start', point, i, points.length);
      const result = await this.runWithRetries(point);
      results.push(result);
      await onResult(result);
      this.emit('point-done', result, i, points.length);
    }
    return results;
  }

  private async runWithRetries(point: Point): Promise<PointResult> {
    const startedAt = new Date().toISOString();
    let lastError: Error = new Error('not run');
    for (let attempt = 1; attempt <= 1 + this.o.retries; attempt++) {
      try {
        return await withTimeout(this.measure(point, startedAt, attempt), this.pointBudgetMs(point), point.id);
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        this.emit('point-attempt-failed', point, attempt, lastError);
      }
    }
    return { point, status: 'failed', error: lastError.message, attempts: 1 + this.o.retries, verdict: 'failed', notes: [], startedAt };
  }

  private pointBudgetMs(point: Point): number {
    return (point.warmupSec + point.measureSec) * 1000 + settleBudgetMs(point.warmupSec) + (this.o.pointSlackMs ?? 60_000);
  }

  /** Page latency over the next `ms`, and the server's pacing debt at its end. */
  private async probe(api: LabApi, ms: number): Promise<SettleProbe> {
    const snapshot = (reset: boolean) => api.evaluate((p, r) => p.snapshot({ resetLatency: r }), reset);
    await snapshot(true);
    await sleep(ms);
    const [s, server] = await Promise.all([snapshot(true), this.o.server.stats(false)]);
    return { p50Ms: s?.latency.p50Ms ?? null, batchesBehind: server.batchesBehind };
  }

  private async measure(point: Point, startedAt: string, attempt: number): Promise<PointResult> {
    const page = await this.o.browser.newPage();
    try {
      const pageSession = await page.createCDPSession();
      await pageSession.send('Performance.enable');
      const api = await openLabPage(page, new URL(this.o.pagePath ?? '', this.o.server.url).href);
      const config: PageConfig = {
        transport: point.transport,
        batch: point.batch,
        intervalMs: point.intervalMs,
        concurrency: point.concurrency,
        render: point.render,
        parse: point.parse,
        workers: Math.max(1, point.workers),
      };
      // Functions passed to evaluate() run in the page: they cannot close over anything here.
      await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
      await sleep(point.warmupSec * 1000);
      const settled = await settle((ms) => this.probe(api, ms), {
        intervalMs: point.intervalMs,
        concurrency: point.concurrency,
        budgetMs: settleBudgetMs(point.warmupSec),
      });
      const src: SampleSources = { api, pageSession, browserSession: this.o.browserSession, serverStats: (reset) => this.o.server.stats(reset) };
      const a = await takeSample(src, true);
      await sleep(point.measureSec * 1000);
      const b = await takeSample(src, true);
      await api.evaluate((p) => p.stop());
      const result = summarise(point, a, b, { startedAt, attempts: attempt, cores: this.o.cores, ceilingEventsPerSec: this.o.ceilings?.get(point.batch) });
      result.settleSec = Math.round(settled.waitedMs) / 1000;
      if (!settled.settled) result.notes.push(unsettledNote(settled));
      return result;
    } finally {
      await page.close().catch(() => undefined);
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]);
}
