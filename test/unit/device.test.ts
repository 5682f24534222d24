/**
 * Device classes (protocol/device.ts, puppeteer/device/calibrate.ts): the settings a scenario or
 * a flag may give, the point ids and words they make, the report reader's check of them, and the
 * calibration search against synthetic browsers (an index that is not linear in the speed, noise,
 * a machine slower than the class), where it starts from a remembered calibration (memory.ts), and
 * the CDP throttling rate a speed becomes (emulator.ts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEVICE_PRESETS, parseDeviceSetting, targetIndexOf } from '../../protocol/device.js';
import { expandScenario, parseScenarioText } from '../../protocol/scenario.js';
import { PushlabError } from '../../protocol/errors.js';
import { calibrate, hintedSpeed, LAST_RESORT_TOLERANCE, MAX_STEPS, READINGS_PER_STEP } from '../../puppeteer/device/calibrate.js';
import { CalibrationMemory, calibrationMemoryFile } from '../../puppeteer/device/memory.js';
import { cdpRate } from '../../puppeteer/device/emulator.js';
import { CALIBRATION_TOLERANCE } from '../../protocol/device.js';

describe('device settings', () => {
  it('takes the presets, index=N and off, and names the field, the value and what is allowed otherwise', () => {
    for (const ok of ['off', 'mid-tier', 'low-tier', 'index=20', 'index=100000', 'index=500']) expect(parseDeviceSetting(ok).ok, ok).toBe(true);
    for (const bad of ['', 'low', 'LOW-TIER', 'index=', 'index=0', 'index=19', 'index=100001', 'index=5e2', 'index=050', ' low-tier', 'x'.repeat(500)]) {
      const r = parseDeviceSetting(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/off, mid-tier|index=N takes/);
    }
    // A long value is cut in the message, not echoed whole.
    const long = parseDeviceSetting('y'.repeat(500));
    expect(!long.ok && long.error.length < 300).toBe(true);
  });

  it("gives DevTools' targets, and index=N its own", () => {
    expect(targetIndexOf('mid-tier')).toBe(DEVICE_PRESETS['mid-tier'].index);
    expect(targetIndexOf('low-tier')).toBe(264);
    expect(targetIndexOf('index=777')).toBe(777);
  });

  it('adds to the point id only when set, and multiplies a point by throttle only under a class', () => {
    const file = parseScenarioText(
      JSON.stringify({
        scenarios: [{ id: 's', transport: 'ws', batch: 10, concurrency: 1, device: ['off', 'low-tier', 'index=500'], throttle: ['browser', 'main-thread'] }],
      }),
      'test',
    );
    const ids = expandScenario(file.scenarios[0], file.defaults).map((p) => p.id);
    expect(ids).toEqual([
      's/ws-b10-c1-i1-full',
      's/ws-b10-c1-i1-full-low',
      's/ws-b10-c1-i1-full-low-mt',
      's/ws-b10-c1-i1-full-bi500',
      's/ws-b10-c1-i1-full-bi500-mt',
    ]);
    const points = expandScenario(file.scenarios[0], file.defaults);
    expect(points[0]).not.toHaveProperty('device');
    expect(points[0]).not.toHaveProperty('throttle');
    expect(points[2]).toMatchObject({ device: 'low-tier', throttle: 'main-thread' });
    expect(points[1]).not.toHaveProperty('throttle');
  });

  it('refuses a bad device in a scenario file, naming the field', () => {
    expect(() => parseScenarioText(JSON.stringify({ scenarios: [{ id: 's', transport: 'ws', batch: 1, concurrency: 1, device: 'phone' }] }), 'f.json')).toThrow(
      /device/,
    );
    // Main-thread throttling is Chrome's CDP: a Firefox scenario asking for it is refused.
    expect(() =>
      parseScenarioText(
        JSON.stringify({ scenarios: [{ id: 's', transport: 'ws', batch: 1, concurrency: 1, engine: 'firefox', device: 'low-tier', throttle: 'main-thread' }] }),
        'f.json',
      ),
    ).toThrow(/throttle/);
  });
});

/** A synthetic browser: index = base × speed^k, times a noise factor drawn in turn from `noise`. */
function browser(base: number, k: number, noise: readonly number[] = [1]) {
  let i = 0;
  const speeds: number[] = [];
  return {
    speeds,
    read: async (speed: number) => {
      speeds.push(speed);
      return base * speed ** k * noise[i++ % noise.length];
    },
  };
}

