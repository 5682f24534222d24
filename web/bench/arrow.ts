/**
 * `npm run bench:arrow`'s page: apache-arrow (the page's decoder, web/lab/arrow-decode.ts) and
 * @uwdata/flechette side by side, on the same Arrow messages of the server's (the ceiling's sample: 200, fewer above batch 10,000), each doing
 * what the count-only page does per batch plus the chart's aggregate: decode, row count,
 * `sentAt`, max of the speed column. Each library through its public API: apache-arrow keeps
 * one stream reader across the messages; flechette has no reader that keeps a schema, so each
 * message is decoded with the stream's schema and dictionaries before it (`tableFromIPC([preamble,
 * message])`), as a page using it would.
 */
import { tableFromIPC } from '@uwdata/flechette';
import { Message } from 'apache-arrow';
import { ARROW_HEAD_BYTES, arrowIpcBytes, arrowSentAt } from '../../protocol/arrow.js';
import { SPEED_COLUMN, streamPath, ROW_COLUMNS } from '../../protocol/wire.js';
import { decodeFramed } from '../lab/arrow-batch.js';
import { createArrowStream } from '../lab/arrow-decode.js';
import { wsUrl } from '../lab/transports/index.js';
import { sampleMessages } from '../lab/ceiling.js';

export interface DecoderFigures {
  library: 'apache-arrow' | 'flechette';
  batch: number;
  rowsPerSec: number;
  /** The sum of every batch's max speed over one pass: the two libraries must agree on it. */
  check: number;
}

/** The sample the page's ceiling takes at this batch (web/lab/ceiling.ts): 200 messages, fewer above batch 10,000. */
function fetchMessages(batch: number): Promise<Uint8Array[]> {
  const count = sampleMessages(batch);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(streamPath('ws', { batch, interval: 1, encoding: 'arrow' })));
    ws.binaryType = 'arraybuffer';
    const got: Uint8Array[] = [];
    const timer = setTimeout(() => (ws.close(), reject(new Error(`got ${got.length} of ${count} messages in 10 s`))), 10_000);
    ws.onmessage = (e: MessageEvent<ArrayBuffer>) => {
      got.push(new Uint8Array(e.data));
      if (got.length === count) {
        clearTimeout(timer);
        ws.close();
        resolve(got);
      }
    };
    ws.onerror = () => (clearTimeout(timer), reject(new Error('WebSocket failed')));
  });
}

/** One pass: rows decoded; `out.check` gets the sum of the batches' max speed. */
type Pass = (messages: Uint8Array[], out: { check: number; sentAt: number }) => number;

const apacheArrowPass: Pass = (messages, out) => {
  const decoder = createArrowStream();
  let rows = 0;
  for (const m of messages) {
    const b = decodeFramed(decoder, m);
    rows += b.numRows;
    out.sentAt += b.sentAt;
    out.check += b.chartMax(ROW_COLUMNS[SPEED_COLUMN], -Infinity);
  }
  return rows;
};

function flechettePass(preamble: Uint8Array): Pass {
  return (messages, out) => {
    let rows = 0;
    for (let k = 0; k < messages.length; k++) {
      const m = messages[k];
      const view = new DataView(m.buffer, m.byteOffset, m.byteLength);
      // The first message carries the preamble itself; the others get it put before them.
      const ipc = m.subarray(ARROW_HEAD_BYTES, ARROW_HEAD_BYTES + arrowIpcBytes(view, 0));
      const table = tableFromIPC(k === 0 ? ipc : [preamble, ipc]);
      rows += table.numRows;
      out.sentAt += arrowSentAt(view, 0);
      let max = -Infinity;
      for (const batch of table.getChild(ROW_COLUMNS[SPEED_COLUMN]).data) {
        const values = batch.values as Int16Array;
        for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
      }
      out.check += max;
    }
    return rows;
  };
}

/** The schema and dictionary messages at the start of the first message (everything before its record batch). */
function preambleOf(first: Uint8Array): Uint8Array {
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  for (let at = ARROW_HEAD_BYTES; ;) {
    // An IPC message: 0xFFFFFFFF, its metadata's length, the metadata (which holds the body's length), the body.
    const metaLength = view.getInt32(at + 4, true);
    const message = Message.decode(first.subarray(at + 8, at + 8 + metaLength));
    if (message.isRecordBatch()) return first.subarray(ARROW_HEAD_BYTES, at);
    at += 8 + metaLength + Number(message.bodyLength);
  }
}

function timed(pass: Pass, messages: Uint8Array[], ms: number): { rowsPerSec: number; check: number } {
  const warm = { check: 0, sentAt: 0 };
  pass(messages, warm);
  const out = { check: 0, sentAt: 0 };
  let rows = 0;
  let passes = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    rows += pass(messages, out);
    passes++;
    elapsed = performance.now() - t0;
  }
  return { rowsPerSec: Math.round((rows * 1000) / elapsed), check: out.check / passes };
}

async function run(batch: number, ms: number): Promise<DecoderFigures[]> {
  const messages = await fetchMessages(batch);
  const preamble = preambleOf(messages[0]);
  const a = timed(apacheArrowPass, messages, ms);
  const f = timed(flechettePass(preamble), messages, ms);
  return [
    { library: 'apache-arrow', batch, ...a },
    { library: 'flechette', batch, ...f },
  ];
}

(window as unknown as { arrowBench: typeof run }).arrowBench = run;
