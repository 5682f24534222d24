/**
 * The smoke sweep in a remote browser, end to end and on loopback only: a Chromium started here
 * with `--remote-debugging-port` on 127.0.0.1 stands in for a browser on another host. The sweep
 * connects to it through its DevTools HTTP endpoint and delivers the smoke load; the report
 * records the endpoint (without the credentials and token it was given), and marks per-thread
 * and host CPU unavailable rather than 0. Apart from test/browser/remote-browser.test.ts (sharding, lost
 * browsers) because the delivered ratio needs the machine to itself (the `measures` project).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellText, COLUMNS } from '../../results/columns.js';
import { pointsCsv } from '../../results/views/csv.js';
import { EXIT } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';
import { formatTable } from '../../results/views/terminal.js';
import { startRemoteChrome, type RemoteChrome } from '../../bench/remote-chrome.js';
import { measuredOf, readLastReport as readReport, runSweep } from '../helpers/sweep-process.js';

const chromes: RemoteChrome[] = [];
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-remote-'));
  chromes.push(await startRemoteChrome());
}, 60_000);

afterAll(async () => {
  await Promise.all(chromes.map((c) => c.kill()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the smoke sweep in a remote browser (DevTools HTTP endpoint)', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    // Credentials and a token, as a browser service might want them: they must not reach the report.
    const given = chromes[0].http.replace('http://', 'http://pushlab:s3cret@') + '/?token=t0k3n';
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--scenario', 'smoke', '--repeats', '1', '--browser', given, '--out', dir], 150_000));
    report = await readReport(stdout);
  }, 180_000);

  it('delivers the smoke load in the remote browser', () => {
    expect(code, stderr).toBe(EXIT.ok);
    expect(report.points).toHaveLength(2);
    for (const r of measuredOf(report)) {
      expect(r.browserId).toBe(`127.0.0.1:${chromes[0].port}`);
      expect(r.deliveredRatio, JSON.stringify(r.notes)).toBeGreaterThanOrEqual(0.97);
      expect(r.page.gaps).toBe(0);
    }
    expect(measuredOf(report)).toHaveLength(2);
  });

  it('records the endpoint, without credentials or token, and what the browser says about its host', () => {
    expect(report.hosts).toHaveLength(1);
    const [h] = report.hosts!;
    expect(h).toMatchObject({
      id: `127.0.0.1:${chromes[0].port}`,
      origin: 'remote',
      endpoint: `http://127.0.0.1:${chromes[0].port}/`,
      host: 'localhost',
      headless: true,
      cores: os.cpus().length,
      cpuModel: null,
      procfs: false,
      serverSharesHost: true,
      sharesHostWith: [],
    });
    expect(h.version).toMatch(/Chrome\/\d+/);
    expect(h.userAgent).toMatch(/Chrome/);
    const text = JSON.stringify(report);
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('t0k3n');
    expect(stderr).not.toContain('s3cret');
    expect(stderr).not.toContain('t0k3n');
    expect(report.environment.chromeVersion).toBe(h.version);
  });

  it('marks per-thread and host CPU unavailable (null), never 0, and the views show —', () => {
    for (const r of measuredOf(report)) {
      expect(r.cpu.host).toBeNull();
      expect(r.cpu.tabThreads).toBeNull();
      expect(r.cpu.unavailable).toEqual(['tabThreads', 'host']);
      // What CDP gives is there: the verdict rests on it.
      expect(r.cpu.tabMainThread).toBeGreaterThan(0);
      expect(r.cpu.tabProcess).toBeGreaterThan(0);
      expect(r.cpu.chrome.total).toBeGreaterThan(0);
    }
    const host = COLUMNS.find((c) => c.id === 'cpuHost')!;
    for (const p of report.points) {
      expect(p.summary!.cpu.host).toBeNull();
      expect(cellText(host, p)).toBe('—');
    }
    const [head, ...rows] = pointsCsv(report).trim().split('\r\n');
    const at = head.split(',').indexOf('cpuHostMedian');
    for (const row of rows) expect(row.split(',')[at]).toBe('');
    expect(formatTable(report, { wide: true })).toContain('per-thread and host CPU unavailable');
  });
});
