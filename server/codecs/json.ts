/**
 * `encoding: json`, the default: one JSON document per batch, `{"seq":…,"sentAt":…,"dueAt":…,"rows":[`, the
 * pool's row text (serialised once at start-up, rows.ts) and `]}`. A byte stream (`fetch`) and
 * poll lines end each document with a newline, as NDJSON.
 */
import type { Carriage } from '../../protocol/encodings.js';
import { MESSAGE_TAIL, messageHead } from '../../protocol/wire.js';
import type { ServerCodec, StreamEncoder } from './codec.js';

const TAIL = Buffer.from(MESSAGE_TAIL, 'latin1');
const LINE_TAIL = Buffer.from(`${MESSAGE_TAIL}\n`, 'latin1');

function jsonEncoder(tail: Buffer): StreamEncoder {
  return { write: (seq, sentAt, dueAt, pool, batch, send) => send(messageHead(seq, sentAt, dueAt), pool.rows(seq, batch), tail) };
}

const FRAMED = jsonEncoder(TAIL);
const LINES = jsonEncoder(LINE_TAIL);

export const jsonCodec: ServerCodec = {
  open: (carriage: Carriage) => (carriage === 'stream' || carriage === 'lines' ? LINES : FRAMED),
};
