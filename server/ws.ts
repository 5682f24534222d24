/** `GET /ws`: one WebSocket (HTTP/1.1 upgrade over TLS) per connection, one text frame per batch. */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { MESSAGE_TAIL, messageHead } from '../protocol/wire.js';
import type { Hub, Sink } from './hub.js';
import { validateStreamQuery } from './params.js';

const TAIL = Buffer.from(MESSAGE_TAIL, 'latin1');

class WsSink implements Sink {
  readonly transport = 'ws' as const;
  readonly http = 'h1';
  constructor(private readonly socket: WebSocket) {}

  bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  close(): void {
    this.socket.terminate();
  }

  write(seq: number, sentAt: number, rows: Buffer): number {
    // One frame needs one buffer: copy the shared rows once, between the per-connection
    // head and the tail. ws frames it without another copy.
    const head = messageHead(seq, sentAt);
    const size = head.length + rows.length + TAIL.length;
    const frame = Buffer.allocUnsafe(size);
    frame.write(head, 0, 'latin1');
    rows.copy(frame, head.length);
    TAIL.copy(frame, head.length + rows.length);
    this.socket.send(frame, { binary: false, compress: false });
    return size;
  }
}

export default fp<{ hub: Hub }>(
  async function wsTransport(app: FastifyInstance, { hub }) {
    await app.register(websocket, { options: { perMessageDeflate: false, maxPayload: 64 * 1024 } });
    app.get('/ws', { websocket: true, preValidation: validateStreamQuery }, (socket, request) => {
      const stream = hub.open(new WsSink(socket), request.stream);
      socket.on('close', stream.close);
      socket.on('error', stream.close);
    });
  },
  { name: 'pushlab-ws' },
);
