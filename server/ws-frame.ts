/**
 * Unmasked, unfragmented WebSocket text frames (RFC 6455 §5.2), written straight to the
 * socket so a batch's shared row bytes go out without being copied into a per-connection
 * buffer first: `[frame header + message head]`, `[shared rows]`, `[tail]` in one corked
 * writev. ws's own `send()` needs the payload as one buffer, which costs a 13–52 KB copy per
 * batch per connection at batch 100–400.
 */
import type { Duplex } from 'node:stream';
import type { MessageCompressor } from './compress.js';
import { writeMessage, type Framing } from './write-message.js';

/** Bytes of frame header for a payload of `length` bytes. */
export function frameHeaderLength(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

/** Writes a FIN text-frame header for `length` payload bytes into `buf` at 0; returns its size. */
export function writeTextFrameHeader(buf: Buffer, length: number): number {
  buf[0] = 0x81; // FIN + opcode 1 (text)
  if (length < 126) {
    buf[1] = length;
    return 2;
  }
  if (length < 65536) {
    buf[1] = 126;
    buf.writeUInt16BE(length, 2);
    return 4;
  }
  buf[1] = 127;
  buf.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  buf.writeUInt32BE(length >>> 0, 6);
  return 10;
}

const TEXT_FRAME: Framing = { length: frameHeaderLength, write: writeTextFrameHeader };

/** A binary frame is a text frame with opcode 2 (msgpack batches). */
const BINARY_FRAME: Framing = {
  length: frameHeaderLength,
  write: (buf, length) => {
    const n = writeTextFrameHeader(buf, length);
    buf[0] = 0x82; // FIN + opcode 2 (binary)
    return n;
  },
};

const NO_TAIL = Buffer.alloc(0);

/** RSV1 marks a message compressed with permessage-deflate (RFC 7692 §6). */
const RSV1 = 0x40;

const compressedFraming = (opcodeByte: number): Framing => ({
  length: frameHeaderLength,
  write: (buf, length) => {
    const n = writeTextFrameHeader(buf, length);
    buf[0] = opcodeByte | RSV1;
    return n;
  },
});
const COMPRESSED_TEXT_FRAME = compressedFraming(0x81);
const COMPRESSED_BINARY_FRAME = compressedFraming(0x82);

/** Sends a msgpack batch, `head + rows`, as one binary frame (RSV1 set when compressed); returns the bytes written. */
export function sendBinaryFrame(socket: Duplex, head: Buffer, rows: Buffer, compressor?: MessageCompressor | null): number {
  return writeMessage(socket, head, rows, NO_TAIL, compressor ? COMPRESSED_BINARY_FRAME : BINARY_FRAME, compressor);
}

/**
 * Sends `head + rows + tail` as one text frame, compressed with permessage-deflate (RSV1 set)
 * when the socket negotiated it. `head` must be ASCII (it is JSON we built). Returns the bytes
 * written, frame header included.
 */
export function sendTextFrame(socket: Duplex, head: string, rows: Buffer, tail: Buffer, compressor?: MessageCompressor | null): number {
  return writeMessage(socket, head, rows, tail, compressor ? COMPRESSED_TEXT_FRAME : TEXT_FRAME, compressor);
}

/**
 * Sends `head + body + tail` as one frame, text or binary as its encoding's messages are
 * (EncodingInfo.text), compressed with permessage-deflate (RSV1 set) when the socket negotiated
 * it. Returns the bytes written, frame header included.
 */
export function sendFrame(socket: Duplex, text: boolean, head: string | Buffer, body: Buffer, tail: Buffer, compressor?: MessageCompressor | null): number {
  const framing = text ? (compressor ? COMPRESSED_TEXT_FRAME : TEXT_FRAME) : compressor ? COMPRESSED_BINARY_FRAME : BINARY_FRAME;
  return writeMessage(socket, head, body, tail, framing, compressor);
}
