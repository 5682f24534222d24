import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Whether process `pid` still runs: signal 0 probes without sending anything. EPERM means it
 * runs as another user, which is still running. Used to leave alone what a live process owns
 * (a temporary file, a build, a Chrome profile) when cleaning up after one that died.
 */
export function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Entries `<tmp>/<prefix><pid>-…` whose pid no longer runs: what a SIGKILLed process left (a
 * Chrome profile, a link's folder). An unreadable temp directory has none to give.
 */
export function deadPidEntries(prefix: string): string[] {
  const tmp = os.tmpdir();
  let names: string[] = [];
  try {
    names = readdirSync(tmp);
  } catch {
    return [];
  }
  const own = new RegExp(`^${prefix}(\\d+)-`);
  return names
    .filter((name) => {
      const m = own.exec(name);
      return m !== null && !pidRuns(Number(m[1]));
    })
    .map((name) => path.join(tmp, name));
}
