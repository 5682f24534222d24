/**
 * What the server reports at `GET /stats`: cumulative counters per stream and in total. The
 * driver differences two of them over a window into a repeat's ServerFigures
 * (protocol/repeat-figures.ts).
 */
import type { StreamCompression, Transport } from './wire.js';

/** One open stream as the server sees it. */
export interface ServerConnectionStats {
  id: number;
  transport: Transport;
  /** 'h1' or 'h2': the HTTP version the request arrived on. */
  http: string;
  /** Which TCP connection carries it (a number per connection, from 1); streams of one HTTP/2 session share one. */
  socket: number;
  batch: number;
  intervalMs: number;
  /** The `client` tag the stream was opened with, or null. */
  client: string | null;
  openSec: number;
  /** The next seq: batches generated so far, counting from the seq the stream resumed at. */
  generated: number;
  sent: number;
  /** Batches skipped because the client's send buffer was over the bound. */
  shed: number;
  /** Batches due by schedule but not yet generated: this stream's pacing debt. */
  behind: number;
  /** Batches written per second since the connection opened (shed excluded). */
  batchesPerSec: number;
  /** How late batches were written relative to their schedule since the last reset, in ms. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  /** Bytes queued for this client now (WS bufferedAmount or HTTP/2 stream writableLength). */
  bufferedBytes: number;
  /**
   * Bytes written to the connection so far: what goes on the wire above TLS and HTTP/2 framing
   * (WebSocket frame headers, SSE `id:`/`data:` lines, after compression when compressed).
   */
  bytes: number;
  /** What compressing this stream did so far; null when it is not compressed (not asked, or not negotiated). */
  compression: StreamCompressionStats | null;
}

/** One compressed stream's compressor, cumulative. */
export interface StreamCompressionStats {
  kind: StreamCompression;
  /** Message bytes before compression (framing the compressed bytes travel in is not counted). */
  inputBytes: number;
  /** The same messages compressed. */
  outputBytes: number;
}

/** `GET /stats`: cumulative counters; the driver differences two of them over a window. */
export interface ServerStats {
  /** Server clock when sampled, ms (performance.now()). */
  nowMs: number;
  pid: number;
  /** Cumulative process CPU, µs (process.cpuUsage()). */
  cpuUserUs: number;
  cpuSystemUs: number;
  /** Cumulative event-loop time, ms (performance.eventLoopUtilization()). */
  eventLoopActiveMs: number;
  eventLoopIdleMs: number;
  rssBytes: number;
  /** Totals since the server started, over every connection ever opened. */
  batchesSent: number;
  eventsSent: number;
  bytesSent: number;
  batchesShed: number;
  /** Batches due by schedule but not yet written: pacing debt of open connections. */
  batchesBehind: number;
  /** Tick lateness over every open connection since the last `?reset=lateness`, ms. */
  latenessMs: { p50: number | null; p99: number | null; max: number | null };
  connectionsOpen: number;
  connectionsTotal: number;
  /** Streams dropped because their transport threw on write, and the last such error. */
  writeErrors: number;
  lastWriteError: string | null;
  /** Connections dropped for not answering heartbeat pings (dead peers nobody told us about). */
  deadPeersDropped: number;
  /** Streams dropped because their connection was found gone (destroyed or closed) with no close event seen. */
  goneStreamsDropped: number;
  /** SSE requests whose Last-Event-ID was not a plain safe integer; they started from seq 0. */
  badLastEventIds: number;
  sendBufferLimitBytes: number;
  connections: ServerConnectionStats[];
}
