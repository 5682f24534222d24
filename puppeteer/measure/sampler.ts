/**
 * Takes one sample of everything a point measures, as close together in time as possible:
 * the page's counters, the tab's renderer metrics, every Chrome process's CPU, the server's
 * `/stats`, and the host's `/proc/stat`.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { CDPSession } from 'puppeteer-core';
import type { PageSnapshot } from '../../protocol/page-api.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { parseProcStat, type ChromeProcess, type HostCpuSample } from '../../results/cpu.js';
import type { LabApi } from './page.js';
import type { Sample, TabMetrics, TabSample } from '../../results/samples.js';
import { readThreads } from './threads.js';
import { firefoxProcessTree } from './firefox-procs.js';
import { parseTaskStat } from '../../results/threads.js';

/** Where one tab's readings come from: its page, and its CDP session (none in Firefox). */
export interface TabSource {
  api: LabApi;
  pageSession: CDPSession | null;
}

export interface SampleSources {
  api: LabApi;
  pageSession: CDPSession | null;
  /** A multi-tab point's other tabs, sampled with the first, at the same moment. */
  moreTabs?: TabSource[];
  browserSession: CDPSession | null;
  /**
   * Firefox only: its parent's pid, whose process tree is read from /proc (firefox-procs.ts);
   * null for a Firefox whose processes are not on this machine (remote): its CPU is unavailable.
   */
  firefoxPid?: number | null;
  /** `reset` starts a new server lateness window, as `resetLatency` does for the page. */
  serverStats: (reset: boolean) => Promise<ServerStats>;
  /**
   * The browser runs on this machine (default true). A remote browser's process ids mean
   * nothing to this machine's /proc, and /proc/stat is not its host's: both are skipped.
   */
  procfs?: boolean;
  /**
   * Read Chrome's process CPU from /proc, at this process's clock, instead of taking
   * SystemInfo.getProcessInfo's figures: under a device class's quota the browser process answers
   * that call late (it waits for its share of the quota), and CPU kept accruing until it did, so
   * a 1 s window read up to 188% of the class's one core (docs/devices.md). CDP still lists the
   * processes and their kinds. Needs `procfs`.
   */
  chromeCpuFromProc?: boolean;
}

export async function tabMetrics(session: CDPSession): Promise<TabMetrics> {
  const { metrics } = await session.send('Performance.getMetrics');
  const get = (name: string) => {
    const m = metrics.find((x) => x.name === name);
    if (!m) throw new Error(`Performance.getMetrics returned no ${name}`);
    return m.value;
  };
  const heap = metrics.find((x) => x.name === 'JSHeapUsedSize')?.value;
  return {
    processTime: get('ProcessTime'),
    taskDuration: get('TaskDuration'),
    timestamp: get('Timestamp'),
    ...(heap !== undefined ? { jsHeapUsedBytes: heap } : {}),
  };
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

function snapshotOf(api: LabApi, resetLatency: boolean): Promise<PageSnapshot | null> {
  return api.evaluate((p, reset) => p.snapshot({ resetLatency: reset }), resetLatency);
}

async function tabSample(t: TabSource, resetLatency: boolean): Promise<TabSample> {
  const [page, tab] = await Promise.all([snapshotOf(t.api, resetLatency), t.pageSession ? tabMetrics(t.pageSession) : null]);
  if (!page) throw new Error('the page has no run to snapshot');
  return { page, tab };
}

export async function takeSample(src: SampleSources, resetLatency: boolean): Promise<Sample> {
  if (src.firefoxPid !== undefined) return takeFirefoxSample(src, src.firefoxPid, resetLatency);
  const [page, tab, chrome, server, host, moreTabs] = await Promise.all([
    snapshotOf(src.api, resetLatency),
    tabMetrics(src.pageSession!),
    chromeProcesses(src.browserSession!),
    src.serverStats(resetLatency),
    src.procfs === false ? null : hostSample(),
    // Every tab is read in the same Promise.all as the first, so all windows cover the same time.
    src.moreTabs ? Promise.all(src.moreTabs.map((t) => tabSample(t, resetLatency))) : Promise.resolve(undefined),
  ]);
  if (!page) throw new Error('the page has no run to snapshot');
  const fromProc = src.chromeCpuFromProc === true && src.procfs !== false ? await procCpuOf(chrome) : null;
  // Which renderer is the tab's is only known by comparing two samples, so read them all.
  const renderers = src.procfs === false ? [] : chrome.filter((p) => p.type === 'renderer').map((p) => p.id);
  const rendererThreads = new Map(await Promise.all(renderers.map(async (pid) => [pid, await readThreads(pid)] as const)));
  return {
    page,
    tab,
    chrome: fromProc?.processes ?? chrome,
    ...(fromProc ? { procAtSec: fromProc.atSec } : {}),
    rendererThreads,
    server,
    host,
    ...(moreTabs ? { moreTabs } : {}),
  };
}

/** Chrome's processes as CDP listed them, their CPU seconds read from /proc now, and when (s, this process's clock). */
async function procCpuOf(listed: readonly ChromeProcess[]): Promise<{ atSec: number; processes: ChromeProcess[] }> {
  const t0 = performance.now();
  const processes = await Promise.all(
    listed.map(async (p) => {
      try {
        const parsed = parseTaskStat(await readFile(`/proc/${p.id}/stat`, 'utf8'));
        return parsed ? { ...p, cpuTime: parsed.cpuSeconds } : p;
      } catch {
        return p; // exited since CDP listed it: CDP's figure is its last
      }
    }),
  );
  return { atSec: (t0 + performance.now()) / 2000, processes };
}

/**
 * Firefox's sample: no CDP, so every process's CPU (and the content processes' threads) from
 * /proc, read in the same Promise.all as the page's counters; summarise.ts picks the tab's
 * content process from two of them. A remote Firefox (no pid here) gives no CPU at all.
 */
async function takeFirefoxSample(src: SampleSources, pid: number | null, resetLatency: boolean): Promise<Sample> {
  const [page, server, host, procs] = await Promise.all([
    snapshotOf(src.api, resetLatency),
    src.serverStats(resetLatency),
    src.procfs === false ? null : hostSample(),
    pid === null ? null : firefoxProcessTree(pid),
  ]);
  if (!page) throw new Error('the page has no run to snapshot');
  const renderers = (procs?.processes ?? []).filter((p) => p.type === 'renderer').map((p) => p.id);
  const rendererThreads = new Map(await Promise.all(renderers.map(async (id) => [id, await readThreads(id)] as const)));
  return { page, tab: null, chrome: procs?.processes ?? null, ...(procs ? { procAtSec: procs.atSec } : {}), engine: 'firefox', rendererThreads, server, host };
}
