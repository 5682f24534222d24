/**
 * End to end, with real parts: `npm run sweep`'s entry point starts the real server in its
 * own process, launches headless Chromium, runs the smoke scenario over WS and SSE and
 * writes a report. The smoke load is one this machine handles easily, so the page must
 * receive what the server offered.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../protocol/report.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

describe('smoke sweep in headless Chromium', () => {
  let out: string;
  let report: Report;
  let stdout: string;

  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-'));
    const r = await run(process.execPath, ['--import', 'tsx', 'puppeteer/sweep.ts', '--scenario', 'smoke', '--out', out], {
      cwd: ROOT,
      timeout: 150_000,
    });
    stdout = r.stdout;
    const reportPath = stdout.trim().split('\n').at(-1)!;
    report = JSON.parse(await readFile(reportPath, 'utf8')) as Report;
  }, 180_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('prints the report path last and records the environment', () => {
    expect(stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^${out}/\\d{8}-\\d{6}/report\\.json$`));
    expect(report.schemaVersion).toBe(1);
    expect(report.finishedAt).not.toBeNull();
    expect(report.environment.chromeVersion).toMatch(/Chrome\/\d+/);
    expect(report.environment.nodeVersion).toBe(process.version);
    expect(report.environment.cores).toBe(os.cpus().length);
    expect(report.environment.networkEnabled).toBe(false);
    expect(report.environment.headless).toBe(true);
    expect(report.environment.launchArgs).toContain('--disable-quic');
  });

  it('measures the in-page JSON.parse ceiling once per batch size and relates each point to it', () => {
    expect(report.parseCeilings.map((c) => c.batch)).toEqual([...new Set(report.points.map((p) => p.point.batch))].sort((a, b) => a - b));
    for (const c of report.parseCeilings) {
      expect(c.eventsPerSec).toBeGreaterThan(0);
      expect(c.messages).toBe(200);
    }
    for (const p of report.points) {
      const ceiling = report.parseCeilings.find((c) => c.batch === p.point.batch)!.eventsPerSec;
      expect(p.ceilingRatio).toBeCloseTo(p.eventsPerSec! / ceiling, 3);
    }
  });

  it('measures both transports', () => {
    expect(report.points.map((p) => p.point.transport).sort()).toEqual(['sse', 'ws']);
    for (const p of report.points) expect(p.status, `${p.point.id}: ${p.error}`).toBe('ok');
  });

  it('delivers the offered rate within 5%, with no gaps or duplicates', () => {
    for (const p of report.points) {
      const offered = (p.point.batch * p.point.concurrency * 1000) / p.point.intervalMs;
      expect(p.point.offeredEventsPerSec).toBe(offered);
      expect(p.eventsPerSec! / offered, p.point.id).toBeGreaterThan(0.95);
      expect(p.eventsPerSec! / offered, p.point.id).toBeLessThan(1.05);
      // The window opens only once both ends caught up with the warm-up's backlog.
      expect(p.settleSec, p.point.id).toBeGreaterThanOrEqual(0);
      expect(p.notes.join('; '), p.point.id).not.toMatch(/still catching up/);
      expect(p.page!.gaps).toBe(0);
      expect(p.page!.duplicates).toBe(0);
      expect(p.page!.errors).toBe(0);
      expect(p.server!.batchesShed).toBe(0);
      // What the page got is what the server sent, up to the batches in flight at the window's edges.
      expect(Math.abs(p.page!.events - p.server!.eventsSent) / p.server!.eventsSent).toBeLessThan(0.05);
      expect(p.latency!.count).toBe(p.page!.batches);
      expect(p.latency!.p50Ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('reports every CPU figure within 0 … 100 × cores', () => {
    const max = 100 * report.environment.cores;
    for (const p of report.points) {
      const c = p.cpu!;
      const figures = { ...c.chrome, tabProcess: c.tabProcess, tabMainThread: c.tabMainThread, server: c.server, host: c.host ?? 0 };
      for (const [name, v] of Object.entries(figures)) {
        expect(v, `${p.point.id} cpu.${name}`).toBeGreaterThanOrEqual(0);
        expect(v, `${p.point.id} cpu.${name}`).toBeLessThanOrEqual(max);
      }
      expect(c.tabMainThread).toBeLessThanOrEqual(100);
      if (process.platform === 'linux') {
        // The kernel's per-thread split of the tab's renderer adds up to what CDP says the process used.
        const t = c.tabThreads!;
        expect(t.main, p.point.id).toBeGreaterThan(0);
        expect(t.workers).toEqual([]);
        const sum = t.main + t.io + t.compositor + t.pool + t.other;
        expect(Math.abs(sum - c.tabProcess), `${p.point.id}: threads ${sum} vs process ${c.tabProcess}`).toBeLessThan(0.2 * c.tabProcess + 5);
      }
      // A page streaming 80k events/s keeps its renderer and the server visibly busy.
      expect(c.tabProcess).toBeGreaterThan(0);
      expect(c.server).toBeGreaterThan(0);
      expect(c.chrome.renderers).toBeGreaterThan(0);
    }
  });
});
