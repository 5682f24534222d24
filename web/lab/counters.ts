/**
 * The page's exact counters. Everything here runs once per message, so it does integer
 * arithmetic on preallocated arrays and allocates nothing.
 */
import { Histogram } from '../../protocol/histogram.js';
import type { PageCounters } from '../../protocol/page-api.js';

export class Counters implements PageCounters {
  events = 0;
  batches = 0;
  bytes = 0;
  gaps = 0;
  duplicates = 0;
  reconnects = 0;
  errors = 0;
  /** Next seq expected per connection. */
  readonly nextSeq: Float64Array;
  readonly batchesPerConnection: Float64Array;
  /**
   * Event age since the last reset (snapshots reset it to delimit a measured window): every
   * event with its own age, from its birth to this handler (protocol/age.ts). The figure that decides.
   */
  readonly latency = new Histogram();
  /** Transit since the last reset: handler time minus the server's write (`sentAt`), one per batch. A diagnostic. */
  readonly transit = new Histogram();

  constructor(readonly connections: number) {
    this.nextSeq = new Float64Array(connections);
    this.batchesPerConnection = new Float64Array(connections);
  }

  /**
   * Records one batch: `transitUs` is receive time minus the server's `sentAt`; its `rows` events'
   * ages spread evenly over [ageLowUs, ageHighUs] (protocol/age.ts batchAgeRangeUs).
   */
  batch(conn: number, seq: number, rows: number, bytes: number, transitUs: number, ageLowUs: number, ageHighUs: number): void {
    this.events += rows;
    this.batches++;
    this.bytes += bytes;
    this.batchesPerConnection[conn]++;
    const expected = this.nextSeq[conn];
    if (seq === expected) {
      this.nextSeq[conn] = seq + 1;
    } else if (seq > expected) {
      // Batches the server generated but this page never got: shed by the server or lost.
      this.gaps += seq - expected;
      this.nextSeq[conn] = seq + 1;
    } else {
      this.duplicates++;
    }
    this.latency.recordSpread(ageLowUs, ageHighUs, rows);
    this.transit.record(transitUs);
  }

  /**
   * Connection `conn` came back. When its seq restarts (a new WebSocket), the next batch
   * expected is seq 0 again; when it resumes (EventSource's Last-Event-ID) the sequence goes
   * on, so any batch the server could not resend is counted as a gap, exactly.
   */
  reconnected(conn: number, seqRestarts: boolean): void {
    this.reconnects++;
    if (seqRestarts) this.nextSeq[conn] = 0;
  }

  totals(): PageCounters {
    const { events, batches, bytes, gaps, duplicates, reconnects, errors } = this;
    return { events, batches, bytes, gaps, duplicates, reconnects, errors };
  }
}
