/**
 * Fault injection over every command: sweep, advise, lab, report --serve, server, and the benches
 * (bench:server, bench:page). Each run is the real command, started as a person or CI starts it
 * (`npm run <command> -- …`, whose first process is npm and whose worker is the node process
 * running the script) and sent a signal at one moment: while it starts (its server or Chrome
 * still coming up), while it measures (a repeat, a lab recording, a bench cell, a served
 * stream) or while it writes (the sweep's last repeat saved, the final report being written).
 * SIGINT, SIGTERM and SIGHUP go to the first process or to the worker; SIGKILL to either.
 *
 * After each: nothing is left running (no process names the run's own directory, which is its
 * TMPDIR and --out, in its command line or environment), and where the command writes a report,
 * the report is valid (the schema check) and marked interrupted, with the command that finishes
 * it printed; after SIGKILL of the worker it holds what was saved before. No temp file is left.
 *
 * The matrix is chosen so every command, every signal, every moment and both targets appear,
 * in about two minutes: the smallest scenario and the shortest windows. SIGINT to the worker
 * mid-sweep with --resume after it is test/browser/sweep-resume.test.ts; SIGKILL of the sweep, the lab
 * and bench:server at their busiest is test/browser/ownership.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { filesUnder, leftRunning, sleep, startFaultRun, streamsOpened, type FaultRun } from '../helpers/fault-run.js';
import { cmdline, descendants } from '../helpers/sweep-process.js';

const hasXvfb = spawnSync('sh', ['-c', 'command -v xvfb-run'], { stdio: 'ignore' }).status === 0;
/** A repeat long enough (1 s warm-up, 2 s window) for a signal sent once its page streams to land inside it. */
const TINY = { scenarios: [{ id: 'tiny', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 1, measureSec: 2 }] };
/** The shortest repeat, for a test that waits for one to be saved: no signal lands inside it. */
const SHORT = { scenarios: [{ id: 'tiny', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 0, measureSec: 0.5 }] };

let run: FaultRun | null = null;
afterEach(() => {
  run?.cleanUp();
  run = null;
});

type Target = 'first' | 'worker';

/** `npm run <script> -- <args>`, in a run directory of its own; `{dir}` in args names it. */
function npmRun(script: string, args: string[], prefix: string[] = [], env: Record<string, string> = {}): FaultRun {
  run = startFaultRun([...prefix, 'npm', 'run', '--silent', script, '--', ...args], env);
  return run;
}

/** A scenario file in the run's directory. */
function scenarioFile(r: FaultRun, scenarios = TINY): string {
  const file = path.join(r.dir, 'tiny.json');
  writeFileSync(file, JSON.stringify(scenarios));
  return file;
}

/** The npm process (the command's first, under xvfb-run when the lab runs) or the node worker. */
function pidOf(r: FaultRun, target: Target, script: string): number {
  if (target === 'worker') {
    const pid = r.worker(script);
    if (pid === null) throw new Error(`no worker running ${script}:\n${r.output()}`);
    return pid;
  }
  return r.child.pid!;
}

/** Sends the signal, waits for the command to end, and checks that nothing it started runs on. */
async function stopAndCheck(r: FaultRun, pid: number, signal: NodeJS.Signals): Promise<{ code: number | null }> {
  process.kill(pid, signal);
  const ended = await Promise.race([r.exit, sleep(45_000).then(() => null)]);
  expect(ended, `the command did not end after ${signal}:\n${r.output()}`).not.toBeNull();
  expect(await leftRunning(r.dir, 15_000), `left running after ${signal}:\n${r.output()}`).toEqual([]);
  return { code: ended!.code };
}

/**
 * The one report.json under the run's directory, checked by the schema; and no temp file
 * beside it (a SIGKILL in the middle of a write may leave one: the next write removes it).
 */
