/**
 * The reference experiment's published figures: drawn over the viewer's charts when the overlay
 * is on, and set beside a `timeplus` run by the reference table.
 *
 * Source: Timeplus, "WebSocket vs Server-Sent Events: a performance comparison" (2022),
 * https://www.timeplus.com/post/websocket-vs-sse. Their setup: Chrome 103 on an Apple M1 Pro,
 * HTTP/2, 1 ms interval, ~120-byte rows, rendering throttled to 200 ms. The figures are read off
 * their prose ("about 3,000,000 EPS"), so they are approximate; and the machine differs from
 * ours, so compare the shape of the curves and where they flatten, not the absolute numbers.
 */
import type { Transport } from '../protocol/wire.js';

/** The swept factors a reference figure can be placed against. */
export type ReferenceFactor = 'batch' | 'concurrency';

export interface ReferenceFigure {
  /** Which of their tests; shown in the legend. */
  test: string;
  transport: Transport;
  factor: ReferenceFactor;
  /** Where on the x axis; null when they published the level but not where it was reached. */
  x: number | null;
  eventsPerSec: number;
  /** The tab's CPU at that point, % of one core, where they gave it. */
  tabCpuPercent: number | null;
  /** The factors they held fixed. */
  conditions: string;
}

export const REFERENCE_FIGURES: readonly ReferenceFigure[] = [
  // Test I: "at batch 400 the tab's CPU hits 100% and larger batches do not help".
  { test: 'Test I', transport: 'sse', factor: 'batch', x: 400, eventsPerSec: 3_000_000, tabCpuPercent: 100, conditions: 'concurrency 10' },
  // Test II: "linear until concurrency 60, where the tab's CPU reaches 100%; max about 2,700,000".
  { test: 'Test II', transport: 'sse', factor: 'concurrency', x: 60, eventsPerSec: 2_700_000, tabCpuPercent: 100, conditions: 'batch 50' },
  // Test II: "beyond 50 no longer linear; max about 2,400,000" - no concurrency given for the max.
  { test: 'Test II', transport: 'ws', factor: 'concurrency', x: null, eventsPerSec: 2_400_000, tabCpuPercent: null, conditions: 'batch 50' },
  // Other findings: WS, batch 50, concurrency 30, DevTools closed: 1,350,000 EPS, tab ~75%.
  { test: 'DevTools closed', transport: 'ws', factor: 'concurrency', x: 30, eventsPerSec: 1_350_000, tabCpuPercent: 75, conditions: 'batch 50' },
];

/** What each test found, in their words (paraphrased), for the places their figures leave out. */
export const REFERENCE_FINDINGS = {
  testI:
    'both transports linear in batch size from 1 to 400; SSE ≈ 3.0 M EPS at batch 400 with the tab at 100% of a core, larger batches no help; WS used slightly less tab CPU than SSE at the same batch',
  testII:
    'SSE linear up to 60 connections, where the tab reaches 100% of a core, max ≈ 2.7 M EPS; WS the same as SSE up to 50 with lower tab CPU, not linear beyond 50, max ≈ 2.4 M EPS',
  testIII: 'no figures published: both transports "close enough" at 100,000 EPS within the 50 ms latency goal',
  cpu: 'WS used less tab CPU than SSE',
} as const;
