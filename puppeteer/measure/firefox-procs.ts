/**
 * Firefox's processes from Linux /proc (issue 25): WebDriver BiDi has no SystemInfo or
 * Performance domain, so CPU comes from the kernel's counters. Its processes are the
 * parent's descendants (content processes are children of its `forkserver`, not of the
 * parent), each named by its `comm` and given the kind it fills (results/cpu.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { firefoxProcessType, type ChromeProcess } from '../../results/cpu.js';
import { parseTaskStat } from '../../results/threads.js';

/** `/proc/<pid>/stat`'s parent pid: the field after the state, after the name's closing parenthesis. */
function parentOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * Every process of the Firefox whose parent is `rootPid`, with its CPU seconds, and this
 * machine's monotonic clock when they were read (s). Empty when the parent is gone.
 */
export async function firefoxProcessTree(rootPid: number): Promise<{ atSec: number; processes: ChromeProcess[] }> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n));
  const t0 = performance.now();
  const stats = new Map<number, string>();
  await Promise.all(
    pids.map(async (n) => {
      try {
        stats.set(Number(n), await readFile(`/proc/${n}/stat`, 'utf8'));
      } catch {
        // exited between the listing and the read, or not ours to read
      }
    }),
  );
  const atSec = (t0 + performance.now()) / 2000;
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) {
    const ppid = parentOf(stat);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const processes: ChromeProcess[] = [];
  const queue = stats.has(rootPid) ? [rootPid] : [];
  while (queue.length) {
    const pid = queue.shift()!;
    const parsed = parseTaskStat(stats.get(pid)!);
    if (parsed) processes.push({ id: pid, type: firefoxProcessType(parsed.name, pid === rootPid), cpuTime: parsed.cpuSeconds });
    queue.push(...(children.get(pid) ?? []));
  }
  return { atSec, processes };
}
