/**
 * bench/instrument.ts, the two ends of bench:page's sweep-cost comparison (issue 37), each run
 * from nothing as the bench runs them: a count-only point through `npm run sweep` itself, and
 * the plain setup (the plain server, the bare page, a Chrome with only the machine's flags,
 * the count and renderer CPU read at the window's edges). At an offered rate far below what
 * this machine takes, both must count what was offered and read a renderer CPU per event, and
 * the plain setup must leave nothing behind. The comparison itself is a figure: bench:page.
 */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { plainRun, sweepRun, type CountOnlyPoint, type InstrumentRun } from '../../bench/instrument.js';

/** 20 rows × 2 connections every 10 ms: 4,000 events/s offered. */
const POINT: Omit<CountOnlyPoint, 'transport'> = { batch: 20, concurrency: 2, intervalMs: 10, warmupSec: 1, measureSec: 2 };
const OFFERED = (POINT.batch * POINT.concurrency * 1000) / POINT.intervalMs;

function expectCounted(run: InstrumentRun): void {
  // Generous: the window's edges are read once each, so a batch either side of an edge moves it by a few %.
  expect(run.eps).toBeGreaterThan(OFFERED * 0.8);
  // The plain setup waits a fixed warm-up, not until the page has caught up: beside another
  // file its page loaded late and a warm-up's backlog drained in the window (1.5× offered in
  // CI). It cannot count more than was offered since the stream began.
  expect(run.eps).toBeLessThan((OFFERED * 1.2 * (POINT.warmupSec + POINT.measureSec)) / POINT.measureSec);
  // Renderer CPU per million events: read, in ms, neither a unit slip (s or µs) nor nothing.
  expect(run.cpuMsPerMillion).toBeGreaterThan(10);
  expect(run.cpuMsPerMillion).toBeLessThan(1e6);
  expect(run.wallSec).toBeGreaterThan(POINT.warmupSec + POINT.measureSec);
}

/** Processes whose command line names the plain setup's Chrome profile. */
async function plainChromes(): Promise<number> {
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d));
  const cmds = await Promise.all(pids.map((p) => readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')));
  return cmds.filter((c) => c.includes('pushlab-plain-chrome-')).length;
}

// One test at a time. The sweep's tests once ran beside the plain setup's (both describes
// concurrent, about 10 s less), and the plain setup's ws point then counted no events at all in its
// window in two full runs of 2026-11-29: its fixed warm-up does not wait for a page that loads late.
describe('npm run sweep, as the bench runs it', () => {
  it('counts the offered events of a count-only point, with its renderer CPU', async () => {
    expectCounted(await sweepRun({ ...POINT, transport: 'ws' }));
  }, 90_000);

  it('a sweep that fails says why, with the end of its output', async () => {
    await expect(sweepRun({ ...POINT, transport: 'ws' }, ['--repeats', '0'])).rejects.toThrow(/the sweep exited 2: .*repeats/);
  }, 60_000);
});

// Each checks that no plain Chrome is left, which another one running would fail.
describe('the plain setup', () => {
  for (const transport of ['ws', 'sse'] as const) {
    it(`${transport}: counts the offered events, with its renderer CPU, and leaves no Chrome or profile behind`, async () => {
      expectCounted(await plainRun({ ...POINT, transport }));
      expect(await plainChromes()).toBe(0);
      expect((await readdir(os.tmpdir())).filter((n) => n.startsWith('pushlab-plain-chrome-'))).toEqual([]);
    }, 90_000);
  }
});
