/**
 * Runs points as device classes (protocol/device.ts): calibrates each class once per run and
 * browser, the first time a point or a ceiling asks for it, then slows the browser to it before
 * each repeat and lifts the slowdown for points without a class.
 * - `browser`: one cgroup for the run (cgroup.ts), holding every local browser's processes (only
 *   one point measures at a time, so one quota serves them all); the processes are adopted again
 *   before each point, so a relaunched browser or a new renderer is never left outside.
 * - `main-thread`: CDP's Emulation.setCPUThrottlingRate on each tab's session.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import { PushlabError } from '../../protocol/errors.js';
import { deviceWords, targetIndexOf, type DeviceCalibration, type DeviceClass, type Throttle } from '../../protocol/device.js';
import type { Point } from '../../protocol/scenario.js';
import type { BrowserSlot } from '../browser/slot.js';
import { readProcessTree } from '../measure/proc-tree.js';
import { readBenchmarkIndex } from './benchmark.js';
import { calibrate, READING_MS, type CalibrationHint } from './calibrate.js';
import { CalibrationMemory, calibrationMemoryFile, type CalibrationKey } from './memory.js';
import { CpuQuota, findCpuController } from './cgroup.js';

/** The device a point or a ceiling runs as. */
export type DeviceCondition = Pick<Point, 'device' | 'throttle'>;

/**
 * The class a point's tabs run as, as its calibration found it (how it slows the browser, its
 * speed and slowdown): what a tab needs, and what its figures are read against
 * (results/summarise.ts). null: full speed.
 */
export type AppliedDevice = DeviceCalibration | null;

/**
 * CDP's throttling rate for a share of full speed: 1 ÷ speed, floored to the hundredths. Chrome
 * keeps the rate to the hundredths (DevTools truncates it the same way), and flooring never slows
 * a tab more than the speed asked. One function for the calibration's readings and the points'
 * tabs, so a tab is slowed the way its class's readings were.
 */
export const cdpRate = (speed: number): number => Math.floor((1 / speed) * 100) / 100;

/**
 * Refuses, before anything is launched, a run whose points ask for a class this machine cannot
 * make: a whole-browser class with no cgroup cpu controller or without root, or in a browser
 * that is not on this machine. `browsers`: where the run's browsers are. `mainThread`: whether
 * the command offers --throttle main-thread as the way out (advise does not: it ranks by CPU).
 */
export function checkDeviceConditions(points: readonly DeviceCondition[], browsers: 'local' | 'remote', mainThread = true): void {
  const whole = points.filter((p) => p.device !== undefined && p.throttle === undefined);
  if (!whole.length) return;
  const classes = [...new Set(whole.map((p) => p.device))].join(', ');
  if (browsers === 'remote') {
    throw new PushlabError(
      'PUSHLAB_NO_DEVICE',
      `device ${classes} with throttle browser slows a browser's processes on this machine, and this run's browsers are elsewhere (--browser, --grid): ${mainThread ? 'use --throttle main-thread, which slows a Chrome through CDP' : 'drop --browser (a browser launched here is slowed)'}`,
    );
  }
  const controller = findCpuController();
  if ('missing' in controller) {
    throw new PushlabError(
      'PUSHLAB_NO_DEVICE',
      `device ${classes} slows the whole browser under a cgroup CPU quota, and ${controller.missing}: run as root on a machine with cgroups${mainThread ? ', or use --throttle main-thread (CDP, the main thread only)' : ''}`,
    );
  }
}

export class DeviceEmulator {
  private quota: Promise<CpuQuota> | null = null;
  private readonly calibrations = new Map<string, Promise<DeviceCalibration>>();

  constructor(
    private readonly o: {
      /** Each class found, once per browser: the report's `devices`. */
      onCalibrated: (c: DeviceCalibration) => void;
      log: (line: string) => void;
      /**
       * The command's stop (Ctrl-C): a calibration in progress ends at its next reading (within
       * 0.5 s) instead of running its up to 30 readings out.
       */
      signal?: AbortSignal;
      /** Where each class landed before here (memory.ts); default: the user's file. */
      memory?: CalibrationMemory;
    },
  ) {
    this.memory = o.memory ?? new CalibrationMemory(calibrationMemoryFile(), o.log);
  }

  private readonly memory: CalibrationMemory;

  /** What a local browser's calibration is remembered by; null for a remote one (its machine is not this one) or a browser that does not say its version. */
  private async memoryKey(slot: BrowserSlot, device: DeviceClass, throttle: Throttle): Promise<CalibrationKey | null> {
    if ((slot.processRoot?.() ?? null) === null) return null;
    const browserVersion = await slot
      .browser()
      .version()
      .catch(() => null);
    return browserVersion ? { device, throttle, engine: slot.engine ?? 'chrome', browserVersion } : null;
  }

  /**
   * Before a point's tabs (or a ceiling's) open in `slot`: the browser at the condition's class,
   * or at full speed without one. `hostId` names the browser in the report (its calibration is its own).
   */
  async enter(slot: BrowserSlot, cond: DeviceCondition, hostId: string): Promise<AppliedDevice> {
    const device = cond.device;
    if (device === undefined) {
      await this.fullSpeed();
      return null;
    }
    const throttle: Throttle = cond.throttle ?? 'browser';
    const calibration = await this.calibration(slot, device, throttle, hostId);
    if (throttle === 'browser') {
      const quota = await this.quotaFor(slot);
      await quota.setSpeed(calibration.speed);
      return calibration;
    }
    await this.fullSpeed();
    return calibration;
  }

