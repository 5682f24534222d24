/**
 * Finds the speed at which a browser's BenchmarkIndex reads a class's target, the way DevTools
 * calibrates its CPU throttling presets (devtools-frontend CalibrationController.ts): a search
 * over the slowdown, because the index is not linear in it. Measured here (2026-11-28, Chromium
 * 156, 500 ms readings): full speed read about 2950; a whole-browser quota of 0.5, 0.25 and 0.1
 * of a core read about 1320, 550 and 70 (the GC threads spend the same quota); CDP rates 2, 4 and
 * 10 read about 900, 440 and 220. So each step guesses from the last two readings on a log-log
 * line (index ∝ speed^k) and falls back to halving the bracket (in log speed) when the guess
 * leaves it. No Node or browser here: the caller's `read` runs the benchmark.
 */
import { PushlabError } from '../../protocol/errors.js';
import { CALIBRATION_TOLERANCE } from '../../protocol/device.js';
import { median } from '../../results/stats.js';

/** Each reading's length, ms: 250 ms readings here ranged ±25% at full speed (JIT still warming), 500 ms ones ±2%. */
export const READING_MS = 500;
/** Readings whose median is one step's figure: a quota's bursts make single readings at low speed vary by ±12%. */
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
  // The bracket, in speed: `lo` reads below the target, `hi` above it.
  let lo = MIN_SPEED;
  let hi = 1;
  let last = { speed: 1, index: baseIndex };
  let guess = Math.max(MIN_SPEED, target / baseIndex);
  let best = { speed: 1, index: baseIndex };
  for (let i = 0; i < MAX_STEPS; i++) {
    const index = await step(guess);
    if (Math.abs(index - target) < Math.abs(best.index - target)) best = { speed: guess, index };
    if (within(index)) return { baseIndex, speed: guess, index, readings };
    if (index < target) lo = guess;
    else hi = guess;
    // index ∝ speed^k through the last two steps; k ≤ 0 (noise) falls back to 1.
    const k = Math.log(index / last.index) / Math.log(guess / last.speed);
    const next = guess * (target / index) ** (1 / (Number.isFinite(k) && k > 0.2 ? k : 1));
    last = { speed: guess, index };
    guess = next > lo && next < hi ? next : Math.sqrt(lo * hi);
  }
  throw new PushlabError(
    'PUSHLAB_NO_DEVICE',
    `${what}: the BenchmarkIndex did not settle within ${CALIBRATION_TOLERANCE * 100}% of ${target} in ${MAX_STEPS} steps (closest: ${Math.round(best.index)} at ${round3(best.speed)} of full speed); the machine may be too busy to calibrate`,
  );
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
