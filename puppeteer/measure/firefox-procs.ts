/**
 * Firefox's processes from Linux /proc (issue 25): WebDriver BiDi has no SystemInfo or
 * Performance domain, so CPU comes from the kernel's counters. Its processes are the
 * parent's descendants (proc-tree.ts), each named by its `comm` and given the kind it fills
 * (results/cpu.ts).
 */
import { firefoxProcessType, type ChromeProcess } from '../../results/cpu.js';
import { parseTaskStat } from '../../results/threads.js';
import { readProcessTree } from './proc-tree.js';

/**
 * Every process of the Firefox whose parent is `rootPid`, with its CPU seconds, and this
 * machine's monotonic clock when they were read (s). Empty when the parent is gone.
 */
export async function firefoxProcessTree(rootPid: number): Promise<{ atSec: number; processes: ChromeProcess[] }> {
  const tree = await readProcessTree(rootPid);
  const processes = tree.processes.flatMap(({ pid, stat }): ChromeProcess[] => {
    const parsed = parseTaskStat(stat);
    return parsed ? [{ id: pid, type: firefoxProcessType(parsed.name, pid === rootPid), cpuTime: parsed.cpuSeconds }] : [];
  });
  return { atSec: tree.atSec, processes };
}
