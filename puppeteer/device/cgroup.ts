/**
 * A CPU quota for a whole browser: a child cgroup of the `cpu` controller (cgroup v1's
 * `cpu.cfs_quota_us` per `cpu.cfs_period_us`, or v2's `cpu.max`), holding every process of the
 * browser, so its Workers, GC threads, network service and compositor slow with its main thread
 * (pitfalls 25; WebPageTest's Linux agents slow browsers the same way). Needs root.
 *
 * Each group is named `pushlab-<pid>-<n>` after the process that made it: a command killed with
 * SIGKILL cannot remove its own, so every command that slows a browser first removes the groups
 * of processes that are gone (`removeStaleGroups`), ending what they still hold (that browser's
 * processes, left running by the kill).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidRuns } from '../../cli/pid.js';
import { PushlabError } from '../../protocol/errors.js';

/**
 * The quota's period, µs. Within each period the group runs until its quota is spent, then
 * waits for the next one: at speed s, a stall of up to (1 − s) × period. 10 ms keeps that under
 * the 16.7 ms of one frame at 60 Hz; the kernel's default, 100 ms, would add up to ~85 ms to a
 * low-tier point's latency (pitfalls 25). A quota is at least 1 ms, so slower speeds lengthen it.
 */
export const QUOTA_PERIOD_US = 10_000;
const MIN_QUOTA_US = 1000;
const MAX_PERIOD_US = 1_000_000;

/**
 * Where the cpu controller is, and which version: PUSHLAB_CGROUP_ROOT names another mount (a
 * test's missing one). `cpuset`: where the cpuset controller is (v1: its own mount; v2: `root`),
 * which pins a slowed browser to one core; null: not available (the quota alone then).
 */
export interface CpuController {
  version: 1 | 2;
  root: string;
  cpuset: string | null;
}

const PREFIX = 'pushlab-';

/** The cpu controller this machine gives, or why a browser cannot be slowed here (a sentence). */
export function findCpuController(env: NodeJS.ProcessEnv = process.env): CpuController | { missing: string } {
  if (process.getuid && process.getuid() !== 0) return { missing: `a CPU quota needs root (this process runs as uid ${process.getuid()})` };
  const roots = env.PUSHLAB_CGROUP_ROOT ? [env.PUSHLAB_CGROUP_ROOT] : ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup'];
  for (const root of roots) {
    if (existsSync(path.join(root, 'cpu.cfs_quota_us'))) {
      const cpuset = env.PUSHLAB_CGROUP_ROOT ? null : '/sys/fs/cgroup/cpuset';
      return { version: 1, root, cpuset: cpuset && existsSync(path.join(cpuset, 'cpuset.cpus')) ? cpuset : null };
    }
    const controllers = path.join(root, 'cgroup.controllers');
    if (existsSync(controllers)) {
      const list = readFileSync(controllers, 'utf8').split(/\s+/);
      if (list.includes('cpu')) return { version: 2, root, cpuset: list.includes('cpuset') ? root : null };
    }
  }
  return {
    missing: `no cgroup cpu controller was found (looked for cpu.cfs_quota_us, or cgroup.controllers listing cpu, in ${roots.join(', ')})`,
  };
}

let made = 0;

/** What a slowed browser runs on: the quota's period, and the one core it is pinned to (null: not pinned, no cpuset). */
export interface QuotaSetting {
  periodUs: number;
  pinnedCpu: number | null;
}

/**
 * One run's quota, and its pin. A slowed browser is pinned to one core as well as held to its
 * quota: measured here (2026-11-28, 500 ms BenchmarkIndex readings, 6 each), the quota alone
 * over both cores read with a coefficient of variation of 0.45–0.53 at 0.15 and 0.35 of a core
 * (the kernel hands a period's runtime to one core's threads in 5 ms slices, so the main
 * thread and the GC helpers took it by turns), and pinned it read 0.04–0.09, near linear in the
 * quota (0.5, 0.35, 0.15, 0.1 of a core: 1500, 1000, 350, 220). One core is also the model a class
 * states (docs/devices.md). Unslowed, the browser has every core again.
 */
export class CpuQuota {
  private constructor(
    private readonly controller: CpuController,
    readonly dir: string,
    /** The cpuset group (v1: its own directory; v2: `dir`); null: no cpuset controller. */
    private readonly pinDir: string | null,
    /** The parent's cores (`0-1`), which an unslowed browser gets back, and the one a slowed one is pinned to. */
    private readonly cpus: { all: string; one: number } | null,
  ) {}

  /** Makes a new group (removing stale ones first); throws PUSHLAB_NO_DEVICE with the reason when it cannot. */
  static async create(controller: CpuController): Promise<CpuQuota> {
    await removeStaleGroups(controller);
    const name = `${PREFIX}${process.pid}-${++made}`;
    const dir = path.join(controller.root, name);
    let pinDir: string | null = null;
    let cpus: { all: string; one: number } | null = null;
    try {
      if (controller.version === 2) await enableV2(controller.root, controller.cpuset !== null ? ['cpu', 'cpuset'] : ['cpu']);
      await mkdir(dir);
      if (controller.cpuset !== null) {
        const all = (await readFile(path.join(controller.cpuset, controller.version === 1 ? 'cpuset.cpus' : 'cpuset.cpus.effective'), 'utf8')).trim();
        const listed = cpuList(all);
        if (listed.length > 1) {
          pinDir = controller.version === 1 ? path.join(controller.cpuset, name) : dir;
          if (controller.version === 1) {
            await mkdir(pinDir);
            // v1 cpuset children start with no cores and no memory nodes: a process cannot join until both are set.
            await writeFile(path.join(pinDir, 'cpuset.mems'), (await readFile(path.join(controller.cpuset, 'cpuset.mems'), 'utf8')).trim());
          }
          await writeFile(path.join(pinDir, 'cpuset.cpus'), all);
          cpus = { all, one: listed[listed.length - 1] };
        }
      }
    } catch (err) {
      throw new PushlabError('PUSHLAB_NO_DEVICE', `cannot make a cgroup for the browser's CPU quota at ${dir}: ${(err as Error).message}`);
    }
    return new CpuQuota(controller, dir, pinDir, cpus);
  }

