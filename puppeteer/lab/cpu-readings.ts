/**
 * `npm run lab`'s live CPU readings, what Chrome's task manager showed beside the reference
 * experiment's tab: every Chrome process by type (CDP SystemInfo.getProcessInfo on the browser
 * session), the lab tab's renderer and main-thread busy time (Performance.getMetrics on its
 * page session), its threads from procfs (main, each parsing Worker), the server's CPU from
 * `/stats` and the host's from `/proc/stat`. Each reading is the difference of two samples
 * about a second apart, with the sweep's arithmetic (cpu.ts, threads.ts).
 */
import type { CDPSession } from 'puppeteer-core';
import type { CpuReading } from '../../protocol/page-api.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { chromeCpu, hostCpu, percentOfCore, processKind, type ChromeProcess, type ChromeProcessKind, type HostCpuSample } from '../../results/cpu.js';
import { firefoxProcessTree } from '../measure/firefox-procs.js';
import type { TabMetrics } from '../../results/samples.js';
import { threadsCpu, type ThreadCpu } from '../../results/threads.js';
import { chromeProcesses, hostSample, tabMetrics } from '../measure/sampler.js';
import { readThreads } from '../measure/threads.js';

interface LabSample {
  atMs: number;
  chrome: ChromeProcess[];
  /** Null in Firefox (no CDP): the tab is then its busiest content process. */
  tab: TabMetrics | null;
  threads: Map<number, ThreadCpu[]>;
  server: ServerStats | null;
  host: HostCpuSample | null;
}

export interface LabCpuSources {
  /** Chrome's browser session; null in Firefox (then `firefoxPid`). */
  browserSession: CDPSession | null;
  /** The lab tab's own CDP session, with the Performance domain enabled; null in Firefox. */
  pageSession: CDPSession | null;
  /** Firefox's parent pid: its processes are read from /proc (its main thread's busy time cannot be, so it stays null). */
  firefoxPid?: number;
  serverStats: () => Promise<ServerStats>;
  cores: number;
}

const round = (x: number) => Math.round(x * 10) / 10;

export class LabCpuReader {
  private last: LabSample | null = null;

  constructor(private readonly src: LabCpuSources) {}

  /** Starts a fresh interval (after a pause, so the next reading does not span it). */
  reset(): void {
    this.last = null;
  }

  /** A reading over the time since the last call; null on the first call (no interval yet). */
  async read(): Promise<CpuReading | null> {
    const { browserSession, pageSession, firefoxPid } = this.src;
    const [chrome, tab, server, host] = await Promise.all([
      firefoxPid !== undefined ? firefoxProcessTree(firefoxPid).then((t) => t.processes) : chromeProcesses(browserSession!),
      pageSession ? tabMetrics(pageSession) : null,
      this.src.serverStats().catch(() => null),
      hostSample(),
    ]);
    const renderers = chrome.filter((p) => p.type === 'renderer').map((p) => p.id);
    const threads = new Map(await Promise.all(renderers.map(async (pid) => [pid, await readThreads(pid)] as const)));
    const now: LabSample = { atMs: Date.now(), chrome, tab, threads, server, host };
    const a = this.last;
    this.last = now;
    return a ? reading(a, now, this.src.cores) : null;
  }
}

export function reading(a: LabSample, b: LabSample, cores: number): CpuReading {
  const wall = (b.atMs - a.atMs) / 1000;
  const byKind = chromeCpu(a.chrome, b.chrome, wall);
  // The lab tab's renderer is the busiest one: the tab under load (as the sweep decides it).
  const before = new Map(a.chrome.map((p) => [p.id, p.cpuTime]));
  const busiest = b.chrome
    .filter((p) => p.type === 'renderer' && b.threads.get(p.id)?.length)
    .map((p) => ({ pid: p.id, used: p.cpuTime - (before.get(p.id) ?? 0) }))
    .sort((x, y) => y.used - x.used)[0];
  // Firefox: no CDP, so the tab is that busiest content process, from /proc.
  const tabWall = a.tab && b.tab ? b.tab.timestamp - a.tab.timestamp : wall;
  const renderer = a.tab && b.tab ? percentOfCore(b.tab.processTime - a.tab.processTime, tabWall) : busiest ? percentOfCore(busiest.used, wall) : null;
  const present = new Set(b.chrome.map((p) => processKind(p.type)));
  const firefox = b.tab === null;
  // A Firefox kind with no process (no socket or GPU process) is unread, not 0%.
  const kind = (k: ChromeProcessKind) => (firefox && !present.has(k) ? null : round(byKind[k]));
  const t = busiest ? threadsCpu(busiest.pid, a.threads.get(busiest.pid) ?? [], b.threads.get(busiest.pid)!, wall) : null;
  const serverWall = a.server && b.server ? (b.server.nowMs - a.server.nowMs) / 1000 : 0;
  return {
    atMs: b.atMs,
    intervalSec: round(wall),
    cores,
    renderer: renderer === null ? null : round(renderer),
    mainThreadBusy: a.tab && b.tab ? round(Math.min(100, percentOfCore(b.tab.taskDuration - a.tab.taskDuration, tabWall))) : null,
    threads: t && {
      main: round(t.main),
      workers: t.workers.map(round),
      io: round(t.io),
      compositor: round(t.compositor),
      pool: round(t.pool),
      other: round(t.other),
    },
    network: kind('network'),
    browser: kind('browser'),
    gpu: kind('gpu'),
    otherChrome: round(byKind.other + Math.max(0, byKind.renderers - (renderer ?? 0))),
    server:
      a.server && b.server && serverWall > 0
        ? round(percentOfCore((b.server.cpuUserUs + b.server.cpuSystemUs - a.server.cpuUserUs - a.server.cpuSystemUs) / 1e6, serverWall))
        : null,
    host: a.host && b.host ? round(hostCpu(a.host, b.host)) : null,
  };
}

/** One line for the terminal (`--headless`): the same figures the page shows. */
export function readingLine(r: CpuReading): string {
  const p = (x: number | null) => (x === null ? '–' : `${Math.round(x)}%`);
  // Firefox: its "renderer" is the tab's content process, and its main-thread busy time cannot be read (– ).
  const workers = r.threads?.workers.length ? ` workers ${r.threads.workers.map(p).join('/')}` : '';
  return (
    `cpu (% of one core, last ${r.intervalSec} s): renderer ${p(r.renderer)} main busy ${p(r.mainThreadBusy)}${r.threads ? ` main cpu ${p(r.threads.main)}` : ''}${workers}` +
    ` · network ${p(r.network)} browser ${p(r.browser)} gpu ${p(r.gpu)} other chrome ${p(r.otherChrome)} · server ${p(r.server)} · host ${p(r.host)} of ${r.cores * 100}%`
  );
}
