/**
 * Device classes: a point measured as if on a slower device, by slowing this machine's browser
 * until a CPU benchmark in the page reads the class's score. The score is Lighthouse's
 * BenchmarkIndex (`computeBenchmarkIndex` in GoogleChrome/lighthouse core/lib/page-functions.js),
 * and the two presets are the targets Chrome DevTools (134+) calibrates its CPU throttling to
 * (devtools-frontend's CalibrationController): 1000 for a mid-tier phone, 264 for a low-tier one.
 * A file of its own because the scenario (the class a point asks for), the report (what the
 * calibration found) and the words of an answer each name it. Pure: no Node, no DOM.
 */

export const DEVICE_PRESETS = {
  'mid-tier': { index: 1000, like: 'a mid-tier phone, like a Pixel 5' },
  'low-tier': { index: 264, like: 'a low-tier phone, like a Moto G4 Power (2022)' },
} as const;
export type DevicePreset = keyof typeof DEVICE_PRESETS;

/** A class a point runs as: a preset, or a BenchmarkIndex of one's own (`index=500`). */
export type DeviceClass = DevicePreset | `index=${number}`;
/** As a scenario or a flag gives it: a class, or `off` (this machine at full speed). */
export type DeviceSetting = DeviceClass | 'off';

/** The BenchmarkIndex an `index=N` class may ask for: below 20 a class is slower than any phone Lighthouse lists (under 125 is "budget"). */
export const DEVICE_INDEX = { min: 20, max: 100_000, integer: true } as const;

/** What a scenario's or a flag's device may be, as a JSON Schema pattern. */
export const DEVICE_SETTING_PATTERN = '^(off|mid-tier|low-tier|index=[1-9][0-9]{1,5})$';
/** What a recorded point's device may be (`off` is left out of a point). */
export const DEVICE_CLASS_PATTERN = '^(mid-tier|low-tier|index=[1-9][0-9]{1,5})$';
export const DEVICE_SETTING_TEXT = `off, mid-tier (BenchmarkIndex ${DEVICE_PRESETS['mid-tier'].index}), low-tier (${DEVICE_PRESETS['low-tier'].index}), or index=N (a BenchmarkIndex of ${DEVICE_INDEX.min}…${DEVICE_INDEX.max})`;

/**
 * How a class slows the browser.
 * - `browser` (the default): the whole browser, every process and thread, under one CPU quota
 *   (a cgroup): Workers, the network service and the compositor slow with the main thread.
 * - `main-thread`: CDP's Emulation.setCPUThrottlingRate, as DevTools does: only the renderer's
 *   main thread, by a helper that busy-waits in it, so the CPU read for it is not valid.
 */
export type Throttle = 'browser' | 'main-thread';
export const THROTTLES: readonly Throttle[] = ['browser', 'main-thread'];

/** The device setting in this text, or why not (the caller names the field). */
export function parseDeviceSetting(text: string): { ok: true; value: DeviceSetting } | { ok: false; error: string } {
  if (!new RegExp(DEVICE_SETTING_PATTERN).test(text))
    return { ok: false, error: `must be ${DEVICE_SETTING_TEXT}; got '${text.length > 40 ? `${text.slice(0, 40)}…` : text}'` };
  if (text.startsWith('index=')) {
    const n = Number(text.slice('index='.length));
    if (n < DEVICE_INDEX.min || n > DEVICE_INDEX.max)
      return { ok: false, error: `index=N takes a BenchmarkIndex of ${DEVICE_INDEX.min}…${DEVICE_INDEX.max}; got ${n}` };
  }
  return { ok: true, value: text as DeviceSetting };
}

/** Whether a setting asks for a slower device. */
export const isDeviceClass = (d: DeviceSetting | undefined): d is DeviceClass => d !== undefined && d !== 'off';

/** The BenchmarkIndex a class is calibrated to. */
export function targetIndexOf(d: DeviceClass): number {
  return d === 'mid-tier' || d === 'low-tier' ? DEVICE_PRESETS[d].index : Number(d.slice('index='.length));
}