function reportIn(r: FaultRun, killed = false): Report {
  const files = filesUnder(r.dir);
  if (!killed)
    expect(
      files.filter((f) => f.endsWith('.tmp')),
      'temp files left',
    ).toEqual([]);
  const reports = files.filter((f) => f.endsWith('report.json'));
  expect(reports, r.output()).toHaveLength(1);
  return parseReportText(readFileSync(path.join(r.dir, reports[0]), 'utf8'), reports[0]);
}

/** An interrupted sweep's report: marked, with the resume command printed, and `repeats` kept. */
function interruptedSweep(r: FaultRun, minRepeats = 0): Report {
  const report = reportIn(r);
  expect(report.interrupted, r.output()).toBe(true);
  expect(report.finishedAt).toBeNull();
  expect(r.output()).toContain(`npm run sweep -- --resume ${report.runId}`);
  expect(report.points.flatMap((p) => p.repeats).length).toBeGreaterThanOrEqual(minRepeats);
  return report;
}

describe('npm run sweep', () => {
  const sweep = (repeats = 1, scenarios = TINY) => {
    const r = npmRun('sweep', ['--file', '{dir}/tiny.json', '--repeats', String(repeats), '--retries', '0', '--out', '{dir}/reports']);
    scenarioFile(r, scenarios);
    return r;
  };
  /**
   * Once the repeat's page streams (TINY's connections all opened on the run's server): a signal then
   * lands inside the repeat. The server is asked only from the repeat's start on (each ask is a TLS
   * connection, which the command's start-up would share the CPU with).
   */
  const measuring = (r: FaultRun) =>
    r
      .until('a repeat started', () => /· started/.test(r.output()), 90_000)
      .then(() => streamsOpened(r.output, TINY.scenarios[0].concurrency, 30_000, () => r.child.exitCode !== null));

  it('SIGTERM to npm while measuring (timeout, CI): an interrupted report, the resume command, exit 130, nothing left', async () => {
    const r = sweep(2);
    await measuring(r);
    const { code } = await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/sweep/main.ts'), 'SIGTERM');
    expect(code, r.output()).toBe(EXIT.interrupted);
    expect(r.output()).toMatch(/SIGTERM: stopping after saving/);
    interruptedSweep(r);
  }, 120_000);

  it('SIGINT to npm while the server and Chrome start', async () => {
    const r = sweep();
    // The plan line comes just before the server and Chrome are launched.
    await r.until('the plan line', () => /pushlab sweep: tiny: /.test(r.output()), 60_000);
    await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/sweep/main.ts'), 'SIGINT');
    interruptedSweep(r);
  }, 120_000);

  it('SIGHUP to npm while measuring (the terminal closed): npm dies without a word to the sweep, which stops as on Ctrl-C', async () => {
    const r = sweep(2);
    await measuring(r);
    await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/sweep/main.ts'), 'SIGHUP');
    interruptedSweep(r);
  }, 120_000);

  it('SIGTERM to the worker while it writes its last repeat and the final report: a valid report, finished or interrupted', async () => {
    const r = sweep(1, SHORT);
    await r.until('the last repeat saved', () => /round 1: [\d.]+( [kM])? EPS/.test(r.output()), 90_000);
    await stopAndCheck(r, pidOf(r, 'worker', 'puppeteer/sweep/main.ts'), 'SIGTERM');
    const report = reportIn(r);
    // All was measured; the signal may land before or after the final save.
    expect(report.interrupted || report.finishedAt !== null, r.output()).toBe(true);
    expect(report.points[0].repeats).toHaveLength(1);
  }, 120_000);

  it('SIGKILL to npm while measuring: the sweep sees its owner gone and stops as on Ctrl-C', async () => {
    const r = sweep(2);
    await measuring(r);
    await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/sweep/main.ts'), 'SIGKILL');
    expect(r.output()).toMatch(/npm \(pid \d+\), which ran this command, ended: stopping after saving/);
    interruptedSweep(r);
  }, 120_000);

  it('SIGKILL to the worker after a repeat was saved: nothing left, and the report holds that repeat', async () => {
    const r = sweep(2, SHORT);
    await r.until('the first repeat saved', () => /round 1: [\d.]+( [kM])? EPS/.test(r.output()), 90_000);
    await stopAndCheck(r, pidOf(r, 'worker', 'puppeteer/sweep/main.ts'), 'SIGKILL');
    const report = reportIn(r, true);
    expect(report.points[0].repeats.map((x) => x.round)).toEqual([0]);
  }, 120_000);
});

