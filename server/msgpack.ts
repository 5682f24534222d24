/**
 * MessagePack for the `encoding: msgpack` factor (WS binary frames, `fetch`): the same batches
 * as the JSON text, as a map `{seq, sentAt, dueAt, rows}` whose `rows` is an array of 12-element
 * arrays. As with JSON, every row is encoded once and a batch is a zero-copy slice of one
 * buffer behind a small head. The rows are few shapes (ints, doubles, short strings), so a
 * dozen lines encode them; the page decodes with @msgpack/msgpack, and a test checks the two agree.
 */
import { encode } from '@msgpack/msgpack';
import type { Row } from '../protocol/wire.js';
import type { RowPool } from './rows.js';

function encodeValue(v: string | number, out: number[]): void {
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'utf8');
    if (bytes.length < 32) out.push(0xa0 | bytes.length);
    else if (bytes.length < 256) out.push(0xd9, bytes.length);
    else throw new Error(`a row string of ${bytes.length} bytes: the row pool has none over 255`);
    for (const b of bytes) out.push(b);
  } else if (Number.isInteger(v) && v >= 0 && v < 2 ** 32) {
    if (v < 128) out.push(v);
    else if (v < 65536) out.push(0xcd, v >> 8, v & 0xff);
    else out.push(0xce, (v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  } else {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    out.push(0xcb, ...b);
  }
}

/** One row as a msgpack array of its 12 columns. */
export function encodeRow(row: Row): Buffer {
  const out: number[] = [0x90 | row.length];
  for (const v of row) encodeValue(v, out);
  return Buffer.from(out);
}

const SEQ = Buffer.from([0xa3, ...Buffer.from('seq')]);
const SENT_AT = Buffer.from([0xa6, ...Buffer.from('sentAt')]);
const DUE_AT = Buffer.from([0xa5, ...Buffer.from('dueAt')]);
const ROWS = Buffer.from([0xa4, ...Buffer.from('rows')]);
/** fixmap 4, "seq" f64, "sentAt" f64, "dueAt" f64, "rows" array32: the bytes before the rows. */
export const MSGPACK_HEAD_BYTES = 1 + SEQ.length + 9 + SENT_AT.length + 9 + DUE_AT.length + 9 + ROWS.length + 5;

/** The bytes before a batch's rows: `{seq, sentAt, dueAt, rows: [` with the rows' count. */
export function msgpackHead(seq: number, sentAtMs: number, dueAtMs: number, count: number): Buffer {
  const b = Buffer.allocUnsafe(MSGPACK_HEAD_BYTES);
  let at = 0;
  b[at++] = 0x84;
  at += SEQ.copy(b, at);
  b[at++] = 0xcb;
  at = b.writeDoubleBE(seq, at);
  at += SENT_AT.copy(b, at);
  b[at++] = 0xcb;
  at = b.writeDoubleBE(sentAtMs, at);
  at += DUE_AT.copy(b, at);
  b[at++] = 0xcb;
  at = b.writeDoubleBE(dueAtMs, at);
  at += ROWS.copy(b, at);
  b[at++] = 0xdd;
  b.writeUInt32BE(count, at);
  return b;
}

/** Every chain row of a pool (see rows.ts) in msgpack, in one buffer, so a batch is one slice. A file's events are encoded once each, however often the chain cycles them. */
class MsgpackRows {
  private readonly bytes: Buffer;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(pool: RowPool) {
    const n = pool.chainRows;
    const parts: Buffer[] = new Array<Buffer>(n);
    this.starts = new Uint32Array(n);
    this.ends = new Uint32Array(n);
    // A file's events (--rows) are of any shape: @msgpack/msgpack encodes each once, as the page decodes it.
    const events = pool.events?.rows.events;
    const own = events?.map((e) => Buffer.from(encode(e)));
    let offset = 0;
    for (let r = 0; r < n; r++) {
      parts[r] = own ? own[r % own.length] : encodeRow(JSON.parse(pool.rowText(r)) as Row);
      this.starts[r] = offset;
      offset += parts[r].length;
      this.ends[r] = offset;
    }
    this.bytes = Buffer.concat(parts, offset);
  }

  rows(first: number, batch: number): Buffer {
    return this.bytes.subarray(this.starts[first], this.ends[first + batch - 1]);
  }
}

const encoded = new WeakMap<RowPool, MsgpackRows>();

/**
 * The mean msgpack bytes of the pool's events in its first epoch (chain rows 0…n − 1, each
 * event of a file once), encoded one by one: the chain's full encoding (every epoch, about 1.7 s
 * here) is left to the first msgpack stream, as /payload asks this at every command's start.
 */
export function msgpackBytesPerEvent(pool: RowPool): number {
  const events = pool.events?.rows.events;
  if (events) return events.reduce((a, e) => a + encode(e).byteLength, 0) / events.length;
  let bytes = 0;
  for (let r = 0; r < pool.size; r++) bytes += encodeRow(JSON.parse(pool.rowText(r)) as Row).length;
  return bytes / pool.size;
}

/**
 * The msgpack rows of batch `seq`. The pool is encoded on first use (about 1.7 s on the development VM
 * for the 310,000 chain rows of the 10,000-row limit; 400,000 since the tail holds the largest batch,
 * 100,000 rows), so servers that never see msgpack never pay.
 */
export function msgpackRows(pool: RowPool, seq: number, batch: number): Buffer {
  let rows = encoded.get(pool);
  if (!rows) encoded.set(pool, (rows = new MsgpackRows(pool)));
  return rows.rows(pool.firstRow(seq, batch), batch);
}
