/**
 * Firefox's CPU without CDP (issue 25), checked against an independent reading: a headless
 * Firefox streams SSE from the real server while `pidstat` (Debian's sysstat) samples the same
 * processes over the same window; the tab's content-process figure and the parent's (browser)
 * figure, as the sweep's own sampler and summary compute them from /proc, agree with it within
 * 5 percentage points. Then the paths without a Firefox: the sweep fails the Firefox points at
 * once with the coded error and what to install, measures the Chrome ones, and leaves no
 * process; and `npm run lab -- --engine firefox` shows the live readings it can read.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import type { PageConfig } from '../../protocol/page-api.js';
import type { Report } from '../../protocol/report.js';
import { expandScenario } from '../../protocol/scenario.js';
import { summarise } from '../../results/summarise.js';
import { firefoxFound, LocalFirefox } from '../../puppeteer/browser/firefox.js';
import { openLabPage } from '../../puppeteer/measure/page.js';
import { takeSample, type SampleSources } from '../../puppeteer/measure/sampler.js';
import { startServer, type ServerHandle } from '../../puppeteer/measure/server-process.js';
import { leftRunning, sleep, startFaultRun } from '../helpers/fault-run.js';
import { nodeCommand } from '../helpers/node-command.js';

const hasFirefox = firefoxFound();

/** sysstat's pidstat, the independent reading (`.ci/run` installs it with Firefox). */
const hasPidstat = spawnSync('pidstat', ['-V']).status === 0;

/** The window both readings cover, s: pidstat reports its average over this many 1 s intervals. */
const WINDOW_SEC = 5;
const AGREE_PP = 5;

