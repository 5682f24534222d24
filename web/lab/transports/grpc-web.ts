/** `grpc-web`: gRPC-web server streaming with Connect; its parameters travel in the request, not the URL. */
import type { Row, StreamParams } from '../../../protocol/wire.js';
import { reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/**
 * Connect's client and the service's descriptors, loaded by the first grpc-web attempt: imported
 * with the page, building the protobuf descriptors took 40–50 ms of every lab page's load (and
 * every Worker's start) whatever its transport, and kept them on its heap.
 */
function loadConnect() {
  return Promise.all([import('@connectrpc/connect'), import('@connectrpc/connect-web'), import('../../../protocol/gen/pushlab/v1/push_pb.js')]);
}

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

/**
 * `grpc-web`: Connect's gRPC-web client, server streaming. A message's protobuf rows (the
 * default encoding) become the JSON message's shape; a named encoding's bytes come in its bytes
 * field (`arrow`, named for the first encoding it carried), with seq, sentAt and dueAt in its own fields.
 */
function grpcAttempt(base: Promise<string>, params: StreamParams, h: ConnectionHandlers): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const run = async () => {
      const [{ createClient }, { createGrpcWebTransport }, { PushService }] = await loadConnect();
      const transport = createGrpcWebTransport({ baseUrl: await base, useBinaryFormat: true, fetch: countingFetch(h.onBytes) });
      const client = createClient(PushService, transport);
      // The decoders of the encodings a gRPC-web stream carries (their carriages: `envelope`) have the method it calls.
      const decoder = await h.decoder();
      const stream = client.stream(
        { batch: params.batch, intervalMs: params.interval, client: params.client ?? '', encoding: params.encoding ?? '', pace: params.pace ?? '' },
        { signal: abort.signal },
      );
      let opened = false;
      for await (const b of stream) {
        if (!opened) {
          opened = true;
          up();
        }
        if (params.encoding) {
          decoder.envelope?.(b.arrow, b.seq, b.sentAt, b.dueAt);
          continue;
        }
        const rows = new Array<Row>(b.rows.length);
        for (let i = 0; i < rows.length; i++) {
          const r = b.rows[i];
          rows[i] = [r.id, r.time, r.lane, r.lon, r.lat, r.gas, r.device, r.speed, r.temperature, r.since, r.note, r.extra];
        }
        decoder.rows?.({ seq: b.seq, sentAt: b.sentAt, dueAt: b.dueAt, rows });
      }
      down('the stream ended');
    };
    run().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => abort.abort();
  };
}

export const openGrpcWeb: OpenConnection = (r) => reconnecting(r.name, r.handlers, grpcAttempt(r.base, r.params, r.handlers));
