/**
 * Every push transport (and polling) behind one shape: open N connections, call `onMessage`
 * with the raw text of each message. Parsing and counting are the caller's, so every transport
 * costs the page exactly the same above the browser's own transport work. What each one is:
 * TRANSPORT_ROUTES in protocol/wire.ts.
 */
import { createClient } from '@connectrpc/connect';
import { decode, decodeMultiStream } from '@msgpack/msgpack';
import { createGrpcWebTransport } from '@connectrpc/connect-web';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import { POLL_ID_HEADER, streamPath, TRANSPORT_ROUTES, type BatchMessage, type OriginKind, type Row, type ServerOrigins, type StreamParams, type Transport } from '../../protocol/wire.js';
import { WS_BACKOFF, wsBackoffMs } from './backoff.js';

export interface Connection {
  /** Resolves when the connection is open; rejects if it fails first. */
  readonly opened: Promise<void>;
  readonly isOpen: () => boolean;
  close(): void;
}

export interface ConnectionHandlers {
  onMessage(data: string): void;
  /** A batch a binary transport (`grpc-web`) decoded itself; its bytes come through `onBytes`. */
  onBatch(msg: BatchMessage): void;
  /** Response bytes as they arrive, for transports whose messages are not text. */
  onBytes(n: number): void;
  /**
   * The connection was re-established after it had been open. `seqRestarts`: the new stream
   * counts seq from 0 again (a new WebSocket, fetch or poll), so the page must not read that as
   * duplicates; EventSource resumes after its Last-Event-ID instead, so its seq carries on.
   */
  onReconnect(seqRestarts: boolean): void;
}

export interface TransportOptions {
  /** `poll`: ms from the start of one request to the start of the next (fixed rate). */
  pollMs: number;
  /** Main-origin transports: connection i goes to origin i mod `origins` (the main one, then its replicas). */
  origins: number;
}

