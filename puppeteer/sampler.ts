/**
 * Takes one sample of everything a point measures, as close together in time as possible:
 * the page's counters, the tab's renderer metrics, every Chrome process's CPU, the server's
 * `/stats`, and the host's `/proc/stat`.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { CDPSession } from 'puppeteer-core';
import type { PageSnapshot, ServerStats } from '../protocol/report.js';
import { parseProcStat, type ChromeProcess, type HostCpuSample } from './cpu.js';
import type { LabApi } from './lab-page.js';
import { readThreads, type ThreadCpu } from './threads.js';

export interface TabMetrics {
  /** CPU seconds of the tab's renderer process (Performance.getMetrics ProcessTime). */
  processTime: number;
  /** Busy seconds of the tab's main thread (TaskDuration). */
  taskDuration: number;
  /** Monotonic seconds when read (Timestamp). */
  timestamp: number;
}

export interface Sample {
  page: PageSnapshot;
  tab: TabMetrics;
  chrome: ChromeProcess[];
  /** Per-thread CPU of every renderer process, by pid (empty where procfs is missing). */
  rendererThreads: Map<number, ThreadCpu[]>;
  server: ServerStats;
  host: HostCpuSample | null;
}

export interface SampleSources {
  api: LabApi;
  pageSession: CDPSession;
  browserSession: CDPSession;
  /** `reset` starts a new server lateness window, as `resetLatency` does for the page. */
  serverStats: (reset: boolean) => Promise<ServerStats>;
  /**
   * The browser runs on this machine (default true). A remote browser's process ids mean
   * nothing to this machine's /proc, and /proc/stat is not its host's: both are skipped.
   */
  procfs?: boolean;
}

export async function tabMetrics(session: CDPSession): Promise<TabMetrics> {
  const { metrics } = await session.send('Performance.getMetrics');
  const get = (name: string) => {
    const m = metrics.find((x) => x.name === name);
    if (!m) throw new Error(`Performance.getMetrics returned no ${name}`);
    return m.value;
  };
  return { processTime: get('ProcessTime'), taskDuration: get('TaskDuration'), timestamp: get('Timestamp') };
}

export async function chromeProcesses(session: CDPSession): Promise<ChromeProcess[]> {
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  return processInfo.map((p) => ({ id: p.id, type: p.type, cpuTime: p.cpuTime }));
}

export async function hostSample(): Promise<HostCpuSample | null> {
  try {
    return parseProcStat(await readFile('/proc/stat', 'utf8'), os.cpus().length);
  } catch {
    return null; // not Linux: host CPU is reported as null rather than guessed
  }
}

export async function takeSample(src: SampleSources, resetLatency: boolean): Promise<Sample> {
  const [page, tab, chrome, server, host] = await Promise.all([
    src.api.evaluate((p, reset) => p.snapshot({ resetLatency: reset }), resetLatency),
    tabMetrics(src.pageSession),
    chromeProcesses(src.browserSession),
    src.serverStats(resetLatency),
    src.procfs === false ? null : hostSample(),
  ]);
  if (!page) throw new Error('the page has no run to snapshot');
  // Which renderer is the tab's is only known by comparing two samples, so read them all.
  const renderers = src.procfs === false ? [] : chrome.filter((p) => p.type === 'renderer').map((p) => p.id);
  const rendererThreads = new Map(await Promise.all(renderers.map(async (pid) => [pid, await readThreads(pid)] as const)));
  return { page, tab, chrome, rendererThreads, server, host };
}
