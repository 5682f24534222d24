/**
 * Small real sweeps: a renderer killed mid-repeat is recorded at once with cause
 * 'renderer crashed' and the sweep goes on to its next round; a browser killed mid-repeat is
 * recorded with cause 'browser crashed', a new Chrome is launched and the later rounds are
 * measured in it, in a report that passes the schema check; and a find-max search on a
 * range this machine surely sustains (batch 1…2 on one connection) runs its probes, confirms
 * the top and records the knee. The search algorithm itself is tested in find-max.test.ts.
 *
 * The two crash sweeps run at once (each its own server and Chrome, found by its own process
 * tree): none of their assertions reads a rate, a CPU share or a pace, and each kill waits for
 * its page's streams to be open rather than for a fixed time. The find-max search runs after
 * them, alone: its probes judge input delay, which a neighbour's load moves (beside the crash
 * sweeps its minimum once missed 200 ms, and a confirmed minimum is not what the test expects).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { FailedRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { getJson } from '../../puppeteer/measure/server-process.js';
import { cmdline, descendants, runSweep, startSweep, type SweepRun } from '../helpers/sweep-process.js';

let dir: string;

/** The sweep's server, from its start line (`server https://127.0.0.1:…/, Chrome …`). */
async function serverOf(run: SweepRun): Promise<string> {
  return (await run.waitForStderr(/^server (https:\/\/\S+?\/),/m, 90_000))[1];
}

/**
 * Waits until the page has opened its point's `n` SSE streams (the ceiling's page opens a
 * WebSocket, never SSE): past page load and into the warm-up, which lasts at least 1 s and is
 * followed by the settle wait and the window.
 */
