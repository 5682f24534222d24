/** What one sample of a point holds (puppeteer/measure/sampler.ts takes them; summarise.ts reads them). */
import type { PageSnapshot, ServerStats } from '../protocol/report.js';
import type { ChromeProcess, HostCpuSample } from './cpu.js';
import type { ThreadCpu } from './threads.js';

export interface TabMetrics {
  /** CPU seconds of the tab's renderer process (Performance.getMetrics ProcessTime). */
  processTime: number;
  /** Busy seconds of the tab's main thread (TaskDuration). */
  taskDuration: number;
  /** Monotonic seconds when read (Timestamp). */
  timestamp: number;
}

/** One tab's own readings: its page's counters and its renderer's metrics. */
export interface TabSample {
  page: PageSnapshot;
  tab: TabMetrics;
}

export interface Sample {
  /** The (first) tab's counters and renderer metrics. */
  page: PageSnapshot;
  tab: TabMetrics;
  /** A multi-tab point's other tabs, in the order opened; absent for one tab. */
  moreTabs?: TabSample[];
  chrome: ChromeProcess[];
  /** Per-thread CPU of every renderer process, by pid (empty where procfs is missing). */
  rendererThreads: Map<number, ThreadCpu[]>;
  server: ServerStats;
  host: HostCpuSample | null;
}