/** `pidstat -u -p <pids> 1 <n>`'s Average lines: %CPU (of one core) by pid. */
async function pidstat(pids: readonly number[], seconds: number): Promise<Map<number, number>> {
  const child = spawn('pidstat', ['-u', '-p', pids.join(','), '1', String(seconds)], {
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, out).toBe(0);
  const lines = out.split('\n').filter((l) => l.startsWith('Average:'));
  const header = lines
    .find((l) => l.includes('%CPU'))!
    .trim()
    .split(/\s+/);
  const [pidAt, cpuAt] = [header.indexOf('PID'), header.indexOf('%CPU')];
  const byPid = new Map<number, number>();
  for (const l of lines.filter((x) => !x.includes('%CPU'))) {
    const f = l.trim().split(/\s+/);
    byPid.set(Number(f[pidAt]), Number(f[cpuAt]));
  }
  return byPid;
}

describe.skipIf(!hasFirefox || !hasPidstat)("Firefox's CPU from /proc against pidstat", () => {
  let server: ServerHandle;
  let firefox: LocalFirefox;

  beforeAll(async () => {
    [server, firefox] = await Promise.all([startServer(), LocalFirefox.launch({ headless: true })]);
  }, 60_000);

  afterAll(async () => {
    await firefox?.close();
    await server?.stop();
  });

  it(`the tab's content process and the parent agree within ${AGREE_PP} points over the same ${WINDOW_SEC} s`, async () => {
    const point = expandScenario({ id: 'cpu', transport: 'sse', batch: 20, concurrency: 4, engine: 'firefox', measureSec: WINDOW_SEC })[0];
    const page = await firefox.newPage();
    const api = await openLabPage(page, server.url);
    const config: PageConfig = { transport: 'sse', batch: 20, intervalMs: 1, concurrency: 4, render: 'full' };
    await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
    // Past the first second's JIT and first frames, as a repeat's warm-up.
    await sleep(2000);
    const src: SampleSources = { api, pageSession: null, browserSession: null, serverStats: (reset) => server.stats(reset), firefoxPid: firefox.pid() };
    const a = await takeSample(src, true);
    const pids = a.chrome!.map((p) => p.id);
    const independent = await pidstat(pids, WINDOW_SEC);
    const b = await takeSample(src, true);
    await api.evaluate((p) => p.stop());
    await page.close();
    const r = summarise(point, a, b, {
      round: 0,
      startedAt: new Date().toISOString(),
      attempts: 1,
      cores: 2,
      settleSec: 0,
      startedBehind: false,
      ceilingEventsPerSec: null,
    });
    // The tab is the content process that used the most CPU; pidstat names it by pid.
    const before = new Map(a.chrome!.map((p) => [p.id, p.cpuTime]));
    const tabPid = b
      .chrome!.filter((p) => p.type === 'renderer')
      .sort((x, y) => y.cpuTime - (before.get(y.id) ?? 0) - (x.cpuTime - (before.get(x.id) ?? 0)))[0].id;
    const seen = `ours: tab ${r.cpu.tabProcess}%, browser ${r.cpu.chrome.browser}%; pidstat: ${JSON.stringify([...independent])}`;
    expect(r.eventsPerSec, seen).toBeGreaterThan(0);
    expect(r.cpu.tabProcess, seen).toBeGreaterThan(10);
    expect(Math.abs(r.cpu.tabProcess! - independent.get(tabPid)!), seen).toBeLessThanOrEqual(AGREE_PP);
    expect(Math.abs(r.cpu.chrome.browser! - independent.get(firefox.pid())!), seen).toBeLessThanOrEqual(AGREE_PP);
    // Every process pidstat saw, summed, is the total.
    const all = [...independent.values()].reduce((x, y) => x + y, 0);
    expect(Math.abs(r.cpu.chrome.total! - all), seen).toBeLessThanOrEqual(AGREE_PP);
  }, 60_000);
});

describe('without a Firefox', () => {
  it('the sweep fails its Firefox points at once with PUSHLAB_NO_FIREFOX and what to install, measures the Chrome ones, and leaves nothing running', async () => {
    // The shortest repeat at a light load: only the Chrome point's status is read, no rate.
    const file = JSON.stringify({
      scenarios: [
        { id: 'nf', transport: 'ws', batch: 20, concurrency: 2, intervalMs: 10, engine: ['chrome', 'firefox'], warmupSec: 0, measureSec: 0.5, repeats: 1 },
      ],
    });
    const r = startFaultRun(
      [...nodeCommand('puppeteer/sweep/main.ts'), '--file', '{dir}/s.json', '--out', '{dir}'],
      { FIREFOX_PATH: '{dir}/no-firefox-here' },
      (dir) => writeFileSync(path.join(dir, 's.json'), file),
    );
    try {
      const { code } = await r.exit;
      expect(code, r.output()).toBe(EXIT.failed);
      const run = readdirSync(r.dir).find((d) => /^\d{8}-\d{6}/.test(d))!;
      const report = JSON.parse(readFileSync(path.join(r.dir, run, 'report.json'), 'utf8')) as Report;
      const ff = report.points.find((p) => p.point.engine === 'firefox')!;
      const chrome = report.points.find((p) => p.point.engine === undefined)!;
      expect(chrome.repeats.map((x) => x.status)).toEqual(['ok']);
      const failed = ff.repeats[0];
      expect(failed.status).toBe('failed');
      if (failed.status !== 'failed') return;
      expect(failed.cause).toBe('PUSHLAB_NO_FIREFOX');
      expect(failed.error).toBe(
        `FIREFOX_PATH is set to '${r.dir}/no-firefox-here', which is not an executable file (it does not exist). Install Firefox (Debian/Ubuntu: \`apt-get install -y firefox-esr\`), or point FIREFOX_PATH at a Firefox binary.`,
      );
      // Fast: both attempts refused before any browser started, not after a timeout.
      expect(Date.now() - Date.parse(failed.startedAt)).toBeLessThan(60_000);
      expect(report.environment.firefox).toBeUndefined();
      expect(await leftRunning(r.dir, 15_000)).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 120_000);
});

describe.skipIf(!hasFirefox)('npm run lab -- --engine firefox', () => {
  it('opens the lab page in Firefox and prints the live readings it can read (no main-thread busy time: –)', async () => {
    const r = startFaultRun([
      ...nodeCommand('puppeteer/lab/main.ts'),
      '--engine',
      'firefox',
      '--headless',
      '--autostart',
      '--batch',
      '20',
      '--concurrency',
      '4',
      '--out',
      '{dir}',
    ]);
    try {
      await r.until('the Firefox banner', () => /Firefox firefox\/\d+/.test(r.output()), 60_000);
      const line = await r.until(
        'a CPU reading with the tab busy',
        () => /cpu \(% of one core[^\n]*renderer ([1-9]\d*)%[^\n]*\n/.exec(r.output())?.[0],
        30_000,
      );
      expect(line).toMatch(/main busy – main cpu \d+%/);
      expect(line).toMatch(/browser \d+%/);
      process.kill(-r.child.pid!, 'SIGINT');
      const { code } = await r.exit;
      expect(code, r.output()).toBe(EXIT.interrupted);
      expect(await leftRunning(r.dir, 15_000)).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 120_000);
});
