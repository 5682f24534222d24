/**
 * Device classes end to end (issue 36), through `npm run sweep`'s entry point with the real
 * server and headless Chromium: one point at full speed, the same as a low-tier device slowing the
 * whole browser (a cgroup CPU quota, pinned to one core) and as a low-tier device slowing only the
 * tab's main thread (CDP). Each class is calibrated once, to Lighthouse's BenchmarkIndex 264 within
 * the stated tolerance (or the last resort's, once every step missed it); the yardstick the sweep
 * already has, the in-page JSON.parse ceiling, falls with it; the CPU figures say what they are under each throttle; and nothing is left behind: no
 * cgroup after the run, and after a SIGKILL the next command removes the killed run's, ending what
 * it still held.
 *
 * The yardstick's band, measured here (2026-11-28, low-tier and mid-tier at batch 20 and 100, 3
 * rounds, alone on the machine): the ceiling's ratio to full speed, over the index's, read
 * 0.59–1.39 under the whole-browser quota (median 1.02 of 12) and 0.78–1.35 under CDP's main-thread
 * throttling (median 0.96 of 12) (docs/devices.md). The test holds both within 0.4–2.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_TOLERANCE } from '../../protocol/device.js';
import { LAST_RESORT_TOLERANCE, MAX_STEPS, READINGS_PER_STEP } from '../../puppeteer/device/calibrate.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { ceilingOf } from '../../results/ceilings.js';
import { cpuList, QUOTA_PERIOD_US } from '../../puppeteer/device/cgroup.js';
import { okRepeatOf, runSweep, startSweep, stillRunning } from '../helpers/sweep-process.js';

const CPU_ROOT = '/sys/fs/cgroup/cpu';
const CPUSET_ROOT = '/sys/fs/cgroup/cpuset';
/** The scenario's point at full speed; `-low` and `-low-mt` follow it for each class. */
const POINT = 'dev/ws-b100-c1-i50-none';
const canSlow = process.getuid?.() === 0 && existsSync(path.join(CPU_ROOT, 'cpu.cfs_quota_us'));

/** pushlab's cgroups under both controllers (`pushlab-<pid>-<n>`); `pid`: only that process's. */
function groups(pid?: number): string[] {
  const mine = (name: string) => (pid === undefined ? /^pushlab-\d+-\d+$/ : new RegExp(`^pushlab-${pid}-\\d+$`)).test(name);
  return [CPU_ROOT, CPUSET_ROOT].filter(existsSync).flatMap((root) =>
    readdirSync(root)
      .filter(mine)
      .map((n) => path.join(root, n)),
  );
}

const BATCH = 100;
/**
 * 2,000 events/s, which the low-tier class keeps up with under either throttle (it took about
 * 5,800/s saturated under the quota here): an overloaded repeat waits out its settle budget and
 * drains its backlog at the stop, seconds of a slowed browser that no assertion reads.
 */
const SCENARIOS = {
  scenarios: [
    {
      id: 'dev',
      transport: 'ws',
      batch: BATCH,
      concurrency: 1,
      intervalMs: 50,
      render: 'none',
      warmupSec: 0,
      measureSec: 1,
      repeats: 1,
      device: ['off', 'low-tier'],
      throttle: ['browser', 'main-thread'],
    },
  ],
};

/** The run's two calibrations, by how each slows. */
function devicesOf(report: Report) {
  const of = (throttle: string) => {
    const d = report.devices?.find((x) => x.throttle === throttle);
    expect(d, `${throttle} in ${JSON.stringify(report.devices)}`).toBeDefined();
    return d!;
  };
  return { whole: of('browser'), main: of('main-thread') };
}

