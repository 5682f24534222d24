/**
 * Per-thread CPU of Chrome's renderer processes, from Linux procfs. CDP reports CPU per
 * process only, which cannot say whether a tab's Workers ran on their own cores or how much
 * went to GC helper threads; the kernel's per-thread counters can.
 */
import type { TabThreadsCpu } from '../protocol/page-api.js';
import { percentOfCore } from './cpu.js';

/** /proc times are in USER_HZ, which Linux fixes at 100 for this interface on every architecture. */
const USER_HZ = 100;

export interface ThreadCpu {
  tid: number;
  name: string;
  /** utime + stime, seconds. */
  cpuSeconds: number;
}

/** Parses one `/proc/<pid>/task/<tid>/stat` line; null if it is not one. */
export function parseTaskStat(text: string): ThreadCpu | null {
  // The name is in parentheses and may itself hold spaces or ')': split at the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // After the name: state(0) ppid … utime is field 14 of the line, 11 of these; stime 12.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const tid = Number(text.slice(0, open).trim());
  if (!Number.isInteger(tid) || !Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return { tid, name: text.slice(open + 1, close), cpuSeconds: (utime + stime) / USER_HZ };
}

type Kind = Exclude<keyof TabThreadsCpu, 'workers'> | 'worker';

function threadKind(t: ThreadCpu, pid: number): Kind {
  if (t.tid === pid) return 'main';
  // Chrome's names, then Firefox's (a content process's `DOM Worker`s and its `IPC I/O Child`).
  if (t.name.startsWith('DedicatedWorker') || t.name.startsWith('DOM Worker')) return 'worker';
  if (t.name.startsWith('Chrome_ChildIO') || t.name.startsWith('IPC I/O Child')) return 'io';
  if (t.name.startsWith('Compositor')) return 'compositor';
  if (t.name.startsWith('ThreadPool')) return 'pool';
  return 'other';
}

/**
 * The renderer's CPU by thread over a window. A thread present only at the end started
 * inside the window and counts from zero; Workers are listed in thread-id order, which is
 * their creation order.
 */
export function threadsCpu(pid: number, start: readonly ThreadCpu[], end: readonly ThreadCpu[], wallSeconds: number): TabThreadsCpu {
  const before = new Map(start.map((t) => [t.tid, t.cpuSeconds]));
  const out: TabThreadsCpu = { main: 0, workers: [], io: 0, compositor: 0, pool: 0, other: 0 };
  for (const t of [...end].sort((a, b) => a.tid - b.tid)) {
    const pct = percentOfCore(Math.max(0, t.cpuSeconds - (before.get(t.tid) ?? 0)), wallSeconds);
    const kind = threadKind(t, pid);
    if (kind === 'worker') out.workers.push(pct);
    else out[kind] += pct;
  }
  return out;
}
