/**
 * The `grpc-web` transport: server streaming with Connect (`@connectrpc/connect-fastify`),
 * `pushlab.v1.PushService/Stream`, the same batches as protobuf (proto/pushlab/v1/push.proto).
 * Only the gRPC-web protocol is served, as a browser can use it.
 *
 * The rows are encoded once each, on first use, and a batch is a list of those encodings: the
 * service is served with `EncodedBatch` as its output, whose `repeated bytes rows` is on the
 * wire exactly the page's `repeated Row rows`. So the server does no per-row protobuf work per
 * batch, as the JSON transports do no per-row JSON work. Connect waits for 'drain' before
 * writing more, so a slow client's batches queue here, where the hub sees them and sheds.
 */
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import type { GenService } from '@bufbuild/protobuf/codegenv2';
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { EncodedBatchSchema, PushService, RowSchema, type StreamRequest, type StreamRequestSchema } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { carries, carriesFileEvents, fileEventsNotCarried, parseStreamParams, type BinaryEncoding, type Row } from '../../protocol/wire.js';
import { DEFAULT_ENCODING } from '../../protocol/encodings.js';
import { encodingNotCarried, prepareStream } from '../params.js';
import type { Hub, Sink } from '../hub.js';
import type { RowPool } from '../rows.js';
import { socketId } from '../sockets.js';
import { streamEncoder, type StreamEncoder } from '../codecs/index.js';

/** PushService with its one method's output read as EncodedBatch: the same path and the same bytes. */
const ENCODED_SERVICE = {
  ...PushService,
  methods: PushService.methods.map((m) => ({ ...m, output: EncodedBatchSchema })),
  method: Object.fromEntries(Object.entries(PushService.method).map(([k, m]) => [k, { ...m, output: EncodedBatchSchema }])),
} as unknown as GenService<{ stream: { methodKind: 'server_streaming'; input: typeof StreamRequestSchema; output: typeof EncodedBatchSchema } }>;

/** Every row's protobuf encoding, by chain row of the pool (see rows.ts), made on first use. */
const encodedRows = new WeakMap<RowPool, (Uint8Array | undefined)[]>();

function encodeRow(pool: RowPool, r: number): Uint8Array {
  const [id, time, lane, lon, lat, gas, device, speed, temperature, since, note, extra] = JSON.parse(pool.rowText(r)) as Row;
  return toBinary(RowSchema, create(RowSchema, { id, time, lane, lon, lat, gas, device, speed, temperature, since, note, extra }));
}

/** One message's framing besides its rows: seq, sentAt and dueAt fields, a row's tag and length. */
const MESSAGE_OVERHEAD = 29;
const ROW_OVERHEAD = 3;

interface Queued {
  message: MessageInitShape<typeof EncodedBatchSchema>;
  bytes: number;
}

class GrpcSink implements Sink {
  readonly transport = 'grpc-web' as const;
  private readonly queue: Queued[] = [];
  private head = 0;
  private queuedBytes = 0;
  private wake: (() => void) | null = null;
  private closed = false;

  constructor(
    readonly http: string,
    readonly socket: number,
    private readonly signal: AbortSignal,
    /**
     * A named encoding's encoder (codecs/, its `envelope` form: the batch without its head): each
     * message's bytes field (`arrow`, named for the first encoding it carried) holds the batch
     * instead of rows. Null for the default, which travels as the envelope's own protobuf rows.
     */
    private readonly encoder: StreamEncoder | null,
  ) {
    signal.addEventListener('abort', () => this.close(), { once: true });
  }

