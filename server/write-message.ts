/**
 * How one message's bytes leave the server, for every transport: a head the transport built
 * (ASCII), the batch's shared row bytes, and a tail. Small messages go out as one copied
 * buffer; larger ones as a corked writev of three, so the shared rows are never copied in
 * JavaScript. A transport with framing (WebSocket) puts a header in front of the head. A
 * compressed stream (the `compression` factor) compresses `head rows tail` as one message first.
 */
import type { Writable } from 'node:stream';
import type { MessageCompressor } from './compress.js';

const EMPTY = Buffer.alloc(0);

/** Below this many row bytes one copied buffer is cheaper than three writes (each costs the stream layer µs). */
export const COPY_BELOW_BYTES = 2048;

/** A header in front of the message: its size and how to write it, both by payload length. */
export interface Framing {
  length(payload: number): number;
  /** Writes the header for `payload` bytes into `buf` at 0; returns its size. */
  write(buf: Buffer, payload: number): number;
}

/**
 * Writes `[header] head rows tail` to `out`; returns the bytes written, header included. A
 * string head is ASCII. With a `compressor`, what goes out is `[header] compressed(head rows
 * tail)` (the framing says how a compressed message is marked, e.g. RSV1 on a WebSocket frame).
 */
export function writeMessage(
  out: Writable,
  head: string | Buffer,
  rows: Buffer,
  tail: Buffer,
  framing?: Framing,
  compressor?: MessageCompressor | null,
): number {
  if (compressor) {
    // The compressed message is one fresh buffer already: unframed it goes out as it is.
    const payload = compressor.compress(head, rows, tail);
    if (!framing) {
      out.write(payload);
      return payload.length;
    }
    return writeMessage(out, EMPTY, payload, EMPTY, framing);
  }
  const payload = head.length + rows.length + tail.length;
  const headerLength = framing ? framing.length(payload) : 0;
  if (rows.length < COPY_BELOW_BYTES) {
    const message = Buffer.allocUnsafe(headerLength + payload);
    let at = framing ? framing.write(message, payload) : 0;
    at += typeof head === 'string' ? message.write(head, at, 'latin1') : head.copy(message, at);
    at += rows.copy(message, at);
    tail.copy(message, at);
    out.write(message);
  } else {
    const first = Buffer.allocUnsafe(headerLength + head.length);
    const at = framing ? framing.write(first, payload) : 0;
    if (typeof head === 'string') first.write(head, at, 'latin1');
    else head.copy(first, at);
    out.cork();
    out.write(first);
    out.write(rows);
    out.write(tail);
    out.uncork();
  }
  return headerLength + payload;
}
