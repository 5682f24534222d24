/**
 * Finds the speed at which a browser's BenchmarkIndex reads a class's target, the way DevTools
 * calibrates its CPU throttling presets (devtools-frontend's CalibrationController): a search
 * over the slowdown, because the index is not linear in it. Measured here (2026-11-28, Chromium
 * 156, 500 ms readings): full speed read about 2950 (both cores); a whole-browser quota pinned to
 * one core of 0.5, 0.35, 0.15 and 0.1 of it read about 1500, 1000, 350 and 220 (cgroup.ts); CDP
 * rates 2, 4 and 10 read about 900, 440 and 220. So each step's figure pools every reading taken
 * at its speed, and the next speed lies where the log-log line through the nearest speeds on
 * either side of the target reads it (nextSpeed): a bracket that only narrows. A least-squares
 * line through every reading did worse: once, on a quiet machine, it ended 18% off after 8
 * steps (the relation bends, so far readings pulled the line). No Node or browser here: the
 * caller's `read` runs the benchmark.
 */
import { PushlabError } from '../../protocol/errors.js';
import { CALIBRATION_TOLERANCE } from '../../protocol/device.js';
import { median } from '../../results/stats.js';

/** Each reading's length, ms: 250 ms readings here ranged ±25% at full speed (JIT still warming), 500 ms ones ±2%. */
export const READING_MS = 500;
/** Readings whose median is one step's figure: pinned under a quota, single readings varied by 4–9% (coefficient of variation). */
export const READINGS_PER_STEP = 3;
/** The most readings taken at full speed before the search, to warm the browser up. */
export const WARMUP_READINGS = 6;
/** Steps before the search gives up (DevTools: 8). */
export const MAX_STEPS = 8;
/** After MAX_STEPS, the closest step is kept when it read within this share of the target (DevTools keeps its last rate, however far). */
export const LAST_RESORT_TOLERANCE = 2 * CALIBRATION_TOLERANCE;
/** The lowest speed tried: 1/50 of full speed (CDP's rate 50; a 1 ms quota per 50 ms). */
export const MIN_SPEED = 0.02;

export interface Calibrated {
  baseIndex: number;
  speed: number;
  index: number;
  readings: { speed: number; index: number }[];
}

/** A calibration of the same class on the same machine and browser before (memory.ts): where the search starts. */
export interface CalibrationHint {
  speed: number;
  baseIndex: number;
  index: number;
}

/**
 * The first speed to try from a hint: along index = base × speed^k, with k from the hint's own
 * two figures (full speed and the speed it found), so a machine reading faster or slower at full
 * speed today starts where that curve reads the target, not at yesterday's speed. A hint with no
 * usable slope (a speed of 1, figures out of order) gives its speed as it is.
 */
export function hintedSpeed(hint: CalibrationHint, target: number, baseIndex: number): number {
  const k = Math.log(hint.index / hint.baseIndex) / Math.log(hint.speed);
  const guess = k > 0 && Number.isFinite(k) ? Math.exp(Math.log(target / baseIndex) / k) : hint.speed;
  return Math.min(1, Math.max(MIN_SPEED, guess));
}

/**
 * `read(speed)`: one BenchmarkIndex reading with the browser at `speed` of full speed (0…1].
 * `hint`: where the same class landed before on this machine and browser; the search starts there
 * instead of at target ÷ full speed (a line the index does not follow: 3–6 steps of 1.5 s), and
 * goes on as without one when the first step misses, so a stale hint costs steps, not accuracy.
 * Throws PUSHLAB_NO_DEVICE when the target is above this browser's own index, or when no step
 * lands within CALIBRATION_TOLERANCE of it and none of MAX_STEPS within LAST_RESORT_TOLERANCE.
 */
