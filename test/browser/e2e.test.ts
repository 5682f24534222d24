/**
 * End to end, with real parts: `npm run sweep`'s entry point starts the real server in its
 * own process, launches headless Chromium, runs the smoke scenario over WS and SSE in two
 * rounds and writes a report. The smoke load is one this machine handles easily, so the page
 * must receive what the server offered.
 */
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { pairKey, roundOrder, roundSeed } from '../../results/rounds.js';
import { runSweep } from '../helpers/sweep-process.js';

const SEED = 7;

describe('smoke sweep in headless Chromium, two rounds, --json', () => {
  let out: string;
  let report: Report;
  let stdout: string;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-'));
    ({ code, stdout, stderr } = await runSweep(['--scenario', 'smoke', '--repeats', '2', '--seed', String(SEED), '--json', '--out', out], 150_000));
    report = JSON.parse(stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  const repeats = () => report.points.flatMap((p) => p.repeats.filter((r): r is MeasuredRepeat => r.status === 'ok').map((r) => ({ p, r })));

  it("puts exactly one JSON document on stdout, the report as written, and people's output on stderr", async () => {
    expect(code, stderr).toBe(0);
    expect(stdout.trimStart().startsWith('{')).toBe(true);
    expect(stdout.trimEnd().endsWith('}')).toBe(true);
    const [file] = readdirSync(out);
    expect(JSON.parse(await readFile(path.join(out, file, 'report.json'), 'utf8'))).toEqual(report);
    expect(stderr).toMatch(/round 2\/2/);
    expect(stderr).toMatch(/Transports compared, paired by round/);
  });

  it('prints a summary table that fits 120 columns off a terminal, and says where the other columns are', () => {
    const summary = stderr.slice(stderr.indexOf('Medians over the repeats'));
    // The figures lead, the point's EPS right after its id (results/columns.ts LEADING_COLUMNS).
    expect(summary).toMatch(/^\| point +\| +EPS \| .*\| +verdict \|/m);
    for (const line of summary.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
    // The run is named by its directory (--out is not the default); a long path may wrap the line.
    expect(summary.replace(/\s+/g, ' ')).toMatch(/more columns?: report\.html, npm run report -- --wide \S+ \(or --csv\), the sweep's --json\./);
  });

  it('records a finished version 3 report and the environment', () => {
    expect(report.schemaVersion).toBe(4);
    expect(report.finishedAt).not.toBeNull();
    expect(report.interrupted).toBe(false);
    expect(report.resumeCommand).toBeNull();
    expect(report.options).toMatchObject({ repeats: 2, seed: SEED, auto: false, findMax: false, file: 'scenarios.json' });
    expect(report.environment.chromeVersion).toMatch(/Chrome\/\d+/);
    expect(report.environment.nodeVersion).toBe(process.version);
    expect(report.environment.cores).toBe(os.cpus().length);
    expect(report.environment.networkEnabled).toBe(false);
    expect(report.environment.headless).toBe(true);
    expect(report.environment.launchArgs).toContain('--disable-quic');
    expect(report.environment.engine).toBe('chrome');
  });

  it('measures in rounds: every point once per round, in the recorded seeded order, pairs adjacent', () => {
    const points = report.points.map((p) => p.point);
    expect(report.rounds.map((r) => r.index)).toEqual([0, 1]);
    for (const round of report.rounds) {
      expect(round.seed).toBe(roundSeed(SEED, round.index));
      expect(round.order).toEqual(roundOrder(points, round.index, SEED).map((p) => p.id));
      expect([...round.order].sort()).toEqual(points.map((p) => p.id).sort());
      const keys = round.order.map((id) => pairKey(points.find((p) => p.id === id)!));
      // Each pair's two points sit next to each other.
      for (const k of new Set(keys)) expect(keys.lastIndexOf(k) - keys.indexOf(k)).toBe(1);
      // The repeats were measured in that order.
      const started = round.order.map((id) => report.points.find((p) => p.point.id === id)!.repeats.find((r) => r.round === round.index)!.startedAt);
      expect([...started].sort()).toEqual(started);
    }
  });

  it('keeps every repeat with a summary per point and a paired comparison per metric', () => {
    expect(report.points.map((p) => p.point.transport).sort()).toEqual(['sse', 'ws']);
    for (const p of report.points) {
      expect(
        p.repeats.map((r) => `${r.round}:${r.status}`),
        `${p.point.id}: ${JSON.stringify(p.repeats.map((r) => (r.status === 'failed' ? r.error : '')))}`,
      ).toEqual(['0:ok', '1:ok']);
      expect(p.summary?.n).toBe(2);
      expect(p.summary!.eventsPerSec.ciLow).not.toBeNull();
    }
    expect(report.comparisons.map((c) => c.metric).sort()).toEqual(['eventsPerSec', 'rendererCpuMsPerMillionEvents']);
    for (const c of report.comparisons) {
      expect(c.rounds).toEqual([0, 1]);
      expect(c.ratios).toHaveLength(2);
      expect(c.text.length).toBeGreaterThan(0);
    }
  });

  it("measures the in-page JSON.parse ceiling in every round and relates each repeat to its own round's", () => {
    for (const round of report.rounds) {
      expect(round.parseCeilings.map((c) => c.batch)).toEqual([...new Set(report.points.map((p) => p.point.batch))].sort((a, b) => a - b));
      for (const c of round.parseCeilings) {
        expect(c.eventsPerSec).toBeGreaterThan(0);
        expect(c.messages).toBe(200);
      }
    }
    for (const { p, r } of repeats()) {
      const ceiling = report.rounds[r.round].parseCeilings.find((c) => c.batch === p.point.batch)!.eventsPerSec;
      expect(r.ceilingEventsPerSec).toBe(ceiling);
      expect(r.ceilingRatio).toBeCloseTo(r.eventsPerSec / ceiling, 3);
      expect(r.efficiency.eventsPerCpuSecRenderer).toBeCloseTo(r.eventsPerSec / (r.cpu.tabProcess! / 100), -2);
    }
  });

  it('delivers the offered rate within 10% (median of the repeats), with no gaps, shed or duplicates', () => {
    for (const p of report.points) {
      const offered = (p.point.batch * p.point.concurrency * 1000) / p.point.intervalMs;
      expect(p.point.offeredEventsPerSec).toBe(offered);
      // The rate is a timing figure on a shared 2-core host (0.937 was seen with a second test
      // suite running beside this one): the point's median is held to 10%. What proves that
      // nothing is lost are the exact counters below: 0 gaps, 0 shed, 0 duplicates.
      expect(p.summary!.eventsPerSec.median / offered, p.point.id).toBeGreaterThan(0.9);
      expect(p.summary!.eventsPerSec.median / offered, p.point.id).toBeLessThan(1.1);
    }
    for (const { p, r } of repeats()) {
      const id = `${p.point.id} round ${r.round}`;
      expect(r.eventsPerSec / p.point.offeredEventsPerSec, id).toBeGreaterThan(0.75);
      expect(r.eventsPerSec / p.point.offeredEventsPerSec, id).toBeLessThan(1.25);
      expect(r.settleSec, id).toBeGreaterThanOrEqual(0);
      // Exact counters: nothing lost, repeated or shed at a load this light, whatever the host's speed.
      expect(r.page.gaps).toBe(0);
      expect(r.page.duplicates).toBe(0);
      expect(r.page.errors).toBe(0);
      expect(r.server.batchesShed).toBe(0);
      // Event age counts every event (each with its own age), transit every batch.
      expect(r.latency.count).toBe(r.page.events);
      expect(r.transit?.count).toBe(r.page.batches);
      expect(r.latency.p50Ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('reports every CPU figure within 0 … 100 × cores', () => {
    const max = 100 * report.environment.cores;
    for (const { p, r } of repeats()) {
      const c = r.cpu;
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
        expect(Math.abs(sum - c.tabProcess!), `${p.point.id}: threads ${sum} vs process ${c.tabProcess}`).toBeLessThan(0.2 * c.tabProcess! + 5);
      }
      // A page streaming 80k events/s keeps its renderer and the server visibly busy.
      expect(c.tabProcess).toBeGreaterThan(0);
      expect(c.server).toBeGreaterThan(0);
      expect(c.chrome.renderers).toBeGreaterThan(0);
    }
  });
});