/** Its part of a point id: `-mid`, `-low`, `-bi500`. */
export function deviceTag(d: DeviceClass): string {
  return d === 'mid-tier' ? '-mid' : d === 'low-tier' ? '-low' : `-bi${targetIndexOf(d)}`;
}

/** The class in words, with its index: "low-tier device (BenchmarkIndex 264)". */
export function deviceWords(d: DeviceClass, throttle: Throttle = 'browser'): string {
  const name = d === 'mid-tier' || d === 'low-tier' ? `${d} device` : 'device';
  return `${name} (BenchmarkIndex ${targetIndexOf(d)}${throttle === 'main-thread' ? ', main thread only' : ''})`;
}

/** What a run's calibration of one class found, in one browser (the report's `devices`). */
export interface DeviceCalibration {
  device: DeviceClass;
  throttle: Throttle;
  /** The report's `hosts` id of the browser calibrated (each browser slows by its own factor). */
  browser: string;
  targetIndex: number;
  /** This browser's BenchmarkIndex at full speed: the median of its readings before slowing. */
  baseIndex: number;
  /** The BenchmarkIndex read at the setting found (the median of its last readings). */
  index: number;
  /**
   * The speed found, as a share of full speed (0…1]: the browser's CPU quota in cores
   * (`browser`), or 1 ÷ CDP's throttling rate (`main-thread`).
   */
  speed: number;
  /** How many times slower than full speed: 1 ÷ speed. */
  slowdown: number;
  /** `browser`: the quota's period, ms (the longest stall the quota adds within one period); null for `main-thread`. */
  periodMs: number | null;
  /** `browser`: the one core the slowed browser was pinned to (cpuset); null: not pinned (no cpuset controller), or `main-thread`. */
  pinnedCpu: number | null;
  /** Every reading of the search, in order: the speed tried and the index it read. */
  readings: { speed: number; index: number }[];
  /** When the calibration ended. */
  at: string;
}

/** How a calibration slowed the browser, in words: "whole browser: 19.1% of core 1, 10 ms period". */
function slowedWords(c: DeviceCalibration): string {
  if (c.throttle === 'main-thread') return "the tab's main thread only (CDP CPU throttling: its CPU-time figures are not valid)";
  const share = `${Math.round(c.speed * 1000) / 10}% of ${c.pinnedCpu !== null ? `core ${c.pinnedCpu}` : 'one core'}`;
  return `the whole browser under a CPU quota of ${share}${c.periodMs !== null ? `, ${c.periodMs} ms period` : ''}`;
}

/** One calibration in words, for the terminal's notes. */
export function calibrationWords(c: DeviceCalibration): string {
  return `${deviceWords(c.device, c.throttle)} in ${c.browser}: BenchmarkIndex ${c.index} at ${c.slowdown}× slower (${slowedWords(c)}); full speed reads ${c.baseIndex}`;
}

/** The same, short, for a header field that already names the class: "BenchmarkIndex 252 of 264 · 5.24× slower · …". */
export function calibrationShort(c: DeviceCalibration): string {
  return `BenchmarkIndex ${c.index} of ${c.targetIndex} · ${c.slowdown}× slower · ${slowedWords(c)} · full speed ${c.baseIndex}${c.browser !== 'local' ? ` · ${c.browser}` : ''}`;
}

/** The caveats of each way of slowing, said once in a run's header where its points use it. */
export const THROTTLE_CAVEATS: Record<Throttle, string> = {
  browser:
    "device classes slow the whole browser: one CPU quota of one core, pinned to it (a phone's other cores are not modelled: Workers share the quota); CPU figures are the device's, this machine's CPU time × the slowdown",
  'main-thread':
    "main-thread throttling slows only the tab's main thread (CDP): Workers, the network service and the GPU run at full speed, and no CPU-time figure is valid under it",
};

/** How far a calibrated index may be from its target, as a share of it (DevTools: within 10 points). */
export const CALIBRATION_TOLERANCE = 0.05;
