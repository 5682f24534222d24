/** Messages between the lab page and its stream Workers (parse mode `worker`). */
import type { HistogramData } from '../../protocol/histogram.js';
import type { PageCounters } from '../../protocol/page-api.js';
import type { StreamParams, Transport } from '../../protocol/wire.js';
import type { ChartColumn } from './codecs/index.js';
import type { SpeedWindow } from './ingest.js';
import type { TableRow } from './row-format.js';
import type { TransportOptions } from './transports/index.js';

export type ToWorker =
  | {
      type: 'start';
      transport: Transport;
      params: StreamParams;
      /** Global indexes of the connections this worker opens. */
      connections: number[];
      keepRows: number;
      aggregate: boolean;
      /** The field the chart plots, or null (IngestOptions.chart). */
      chart: ChartColumn | null;
      /** `poll`'s request interval, ms (0 for other transports). */
      pollMs: number;
      updateEveryMs: number;
      transportOptions: TransportOptions;
      /** The page's Workers opening connections at once: they share its renderer's WebSocket throttle. */
      sharers: number;
    }
  | { type: 'snapshot'; id: number; resetLatency: boolean }
  | { type: 'stop' };

/** Cumulative counts of one worker, in its connections' order. */
export interface WorkerCounts {
  counters: PageCounters;
  batchesPerConnection: number[];
  open: number;
  /** The newest `sentAt` this Worker received, ms since the epoch (0 before any). */
  newestSentAtMs: number;
  /** The newest `dueAt` this Worker received, ms since the epoch (0 before any). */
  newestDueAtMs: number;
}

export type FromWorker =
  | { type: 'opened' }
  | { type: 'error'; message: string }
  | {
      type: 'update';
      counts: WorkerCounts;
      /** Event age since the last update (for the live chart). */
      recent: HistogramData | null;
      /** The newest rows, oldest first, at most keepRows. */
      rows: TableRow[];
      speed: SpeedWindow[];
    }
  | {
      type: 'snapshot';
      id: number;
      counts: WorkerCounts;
      /** Event age since the last reset. */
      latency: HistogramData;
      /** Transit since the last reset. */
      transit: HistogramData;
    };
