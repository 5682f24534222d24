/**
 * The `compression` factor on the server: each message compressed on its own, synchronously,
 * as the hub writes it.
 *
 * - `deflate` (WebSocket permessage-deflate, RFC 7692): a message's payload is raw DEFLATE ended
 *   by a sync flush whose trailing `00 00 ff ff` is dropped (§7.2.1), sent in a frame with RSV1
 *   set. The server negotiates `server_no_context_takeover`, so no message refers back to an
 *   earlier one and the browser may reset its inflater between messages.
 * - `gzip` (`Content-Encoding: gzip` on SSE and fetch): one gzip member that never ends: a gzip
 *   header first, then each message as raw DEFLATE ended by a sync flush (its `00 00 ff ff`
 *   kept: it byte-aligns the stream), so the browser can decode every message as it arrives.
 *   Concatenating independently compressed, unfinished DEFLATE blocks is a valid DEFLATE stream:
 *   a back-reference never reaches outside its own message. The member has no trailer (CRC and
 *   length) because the stream has no end; it is cancelled, never finished.
 *
 * Why each message on its own, instead of one context per stream (context takeover, which
 * compresses better): Node's only synchronous zlib calls are one-shot, and the hub must know
 * what it wrote (bytes, the queue it sheds by) when write() returns, in order. An asynchronous
 * zlib stream per connection would also move the work to libuv's pool, where it would queue
 * behind other connections' work and add its own latency to every batch.
 */
import zlib from 'node:zlib';
import type { StreamCompressionStats } from '../protocol/server-stats.js';
import type { StreamCompression } from '../protocol/wire.js';
import { COMPRESSION_LEVEL } from './defaults.js';

/** A gzip member header (RFC 1952): magic, deflate, no flags, no time, no extra flags, OS unknown. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

/** The empty stored block a sync flush ends with. */
const SYNC_TAIL_BYTES = 4;

const OPTIONS: zlib.ZlibOptions = { level: COMPRESSION_LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** One stream's compressor: compresses each message, counts bytes in and out (for `/stats`). */
export class MessageCompressor {
  private inputBytes = 0;
  private outputBytes = 0;

  constructor(readonly kind: StreamCompression) {}

  /** `head + rows + tail` compressed as this stream's next message (a string head is ASCII). */
  compress(head: string | Buffer, rows: Buffer, tail: Buffer): Buffer {
    const headBytes = typeof head === 'string' ? Buffer.from(head, 'latin1') : head;
    const message = Buffer.concat([headBytes, rows, tail], headBytes.length + rows.length + tail.length);
    const flushed = zlib.deflateRawSync(message, OPTIONS);
    const out = this.kind === 'deflate' ? flushed.subarray(0, flushed.length - SYNC_TAIL_BYTES) : flushed;
    this.inputBytes += message.length;
    this.outputBytes += out.length;
    return out;
  }

  stats(): StreamCompressionStats {
    return { kind: this.kind, inputBytes: this.inputBytes, outputBytes: this.outputBytes };
  }
}