export async function calibrate(target: number, read: (speed: number) => Promise<number>, what: string, hint?: CalibrationHint): Promise<Calibrated> {
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
  // Readings to warm up, not counted (DevTools takes one): until two in a row agree within 10%, or
  // WARMUP_READINGS. Right after launch a browser read 1,342, 1,882 and 2,816 in a row, and its
  // first pinned readings half of what the same speed read a minute later.
  for (let i = 0, last = await read(1); i < WARMUP_READINGS - 1; i++) {
    const now = await read(1);
    if (Math.abs(now / last - 1) <= 0.1) break;
    last = now;
  }
  const baseIndex = await step(1);
  const within = (index: number) => Math.abs(index - target) <= CALIBRATION_TOLERANCE * target;
  if (within(baseIndex)) return { baseIndex, speed: 1, index: baseIndex, readings };
  if (baseIndex < target) {
    throw new PushlabError(
      'PUSHLAB_NO_DEVICE',
      `${what}: this browser reads BenchmarkIndex ${Math.round(baseIndex)} at full speed, below the class's ${target}: a slower device cannot be made faster`,
    );
  }
  let guess = hint ? hintedSpeed(hint, target, baseIndex) : Math.max(MIN_SPEED, target / baseIndex);
  const steps: { speed: number; index: number }[] = [];
  for (let i = 0; i < MAX_STEPS; i++) {
    await step(guess);
    const index = pooledMedian(readings, guess);
    steps.push({ speed: guess, index });
    if (within(index)) return { baseIndex, speed: guess, index, readings };
    guess = Math.min(1, Math.max(MIN_SPEED, nextSpeed(readings, target, baseIndex)));
  }
  const best = steps.reduce((a, b) => (Math.abs(b.index - target) < Math.abs(a.index - target) ? b : a));
  // Noisy readings (a CV of 8% each) can keep every step's median just outside the tolerance: the
  // closest step is kept when it is within twice it, and report.json says the index it read.
  if (Math.abs(best.index - target) <= LAST_RESORT_TOLERANCE * target) return { baseIndex, speed: best.speed, index: best.index, readings };
  const tried = steps.map((s) => `${round3(s.speed)}→${Math.round(s.index)}`).join(', ');
  throw new PushlabError(
    'PUSHLAB_NO_DEVICE',
    `${what}: the BenchmarkIndex did not settle within ${CALIBRATION_TOLERANCE * 100}% of ${target} in ${MAX_STEPS} steps (closest: ${Math.round(best.index)} at ${round3(best.speed)} of full speed; speed→index: ${tried}); the machine may be too busy to calibrate`,
    { transient: true },
  );
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Steps whose speeds differ by at most this share are one speed: their readings are pooled. */
const SAME_SPEED = 0.02;

/** The median of every reading taken within SAME_SPEED of `speed`: a step's figure, earlier steps' readings at that speed included. */
function pooledMedian(readings: readonly { speed: number; index: number }[], speed: number): number {
  return median(readings.filter((r) => Math.abs(r.speed / speed - 1) <= SAME_SPEED).map((r) => r.index));
}

/**
 * The next speed to try: between the two speeds tried so far whose pooled medians lie nearest the
 * target on either side, where the log-log line through them reads it (regula falsi on log axes:
 * the bracket only narrows, so noise cannot send the search away). With no speed yet on one side,
 * the nearest one is scaled along index ∝ speed^k, k from the full-speed reading (at least 1).
 */
export function nextSpeed(readings: readonly { speed: number; index: number }[], target: number, baseIndex: number): number {
  const speeds = [...new Set(readings.filter((r) => r.speed < 1).map((r) => r.speed))];
  const groups = speeds.map((speed) => ({
    speed,
    index: pooledMedian(readings, speed),
    n: readings.filter((r) => Math.abs(r.speed / speed - 1) <= SAME_SPEED).length,
  }));
  // The bracket by speed: the fastest speed that read below the target, the slowest that read above.
  const below = groups.filter((g) => g.index < target).sort((a, b) => b.speed - a.speed)[0];
  const above = [...groups.filter((g) => g.index >= target), { speed: 1, index: baseIndex, n: Infinity }].sort((a, b) => a.speed - b.speed)[0];
  // Noise can cross them (a faster speed reading lower): measure the one with fewer readings again, pooling it.
  if (below && below.speed >= above.speed) return below.n <= above.n ? below.speed : above.speed;
  if (below) {
    const k = Math.log(above.index / below.index) / Math.log(above.speed / below.speed);
    // Noise can order two close speeds backwards: then halve the bracket (in log speed).
    const mid = Math.sqrt(below.speed * above.speed);
    if (!(k > 0) || !Number.isFinite(k)) return mid;
    const guess = below.speed * Math.exp(Math.log(target / below.index) / k);
    // A guess onto an end of the bracket would only measure that end again, while a noisy figure
    // at the other end (one step's) holds the line there: halve the bracket instead, until it is
    // one speed wide.
    const onEnd = (s: number) => Math.abs(guess / s - 1) <= SAME_SPEED;
    return (onEnd(below.speed) || onEnd(above.speed)) && Math.abs(above.speed / below.speed - 1) > 2 * SAME_SPEED ? mid : guess;
  }
  // Every speed so far reads above the target: go slower, along the line from full speed (k ≥ 1).
  const k = above.speed < 1 ? Math.max(1, Math.log(baseIndex / above.index) / Math.log(1 / above.speed)) : 1;
  return above.speed * (target / above.index) ** (1 / k);
}
