/** `GET /ws`: one WebSocket (HTTP/1.1 upgrade over TLS) per connection, one frame per batch (text or binary as its encoding is). */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { PushlabError } from '../../protocol/errors.js';
import type { StreamParams } from '../../protocol/wire.js';
import type { Hub, Sink } from '../hub.js';
import type { RowPool } from '../rows.js';
import { watchWebSocket, type Heartbeat } from '../liveness.js';
import { validateStreamQuery, withCompressionOf, withStreamReady } from '../params.js';
import { socketId } from '../sockets.js';
import { sendFrame } from '../ws-frame.js';
import { MessageCompressor } from '../compress.js';
import { streamEncoder, type SendMessage, type StreamEncoder } from '../codecs/index.js';

/**
 * Frames go straight to ws's private `_socket` (measured cheaper than ws.send, see
 * ws-frame.ts). A private field can vanish in any release, so package.json pins the ws minor
 * this is tested against, and the server checks the ws that @fastify/websocket loads before
 * it accepts anything.
 */
const requireFromPlugin = createRequire(createRequire(import.meta.url).resolve('@fastify/websocket'));
const ws = requireFromPlugin('ws') as { WebSocket: new (address: null, protocols: undefined, options: object) => WebSocket };
const WS_VERSION = (requireFromPlugin('ws/package.json') as { version: string }).version;

function missingSocket(): PushlabError {
  return new PushlabError(
    'PUSHLAB_BAD_DEPENDENCY',
    `ws ${WS_VERSION} has no private _socket field, which server/transports/ws.ts writes WebSocket frames to; install the ws version package.json pins (npm ci)`,
  );
}

/** Throws PUSHLAB_BAD_DEPENDENCY unless the installed ws has the private socket field. */
export function checkWsInternals(): void {
  // Built as ws's own server builds one before the upgrade: the constructor sets `_socket`
  // (null until a socket is attached) on every instance.
  if (!('_socket' in new ws.WebSocket(null, undefined, {}))) throw missingSocket();
}

class WsSink implements Sink {
  readonly transport = 'ws' as const;
  readonly http = 'h1';
  readonly socket: number;
  /** ws keeps its socket private; batches go to it directly (see ws-frame.ts). */
  private readonly raw: Duplex;
  /** Set when permessage-deflate was negotiated (only for `compression=deflate`, see the route). */
  readonly compressor: MessageCompressor | null;

  /** The stream's encoder (codecs/): a text frame or a binary one per batch, as its encoding's messages are. */
  private readonly encoder: StreamEncoder;
  private readonly send: SendMessage;

  constructor(
    private readonly ws: WebSocket,
    params: StreamParams,
  ) {
    const raw = (ws as unknown as { _socket?: Duplex })._socket;
    if (!raw) throw missingSocket();
    this.raw = raw;
    this.socket = socketId(raw);
    this.compressor = ws.extensions.split(',').includes('permessage-deflate') ? new MessageCompressor('deflate') : null;
    const encoder = streamEncoder(params, 'frames');
    this.encoder = encoder;
    this.send = (head, body, tail) => sendFrame(raw, encoder.info.text, head, body, tail, this.compressor);
  }

  bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  close(): void {
    this.ws.terminate();
  }

  isGone(): boolean {
    return this.ws.readyState === this.ws.CLOSED || this.raw.destroyed;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    // Never interleave with a closing handshake: ws owns the socket once it is not OPEN.
    if (this.ws.readyState !== this.ws.OPEN) return 0;
    if (this.raw.destroyed) throw new Error('WebSocket socket destroyed');
    return this.encoder.write(seq, sentAt, dueAt, pool, batch, this.send);
  }
}

/**
 * The stream query, then `compression`: only `deflate` fits a WebSocket. ws negotiates
 * permessage-deflate whenever the client offers it (every browser does), so a request that did
 * not ask for compression has the offer removed before ws reads it: `off` stays exactly the
 * uncompressed socket it always was.
 */
const validateWsStreamQuery = withCompressionOf('ws', validateStreamQuery);
async function validateWsQuery(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await validateWsStreamQuery(request, reply);
  if (reply.sent) return;
  if (request.stream.compression !== 'deflate') delete request.raw.headers['sec-websocket-extensions'];
}

export default fp<{ hub: Hub; heartbeat: Heartbeat }>(
  async function wsTransport(app: FastifyInstance, { hub, heartbeat }) {
    checkWsInternals();
    // permessage-deflate with server_no_context_takeover: the server compresses every message on
    // its own (compress.ts). Offered only to requests that ask for it (validateWsQuery). ws's own
    // compressor never runs: the server writes its frames itself, and ws only sends control frames.
    await app.register(websocket, { options: { perMessageDeflate: { serverNoContextTakeover: true }, maxPayload: 64 * 1024 } });
    app.route({
      method: 'GET',
      url: '/ws',
      preValidation: withStreamReady(hub, validateWsQuery),
      // A plain GET (no Upgrade): say what this endpoint is instead of an empty 404.
      handler: async (request, reply) => {
        // Upgrade is a connection-specific header, which HTTP/2 forbids in a response.
        if (request.raw.httpVersionMajor === 1) void reply.header('upgrade', 'websocket');
        return reply.code(426).send({
          error: 'upgrade-required',
          message:
            '/ws is a WebSocket endpoint: open it with a WebSocket client over HTTP/1.1 (new WebSocket("wss://<host>/ws?batch=50")); for a plain HTTP stream use /sse',
        });
      },
      wsHandler: (socket, request) => {
        const stream = hub.open(new WsSink(socket, request.stream), request.stream);
        socket.on('close', stream.close);
        watchWebSocket(socket, heartbeat);
        socket.on('error', stream.close);
      },
    });
  },
  { name: 'pushlab-ws' },
);
