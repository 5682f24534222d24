/**
 * CPU arithmetic. Every source reports cumulative CPU time; a figure over a window is the
 * difference of two samples divided by the wall time between them, in % of one core.
 */
import type { ChromeCpu, Efficiency } from '../protocol/repeat-figures.js';

/** One Chrome process from CDP `SystemInfo.getProcessInfo` (cpuTime in seconds). */
export interface ChromeProcess {
  id: number;
  type: string;
  cpuTime: number;
}

export type ChromeProcessKind = keyof Omit<ChromeCpu, 'total'>;

/**
 * The kind a Firefox process fills, from its `comm` (pitfalls 20): the parent is the browser
 * (in 153 ESR it also does the network work); `Web Content` and `Isolated Web Co` (Fission's,
 * cut to 15 characters by the kernel) are content processes, i.e. renderers; `Socket Process`
 * is the network; a `GPU Process` the GPU; the rest (`WebExtensions`, `RDD Process`,
 * `Utility Process`, `forkserver`, `crashhelper`, the preallocated content process) are other.
 * The words are CDP's process types, so `processKind` and `chromeCpu` read both engines.
 */
export function firefoxProcessType(comm: string, isParent: boolean): string {
  if (isParent) return 'browser';
  if (/^(Web Content|Isolated Web Co|Isolated Servic)/.test(comm)) return 'renderer';
  if (/^Socket Process/.test(comm)) return 'network';
  if (/^GPU Process/.test(comm)) return 'gpu';
  return `other: ${comm}`;
}

/** Where each Firefox figure comes from, in words (CpuFigures.sources). */
export const FIREFOX_CPU_SOURCES = {
  tabProcess: "/proc: the tab's content process (the Web Content process that used the most CPU in the window)",
  tabMainThread: "/proc: the content process's main thread, CPU time (Chrome's figure is busy time, TaskDuration)",
  browser: '/proc: the parent process (in Firefox 153 ESR it also does the network work)',
  renderers: '/proc: every content process',
  network: '/proc: the Socket Process',
  gpu: '/proc: the GPU Process',
  other: '/proc: every other Firefox process (WebExtensions, RDD, utility, forkserver, …)',
  total: '/proc: every process under the Firefox parent',
} as const;

/** Utility processes are named by service (`network.mojom.NetworkService`), not 'utility'. */
export function processKind(type: string): ChromeProcessKind {
  if (type === 'browser') return 'browser';
  if (type === 'renderer') return 'renderers';
  if (/network/i.test(type)) return 'network';
  if (/gpu/i.test(type)) return 'gpu';
  return 'other';
}

export function percentOfCore(cpuSeconds: number, wallSeconds: number): number {
  return wallSeconds > 0 ? (cpuSeconds / wallSeconds) * 100 : 0;
}

/**
 * Chrome's CPU by process kind over a window. A process present only at the end started
 * inside the window and counts from zero; one present only at the start ended inside it and
 * its last stretch is unknown, so it is left out.
 */
export function chromeCpu(start: readonly ChromeProcess[], end: readonly ChromeProcess[], wallSeconds: number): { [K in keyof ChromeCpu]: number } {
  const before = new Map(start.map((p) => [p.id, p.cpuTime]));
  const out = { browser: 0, renderers: 0, network: 0, gpu: 0, other: 0, total: 0 };
  for (const p of end) {
    const delta = Math.max(0, p.cpuTime - (before.get(p.id) ?? 0));
    const pct = percentOfCore(delta, wallSeconds);
    out[processKind(p.type)] += pct;
    out.total += pct;
  }
  return out;
}

/** The process kinds present among `processes` (a Firefox without a socket process has no network figure). */
export function kindsPresent(processes: readonly ChromeProcess[]): Set<ChromeProcessKind> {
  return new Set(processes.map((p) => processKind(p.type)));
}

/** `/proc/stat`'s aggregate `cpu` line, in clock ticks. */
export interface HostCpuSample {
  busy: number;
  total: number;
  cores: number;
}

export function parseProcStat(text: string, cores: number): HostCpuSample | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: total - idle - iowait, total, cores };
}

/** Host-wide CPU in % of one core (so at most 100 × cores). */
export function hostCpu(a: HostCpuSample, b: HostCpuSample): number {
  const total = b.total - a.total;
  return total > 0 ? ((b.busy - a.busy) / total) * 100 * b.cores : 0;
}

/**
 * Events per CPU-second of the tab's renderer, its main thread and all of Chrome, and the
 * renderer's CPU per million events in ms. CPU figures are % of one core (100 = one core
 * busy for the whole window); null where that CPU was 0 (or no event arrived).
 */
export function efficiencyOf(
  eventsPerSec: number,
  cpu: { tabProcess: number | null; tabMainThread: number | null; chrome: { total: number | null } },
): Efficiency {
  const perCpuSecond = (percent: number | null) => (percent !== null && percent > 0 ? eventsPerSec / (percent / 100) : null);
  return {
    eventsPerCpuSecRenderer: perCpuSecond(cpu.tabProcess),
    eventsPerCpuSecMainThread: perCpuSecond(cpu.tabMainThread),
    eventsPerCpuSecChrome: perCpuSecond(cpu.chrome.total),
    // (cores × 1000 ms per second) per (events per second), scaled to a million events.
    rendererCpuMsPerMillionEvents:
      eventsPerSec > 0 && cpu.tabProcess !== null && cpu.tabProcess > 0 ? (((cpu.tabProcess / 100) * 1000) / eventsPerSec) * 1e6 : null,
  };
}
