/**
 * A process and everything it started, from Linux /proc: a whole tree, not a list of children,
 * because a browser's processes are not all its parent's children (Firefox's content processes
 * are children of its `forkserver`). Read for Firefox's CPU (firefox-procs.ts) and to put a
 * browser's processes under a device class's CPU quota (device/cgroup.ts).
 */
import { readdir, readFile } from 'node:fs/promises';

/** One process of a tree: its pid and its `/proc/<pid>/stat` line as read. */
export interface ProcEntry {
  pid: number;
  stat: string;
}

/** `/proc/<pid>/stat`'s parent pid: the field after the state, after the name's closing parenthesis (a name may hold both spaces and parentheses). */
function parentOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The processes under `root` (it included), parents before their children, in `stats` (every process's stat line by pid). Empty when `root` is not in it. */
export function treeOf(stats: ReadonlyMap<number, string>, root: number): ProcEntry[] {
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) {
    const ppid = parentOf(stat);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: ProcEntry[] = [];
  const queue = stats.has(root) ? [root] : [];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push({ pid, stat: stats.get(pid)! });
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * The processes under `rootPid` (it included), parents first, each with its stat line, and this
 * machine's monotonic clock half-way through reading them (s). Empty when the root is gone.
 */
export async function readProcessTree(rootPid: number): Promise<{ atSec: number; processes: ProcEntry[] }> {
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
  return { atSec, processes: treeOf(stats, rootPid) };
}