  bufferedBytes(): number {
    return this.queuedBytes;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    if (this.encoder)
      return this.encoder.write(seq, sentAt, dueAt, pool, batch, (_head, body) =>
        this.enqueue({ seq, sentAt: Number(sentAt), dueAt: Number(dueAt), arrow: body }, body.length + MESSAGE_OVERHEAD),
      );
    let cache = encodedRows.get(pool);
    if (!cache) encodedRows.set(pool, (cache = []));
    const first = pool.firstRow(seq, batch);
    const rows = new Array<Uint8Array>(batch);
    let bytes = MESSAGE_OVERHEAD;
    for (let i = 0; i < batch; i++) {
      const row = (cache[first + i] ??= encodeRow(pool, first + i));
      rows[i] = row;
      bytes += row.length + ROW_OVERHEAD;
    }
    return this.enqueue({ seq, sentAt: Number(sentAt), dueAt: Number(dueAt), rows }, bytes);
  }

  private enqueue(message: MessageInitShape<typeof EncodedBatchSchema>, bytes: number): number {
    this.queue.push({ message, bytes });
    this.queuedBytes += bytes;
    this.wake?.();
    return bytes;
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  isGone(): boolean {
    return this.closed || this.signal.aborted;
  }

  /** The next batch to send, or null once the stream is closed. */
  async next(): Promise<MessageInitShape<typeof EncodedBatchSchema> | null> {
    while (this.head === this.queue.length) {
      if (this.closed) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    const q = this.queue[this.head++];
    this.queuedBytes -= q.bytes;
    // Drop what was sent once it is half the array, so the queue never grows with the stream's age.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return q.message;
  }
}

const CONNECTION = createContextKey<{ http: string; socket: number }>({ http: 'h2', socket: 0 }, { description: 'the request connection' });

function connectionOf(raw: IncomingMessage | Http2ServerRequest): { http: string; socket: number } {
  return 'stream' in raw ? { http: 'h2', socket: socketId(raw.stream.session?.socket) } : { http: 'h1', socket: socketId(raw.socket) };
}

function streamParams(req: StreamRequest) {
  // proto3 has no "absent" number or string: 0 and "" mean not given, and take the defaults.
  const parsed = parseStreamParams({
    batch: String(req.batch),
    interval: req.intervalMs === 0 ? undefined : String(req.intervalMs),
    client: req.client || undefined,
    encoding: req.encoding || undefined,
    pace: req.pace || undefined,
  });
  if (!parsed.ok) throw new ConnectError(parsed.error.message, Code.InvalidArgument);
  const encoding: BinaryEncoding | undefined = parsed.value.encoding;
  if (encoding && !carries('grpc-web', encoding)) throw new ConnectError(encodingNotCarried('grpc-web', encoding).message, Code.InvalidArgument);
  return parsed.value;
}

export default fp<{ hub: Hub }>(
  async function grpcTransport(app: FastifyInstance, { hub }) {
    const routes = (router: ConnectRouter) =>
      router.service(ENCODED_SERVICE, {
        async *stream(req: StreamRequest, ctx: HandlerContext) {
          const params = streamParams(req);
          if (hub.rowsFromFile && !carriesFileEvents('grpc-web', params.encoding ?? DEFAULT_ENCODING)) {
            throw new ConnectError(fileEventsNotCarried('grpc-web'), Code.InvalidArgument);
          }
          // The encoding's minimum batch, and what its codec prepares (an Arrow size's batches), before the stream opens.
          const refusal = await prepareStream(hub, params);
          if (refusal) throw new ConnectError(refusal.body.message, refusal.status === 503 ? Code.Unavailable : Code.InvalidArgument);
          const { http, socket } = ctx.values.get(CONNECTION);
          const sink = new GrpcSink(http, socket, ctx.signal, params.encoding ? streamEncoder(params, 'envelope') : null);
          const handle = hub.open(sink, params);
          try {
            for (let m = await sink.next(); m; m = await sink.next()) yield m;
          } finally {
            handle.close();
          }
        },
      });
    await app.register(fastifyConnectPlugin, {
      routes,
      grpcWeb: true,
      grpc: false,
      connect: false,
      contextValues: (request) => createContextValues().set(CONNECTION, connectionOf(request.raw)),
    });
  },
  { name: 'pushlab-grpc' },
);
