/** `grpc-web`: gRPC-web server streaming with Connect; its parameters travel in the request, not the URL. */
import { createClient } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-web';
import { PushService } from '../../../protocol/gen/pushlab/v1/push_pb.js';
import type { Row, StreamParams } from '../../../protocol/wire.js';
import { deliverArrow, loadArrow } from '../arrow-batch.js';
import { reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** A `fetch` that reports the response body's bytes as they arrive. */
function countingFetch(onBytes: (n: number) => void): typeof fetch {
  return async (input, init) => {
    const r = await fetch(input, init);
    if (!r.body) return r;
    const counted = r.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          onBytes(chunk.byteLength);
          out.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: r.status, statusText: r.statusText, headers: r.headers });
  };
}

/** `grpc-web`: Connect's gRPC-web client, server streaming; each message decoded from protobuf to the JSON message's shape. */
function grpcAttempt(base: Promise<string>, params: StreamParams, h: ConnectionHandlers): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const run = async () => {
      const transport = createGrpcWebTransport({ baseUrl: await base, useBinaryFormat: true, fetch: countingFetch(h.onBytes) });
      const client = createClient(PushService, transport);
      // Arrow: the IPC bytes come in each message's `arrow` field, seq and sentAt in its own fields.
      const arrow = params.encoding === 'arrow' ? (await loadArrow())() : null;
      const stream = client.stream({ batch: params.batch, intervalMs: params.interval, client: params.client ?? '', encoding: params.encoding ?? '' }, { signal: abort.signal });
      let opened = false;
      for await (const b of stream) {
        if (!opened) {
          opened = true;
          up();
        }
        if (arrow) {
          deliverArrow(() => arrow.decode(b.arrow, b.seq, b.sentAt), h.onArrow, h.onUndecodable);
          continue;
        }
        const rows = new Array<Row>(b.rows.length);
        for (let i = 0; i < rows.length; i++) {
          const r = b.rows[i];
          rows[i] = [r.id, r.time, r.lane, r.lon, r.lat, r.gas, r.device, r.speed, r.temperature, r.since, r.note, r.extra];
        }
        h.onBatch({ seq: b.seq, sentAt: b.sentAt, rows });
      }
      down('the stream ended');
    };
    run().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => abort.abort();
  };
}

export const openGrpcWeb: OpenConnection = (r) => reconnecting(r.name, r.handlers, grpcAttempt(r.base, r.params, r.handlers));