  /** Applies a main-thread class to one tab (its page's CDP session); nothing for the others. */
  static async onTab(session: CDPSession | null, applied: AppliedDevice): Promise<void> {
    if (applied?.throttle !== 'main-thread') return;
    if (session === null) throw new PushlabError('PUSHLAB_NO_DEVICE', "main-thread throttling is Chrome's CDP; this browser has none");
    await session.send('Emulation.setCPUThrottlingRate', { rate: cdpRate(applied.speed) });
  }

  /** The browser at full speed, on every core: the run's quota (if it has one yet) lifted. */
  private async fullSpeed(): Promise<void> {
    if (this.quota) await (await this.quota).setSpeed(null);
  }

  /** Lifts the quota and removes the run's cgroup. */
  async close(): Promise<void> {
    const q = this.quota;
    this.quota = null;
    if (q) await (await q.catch(() => null))?.remove();
  }

  /** The run's quota, with this browser's processes in it. */
  private async quotaFor(slot: BrowserSlot): Promise<CpuQuota> {
    const root = slot.processRoot?.() ?? null;
    if (root === null) {
      throw new PushlabError(
        'PUSHLAB_NO_DEVICE',
        "throttle browser slows a browser's processes on this machine, and this browser's are elsewhere (a remote one): use throttle main-thread (--throttle main-thread), which slows a Chrome through CDP",
      );
    }
    if (!this.quota) {
      this.quota = (async () => {
        const controller = findCpuController();
        if ('missing' in controller) throw new PushlabError('PUSHLAB_NO_DEVICE', `cannot slow the whole browser: ${controller.missing}`);
        return CpuQuota.create(controller);
      })();
    }
    const quota = await this.quota;
    await quota.adopt((await readProcessTree(root)).processes.map((p) => p.pid));
    return quota;
  }

  private calibration(slot: BrowserSlot, device: DeviceClass, throttle: Throttle, hostId: string): Promise<DeviceCalibration> {
    const key = `${hostId}|${slot.engine ?? 'chrome'}|${device}|${throttle}`;
    let c = this.calibrations.get(key);
    if (!c) {
      c = this.calibrate(slot, device, throttle, hostId);
      // A failed calibration is tried again by the next point that asks (the machine may have been busy).
      c.catch(() => this.calibrations.delete(key));
      this.calibrations.set(key, c);
    }
    return c;
  }

  private async calibrate(slot: BrowserSlot, device: DeviceClass, throttle: Throttle, hostId: string): Promise<DeviceCalibration> {
    const target = targetIndexOf(device);
    const what = `${deviceWords(device, throttle)} in ${hostId}`;
    this.o.log(`calibrating ${what}: slowing the ${throttle === 'browser' ? 'whole browser' : "tab's main thread"} until its BenchmarkIndex reads ${target}`);
    // From full speed: the quota the last point left would slow the readings of a main-thread class twice.
    await this.fullSpeed();
    const page: Page = await slot.newPage();
    let session: CDPSession | null = null;
    try {
      await page.goto('about:blank');
      let read: (speed: number) => Promise<number>;
      let periodMs: number | null = null;
      let pinnedCpu: number | null = null;
      if (throttle === 'browser') {
        const quota = await this.quotaFor(slot);
        read = async (speed) => {
          const set = await quota.setSpeed(speed === 1 ? null : speed);
          if (speed !== 1) ({ pinnedCpu } = set);
          periodMs = set.periodUs / 1000;
          return readBenchmarkIndex(page, READING_MS);
        };
      } else {
        if (slot.engine === 'firefox') throw new PushlabError('PUSHLAB_NO_DEVICE', "main-thread throttling is Chrome's CDP; Firefox has none");
        session = await page.createCDPSession();
        const s = session;
        read = async (speed) => {
          await s.send('Emulation.setCPUThrottlingRate', { rate: cdpRate(speed) });
          return readBenchmarkIndex(page, READING_MS);
        };
      }
      const signal = this.o.signal;
      const key = await this.memoryKey(slot, device, throttle);
      const hint: CalibrationHint | null = key ? await this.memory.recall(key) : null;
      if (hint)
        this.o.log(
          `${what}: starting from where it landed last time here, ${Math.round((1 / hint.speed) * 100) / 100}× slower (full speed read ${round1(hint.baseIndex)})`,
        );
      const found = await calibrate(
        target,
        (speed) => {
          signal?.throwIfAborted();
          return read(speed);
        },
        what,
        hint ?? undefined,
      );
      if (key && found.speed < 1) await this.memory.remember(key, { speed: found.speed, baseIndex: found.baseIndex, index: found.index });
      const calibration: DeviceCalibration = {
        device,
        throttle,
        browser: hostId,
        targetIndex: target,
        baseIndex: round1(found.baseIndex),
        index: round1(found.index),
        speed: Math.round(found.speed * 10_000) / 10_000,
        slowdown: Math.round((1 / found.speed) * 100) / 100,
        periodMs: throttle === 'browser' ? periodMs : null,
        pinnedCpu: throttle === 'browser' ? pinnedCpu : null,
        readings: found.readings.map((r) => ({ speed: Math.round(r.speed * 10_000) / 10_000, index: round1(r.index) })),
        at: new Date().toISOString(),
      };
      this.o.log(
        `${what}: BenchmarkIndex ${calibration.index} at ${calibration.slowdown}× slower (this browser reads ${calibration.baseIndex} at full speed; ${calibration.readings.length} readings)`,
      );
      this.o.onCalibrated(calibration);
      return calibration;
    } finally {
      // Not fullSpeed(): a quota that could not be made is this calibration's own error, already on its way out, and the page must still close.
      if (this.quota) await (await this.quota.catch(() => null))?.setSpeed(null);
      await session?.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => undefined);
      await page.close().catch(() => undefined);
    }
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;