async function streamsOpen(run: SweepRun, server: string, n: number): Promise<void> {
  const until = performance.now() + 60_000;
  for (;;) {
    const stats = await getJson<ServerStats>(`${server}stats`).catch(() => null);
    if (stats && stats.connections.filter((c) => c.transport === 'sse').length >= n) return;
    if (performance.now() > until) throw new Error(`no ${n} SSE streams open within 60 s:\n${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A promise started now and awaited later: a rejection before then is not unhandled. */
function started<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

interface RendererCrash {
  report: Report;
  code: number | null;
  stderr: string;
  killed: string[];
}

async function rendererCrash(): Promise<RendererCrash> {
  const run = startSweep(['--file', path.join(dir, 'scenarios.json'), '--scenario', 'one', '--repeats', '2', '--retries', '0', '--out', dir]);
  const server = await serverOf(run);
  await run.waitForStderr(/\[1\/2\][^\n]*one\/sse-b5-c2-i1-full · started/, 90_000);
  // Past page load and into the warm-up or the window: kill every renderer.
  await streamsOpen(run, server, 2);
  const renderers = descendants(run.child.pid!).filter((pid) => cmdline(pid).includes('--type=renderer'));
  const killed = renderers.map(cmdline);
  for (const pid of renderers) process.kill(pid, 'SIGKILL');
  const t0 = performance.now();
  await run.waitForStderr(/round 1: FAILED/, 20_000);
  // The crash ends the repeat at once, not at the repeat's timeout (a minute past its window).
  expect(performance.now() - t0).toBeLessThan(10_000);
  const { code } = await run.exit;
  const report = JSON.parse(await readFile(run.stdout().trim().split('\n').at(-1)!, 'utf8')) as Report;
  return { report, code, stderr: run.stderr(), killed };
}

interface BrowserCrash {
  report: Report;
  code: number | null;
  stderr: string;
  killed: number;
  chromesAfter: number[];
}

async function browserCrash(): Promise<BrowserCrash> {
  const run = startSweep(['--file', path.join(dir, 'scenarios.json'), '--scenario', 'one', '--repeats', '3', '--retries', '0', '--out', dir]);
  const server = await serverOf(run);
  await run.waitForStderr(/\[1\/3\][^\n]*one\/sse-b5-c2-i1-full · started/, 90_000);
  await streamsOpen(run, server, 2);
  // The browser process itself: the one Chrome process that is not a --type= child.
  const browsers = descendants(run.child.pid!).filter((pid) => /chrom(e|ium)/.test(cmdline(pid)) && !cmdline(pid).includes('--type='));
  expect(browsers).toHaveLength(1);
  const killed = browsers[0];
  process.kill(killed, 'SIGKILL');
  await run.waitForStderr(/round 1: FAILED/, 20_000);
  await run.waitForStderr(/\[2\/3\][^\n]* · started/, 60_000);
  const chromesAfter = descendants(run.child.pid!).filter((pid) => /chrom(e|ium)/.test(cmdline(pid)) && !cmdline(pid).includes('--type='));
  const { code } = await run.exit;
  const report = parseReportText(await readFile(run.stdout().trim().split('\n').at(-1)!, 'utf8'), 'report.json');
  return { report, code, stderr: run.stderr(), killed, chromesAfter };
}

let renderer: Promise<RendererCrash>;
let browser: Promise<BrowserCrash>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-crash-'));
  const file = {
    scenarios: [
      // A 1 s window: the kills wait for the streams, so they land in the warm-up (at least 1 s) or the window.
      { id: 'one', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 1, measureSec: 1 },
      { id: 'knee', transport: 'sse', concurrency: 1, warmupSec: 1, measureSec: 2, findMax: { vary: 'batch', min: 1, max: 2, p99BoundMs: 10_000 } },
    ],
  };
  await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
  renderer = started(rendererCrash());
  browser = started(browserCrash());
});

afterAll(async () => {
  // Both crash sweeps have ended (each describe awaited its own) before their files go.
  await Promise.allSettled([renderer, browser]);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

describe('a renderer killed mid-sweep', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;
  let killed: string[];

  beforeAll(async () => {
    ({ report, code, stderr, killed } = await renderer);
  }, 150_000);

  it('records the repeat as failed with cause renderer crashed, and measures the next round', () => {
    expect(killed.length).toBeGreaterThan(0);
    expect(code, stderr).toBe(EXIT.failed);
    const [point] = report.points;
    expect(point.repeats.map((r) => `${r.round}:${r.status}`)).toEqual(['0:failed', '1:ok']);
    const failed = point.repeats[0] as FailedRepeat;
    expect(failed.cause).toBe('renderer crashed');
    expect(failed.error).toMatch(/^renderer crashed/);
    expect(point.unsteady.map((u) => u.kind)).toContain('failed-repeats');
    expect(report.finishedAt).not.toBeNull();
  });
});

describe('a browser killed mid-sweep', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;
  let killed: number;
  let chromesAfter: number[];

  beforeAll(async () => {
    ({ report, code, stderr, killed, chromesAfter } = await browser);
  }, 180_000);

  it("records the repeat failed with cause 'browser crashed', relaunches Chrome and measures the later rounds", () => {
    expect(code, stderr).toBe(EXIT.failed);
    expect(stderr).toContain('launching it again');
    expect(chromesAfter).toHaveLength(1);
    expect(chromesAfter[0]).not.toBe(killed);
    const [point] = report.points;
    expect(point.repeats.map((r) => `${r.round}:${r.status}`)).toEqual(['0:failed', '1:ok', '2:ok']);
    const failed = point.repeats[0] as FailedRepeat;
    expect(failed.cause).toBe('browser crashed');
    expect(failed.error).toMatch(/^browser crashed/);
    // The rounds after the crash measured their ceiling in the new browser.
    expect(report.rounds.map((r) => r.parseCeilings.length)).toEqual([1, 1, 1]);
    expect(point.summary?.n).toBe(2);
    expect(report.finishedAt).not.toBeNull();
  });
});

describe('--find-max on a real tiny search', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--file', path.join(dir, 'scenarios.json'), '--scenario', 'knee', '--repeats', '1', '--out', dir], 120_000));
    report = JSON.parse(readFileSync(stdout.trim().split('\n').at(-1)!, 'utf8')) as Report;
  }, 150_000);

  it('probes both ends, confirms the top and records the knee with its point ids', () => {
    expect(code, stderr).toBe(EXIT.ok);
    expect(report.points).toEqual([]);
    expect(report.options.repeats).toBe(1);
    const [s] = report.saturation;
    expect(s).toMatchObject({ scenario: 'knee', transport: 'sse', varied: 'batch', fixed: { concurrency: 1 }, range: { min: 1, max: 2 } });
    expect(s.criteria).toEqual({ deliveredRatio: 0.99, shed: 0, p99BoundMs: 10_000, inputDelayBoundMs: 200 });
    // Whether 1 or 2 rows every 1 ms hold ≥ 99% in a 2 s window depends on the machine (a CI
    // run on a busy host once missed it): test the wiring, i.e. that every probe is kept with
    // its point id and raw repeat, and that knee and firstPast follow from what was measured.
    const ids = { 1: 'knee/sse-b1-c1-i1-full', 2: 'knee/sse-b2-c1-i1-full' } as Record<number, string>;
    expect(s.probes.length).toBeGreaterThanOrEqual(1);
    expect(s.probes[0].value).toBe(1);
    for (const p of s.probes) expect(p.pointId).toBe(ids[p.value]);
    // A probe failed on a window one batch from a threshold is measured once more (judged on both):
    // its point's repeat comes twice in a row, and only for a probe that did not sustain.
    const probeRepeats = s.repeats!.filter((r) => r.purpose === 'probe').map((r) => r.pointId);
    const again = probeRepeats.filter((id, i) => i > 0 && probeRepeats[i - 1] === id);
    expect(probeRepeats.filter((id, i) => i === 0 || probeRepeats[i - 1] !== id)).toEqual(s.probes.map((p) => p.pointId));
    for (const id of again) expect(s.probes.find((p) => p.pointId === id)!.sustainable).toBe(false);
    const [low, high] = s.probes;
    // A failed window at the minimum is confirmed before the range is given up (find-max.ts): the
    // search ends there only when its confirmation fails too (a fresh-clone CI once had batch 1's
    // probe at 98.1% delivered, its confirmation holding, and the knee at batch 2).
    if (!low.sustainable) {
      const atMin = s.confirmations!.find((c) => c.value === 1)!;
      expect(atMin, 'the failed minimum is confirmed').toBeDefined();
      expect(s.confirmations![0]).toEqual(atMin);
      if (!atMin.sustainable) {
        expect(s.knee, low.reason).toBeNull();
        expect(s.probes).toHaveLength(1);
        return;
      }
    }
    expect(s.knee).not.toBeNull();
    expect(s.knee!.eventsPerSec.n).toBe(1);
    expect(s.repeats!.some((r) => r.purpose === 'confirm' && r.pointId === s.knee!.pointId)).toBe(true);
    if (s.knee!.value === 2) {
      expect(high.sustainable).toBe(true);
      expect(s.knee!.eventsPerSec.median).toBeGreaterThan(1500);
      expect(s.firstPast).toBeNull();
      expect(stderr).toMatch(/find-max knee sse: knee at batch 2/);
    } else {
      expect(s.knee!.value).toBe(1);
      expect(s.firstPast).toMatchObject({ value: 2, pointId: ids[2] });
      expect(s.firstPast!.reason.length).toBeGreaterThan(0);
    }
  });
});
