/**
 * Every entry point owns its children: however it ends, its server, its Chrome and (for
 * bench:server) its load clients end with it. The real commands run here with real servers
 * and headless Chromium; each is ended the hard way (SIGKILL: no handler runs, so only the
 * children's own watch of their owner can end them), or by SIGINT at awkward moments, and
 * every process that was under it must be gone afterwards. (SIGINT in the middle of a sweep,
 * with the report saved and resumed, is test/browser/sweep-resume.test.ts.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { findXvfb } from '../../puppeteer/browser/display.js';
import { streamsOpened } from '../helpers/fault-run.js';
import { cmdline, descendants, startCommand, startSweep, waitGone, type SweepRun } from '../helpers/sweep-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let scenarios: string;
let headful: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-ownership-'));
  scenarios = path.join(dir, 'scenarios.json');
  await writeFile(scenarios, JSON.stringify({ scenarios: [{ id: 'tiny', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 1, measureSec: 6 }] }));
  headful = path.join(dir, 'headful.json');
  await writeFile(
    headful,
    JSON.stringify({ scenarios: [{ id: 'tiny-hf', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 1, measureSec: 6, display: 'headful' }] }),
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Waits until the processes under `run` include every kind named, and returns them all. */
async function childrenOnceRunning(run: SweepRun, kinds: RegExp[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const pids = descendants(run.child.pid!);
    const lines = pids.map(cmdline);
    if (kinds.every((k) => lines.some((l) => k.test(l)))) return pids;
    if (Date.now() > until || run.child.exitCode !== null)
      throw new Error(`not all of ${kinds.join(', ')} started; under the command: ${lines.join('\n')}\n${run.stderr()}`);
    await sleep(100);
  }
}

/**
 * Waits until a headful Chrome (a browser process, not started --headless) is under `run` with a
 * renderer under it: the headful point's page is loading or streaming.
 */
async function headfulRendering(run: SweepRun, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const main = descendants(run.child.pid!).find((pid) => {
      const [exe, ...args] = cmdline(pid).split(' ');
      return CHROME.test(exe) && !args.some((a) => a.startsWith('--type=') || a.startsWith('--headless'));
    });
    if (main !== undefined && descendants(main).some((pid) => cmdline(pid).includes('--type=renderer'))) return;
    if (Date.now() > until || run.child.exitCode !== null)
      throw new Error(`no headful Chrome with a renderer; under the command: ${descendants(run.child.pid!).map(cmdline).join('\n')}\n${run.stderr()}`);
    await sleep(100);
  }
}

/** The server it starts, compiled (a build's `server/main.js`) or through tsx (`server/main.ts`). */
const SERVER = /server\/main\.[jt]s/;
const CHROME = /chrom(e|ium)/;
const left = (pids: number[]) => pids.map((pid) => `${pid}: ${cmdline(pid)}`);
/**
 * Two lanes at once, each its commands one at a time: every test reads only the processes under
 * its own command and times nothing but a generous wait for them to go, so a command beside
 * another changes no assertion. One after another they mostly waited on starts; all six at once
 * slowed each start several times over on this 2-core machine, for little more.
 */
const LANE = { concurrent: true };
const ONE_AT_A_TIME = { sequential: true };

