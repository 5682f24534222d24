/**
 * The server's answer at `GET /payload` (protocol/payload.ts): what its pool's events are and
 * what each costs on the wire per encoding. Worked out on the first request and kept: the
 * MessagePack figure encodes the pool (as a msgpack stream would), the Arrow one a table of
 * PAYLOAD_ARROW_BATCH events, apache-arrow loaded then, not at start-up.
 */
import type { PayloadDescription } from '../protocol/payload.js';
import { PAYLOAD_ARROW_BATCH } from '../protocol/payload.js';
import { recordedEventsPerSec } from '../protocol/pace.js';
import { fieldNames, nestingDepth } from '../protocol/rows-file.js';
import { ROW_COLUMNS } from '../protocol/wire.js';
import { msgpackBytesPerEvent } from './msgpack.js';
import type { RowPool } from './rows.js';
import type { RowsSource } from './rows-source.js';

/** Mean bytes per event of `rows(0, n)`: n events joined by n − 1 commas, so each event and its comma. */
const perEvent = (bytes: number, n: number) => (bytes + 1) / n;

async function arrowBytesPerEvent(pool: RowPool): Promise<number> {
  const arrow = await import('./arrow.js');
  const { eventsTableSteps } = await import('./arrow-events.js');
  // The pool's first rows: epoch 0 of the car rows is exactly makeRow, whatever the pool's size.
  const table = arrow.runAtOnce(pool.events ? eventsTableSteps(pool.events, PAYLOAD_ARROW_BATCH) : arrow.poolTableSteps(pool, PAYLOAD_ARROW_BATCH));
  return arrow.recordBatchBytes(table) / PAYLOAD_ARROW_BATCH;
}

export async function describePayload(pool: RowPool, source: RowsSource | null, chartField: string | null): Promise<PayloadDescription> {
  const n = pool.events ? pool.events.rows.events.length : pool.size;
  const bytesPerEvent = {
    json: perEvent(pool.firstRowsBytes(n), n),
    msgpack: msgpackBytesPerEvent(pool),
    arrow: await arrowBytesPerEvent(pool),
  };
  const r = pool.recording;
  const recorded = 'why' in r ? { why: r.why } : { eventsPerSec: recordedEventsPerSec(r.recording), periodMs: r.recording.periodMs };
  if (!source) {
    return {
      source: null,
      sha256: null,
      format: null,
      shape: 'array',
      events: n,
      bytesPerEvent,
      fields: [...ROW_COLUMNS],
      nestingDepth: 1,
      chartField,
      recorded,
      maxBatch: pool.maxBatch,
    };
  }
  return {
    source: source.file,
    sha256: source.sha256,
    format: source.rows.format,
    shape: source.rows.shape,
    events: n,
    bytesPerEvent,
    fields: fieldNames(source.rows, source.file),
    nestingDepth: nestingDepth(source.rows.events),
    chartField,
    recorded,
    maxBatch: pool.maxBatch,
  };
}
