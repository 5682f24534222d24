/**
 * A lost Firefox tab (issue 25): its content process killed mid-repeat. Over WebDriver BiDi
 * that is no page `error` event but a browsing context gone ("Target closed"): the repeat is
 * recorded as failed with cause 'renderer crashed', like a crashed Chrome renderer, without
 * waiting for its timeout, and the next round is measured.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import type { FailedRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { firefoxFound } from '../../puppeteer/browser/firefox.js';
import { streamsOpened } from '../helpers/fault-run.js';
import { descendants, startSweep } from '../helpers/sweep-process.js';

const hasFirefox = firefoxFound();

const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

describe.skipIf(!hasFirefox)('a Firefox tab lost mid-sweep', () => {
  let dir: string;
  let report: Report;
  let code: number | null;
  let stderr: string;
  let killed: string[];
  let tookMs: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-ff-crash-'));
    await writeFile(
      path.join(dir, 'scenarios.json'),
      // No warm-up and a short window: the tab is lost as soon as its page streams, and the next round measures.
      JSON.stringify({ scenarios: [{ id: 'one', transport: 'sse', batch: 5, concurrency: 2, engine: 'firefox', warmupSec: 0, measureSec: 2 }] }),
    );
    const run = startSweep(['--file', path.join(dir, 'scenarios.json'), '--repeats', '2', '--retries', '0', '--out', dir]);
    await run.waitForStderr(/\[1\/2\][^\n]*one\/sse-b5-c2-i1-full-ff · started/, 90_000);
    // Mid-repeat: the page loaded and its two streams open.
    await streamsOpened(run.stderr, 2, 30_000, () => run.child.exitCode !== null);
    // Every content process: the tab's among them.
    const content = descendants(run.child.pid!).filter((pid) => /^(Web Content|Isolated Web Co)/.test(comm(pid)));
    killed = content.map(comm);
    for (const pid of content) process.kill(pid, 'SIGKILL');
    const started = performance.now();
    await run.waitForStderr(/round 1 \[local-firefox\]: FAILED/, 60_000);
    tookMs = performance.now() - started;
    ({ code } = await run.exit);
    stderr = run.stderr();
    report = JSON.parse(await readFile(run.stdout().trim().split('\n').at(-1)!, 'utf8')) as Report;
  }, 180_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("records the repeat as failed with cause 'renderer crashed' and its words, at once, and measures the next round", () => {
    expect(killed.length).toBeGreaterThan(0);
    expect(code, stderr).toBe(EXIT.failed);
    // The loss ends the repeat, not the repeat's timeout (a minute past its window).
    expect(tookMs).toBeLessThan(15_000);
    const [point] = report.points;
    expect(point.repeats.map((r) => `${r.round}:${r.status}`)).toEqual(['0:failed', '1:ok']);
    const failed = point.repeats[0] as FailedRepeat;
    expect(failed.cause, failed.error).toBe('renderer crashed');
    expect(failed.error).toMatch(/^Firefox tab lost \(its content process went away: [^@]*\)$/);
  });
});