describe('the sweeps killed mid-repeat', LANE, () => {
  describe('a sweep killed with SIGKILL mid-repeat', ONE_AT_A_TIME, () => {
    it('takes its server and every Chrome process with it', async () => {
      const run = startSweep(['--file', scenarios, '--repeats', '1', '--retries', '0', '--out', dir]);
      await run.waitForStderr(/\[1\/1\][^\n]* · started/, 90_000);
      // Mid-repeat: its page loaded and its two streams open.
      await streamsOpened(run.stderr, 2, 30_000, () => run.child.exitCode !== null);
      const pids = await childrenOnceRunning(run, [SERVER, CHROME], 10_000);
      run.child.kill('SIGKILL');
      await run.exit;
      expect(left(await waitGone(pids, 15_000))).toEqual([]);
    }, 150_000);
  });

  // Without a DISPLAY the sweep starts an Xvfb of its own for a headful point: it must go too.
  describe.skipIf(Boolean(process.env.DISPLAY) || !findXvfb())('a sweep with a headful point killed with SIGKILL mid-repeat', ONE_AT_A_TIME, () => {
    it('takes its server, both Chromes and its Xvfb with it', async () => {
      const run = startSweep(['--file', headful, '--repeats', '1', '--retries', '0', '--out', dir]);
      await run.waitForStderr(/\[1\/1\][^\n]* · started/, 90_000);
      const first = await childrenOnceRunning(run, [SERVER, CHROME, /Xvfb/], 30_000);
      // The headful Chrome launches once Xvfb is ready: wait until it runs its page (a renderer under it).
      await headfulRendering(run, 30_000);
      const pids = [...new Set([...first, ...descendants(run.child.pid!)])];
      run.child.kill('SIGKILL');
      await run.exit;
      expect(left(await waitGone(pids, 15_000))).toEqual([]);
    }, 150_000);
  });
});

describe('the commands stopped while starting, and the lab and bench', LANE, () => {
  describe('a sweep stopped by SIGINT while it starts', ONE_AT_A_TIME, () => {
    it('exits 130 with nothing left behind, even with the server and Chrome still starting', async () => {
      const run = startSweep(['--file', scenarios, '--repeats', '1', '--retries', '0', '--out', dir]);
      // As soon as the server process exists: it has not printed its URL yet, and Chrome is launching beside it.
      const pids = await childrenOnceRunning(run, [SERVER], 30_000);
      run.child.kill('SIGINT');
      const { code } = await run.exit;
      expect(code, run.stderr()).toBe(EXIT.interrupted);
      expect(left(await waitGone([...new Set([...pids, ...descendants(run.child.pid!)])], 15_000))).toEqual([]);
    }, 120_000);

    it('a second SIGINT stops at once, still ending both', async () => {
      const run = startSweep(['--file', scenarios, '--repeats', '1', '--retries', '0', '--out', dir]);
      await run.waitForStderr(/\[1\/1\][^\n]* · started/, 90_000);
      const pids = await childrenOnceRunning(run, [SERVER, CHROME], 10_000);
      run.child.kill('SIGINT');
      await run.waitForStderr(/SIGINT: stopping after saving/, 10_000);
      // A repeat within 0.5 s is the same request (npm forwards the Ctrl-C the sweep also got).
      await sleep(700);
      run.child.kill('SIGINT');
      const { code } = await run.exit;
      expect(code, run.stderr()).toBe(EXIT.interrupted);
      expect(left(await waitGone(pids, 15_000))).toEqual([]);
    }, 150_000);
  });

  describe('the lab killed with SIGKILL', ONE_AT_A_TIME, () => {
    it('takes its server and Chrome with it', async () => {
      const run = startCommand('puppeteer/lab/main.ts', ['--headless', '--batch', '5', '--concurrency', '2', '--autostart', '--out', dir]);
      await run.waitForStderr(/pushlab lab: https:\/\//, 90_000);
      const pids = await childrenOnceRunning(run, [SERVER, CHROME], 10_000);
      run.child.kill('SIGKILL');
      await run.exit;
      expect(left(await waitGone(pids, 15_000))).toEqual([]);
    }, 120_000);
  });

  describe('bench:server killed with SIGKILL', ONE_AT_A_TIME, () => {
    it('takes its server and its load clients with it', async () => {
      const run = startCommand('bench/server.ts', ['--transport', 'sse', '--batch', '1', '--connections', '1', '--seconds', '30', '--stall-seconds', '0']);
      const pids = await childrenOnceRunning(run, [SERVER, /bench\/clients\.[jt]s/], 60_000);
      run.child.kill('SIGKILL');
      await run.exit;
      expect(left(await waitGone(pids, 15_000))).toEqual([]);
    }, 90_000);
  });
});