  /** Moves these processes into the group (each with all its threads); ones that exited meanwhile are skipped. */
  async adopt(pids: readonly number[]): Promise<void> {
    for (const group of this.pinDir !== null && this.pinDir !== this.dir ? [this.dir, this.pinDir] : [this.dir]) {
      for (const pid of pids) {
        try {
          await writeFile(path.join(group, 'cgroup.procs'), String(pid));
        } catch (err) {
          // ESRCH: it exited between the listing and the move.
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
    }
  }

  /** The group's processes may use `speed` of one core (0…1], pinned to it; null: no limit, every core. */
  async setSpeed(speed: number | null): Promise<QuotaSetting> {
    const pinnedCpu = speed === null || this.cpus === null ? null : this.cpus.one;
    if (this.pinDir !== null && this.cpus !== null)
      await writeFile(path.join(this.pinDir, 'cpuset.cpus'), pinnedCpu === null ? this.cpus.all : String(pinnedCpu));
    const period = speed === null ? QUOTA_PERIOD_US : Math.min(MAX_PERIOD_US, Math.max(QUOTA_PERIOD_US, Math.ceil(MIN_QUOTA_US / speed)));
    const quota = speed === null ? -1 : Math.max(MIN_QUOTA_US, Math.round(speed * period));
    if (this.controller.version === 1) {
      // Unlimited first, so no step leaves a quota its period cannot hold.
      await writeFile(path.join(this.dir, 'cpu.cfs_quota_us'), '-1');
      await writeFile(path.join(this.dir, 'cpu.cfs_period_us'), String(period));
      await writeFile(path.join(this.dir, 'cpu.cfs_quota_us'), String(quota));
    } else {
      await writeFile(path.join(this.dir, 'cpu.max'), `${quota === -1 ? 'max' : quota} ${period}`);
    }
    return { periodUs: period, pinnedCpu };
  }

  /** Lifts the quota, ends nothing: moves what is left back to the root group and removes this one. */
  async remove(): Promise<void> {
    await removeGroup(this.controller.root, this.dir, false);
    if (this.pinDir !== null && this.pinDir !== this.dir && this.controller.cpuset !== null) await removeGroup(this.controller.cpuset, this.pinDir, false);
  }
}

/** `0-1,3` → [0, 1, 3]. */
export function cpuList(text: string): number[] {
  return text
    .split(',')
    .filter(Boolean)
    .flatMap((part) => {
      const [a, b] = part.split('-').map(Number);
      return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}

/** v2 only lets a child have a cpu limit (or a cpuset) once the parent hands the controller down. */
async function enableV2(root: string, controllers: readonly string[]): Promise<void> {
  const control = path.join(root, 'cgroup.subtree_control');
  const now = (await readFile(control, 'utf8')).split(/\s+/);
  for (const c of controllers) if (!now.includes(c)) await writeFile(control, `+${c}`);
}

async function procsOf(dir: string): Promise<number[]> {
  try {
    return (await readFile(path.join(dir, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Empties a group and removes it: its processes are killed (`kill`, a stale group's: a killed
 * command's browser) or moved back to the root group, then the directory goes (the kernel
 * refuses it while a process is inside).
 */
async function removeGroup(root: string, dir: string, kill: boolean): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = await procsOf(dir);
    if (pids.length === 0) {
      try {
        await rmdir(dir);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY') throw err;
      }
    }
    for (const pid of pids) {
      try {
        if (kill) process.kill(pid, 'SIGKILL');
        else await writeFile(path.join(root, 'cgroup.procs'), String(pid));
      } catch {
        // Gone already.
      }
    }
    await sleep(20);
  }
  throw new Error(`the cgroup ${dir} still holds processes after 1 s`);
}

/**
 * At a command's start: removes what a killed run left (its cgroup, and the processes still in
 * it), saying so. Quiet, and nothing to do, where there is no cpu controller or no root.
 */
export async function cleanUpKilledRuns(log: (line: string) => void): Promise<void> {
  const controller = findCpuController();
  if ('missing' in controller) return;
  const removed = await removeStaleGroups(controller).catch(() => []);
  if (removed.length) log(`removed the CPU quota cgroup(s) a killed run left, and the processes still in them: ${removed.join(', ')}`);
}

/** Removes the groups of pushlab processes that are gone, ending what they hold; returns the ones removed. */
export async function removeStaleGroups(controller: CpuController): Promise<string[]> {
  const removed: string[] = [];
  for (const root of controller.cpuset !== null && controller.cpuset !== controller.root ? [controller.root, controller.cpuset] : [controller.root]) {
    let names: string[];
    try {
      names = await readdir(root);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^pushlab-(\d+)-\d+$/.exec(name);
      if (!m || pidRuns(Number(m[1]))) continue;
      await removeGroup(root, path.join(root, name), true);
      removed.push(path.join(root, name));
    }
  }
  return removed;
}
