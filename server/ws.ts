/** `GET /ws`: one WebSocket (HTTP/1.1 upgrade over TLS) per connection, one text frame per batch. */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { MESSAGE_TAIL, messageHead } from '../protocol/wire.js';
import type { Hub, Sink } from './hub.js';
import type { RowPool } from './rows.js';
import { watchWebSocket, type Heartbeat } from './liveness.js';
import { validateStreamQuery } from './params.js';
import { sendTextFrame } from './ws-frame.js';

const TAIL = Buffer.from(MESSAGE_TAIL, 'latin1');

class WsSink implements Sink {
  readonly transport = 'ws' as const;
  readonly http = 'h1';
  /** ws keeps its socket private; batches go to it directly (see ws-frame.ts). */
  private readonly raw: Duplex;

  constructor(private readonly socket: WebSocket) {
    this.raw = (socket as unknown as { _socket: Duplex })._socket;
  }

  bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  close(): void {
    this.socket.terminate();
  }

  write(seq: number, sentAt: string, pool: RowPool, batch: number): number {
    // Never interleave with a closing handshake: ws owns the socket once it is not OPEN.
    if (this.socket.readyState !== this.socket.OPEN) return 0;
    if (this.raw.destroyed) throw new Error('WebSocket socket destroyed');
    return sendTextFrame(this.raw, messageHead(seq, sentAt), pool.rows(seq, batch), TAIL);
  }
}

export default fp<{ hub: Hub; heartbeat: Heartbeat }>(
  async function wsTransport(app: FastifyInstance, { hub, heartbeat }) {
    await app.register(websocket, { options: { perMessageDeflate: false, maxPayload: 64 * 1024 } });
    app.get('/ws', { websocket: true, preValidation: validateStreamQuery }, (socket, request) => {
      const stream = hub.open(new WsSink(socket), request.stream);
      socket.on('close', stream.close);
      watchWebSocket(socket, heartbeat);
      socket.on('error', stream.close);
    });
  },
  { name: 'pushlab-ws' },
);
