/**
 * Finds the speed at which a browser's BenchmarkIndex reads a class's target, the way DevTools
 * calibrates its CPU throttling presets (devtools-frontend's CalibrationController): a search
 * over the slowdown, because the index is not linear in it. Measured here (2026-11-28, Chromium
 * 156, 500 ms readings): full speed read about 2950 (both cores); a whole-browser quota pinned to
 * one core of 0.5, 0.35, 0.15 and 0.1 of it read about 1500, 1000, 350 and 220 (cgroup.ts); CDP
 * rates 2, 4 and 10 read about 900, 440 and 220. So each step guesses from a line fitted through
 * every reading so far on log-log axes (index ∝ speed^k, least squares): one noisy step moves
 * the guess little, and the readings of steps at the same speed are pooled. No Node or browser
 * here: the caller's `read` runs the benchmark.
 */
import { PushlabError } from '../../protocol/errors.js';
import { CALIBRATION_TOLERANCE } from '../../protocol/device.js';
import { median } from '../../results/stats.js';

/** Each reading's length, ms: 250 ms readings here ranged ±25% at full speed (JIT still warming), 500 ms ones ±2%. */
export const READING_MS = 500;
/** Readings whose median is one step's figure: pinned under a quota, single readings varied by 4–9% (coefficient of variation). */
export const READINGS_PER_STEP = 3;
/** Steps before the search gives up (DevTools: 8). */
export const MAX_STEPS = 8;
/** The lowest speed tried: 1/50 of full speed (CDP's rate 50; a 1 ms quota per 50 ms). */
export const MIN_SPEED = 0.02;

export interface Calibrated {
  baseIndex: number;
  speed: number;
  index: number;
  readings: { speed: number; index: number }[];
}

/**
 * `read(speed)`: one BenchmarkIndex reading with the browser at `speed` of full speed (0…1].
 * Throws PUSHLAB_NO_DEVICE when the target is above this browser's own index, or when no step
 * lands within CALIBRATION_TOLERANCE of it.
 */
export async function calibrate(target: number, read: (speed: number) => Promise<number>, what: string): Promise<Calibrated> {
  const readings: { speed: number; index: number }[] = [];
  const step = async (speed: number): Promise<number> => {
    const got: number[] = [];
    for (let i = 0; i < READINGS_PER_STEP; i++) {
      const index = await read(speed);
      readings.push({ speed, index });
      got.push(index);
    }
    return median(got);
  };
  // One reading to warm the JIT, as DevTools does, not counted.
  await read(1);
  const baseIndex = await step(1);
  const within = (index: number) => Math.abs(index - target) <= CALIBRATION_TOLERANCE * target;
  if (within(baseIndex)) return { baseIndex, speed: 1, index: baseIndex, readings };
  if (baseIndex < target) {
    throw new PushlabError(
      'PUSHLAB_NO_DEVICE',
      `${what}: this browser reads BenchmarkIndex ${Math.round(baseIndex)} at full speed, below the class's ${target}: a slower device cannot be made faster`,
    );
  }
  let guess = Math.max(MIN_SPEED, target / baseIndex);
  let best = { speed: 1, index: baseIndex };
  for (let i = 0; i < MAX_STEPS; i++) {
    await step(guess);
    // Every reading taken at (within 2% of) this speed, earlier steps' included.
    const index = median(readings.filter((r) => Math.abs(r.speed / guess - 1) <= SAME_SPEED).map((r) => r.index));
    if (Math.abs(index - target) < Math.abs(best.index - target)) best = { speed: guess, index };
    if (within(index)) return { baseIndex, speed: guess, index, readings };
    guess = Math.min(1, Math.max(MIN_SPEED, fittedSpeed(readings, target)));
  }
  throw new PushlabError(
    'PUSHLAB_NO_DEVICE',
    `${what}: the BenchmarkIndex did not settle within ${CALIBRATION_TOLERANCE * 100}% of ${target} in ${MAX_STEPS} steps (closest: ${Math.round(best.index)} at ${round3(best.speed)} of full speed); the machine may be too busy to calibrate`,
  );
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Steps whose speeds differ by at most this share are one speed: their readings are pooled. */
const SAME_SPEED = 0.02;

/**
 * The speed at which a line fitted through the readings (log index on log speed, least squares)
 * reads `target`. Readings at full speed count only while the slowed ones hold a single speed (a
 * line needs two); a fit with no slope, or a falling one (noise), assumes index ∝ speed.
 */
export function fittedSpeed(readings: readonly { speed: number; index: number }[], target: number): number {
  const slowed = readings.filter((r) => r.speed < 1);
  const speeds = new Set(slowed.map((r) => r.speed));
  const used = speeds.size >= 2 ? slowed : readings;
  const xs = used.map((r) => Math.log(r.speed));
  const ys = used.map((r) => Math.log(r.index));
  const mx = xs.reduce((a, x) => a + x, 0) / xs.length;
  const my = ys.reduce((a, y) => a + y, 0) / ys.length;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const sxy = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0);
  const k = sxx > 0 ? sxy / sxx : 0;
  if (!(k > 0.2)) {
    // No usable slope: scale the slowest speed's median proportionally.
    const last = slowed.at(-1) ?? readings[readings.length - 1];
    return last.speed * (target / last.index);
  }
  return Math.exp(mx + (Math.log(target) - my) / k);
}
