/** What one sample of a point holds (puppeteer/measure/sampler.ts takes them; summarise.ts reads them). */
import type { PageSnapshot } from '../protocol/page-api.js';
import type { ServerStats } from '../protocol/server-stats.js';
import type { ChromeProcess, HostCpuSample } from './cpu.js';
import type { ThreadCpu } from './threads.js';

export interface TabMetrics {
  /** CPU seconds of the tab's renderer process (Performance.getMetrics ProcessTime). */
  processTime: number;
  /** Busy seconds of the tab's main thread (TaskDuration). */
  taskDuration: number;
  /** Monotonic seconds when read (Timestamp). */
  timestamp: number;
  /**
   * Bytes the main thread's JS heap holds in use (JSHeapUsedSize), garbage not yet collected
   * included; absent where Chrome gave none. A soak plots it (puppeteer/soak/).
   */
  jsHeapUsedBytes?: number;
}

/** One tab's own readings: its page's counters and its renderer's metrics. */
export interface TabSample {
  page: PageSnapshot;
  tab: TabMetrics | null;
}

export interface Sample {
  /** The (first) tab's counters and renderer metrics; null where there is no CDP (Firefox). */
  page: PageSnapshot;
  tab: TabMetrics | null;
  /** A multi-tab point's other tabs, in the order opened; absent for one tab. */
  moreTabs?: TabSample[];
  /**
   * Every browser process's CPU: Chrome's from CDP; Firefox's from /proc, each given the kind
   * it fills (results/cpu.ts `firefoxProcessType`). Null where nothing can read them (a
   * remote Firefox: no CDP, and its /proc is not this machine's).
   */
  chrome: ChromeProcess[] | null;
  /** When `chrome` was read from /proc (Firefox; Chrome under a device class's quota): this machine's monotonic clock, s (the CPU figures' wall time). */
  procAtSec?: number;
  /** The engine sampled; absent: chrome. */
  engine?: 'firefox';
  /** Per-thread CPU of every renderer process, by pid (empty where procfs is missing). */
  rendererThreads: Map<number, ThreadCpu[]>;
  server: ServerStats;
  host: HostCpuSample | null;
}