describe('npm run advise', () => {
  it('SIGTERM to npm while a probe measures: an interrupted report with the answer so far, the command that goes on, exit 130, nothing left', async () => {
    const r = npmRun('advise', ['--rate', '5k', '--p99', '200ms', '--transports', 'sse', '--render', 'none', '--time-budget', '60s', '--out', '{dir}/reports']);
    await r.until('a probe started', () => /· started/.test(r.output()), 90_000);
    // Its page streaming (the first probe's one connection open): the probe measures.
    await streamsOpened(r.output, 1, 30_000, () => r.child.exitCode !== null);
    const { code } = await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/advise/main.ts'), 'SIGTERM');
    expect(code, r.output()).toBe(EXIT.interrupted);
    expect(r.output()).toMatch(/SIGTERM: stopping after saving/);
    const report = reportIn(r);
    expect(report.interrupted, r.output()).toBe(true);
    expect(report.advice?.stopped).toBe('interrupted');
    expect(r.output()).toContain(`npm run advise -- --resume ${report.runId}`);
  }, 120_000);
});

describe.skipIf(!hasXvfb)('npm run lab, headful under xvfb-run', () => {
  const lab = () =>
    npmRun(
      'lab',
      ['--batch', '5', '--concurrency', '2', '--warmup-sec', '0', '--measure-sec', '2', '--repeats', '2', '--out', '{dir}/reports'],
      ['xvfb-run', '-a'],
      { PUSHLAB_LAB_DEVTOOLS: '1' },
    );
  /** npm under xvfb-run: the command's first process. */
  const npmPid = (r: FaultRun) =>
    r
      .until(
        'npm',
        () =>
          spawnSync('pgrep', ['-P', String(r.child.pid), '-f', '^npm'], { encoding: 'utf8' })
            .stdout.trim()
            .split('\n')[0] || null,
        30_000,
      )
      .then(Number);

  it('SIGTERM to npm while a point is recorded: the lab report is saved marked interrupted; nothing left', async () => {
    const r = lab();
    const endpoint = await r.until('the DevTools endpoint', () => /devtools: (ws:\S+)/.exec(r.output())?.[1], 90_000);
    let browser: Browser | null = null;
    try {
      browser = await puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: null });
      const target = await browser.waitForTarget((t) => t.type() === 'page' && t.url().startsWith('https://'), { timeout: 30_000 });
      const page = (await target.page())!;
      await page.waitForFunction(() => typeof (globalThis as { pushlab?: unknown }).pushlab === 'object', { timeout: 30_000 });
      void page
        .evaluate(() => (globalThis as unknown as { pushlab: { record(): Promise<unknown> } }).pushlab.record().catch(() => undefined))
        .catch(() => undefined);
      await r.until('a recording', () => /recording lab\//.test(r.output()), 30_000);
      // Past the first repeat (no warm-up, window 2 s), so the report has one to keep; the
      // second one's 2 s window is where the signal lands.
      await r.until('the first repeat written', () => filesUnder(r.dir).some((f) => f.endsWith('report.json')), 60_000);
      await stopAndCheck(r, await npmPid(r), 'SIGTERM');
    } finally {
      await browser?.disconnect().catch(() => undefined);
    }
    const report = reportIn(r);
    expect(report.interrupted, r.output()).toBe(true);
    expect(report.points[0].repeats.length).toBeGreaterThanOrEqual(1);
  }, 150_000);

  it('SIGINT to the worker while its server and Chrome start', async () => {
    const r = lab();
    await r.until('the worker', () => r.worker('puppeteer/lab/main.ts'), 60_000);
    await r.until('the server starting', () => filesUnder(r.dir).some((f) => f.startsWith('pushlab-chrome-')) || null, 60_000);
    await stopAndCheck(r, pidOf(r, 'worker', 'puppeteer/lab/main.ts'), 'SIGINT');
  }, 120_000);
});

