/** Reads a process's threads from /proc (Linux); the arithmetic on them is results/threads.ts. */
import { readdir, readFile } from 'node:fs/promises';
import { parseTaskStat, type ThreadCpu } from '../../results/threads.js';

/** Every thread of a process; empty when procfs is missing or the process is gone. */
export async function readThreads(pid: number): Promise<ThreadCpu[]> {
  let tids: string[];
  try {
    tids = await readdir(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads = await Promise.all(
    tids.map(async (tid) => {
      try {
        return parseTaskStat(await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      } catch {
        return null; // the thread exited between the listing and the read
      }
    }),
  );
  return threads.filter((t): t is ThreadCpu => t !== null);
}
