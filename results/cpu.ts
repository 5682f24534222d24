/**
 * CPU arithmetic. Every source reports cumulative CPU time; a figure over a window is the
 * difference of two samples divided by the wall time between them, in % of one core.
 */
import type { ChromeCpu, Efficiency } from '../protocol/report.js';

/** One Chrome process from CDP `SystemInfo.getProcessInfo` (cpuTime in seconds). */
export interface ChromeProcess {
  id: number;
  type: string;
  cpuTime: number;
}

export type ChromeProcessKind = keyof Omit<ChromeCpu, 'total'>;

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
export function chromeCpu(start: readonly ChromeProcess[], end: readonly ChromeProcess[], wallSeconds: number): ChromeCpu {
  const before = new Map(start.map((p) => [p.id, p.cpuTime]));
  const out: ChromeCpu = { browser: 0, renderers: 0, network: 0, gpu: 0, other: 0, total: 0 };
  for (const p of end) {
    const delta = Math.max(0, p.cpuTime - (before.get(p.id) ?? 0));
    const pct = percentOfCore(delta, wallSeconds);
    out[processKind(p.type)] += pct;
    out.total += pct;
  }
  return out;
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
export function efficiencyOf(eventsPerSec: number, cpu: { tabProcess: number; tabMainThread: number; chrome: { total: number } }): Efficiency {
  const perCpuSecond = (percent: number) => (percent > 0 ? eventsPerSec / (percent / 100) : null);
  return {
    eventsPerCpuSecRenderer: perCpuSecond(cpu.tabProcess),
    eventsPerCpuSecMainThread: perCpuSecond(cpu.tabMainThread),
    eventsPerCpuSecChrome: perCpuSecond(cpu.chrome.total),
    // (cores × 1000 ms per second) per (events per second), scaled to a million events.
    rendererCpuMsPerMillionEvents: eventsPerSec > 0 && cpu.tabProcess > 0 ? (((cpu.tabProcess / 100) * 1000) / eventsPerSec) * 1e6 : null,
  };
}
