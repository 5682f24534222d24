/**
 * Reads a V8 CPU profile (`node --cpu-prof`) into self time per function, so bench:server can
 * say where the server's CPU went: in its own JavaScript, or in native work it calls (TLS
 * and socket writes show up as the native `writev` / `writeBuffer` frames).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** The parts of a `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  /** µs since the previous sample, one per sample. */
  timeDeltas: number[];
}

export interface SelfTime {
  /** `function file:line`, or a V8 pseudo-frame such as `(garbage collector)`. */
  frame: string;
  ms: number;
  /** Share of the profile's busy time (everything but `(idle)`). */
  share: number;
}

const IDLE = '(idle)';

export function selfTimes(profile: CpuProfile): { busyMs: number; top: SelfTime[] } {
  const byNode = new Map<number, number>();
  profile.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFrame = new Map<string, number>();
  for (const n of profile.nodes) {
    const us = byNode.get(n.id);
    if (!us) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const frame = `${functionName || '(anonymous)'}${file}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + us);
  }
  byFrame.delete(IDLE);
  const busyUs = [...byFrame.values()].reduce((a, b) => a + b, 0);
  const top = [...byFrame].sort((a, b) => b[1] - a[1]).map(([frame, us]) => ({ frame, ms: us / 1000, share: busyUs ? us / busyUs : 0 }));
  return { busyMs: busyUs / 1000, top };
}

/**
 * The newest main-thread profile in `dir`. Node names them `CPU.<date>.<time>.<pid>.<thread>.<n>`;
 * thread 0 is the main thread (tsx's loader runs in a thread of its own, profiled too).
 */
export async function newestProfile(dir: string): Promise<CpuProfile> {
  const names = (await readdir(dir)).filter((n) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(n)).sort();
  if (!names.length) throw new Error(`no .cpuprofile in ${dir}: did the server exit cleanly?`);
  return JSON.parse(await readFile(path.join(dir, names.at(-1)!), 'utf8')) as CpuProfile;
}