describe('npm run report -- --serve', () => {
  it('SIGTERM to npm while serving: exits 130, nothing left', async () => {
    const r = npmRun('report', ['--serve', '--reports', '{dir}']);
    await r.until('the viewer URL', () => /http:\/\/127\.0\.0\.1:\d+\/report\.html/.test(r.output()), 60_000);
    const { code } = await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/report/main.ts'), 'SIGTERM');
    expect(code, r.output()).toBe(EXIT.interrupted);
  }, 90_000);

  it('SIGKILL to npm while serving: the worker sees its owner gone and stops', async () => {
    const r = npmRun('report', ['--serve', '--reports', '{dir}']);
    await r.until('the viewer URL', () => /report\.html/.test(r.output()), 60_000);
    await stopAndCheck(r, pidOf(r, 'first', 'puppeteer/report/main.ts'), 'SIGKILL');
  }, 90_000);
});

describe('npm run server', () => {
  it('SIGTERM to npm while it starts, and SIGHUP to the worker while it serves: nothing left either way', async () => {
    // Two servers, started together: each in its own run directory, and neither measures anything.
    const starting = npmRun('server', ['--port', '0']);
    const serving = startFaultRun(['npm', 'run', '--silent', 'server', '--', '--port', '0']);
    try {
      await starting.until('the worker', () => starting.worker('server/main.ts'), 60_000);
      await stopAndCheck(starting, pidOf(starting, 'first', 'server/main.ts'), 'SIGTERM');
    } catch (err) {
      serving.cleanUp();
      throw err;
    }
    starting.cleanUp();
    run = serving;
    await serving.until('the URL', () => /listening on https:/.test(serving.output()), 60_000);
    await stopAndCheck(serving, pidOf(serving, 'worker', 'server/main.ts'), 'SIGHUP');
  }, 120_000);
});

describe('a command started another way: `npx tsx server/main.ts` (npm → sh → tsx → node)', () => {
  it('SIGTERM to the shell in between, which dies of it without a word: the server sees it and stops', async () => {
    run = startFaultRun(['npx', 'tsx', 'server/main.ts', '--port', '0']);
    const r = run;
    await r.until('the URL', () => /listening on https:/.test(r.output()), 60_000);
    const shell = descendants(r.child.pid!).find((pid) => cmdline(pid).startsWith('sh -c'));
    expect(shell, 'the shell npx runs tsx in').toBeDefined();
    process.kill(shell!, 'SIGTERM');
    expect(await leftRunning(r.dir, 15_000), r.output()).toEqual([]);
    expect(r.output()).toMatch(/\(pid \d+\), which ran this command, ended/);
  }, 60_000);
});

describe('the benches', () => {
  it('bench:server: SIGTERM to npm while a cell measures ends it, its server and its load clients', async () => {
    const r = npmRun('bench:server', ['--transport', 'sse', '--batch', '1', '--connections', '1', '--seconds', '30', '--stall-seconds', '0']);
    await r.until('the load clients', () => r.output().includes('| transport |') && r.worker('bench/clients.ts'), 60_000);
    const { code } = await stopAndCheck(r, pidOf(r, 'first', 'bench/server.ts'), 'SIGTERM');
    expect(code, r.output()).toBe(EXIT.interrupted);
  }, 90_000);

  it('bench:page: SIGINT to the worker while its server and Chrome start', async () => {
    const r = npmRun('bench:page', []);
    await r.until('Chrome starting', () => filesUnder(r.dir).some((f) => f.startsWith('pushlab-chrome-')) || null, 60_000);
    await stopAndCheck(r, pidOf(r, 'worker', 'bench/page.ts'), 'SIGINT');
  }, 90_000);
});
