/**
 * `--browser` at a running Firefox (issue 25): an endpoint that answers in WebDriver BiDi is a
 * Firefox, driven over BiDi, and runs the `engine: firefox` points. A real `firefox-esr
 * --remote-debugging-port` on loopback, given as a remote browser: its points are delivered in
 * full, its host says it is a Firefox, and every CPU figure of the browser is null and listed,
 * never 0 (no CDP, and a remote browser's /proc is not this machine's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../protocol/report.js';
import { findFirefox } from '../../puppeteer/browser/firefox.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const firefoxPath = (() => {
  try {
    return findFirefox().path;
  } catch {
    return null;
  }
})();

describe.skipIf(firefoxPath === null)('a remote Firefox over WebDriver BiDi', () => {
  let dir: string;
  let firefox: ChildProcess;
  let report: Report;
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-remote-firefox-'));
    await writeFile(path.join(dir, 'user.js'), 'user_pref("network.http.http3.enable", false);\n');
    // Its own process group, so the test ends it and every process it started.
    firefox = spawn(firefoxPath!, ['--headless', '--no-remote', '--profile', dir, '--remote-debugging-port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let log = '';
    firefox.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
    const until = Date.now() + 30_000;
    while (!/WebDriver BiDi listening on (ws:\S+)/.test(log) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    const url = /WebDriver BiDi listening on (ws:\S+)/.exec(log)?.[1];
    if (!url) throw new Error(`Firefox did not say where it listens:\n${log}`);
    await writeFile(
      path.join(dir, 'scenarios.json'),
      JSON.stringify({
        scenarios: [{ id: 'far', transport: ['ws', 'sse'], batch: 20, concurrency: 2, engine: 'firefox', warmupSec: 1, measureSec: 2, repeats: 1 }],
      }),
    );
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--json', '--retries', '0', '--out', dir, '--browser', `ff=${url}/session`],
      120_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    try {
      if (firefox?.pid) process.kill(-firefox.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is taken for a Firefox and runs the Firefox points, delivered in full', () => {
    expect(code, stderr).toBe(0);
    expect(report.hosts).toEqual([expect.objectContaining({ id: 'ff', origin: 'remote', engine: 'firefox', procfs: false })]);
    expect(report.hosts![0].version).toMatch(/^firefox\//);
    expect(report.environment.engine).toBe('firefox');
    for (const p of report.points) {
      const r = firstMeasured(p);
      expect(r.browserId).toBe('ff');
      expect(r.page.gaps, p.point.id).toBe(0);
      expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    }
  });

  it('gives no CPU figure of the browser: each null and listed, never 0, and the summary has none', () => {
    for (const p of report.points) {
      const r = firstMeasured(p);
      expect(r.cpu.tabProcess).toBeNull();
      expect(r.cpu.tabMainThread).toBeNull();
      expect(Object.values(r.cpu.chrome)).toEqual([null, null, null, null, null, null]);
      expect(r.cpu.unavailable).toEqual(['tabMainThread', 'tabProcess', 'browser', 'renderers', 'network', 'gpu', 'other', 'total', 'tabThreads', 'host']);
      expect(r.efficiency.rendererCpuMsPerMillionEvents).toBeNull();
      expect(p.summary!.cpu.tabProcess).toBeNull();
      expect(p.notes.join('\n')).toMatch(/no CPU figure of the browser could be read; unread, so null \(never 0\)/);
    }
  });
});