/** The wss:// (or ws://) URL of an http(s) URL. */
export function wsUrl(href: string): string {
  const url = new URL(href, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

let originsAsked: Promise<ServerOrigins & { errors?: Record<string, string> }> | null = null;

/**
 * The base URL of one of the server's origins (`/origins` is asked once per page or Worker);
 * `replica` > 0 picks a replica of the main origin instead of the main one.
 */
async function originBase(kind: OriginKind, replica = 0): Promise<string> {
  if (kind === 'main' && replica === 0) return new URL('/', location.href).href;
  originsAsked ??= fetch(new URL('/origins', location.href)).then(async (r) => {
    if (!r.ok) throw new Error(`/origins answered ${r.status}: is this an older pushlab server?`);
    return (await r.json()) as ServerOrigins & { errors?: Record<string, string> };
  });
  const origins = await originsAsked;
  const base = kind === 'main' ? origins.replicas[replica - 1] : origins[kind];
  const name = kind === 'main' ? `replica ${replica}` : kind;
  if (!base) throw new Error(`the server's ${name} origin is not listening (${origins.errors?.[name] ?? 'no reason given'})`);
  return base;
}

let connectWarm: Promise<void> | null = null;

/**
 * Chrome runs a WebSocket over HTTP/2 only on an HTTP/2 connection it already has to that
 * origin (one whose SETTINGS allowed extended CONNECT): one credentialed request opens it, in
 * the same connection pool the WebSocket uses.
 */
function warmConnectOrigin(base: string): Promise<void> {
  connectWarm ??= fetch(base, { credentials: 'include', cache: 'no-store' }).then(
    () => undefined,
    (err: unknown) => {
      connectWarm = null;
      throw new Error(`could not reach the connect origin ${base}: ${err instanceof Error ? err.message : String(err)}`);
    },
  );
  return connectWarm;
}

/**
 * One attempt at a connection: calls `up` once it is open and `down` once it has ended (each at
 * most once), and returns how to end it early.
 */
type Attempt = (up: () => void, down: (reason: string) => void) => () => void;

/**
 * A connection that reconnects by itself once it has been open, with bounded exponential
 * backoff (EventSource does this natively; WebSocket, fetch and polling do not). The first
 * open is not retried: a point that cannot connect should fail, not wait.
 */
function reconnecting(name: string, h: ConnectionHandlers, attempt: Attempt): Connection {
  let open = false;
  let everOpened = false;
  let stopped = false;
  let failures = 0;
  let cancel: () => void = () => undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let settle: { resolve: () => void; reject: (err: Error) => void };
  const opened = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const connect = () => {
    let ended = false;
    cancel = attempt(
      () => {
        if (ended) return;
        open = true;
        failures = 0;
        if (everOpened) h.onReconnect(true);
        everOpened = true;
        settle.resolve();
      },
      (reason) => {
        if (ended) return;
        ended = true;
        open = false;
        if (stopped) return;
        if (!everOpened) return settle.reject(new Error(`${name}: ${reason}`));
        if (failures >= WS_BACKOFF.maxAttempts) return;
        retry = setTimeout(connect, wsBackoffMs(failures++));
      },
    );
  };
  connect();
  return {
    opened,
    isOpen: () => open,
    close: () => {
      stopped = true;
      clearTimeout(retry);
      cancel();
    },
  };
}

/** A msgpack batch: its bytes, then the decoded message. */
function onMsgpack(h: ConnectionHandlers, bytes: Uint8Array): void {
  h.onBytes(bytes.byteLength);
  h.onBatch(decode(bytes) as BatchMessage);
}

function wsAttempt(url: Promise<string>, h: ConnectionHandlers, before?: (url: string) => Promise<void>): Attempt {
  return (up, down) => {
    let ws: WebSocket | null = null;
    let cancelled = false;
    url
      .then(async (u) => {
        await before?.(u);
        if (cancelled) return;
        ws = new WebSocket(wsUrl(u));
        // msgpack batches come as binary frames; JSON as text frames, which stay strings.
        ws.binaryType = 'arraybuffer';
        ws.onopen = up;
        ws.onclose = (e) => down(`closed${e.code ? ` (code ${e.code})` : ''}`);
        ws.onmessage = (e: MessageEvent<string | ArrayBuffer>) => (typeof e.data === 'string' ? h.onMessage(e.data) : onMsgpack(h, new Uint8Array(e.data)));
      })
      .catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
      ws?.close();
    };
  };
}

/** The text of an error answer: pushlab's JSON `message`, or the status. */
async function answerText(r: Response): Promise<string> {
  const text = await r.text().catch(() => '');
  try {
    return `answered ${r.status}: ${(JSON.parse(text) as { message?: string }).message ?? text}`;
  } catch {
    return `answered ${r.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  }
}

/** Splits a byte stream of lines into messages, across chunk boundaries. */
class LineReader {
  private readonly decoder = new TextDecoder();
  private rest = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Uint8Array): void {
    const text = this.rest + this.decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      if (nl > from) this.onLine(text.slice(from, nl));
      from = nl + 1;
    }
    this.rest = text.slice(from);
  }
}

/** The chunks of a response body, counted as they pass. */
async function* countedChunks(reader: ReadableStreamDefaultReader<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes(value.byteLength);
    yield value;
  }
}

/** `fetch`: one endless response, read as it arrives: NDJSON lines, or msgpack batches back to back. */
function fetchAttempt(url: Promise<string>, h: ConnectionHandlers, msgpack: boolean): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const read = async () => {
      const r = await fetch(await url, { signal: abort.signal, cache: 'no-store' });
      if (!r.ok || !r.body) return down(await answerText(r));
      up();
      const reader = r.body.getReader();
      if (msgpack) {
        for await (const m of decodeMultiStream(countedChunks(reader, h.onBytes))) h.onBatch(m as BatchMessage);
        return down('the response ended');
      }
      const lines = new LineReader(h.onMessage);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return down('the response ended');
        lines.push(value);
      }
    };
    read().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => abort.abort();
  };
}

/** `poll`: a first request names the stream, then one request every `pollMs` takes what is due. */
function pollAttempt(url: Promise<string>, h: ConnectionHandlers, pollMs: number): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      const first = await fetch(await url, { signal: abort.signal, cache: 'no-store' });
      const id = first.headers.get(POLL_ID_HEADER);
      if (!first.ok || !id) return down(first.ok ? `no ${POLL_ID_HEADER} header in the answer` : await answerText(first));
      await first.arrayBuffer();
      up();
      const next = new URL(`/poll?id=${id}`, await url).href;
      let due = performance.now();
      for (;;) {
        // Fixed rate: a slow answer shortens the wait before the next request, never adds to it.
        due = Math.max(due + pollMs, performance.now());
        await new Promise((resolve) => (timer = setTimeout(resolve, due - performance.now())));
        const r = await fetch(next, { signal: abort.signal, cache: 'no-store' });
        if (!r.ok) return down(await answerText(r));
        const lines = new LineReader(h.onMessage);
        lines.push(new Uint8Array(await r.arrayBuffer()));
      }
    };
    run().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  };
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

/** `grpc-web`: Connect's gRPC-web client, server streaming; each message decoded from protobuf to the JSON message's shape. */
function grpcAttempt(base: Promise<string>, params: StreamParams, h: ConnectionHandlers): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const run = async () => {
      const transport = createGrpcWebTransport({ baseUrl: await base, useBinaryFormat: true, fetch: countingFetch(h.onBytes) });
      const client = createClient(PushService, transport);
      const stream = client.stream({ batch: params.batch, intervalMs: params.interval, client: params.client ?? '' }, { signal: abort.signal });
      let opened = false;
      for await (const b of stream) {
        if (!opened) {
          opened = true;
          up();
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

function openSse(url: Promise<string>, name: string, h: ConnectionHandlers): Connection {
  let es: EventSource | null = null;
  let closed = false;
  let open = false;
  let everOpened = false;
  const opened = url.then(
    (u) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error(`${name}: closed before opening`));
        const source = new EventSource(u);
        es = source;
        source.onopen = () => {
          if (everOpened) h.onReconnect(false);
          open = everOpened = true;
          resolve();
        };
        source.onerror = () => {
          open = false;
          // CLOSED means the browser gave up (e.g. a 400); CONNECTING means it will retry.
          if (source.readyState === EventSource.CLOSED) reject(new Error(`${name} failed to open`));
        };
        source.onmessage = (e: MessageEvent<string>) => h.onMessage(e.data);
      }),
  );
  return {
    opened,
    isOpen: () => open,
    close: () => {
      closed = true;
      es?.close();
    },
  };
}

/** Opens connection number `index` of a page (its origin depends on it: TransportOptions.origins). */
export function openConnection(transport: Transport, params: StreamParams, h: ConnectionHandlers, options: TransportOptions, index: number): Connection {
  const route = TRANSPORT_ROUTES[transport];
  const path = streamPath(transport, params);
  const base = originBase(route.origin, route.origin === 'main' ? index % options.origins : 0);
  // Nobody may be awaiting `base` yet; its failure is reported through `opened`.
  base.catch(() => undefined);
  const url = base.then((b) => new URL(path, b).href);
  // Nobody may be awaiting `url` yet; its failure is reported through `opened`.
  url.catch(() => undefined);
  const name = `${transport} ${path}`;
  switch (transport) {
    case 'ws':
      return reconnecting(`WebSocket ${path}`, h, wsAttempt(url, h));
    case 'ws-h2':
      return reconnecting(`WebSocket over HTTP/2 ${path}`, h, wsAttempt(url, h, (u) => warmConnectOrigin(new URL('/', u).href)));
    case 'sse':
    case 'sse-h1':
      return openSse(url, `EventSource ${name}`, h);
    case 'fetch':
      return reconnecting(`fetch ${path}`, h, fetchAttempt(url, h, params.encoding === 'msgpack'));
    case 'poll':
      return reconnecting(`poll ${path}`, h, pollAttempt(url, h, options.pollMs));
    case 'grpc-web':
      return reconnecting(`gRPC-web ${route.path}`, h, grpcAttempt(base, params, h));
  }
}