describe('calibration search', () => {
  it.each([
    ['linear (CDP-like)', 1],
    ['convex (a quota the GC threads share: 0.1 of a core read 70 of 2950 here)', 1.6],
    ['strongly convex', 2.5],
  ])('reaches low-tier and mid-tier within the tolerance on a %s browser', async (_what, k) => {
    for (const target of [264, 1000]) {
      const b = browser(2950, k);
      const c = await calibrate(target, b.read, 'test');
      expect(Math.abs(c.index - target) / target).toBeLessThanOrEqual(CALIBRATION_TOLERANCE);
      expect(c.baseIndex).toBe(2950);
      expect(c.speed).toBeCloseTo((target / 2950) ** (1 / k), 1);
      // Each step's readings are recorded (after the one warm-up reading), in order.
      expect(c.readings.length % READINGS_PER_STEP).toBe(0);
      expect(c.readings.length).toBe(b.speeds.length - 2);
    }
  });

  it('takes the median of each step, so one wild reading does not decide', async () => {
    const b = browser(3000, 1.6, [1, 1, 1, 1, 0.3, 1, 1, 1.8, 1]);
    const c = await calibrate(264, b.read, 'test');
    expect(Math.abs(c.index - 264) / 264).toBeLessThanOrEqual(CALIBRATION_TOLERANCE);
  });

  // Measured here: pinned under a quota the index went about as speed^1.2 (0.1–0.5 of a core), under
  // CDP's rate as speed^0.9, with single readings varying by a CV of 4–9%; unpinned it bent to k ≈ 2.
  it('settles on noisy readings as this machine gives them, for 50 seeds, each class and curve', async () => {
    let lastResort = 0;
    for (const [target, k, spread] of [
      [264, 0.9, 0.28],
      [264, 1.2, 0.28],
      [1000, 1.2, 0.28],
      [264, 2, 0.14],
      [1000, 2, 0.14],
    ]) {
      const truth = (target / 2900) ** (1 / k);
      for (let seed = 1; seed <= 50; seed++) {
        // A small LCG: the same draws every run, spread evenly over ±spread/2 (0.28: a CV of about 8%).
        let x = seed;
        const noise = Array.from({ length: 200 }, () => {
          x = (x * 1103515245 + 12345) % 2 ** 31;
          return 1 + spread * (x / 2 ** 31 - 0.5);
        });
        const c = await calibrate(target, browser(2900, k, noise).read, `target ${target}, k ${k}, seed ${seed}`);
        // The figure it stops on is within the tolerance (or, after every step, the last resort's), and the speed near the true one.
        expect(Math.abs(c.index - target) / target).toBeLessThanOrEqual(LAST_RESORT_TOLERANCE);
        if (Math.abs(c.index - target) / target > CALIBRATION_TOLERANCE) lastResort++;
        expect(Math.abs(c.speed / truth - 1), `target ${target}, k ${k}, seed ${seed}`).toBeLessThan(0.15);
      }
    }
    // Most settle within the tolerance itself.
    expect(lastResort).toBeLessThan(25);
  });

  it('warms a browser just launched up until two full-speed readings agree, then reads its own index', async () => {
    // As one read here right after launch: 1,342, 1,882, 2,816, then steady.
    const b = browser(2900, 1.2, [0.46, 0.65, 0.97, ...Array<number>(100).fill(1)]);
    const c = await calibrate(264, b.read, 'test');
    expect(c.baseIndex).toBe(2900);
    expect(b.speeds.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(c.readings.slice(0, 3)).toEqual([1, 1, 1].map((speed) => ({ speed, index: 2900 })));
  });

  it('refuses a class faster than the machine, coded, with both indexes', async () => {
    const err = await calibrate(1000, browser(700, 1).read, 'mid-tier device in local').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_NO_DEVICE');
    expect((err as Error).message).toMatch(/reads BenchmarkIndex 700 at full speed, below the class's 1000/);
    // The machine's for good: asking again would read the same.
    expect((err as PushlabError).transient).toBe(false);
  });

  it('keeps full speed when the machine already reads the class', async () => {
    const c = await calibrate(1000, browser(1020, 1).read, 'test');
    expect(c.speed).toBe(1);
  });

  it('gives up after MAX_STEPS on readings that never settle, saying how close it came', async () => {
    // Every step reads far above then far below the target, whatever the speed.
    const wild = [1, 1, 1, 1, 3, 3, 3, 0.2, 0.2, 0.2];
    const b = browser(3000, 1, wild);
    const err = await calibrate(264, b.read, 'test').catch((e: unknown) => e);
    expect((err as PushlabError).code).toBe('PUSHLAB_NO_DEVICE');
    expect((err as Error).message).toMatch(
      new RegExp(`in ${MAX_STEPS} steps \\(closest: \\d+ at [\\d.]+ of full speed; speed→index: ([\\d.]+→\\d+, ){${MAX_STEPS - 1}}[\\d.]+→\\d+\\)`),
    );
    // The moment's: a caller may ask again (the ceilings do, once).
    expect((err as PushlabError).transient).toBe(true);
    // Two warm-up readings that agree, then three at full speed, then three per step.
    expect(b.speeds.length).toBe(2 + READINGS_PER_STEP * (1 + MAX_STEPS));
  });
});

/** The same draws every run, spread evenly over ±spread/2 around 1 (0.28: a CV of about 8%). */
function lcgNoise(seed: number, spread: number): number[] {
  let x = seed;
  return Array.from({ length: 200 }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return 1 + spread * (x / 2 ** 31 - 0.5);
  });
}

describe('calibration from a remembered one', () => {
  /** Readings a calibration took: two warm-up readings that agree, three at full speed, three per step. */
  const steps = (speeds: readonly number[]) => (speeds.length - 2 - READINGS_PER_STEP) / READINGS_PER_STEP;

  it('lands in one step on the machine and curve it was found on, where the search alone takes several', async () => {
    for (const k of [0.9, 1.2, 2]) {
      const truth = (264 / 2950) ** (1 / k);
      const fresh = browser(2950, k);
      await calibrate(264, fresh.read, 'test');
      const again = browser(2950, k);
      const c = await calibrate(264, again.read, 'test', { speed: truth, baseIndex: 2950, index: 264 });
      expect(Math.abs(c.index - 264) / 264).toBeLessThanOrEqual(CALIBRATION_TOLERANCE);
      expect(steps(again.speeds)).toBe(1);
      if (k !== 1) expect(steps(fresh.speeds), `k ${k}`).toBeGreaterThan(1);
    }
  });

  it("starts along the hint's own curve when the machine reads faster or slower at full speed today", () => {
    // Found at 0.1 of full speed on a browser reading 3000 there (index = 3000 × speed^1.2);
    // today full speed reads 2000: the same curve reads 264 at (264 / 2000)^(1 / 1.2).
    const hint = { speed: 0.1, baseIndex: 3000, index: 3000 * 0.1 ** 1.2 };
    expect(hintedSpeed(hint, 264, 2000)).toBeCloseTo((264 / 2000) ** (1 / 1.2), 6);
    // No slope to follow (full speed, or figures out of order): the hint's speed as it is.
    expect(hintedSpeed({ speed: 1, baseIndex: 300, index: 290 }, 264, 2000)).toBe(1);
    expect(hintedSpeed({ speed: 0.2, baseIndex: 300, index: 400 }, 264, 2000)).toBe(0.2);
  });

  it('still settles within the tolerance from a stale hint (another curve, a machine twice as fast), on noisy readings', async () => {
    let lastResort = 0;
    for (const [k, base, hint] of [
      [2, 2900, { speed: 0.15, baseIndex: 2900, index: 264 }],
      [1.2, 5800, { speed: (264 / 2900) ** (1 / 1.2), baseIndex: 2900, index: 264 }],
      [0.9, 1450, { speed: 0.5, baseIndex: 2900, index: 1000 }],
    ] as const) {
      const truth = (264 / base) ** (1 / k);
      for (let seed = 1; seed <= 30; seed++) {
        const c = await calibrate(264, browser(base, k, lcgNoise(seed, 0.28)).read, `k ${k}, seed ${seed}`, hint);
        expect(Math.abs(c.index - 264) / 264).toBeLessThanOrEqual(LAST_RESORT_TOLERANCE);
        if (Math.abs(c.index - 264) / 264 > CALIBRATION_TOLERANCE) lastResort++;
        expect(Math.abs(c.speed / truth - 1), `k ${k}, seed ${seed}`).toBeLessThan(0.15);
      }
    }
    expect(lastResort).toBeLessThan(15);
  });
});

describe('calibration memory', () => {
  const key = { device: 'low-tier', throttle: 'browser', engine: 'chrome', browserVersion: 'Chrome/156.0.8078.108' };
  const withFile = async (run: (file: string, log: string[]) => Promise<void>) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-calibration-memory-'));
    try {
      await run(path.join(dir, 'sub', 'device-calibrations.json'), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('lives in $PUSHLAB_CACHE_DIR, else $XDG_CACHE_HOME/pushlab, else ~/.cache/pushlab', () => {
    expect(calibrationMemoryFile({ PUSHLAB_CACHE_DIR: '/c' })).toBe('/c/device-calibrations.json');
    expect(calibrationMemoryFile({ XDG_CACHE_HOME: '/x' })).toBe('/x/pushlab/device-calibrations.json');
    expect(calibrationMemoryFile({})).toBe(path.join(os.homedir(), '.cache', 'pushlab', 'device-calibrations.json'));
  });

  it('gives back what it kept, by class, way of slowing and browser version, and nothing for another', () =>
    withFile(async (file, log) => {
      const m = new CalibrationMemory(file, (l) => log.push(l));
      expect(await m.recall(key)).toBeNull();
      await m.remember(key, { speed: 0.11, baseIndex: 2950, index: 262 });
      await m.remember({ ...key, throttle: 'main-thread' }, { speed: 0.09, baseIndex: 2900, index: 270 });
      expect(await m.recall(key)).toEqual({ speed: 0.11, baseIndex: 2950, index: 262 });
      expect(await m.recall({ ...key, throttle: 'main-thread' })).toEqual({ speed: 0.09, baseIndex: 2900, index: 270 });
      expect(await m.recall({ ...key, browserVersion: 'Chrome/157.0.1.1' })).toBeNull();
      expect(await m.recall({ ...key, device: 'mid-tier' })).toBeNull();
      // A later calibration of the same class replaces the earlier one.
      await m.remember(key, { speed: 0.12, baseIndex: 2800, index: 266 });
      expect(await m.recall(key)).toEqual({ speed: 0.12, baseIndex: 2800, index: 266 });
      expect(log).toEqual([]);
    }));

  it('treats a damaged file as empty, says so, and writes it anew; entries out of range are not used', () =>
    withFile(async (file, log) => {
      const m = new CalibrationMemory(file, (l) => log.push(l));
      await m.remember(key, { speed: 0.11, baseIndex: 2950, index: 262 });
      await writeFile(file, '{"not json');
      expect(await m.recall(key)).toBeNull();
      expect(log.join('\n')).toMatch(/calibration memory .*device-calibrations\.json is not JSON .*calibrating from the start/);
      await m.remember(key, { speed: 0.11, baseIndex: 2950, index: 262 });
      expect(await m.recall(key)).toEqual({ speed: 0.11, baseIndex: 2950, index: 262 });
      // Hand-edited: a speed above full, a negative index, a string: each entry is skipped, the others kept.
      const text = JSON.parse(await readFile(file, 'utf8')) as Record<string, Record<string, unknown>>;
      const [k] = Object.keys(text);
      for (const bad of [{ speed: 3 }, { index: -1 }, { baseIndex: 'fast' }, { at: 5 }]) {
        await writeFile(file, JSON.stringify({ [k]: { ...text[k], ...bad } }));
        expect(await m.recall(key), JSON.stringify(bad)).toBeNull();
      }
      await writeFile(file, '[1, 2]');
      expect(await m.recall(key)).toBeNull();
    }));

  it('keeps the newest entries only, and goes on, saying so, where the file cannot be written', () =>
    withFile(async (file, log) => {
      const m = new CalibrationMemory(file, (l) => log.push(l));
      for (let i = 0; i < 70; i++) await m.remember({ ...key, browserVersion: `Chrome/${i}` }, { speed: 0.1, baseIndex: 2900, index: 264 });
      expect(Object.keys(JSON.parse(await readFile(file, 'utf8')) as object)).toHaveLength(64);
      expect(await m.recall({ ...key, browserVersion: 'Chrome/69' })).not.toBeNull();
      expect(await m.recall({ ...key, browserVersion: 'Chrome/0' })).toBeNull();
      // A file where a directory must be: remember says so and returns.
      const blocked = new CalibrationMemory(path.join(file, 'x.json'), (l) => log.push(l));
      await blocked.remember(key, { speed: 0.1, baseIndex: 2900, index: 264 });
      expect(log.at(-1)).toMatch(/calibration memory .*x\.json not written .*the next run calibrates from the start/);
    }));
});

describe('CDP throttling rate', () => {
  it('is 1 ÷ speed floored to the hundredths: 1 at full speed, and never slower than the speed asked', () => {
    expect([1, 0.5, 0.3, 0.19, 0.0512].map(cdpRate)).toEqual([1, 2, 3.33, 5.26, 19.53]);
    for (let speed = 0.05; speed <= 1; speed += 0.0037) {
      const rate = cdpRate(speed);
      expect(rate, `speed ${speed}`).toBeLessThanOrEqual(1 / speed);
      expect(rate, `speed ${speed}`).toBeGreaterThan(1 / speed - 0.01);
    }
  });
});
