/**
 * What a run's events are, as the server answers at `GET /payload` and the report's header
 * keeps it (report.json `payload`, optional: reports before `--rows` have none). The lab's car
 * rows are described the same way, with `source` null. No Node or DOM imports.
 */
import type { EncodingName } from './encodings.js';
import type { EventShape, RowsFormat } from './rows-file.js';

export interface PayloadDescription {
  /** The rows file as given to `--rows`, or null for the lab's car rows. */
  source: string | null;
  /** SHA-256 of the file's text, hex; null for the car rows. */
  sha256: string | null;
  /** How the file was read; null for the car rows. */
  format: RowsFormat | null;
  shape: EventShape;
  /** Distinct events the batches cycle: the file's events, or the car rows' pool. */
  events: number;
  /**
   * Bytes one event takes on the wire in each encoding, the batch's own head left out: JSON its
   * text and a comma, MessagePack its encoding, Arrow a record batch of PAYLOAD_ARROW_BATCH events
   * (its metadata shared out) divided by its events.
   */
  bytesPerEvent: Record<EncodingName, number>;
  /** The events' fields: an object's keys, or an array's column names (its indices, or the car rows' names). */
  fields: string[];
  /** 1 for flat events, one more per level of arrays or objects inside. */
  nestingDepth: number;
  /** The field the page's chart plotted (protocol/event-view.ts), or null when the events have no numeric one; absent in reports before it. */
  chartField?: string | null;
  /**
   * What `pace=recorded` would replay (protocol/pace.ts): the recording's events per second as
   * recorded and its cycle's length, or why the events have no pace to replay. Absent in reports
   * before it.
   */
  recorded?: { eventsPerSec: number; periodMs: number } | { why: string };
  /**
   * The largest batch the server sends of these events: LIMITS.batch.max, or fewer for a rows
   * file of large events (server/rows.ts filePoolShape); absent in reports before it.
   */
  maxBatch?: number;
}

/** Events in the Arrow record batch whose bytes `bytesPerEvent.arrow` divides (the lab's middle Arrow size). */
export const PAYLOAD_ARROW_BATCH = 400;
