/**
 * Every push transport (and polling) behind one shape: open N connections, hand each message to
 * the stream's decoder as it arrives. Decoding (the encoding's codec, codecs/) and counting are
 * the caller's, so every transport costs the page exactly the same above the browser's own
 * transport work, and no transport names an encoding. What each one is:
 * TRANSPORT_INFO in protocol/wire.ts; how the page opens it: one file each beside this one,
 * named in index.ts. Here: the shape, and what several of them share.
 */
import type { OriginKind, ServerOrigins, StreamParams } from '../../../protocol/wire.js';
import type { StreamDecoder } from '../codecs/index.js';
import { WS_BACKOFF, wsBackoffMs } from '../backoff.js';

export interface Connection {
  /** Resolves when the connection is open; rejects if it fails first. */
  readonly opened: Promise<void>;
  readonly isOpen: () => boolean;
  close(): void;
}

export interface ConnectionHandlers {
  /**
   * A new stream's decoder (codecs/), asked for on each attempt: a new socket is a new stream
   * (Arrow's first message holds the schema again). It may load its library first.
   */
  decoder(): Promise<StreamDecoder>;
  /** Response bytes as they arrive, for a transport that counts them itself (`grpc-web`). */
  onBytes(n: number): void;
  /**
   * The connection was re-established after it had been open. `seqRestarts`: the new stream
   * counts seq from 0 again (a new WebSocket, fetch or poll), so the page must not read that as
   * duplicates; EventSource resumes after its Last-Event-ID instead, so its seq carries on.
   */
  onReconnect(seqRestarts: boolean): void;
  /** The connection, once open, went down (it may come back: onReconnect). Loss is counted from here. */
  onDown?(): void;
  /** The connection first opened: a silence is timed from here (web/lab/counters.ts stalls). */
  onOpen?(): void;
}

export interface TransportOptions {
  /** `poll`: ms from the start of one request to the start of the next (fixed rate). */
  pollMs: number;
  /** Main-origin transports: connection i goes to origin i mod `origins` (the main one, then its replicas). */
  origins: number;
}

/** What opening one connection is given (index.ts works it out from the transport). */
export interface ConnectionRequest {
  /** The stream's URL on its transport's origin; if it cannot be had, the connection reports why through `opened`. */
  url: Promise<string>;
  /** The base URL of that origin. */
  base: Promise<string>;
  /** The transport's label and the stream's path, for errors: `WebSocket /ws?batch=20&interval=1`. */
  name: string;
  params: StreamParams;
  handlers: ConnectionHandlers;
  options: TransportOptions;
}

/** How the page opens one transport's connection. */
export type OpenConnection = (r: ConnectionRequest) => Connection;

let originsAsked: Promise<ServerOrigins & { errors?: Record<string, string> }> | null = null;

/**
 * The base URL of one of the server's origins (`/origins` is asked once per page or Worker);
 * `replica` > 0 picks a replica of the main origin instead of the main one.
 */
export async function originBase(kind: OriginKind, replica = 0): Promise<string> {
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

/**
 * One attempt at a connection: calls `up` once it is open and `down` once it has ended (each at
 * most once), and returns how to end it early.
 */
export type Attempt = (up: () => void, down: (reason: string) => void) => () => void;

/**
 * A connection that reconnects by itself once it has been open, with bounded exponential
 * backoff (EventSource does this natively; WebSocket, fetch and polling do not). The first
 * open is not retried: a point that cannot connect should fail, not wait.
 */
export function reconnecting(name: string, h: ConnectionHandlers, attempt: Attempt): Connection {
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
        else h.onOpen?.();
        everOpened = true;
        settle.resolve();
      },
      (reason) => {
        if (ended) return;
        ended = true;
        const was = open;
        open = false;
        if (stopped) return;
        if (was) h.onDown?.();
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

/** The text of an error answer: pushlab's JSON `message`, or the status. */
export async function answerText(r: Response): Promise<string> {
  const text = await r.text().catch(() => '');
  try {
    return `answered ${r.status}: ${(JSON.parse(text) as { message?: string }).message ?? text}`;
  } catch {
    return `answered ${r.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  }
}

/** The chunks of a response body as they arrive. */
export async function* bodyChunks(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<Uint8Array> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}