describe.runIf(canSlow)('device classes in headless Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;
  let before: string[];

  beforeAll(async () => {
    before = groups();
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-device-'));
    const file = path.join(dir, 'scenarios.json');
    await writeFile(file, JSON.stringify(SCENARIOS));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--file', file, '--scenario', 'dev', '--json', '--retries', '0', '--out', path.join(dir, 'out')], 240_000));
    report = JSON.parse(stdout) as Report;
  }, 250_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const repeatOf = (id: string): MeasuredRepeat => okRepeatOf(report, id);

  it('measures the point at full speed and as each class, named in its id', () => {
    expect(code, stderr).toBe(0);
    expect(report.points.map((p) => p.point.id)).toEqual([POINT, `${POINT}-low`, `${POINT}-low-mt`]);
    expect(report.points[1].point).toMatchObject({ device: 'low-tier' });
    expect(report.points[2].point).toMatchObject({ device: 'low-tier', throttle: 'main-thread' });
    // The run's header says what each way of slowing is not faithful to, once each.
    expect(stderr.match(/^device classes slow the whole browser: .*Workers share the quota/gm)).toHaveLength(1);
    expect(stderr.match(/^main-thread throttling slows only the tab's main thread \(CDP\): .*no CPU-time figure is valid/gm)).toHaveLength(1);
  });

  it('calibrates each class once, to BenchmarkIndex 264 within the tolerance, recording every reading', () => {
    // In the order calibrated, which is the order the ceilings ask, unless one had to be asked again.
    expect(report.devices?.map((d) => [d.device, d.throttle, d.browser]).sort()).toEqual([
      ['low-tier', 'browser', 'local'],
      ['low-tier', 'main-thread', 'local'],
    ]);
    for (const d of report.devices!) {
      expect(d.targetIndex).toBe(264);
      // Within the tolerance, or, only once every step was taken without landing in it (the
      // readings vary 4–9% each on this machine), the closest step within the last resort's.
      const off = Math.abs(d.index - 264) / 264;
      if (off > CALIBRATION_TOLERANCE) {
        expect(off, JSON.stringify(d)).toBeLessThanOrEqual(LAST_RESORT_TOLERANCE);
        expect(d.readings.length, JSON.stringify(d)).toBe(READINGS_PER_STEP * (1 + MAX_STEPS));
      }
      // Slower than full speed, which reads well above a low-tier phone here.
      expect(d.baseIndex).toBeGreaterThan(2 * 264);
      expect(d.speed).toBeGreaterThan(0);
      expect(d.speed).toBeLessThan(1);
      expect(d.slowdown).toBeCloseTo(1 / d.speed, 1);
      // The readings: three at full speed first, then every step's.
      expect(d.readings.slice(0, 3).map((r) => r.speed)).toEqual([1, 1, 1]);
      // The speed kept is the last step's, or under the last resort the closest step's, which
      // may be an earlier one (CI, 2026-11-29: kept 0.1109, last step 0.119).
      if (off > CALIBRATION_TOLERANCE) expect(d.readings.some((r) => Math.abs(r.speed - d.speed) < 5e-4)).toBe(true);
      else expect(d.readings.at(-1)!.speed).toBeCloseTo(d.speed, 3);
    }
    const { whole, main } = devicesOf(report);
    expect(whole.periodMs).toBe(QUOTA_PERIOD_US / 1000);
    // Pinned to the last of this machine's cores, where it has more than one.
    const cores = cpuList(readFileSync(path.join(CPUSET_ROOT, 'cpuset.cpus'), 'utf8').trim());
    expect(whole.pinnedCpu).toBe(cores.length > 1 ? cores.at(-1) : null);
    expect(main.periodMs).toBeNull();
    expect(main.pinnedCpu).toBeNull();
    expect(stderr).toMatch(/low-tier device \(BenchmarkIndex 264\) in local: BenchmarkIndex [\d.]+ at [\d.]+× slower/);
  });

  it('the JSON.parse ceiling, measured as each class, falls by the calibrated factor, within the band measured', () => {
    const ceilings = report.rounds[0].parseCeilings;
    const full = ceilingOf(ceilings, BATCH, 'json')!;
    const whole = ceilingOf(ceilings, BATCH, 'json', { device: 'low-tier' })!;
    const main = ceilingOf(ceilings, BATCH, 'json', { device: 'low-tier', throttle: 'main-thread' })!;
    const { whole: w, main: m } = devicesOf(report);
    const ratio = (c: number, d: typeof w) => c / full / (d.index / d.baseIndex);
    const figures = JSON.stringify({ full, whole, main, devices: report.devices!.map((d) => [d.index, d.baseIndex]) });
    expect(ratio(whole, w), figures).toBeGreaterThan(0.4);
    expect(ratio(whole, w), figures).toBeLessThan(2);
    expect(ratio(main, m), figures).toBeGreaterThan(0.4);
    expect(ratio(main, m), figures).toBeLessThan(2);
    // Every repeat is read against its own class's ceiling.
    expect(repeatOf(`${POINT}-low`).ceilingEventsPerSec).toBe(whole);
    expect(repeatOf(`${POINT}-low-mt`).ceilingEventsPerSec).toBe(main);
    expect(repeatOf(POINT).ceilingEventsPerSec).toBe(full);
  });

  it("whole browser: CPU figures are the device's, host CPU unavailable and why", () => {
    const r = repeatOf(`${POINT}-low`);
    expect(r.cpu.host).toBeNull();
    expect(r.cpu.unavailable).toContain('host');
    expect(r.cpu.sources?.host).toMatch(/server, which runs outside the browser's quota/);
    expect(r.cpu.sources?.tabProcess).toMatch(/the device's: this machine's CPU time × the class's slowdown/);
    expect(r.cpu.tabProcess).not.toBeNull();
    expect(r.efficiency.eventsPerCpuSecRenderer).not.toBeNull();
    expect(r.notes.join('\n')).toMatch(/device class: the whole browser ran [\d.]+× slower \(a CPU quota of [\d.]+% of one core, pinned to it\)/);
  });

  it('main thread: the renderer CPU times and every figure per CPU-second are null, with the reason, never numbers', () => {
    const r = repeatOf(`${POINT}-low-mt`);
    expect(r.cpu.tabProcess).toBeNull();
    expect(r.cpu.tabThreads).toBeNull();
    expect(r.cpu.chrome.renderers).toBeNull();
    expect(r.cpu.chrome.total).toBeNull();
    expect(r.cpu.unavailable).toEqual(expect.arrayContaining(['tabProcess', 'tabThreads', 'renderers', 'total']));
    expect(r.cpu.sources?.tabProcess).toMatch(/not valid under main-thread throttling/);
    expect(Object.values(r.efficiency)).toEqual([null, null, null, null]);
    expect(r.notes.join('\n')).toMatch(/device class: the tab's main thread ran [\d.]+× slower \(CDP CPU throttling/);
  });

  it('leaves no cgroup behind', () => {
    expect(groups().filter((g) => !before.includes(g))).toEqual([]);
  });
});

describe.runIf(canSlow)('Ctrl-C while calibrating', () => {
  it('stops within seconds, keeps a valid report and leaves no cgroup', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-device-int-'));
    try {
      const file = path.join(dir, 'scenarios.json');
      await writeFile(file, JSON.stringify({ scenarios: [{ ...SCENARIOS.scenarios[0], device: 'low-tier', throttle: 'browser' }] }));
      const run = startSweep(['--file', file, '--scenario', 'dev', '--out', path.join(dir, 'out')]);
      await run.waitForStderr(/calibrating low-tier/, 60_000);
      // A reading or two into the search (each 500 ms): the calibration alone takes 3–14 s.
      await new Promise((r) => setTimeout(r, 1000));
      const sent = Date.now();
      run.child.kill('SIGINT');
      const { code } = await run.exit;
      const tookMs = Date.now() - sent;
      expect(code, run.stderr()).toBe(130);
      // The reading in flight ends (≤ 0.5 s), then the report is saved and Chrome and the server closed.
      expect(tookMs, run.stderr()).toBeLessThan(8000);
      const reportFile = run.stdout().trim();
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
      expect(report.interrupted).toBe(true);
      expect(report.devices ?? []).toEqual([]);
      expect(groups(run.child.pid)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.runIf(canSlow)('a sweep killed while slowing the browser', () => {
  it('leaves its cgroups, which the next command removes, ending what they held', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-device-kill-'));
    try {
      const file = path.join(dir, 'scenarios.json');
      await writeFile(file, JSON.stringify({ scenarios: [{ ...SCENARIOS.scenarios[0], device: 'low-tier', throttle: 'browser', measureSec: 30 }] }));
      const run = startSweep(['--file', file, '--scenario', 'dev', '--out', path.join(dir, 'out')]);
      // The quota is made as the calibration starts.
      await run.waitForStderr(/calibrating low-tier/, 60_000);
      // The groups are made first, the browser's processes moved in just after: wait for both.
      const procsIn = (gs: readonly string[]) =>
        gs.flatMap((g) => {
          try {
            return readFileSync(path.join(g, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
          } catch {
            return [];
          }
        });
      let left: string[] = [];
      let held: number[] = [];
      for (let i = 0; i < 100 && (left.length < 2 || held.length === 0); i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = groups(run.child.pid);
        held = procsIn(left);
      }
      expect(left.map((g) => path.dirname(g))).toEqual([CPU_ROOT, CPUSET_ROOT].filter(existsSync));
      expect(held.length).toBeGreaterThan(0);
      run.child.kill('SIGKILL');
      await run.exit;
      expect(groups(run.child.pid)).toEqual(left);
      // The next command that might slow a browser cleans up at its start, even one refused right after.
      const next = await runSweep(
        ['--file', file, '--scenario', 'dev', '--browser', 'ws://127.0.0.1:1/devtools/browser/x', '--out', path.join(dir, 'out')],
        60_000,
      );
      expect(next.code).toBe(2);
      expect(next.stderr).toMatch(/removed the CPU quota cgroup\(s\) a killed run left, and the processes still in them: /);
      expect(next.stderr).toMatch(/PUSHLAB_NO_DEVICE/);
      expect(groups(run.child.pid)).toEqual([]);
      expect(stillRunning(held)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
