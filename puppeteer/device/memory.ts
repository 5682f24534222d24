/**
 * Where each device class landed before on this machine and browser: the calibration's starting
 * point (calibrate.ts CalibrationHint). A calibration searches the slowdown in steps of three
 * 500 ms readings, starting from a line the index does not follow; started from the speed the
 * same class found last time, its first step can land, and a later run on the same machine then
 * spends one step where it spent three to six (here: 6 readings against 24 in one pair of two;
 * docs/results/2026-11-29.md). The hint only places the first step: the search
 * checks it against the same tolerance and goes on when it misses, so nothing measured depends on
 * the file, and a deleted or damaged one only costs steps.
 *
 * One JSON file per user, `$PUSHLAB_CACHE_DIR` or `$XDG_CACHE_HOME/pushlab` (`~/.cache/pushlab`),
 * keyed by what decides the speed: the class, the way it slows, the browser's engine and version,
 * and this machine's CPU model and core count. Only a browser on this machine is remembered: a
 * remote one's host is not known here.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CalibrationHint } from './calibrate.js';
import { writeAtomically } from '../report/file.js';

/** Entries kept, newest first: a machine sees a handful of classes × browsers. */
const MAX_ENTRIES = 64;

/** The file, from the environment. */
export function calibrationMemoryFile(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.PUSHLAB_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pushlab');
  return path.join(dir, 'device-calibrations.json');
}

/** What one remembered calibration is keyed by. */
export interface CalibrationKey {
  device: string;
  throttle: string;
  engine: string;
  /** The browser's own version string (`Chrome/156.0.8078.108`). */
  browserVersion: string;
}

interface Entry extends CalibrationHint {
  at: string;
}

/** The key as one string: the machine's CPU model and cores with the caller's fields. */
function keyOf(k: CalibrationKey): string {
  const cpus = os.cpus();
  return [k.device, k.throttle, k.engine, k.browserVersion, cpus[0]?.model ?? 'unknown CPU', `${cpus.length} cores`].join(' | ');
}

const isFigure = (x: unknown, max = Infinity): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0 && x <= max;

/** An entry as the file holds it, or null for anything else (a hand edit, another version's shape). */
function entryOf(x: unknown): Entry | null {
  if (typeof x !== 'object' || x === null) return null;
  const e = x as Record<string, unknown>;
  if (!isFigure(e.speed, 1) || !isFigure(e.baseIndex) || !isFigure(e.index) || typeof e.at !== 'string') return null;
  return { speed: e.speed, baseIndex: e.baseIndex, index: e.index, at: e.at };
}

export class CalibrationMemory {
  constructor(
    private readonly file: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Every usable entry of the file; a file that is missing holds none, and one that cannot be read is said once and treated as empty. */
  private async entries(): Promise<Map<string, Entry>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.log(`calibration memory ${this.file} not read (${(err as Error).message}): calibrating from the start`);
      return new Map();
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      this.log(`calibration memory ${this.file} is not JSON (${(err as Error).message}): calibrating from the start; it is written anew`);
      return new Map();
    }
    const out = new Map<string, Entry>();
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      for (const [k, v] of Object.entries(parsed)) {
        const e = entryOf(v);
        if (e) out.set(k, e);
      }
    }
    return out;
  }

  /** Where this class landed last time here, or null. */
  async recall(key: CalibrationKey): Promise<CalibrationHint | null> {
    const e = (await this.entries()).get(keyOf(key));
    return e ? { speed: e.speed, baseIndex: e.baseIndex, index: e.index } : null;
  }

  /** Keeps a calibration for the next run; a file that cannot be written is said, and the run goes on. */
  async remember(key: CalibrationKey, found: CalibrationHint): Promise<void> {
    const entries = await this.entries();
    const k = keyOf(key);
    entries.delete(k);
    const kept = [[k, { ...found, at: new Date().toISOString() }] as const, ...[...entries].sort((a, b) => b[1].at.localeCompare(a[1].at))].slice(
      0,
      MAX_ENTRIES,
    );
    try {
      await writeAtomically(this.file, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
    } catch (err) {
      this.log(`calibration memory ${this.file} not written (${(err as Error).message}): the next run calibrates from the start`);
    }
  }
}
