/** Frames written around ws's send() must be frames ws itself (and so Chrome) accepts. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';

// ws's frame parser is public at runtime but missing from @types/ws.
interface FrameReceiver {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  write(chunk: Buffer): void;
}
const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: unknown }).Receiver as new (options: { isServer: boolean }) => FrameReceiver;
import { frameHeaderLength, sendTextFrame, writeTextFrameHeader } from '../../server/ws-frame.js';
import { COPY_BELOW_BYTES } from '../../server/write-message.js';

function roundTrip(head: string, rows: Buffer, tail: Buffer): { messages: string[]; written: number; chunks: number } {
  const socket = new PassThrough();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const written = sendTextFrame(socket, head, rows, tail);
  const messages: string[] = [];
  const receiver = new Receiver({ isServer: false });
  receiver.on('message', (data: Buffer, isBinary: boolean) => {
    expect(isBinary).toBe(false);
    messages.push(data.toString());
  });
  receiver.write(Buffer.concat(chunks));
  return { messages, written, chunks: chunks.length };
}

describe('WebSocket text frames', () => {
  it('sizes the header by payload length', () => {
    expect([0, 125, 126, 65535, 65536].map(frameHeaderLength)).toEqual([2, 2, 4, 4, 10]);
    const b = Buffer.alloc(10);
    expect(writeTextFrameHeader(b, 70_000)).toBe(10);
    expect([...b]).toEqual([0x81, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70]);
  });

  it.each([
    ['tiny', 3],
    ['just under the copy threshold', COPY_BELOW_BYTES - 1],
    ['at the threshold', COPY_BELOW_BYTES],
    ['16-bit length', 60_000],
    ['64-bit length', 70_000],
  ])('a %s payload arrives as one text message with its exact bytes', (_, n) => {
    const rows = Buffer.alloc(n, 'x');
    const { messages, written } = roundTrip('{"seq":1,"rows":"', rows, Buffer.from('"}'));
    expect(messages).toEqual([`{"seq":1,"rows":"${'x'.repeat(n)}"}`]);
    const payload = 17 + n + 2;
    expect(written).toBe(payload + frameHeaderLength(payload));
  });

  it('writes large rows without copying them into a new buffer', () => {
    const rows = Buffer.alloc(COPY_BELOW_BYTES * 4, 'r');
    const socket = new PassThrough();
    const written: Buffer[] = [];
    socket.on('data', (c: Buffer) => written.push(c));
    sendTextFrame(socket, 'h', rows, Buffer.from('t'));
    expect(written.some((c) => c.buffer === rows.buffer)).toBe(true);
  });
});
