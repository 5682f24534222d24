/**
 * The wire format every part of pushlab agrees on: the transports, the row, the batch message, the
 * stream query parameters and their limits. No Node or DOM imports, so the server,
 * the page, the driver and the report viewer all import this one file.
 */
import { inRange, LIMITS, parseDecimal, rangeText } from './limits.js';
import { ARROW_BATCH, DEFAULT_ENCODING, ENCODING_INFO, ENCODING_NAMES, type Carriage, type EncodingName, type NamedEncoding } from './encodings.js';
import type { Engine } from './engine.js';
import { PACES, type Pace } from './pace.js';

/**
 * The server's origins. `main` serves the page (HTTP/2, HTTP/1.1 allowed for WebSocket
 * upgrades); `h1` offers only HTTP/1.1, so Chrome's 6-connections-per-host cap applies; `connect`
 * is HTTP/2 with RFC 8441 extended CONNECT, so Chrome runs WebSockets over HTTP/2 there. They
 * are separate origins because Chrome takes WebSockets over HTTP/2 wherever the server allows
 * it, which would turn `ws` into `ws-h2` on the main origin.
 */
export type OriginKind = 'main' | 'h1' | 'connect';

/**
 * `GET /origins` on the main origin: the base URL of each other origin, or null when not
 * listening; `replicas`, more origins serving what the main one does (other ports), which the
 * `origins` factor spreads a page's connections over.
 */
export type ServerOrigins = Record<Exclude<OriginKind, 'main'>, string | null> & { replicas: string[] };

/**
 * What a transport is, for every side: where the page opens it, what it carries, and how people
 * and the viewer name and draw it. A transport is one entry of TRANSPORT_DEFINITIONS; the server
 * (server/transports/index.ts) and the page (web/lab/transports/index.ts) each hold a
 * Record<Transport, …>, so the compiler refuses a transport one side does not serve.
 */
export interface TransportInfo {
  /** What a person calls it, in the page's messages ("WebSocket /ws?batch=20… closed"). */
  label: string;
  origin: OriginKind;
  path: string;
  /** The HTTP version Chrome is expected to negotiate for it. */
  http: 'h1' | 'h2';
  /** What it is, in one line; the transport table in docs/transports.md says it in full. */
  about: string;
  /**
   * Connections Chrome opens at once to one host over it; the rest wait, neither opening nor
   * failing (HTTP/1.1's 6 per host). Absent: no cap a page of pushlab's reaches.
   */
  perHostCap?: number;
  /**
   * Connections a page opens at a time over it; each further one starts as one of those opens.
   * Absent: all at once. See WEBSOCKET_OPEN_AT_ONCE.
   */
  openAtOnce?: number;
  /**
   * The compression it can carry (the `compression` factor): permessage-deflate for WebSocket
   * messages, gzip `Content-Encoding` for an HTTP response body. Absent: none (`poll` answers are
   * short requests, and Connect's gRPC-web client in a browser cannot ask for a compressed stream).
   */
  compression?: StreamCompression;
  /**
   * How it carries a batch (protocol/encodings.ts Carriage): WebSocket frames, a byte stream, a
   * protobuf envelope, EventSource events or poll lines. The encodings it carries are those whose
   * EncodingInfo.carriages list it; carries() and transportsCarrying() read this.
   */
  carriage: Carriage;
  /**
   * The viewer's colours: its hue first, then further shades of it for further lines of the same
   * transport (another concurrency, say), so colour alone still says which transport a line is.
   * Hues stay apart from one another and from the verdicts' (web/report/palette.ts).
   */
  shades: readonly [string, string, string, string];
  /**
   * When not every engine can open it: the engines whose pages have the API it opens with, and
   * that API's name. A point asking for another engine is refused before anything starts
   * (FACTORS.transport's Firefox rule, protocol/factors.ts), and a page without the API refuses to
   * open it (web/lab/transports/). Absent: every engine.
   */
  onlyIn?: { engines: readonly Engine[]; api: string };
}

/**
 * WebSockets a page opens at a time. Chrome's network service delays each WebSocket handshake of
 * a renderer by U(1,000, 5,000) ms × 2^min(p, 16) / 65,536, p being that renderer's handshakes
 * already pending (services/network/websocket_throttler.cc, CalculateDelay): 30 sockets opened at
 * once meet delays of 1–5 s each, and took 4.3–5.4 s to open here whether the stream was one
 * batch a second or a thousand (2026-11-28). Ten at a time keep each delay under 40 ms (p ≤ 9)
 * and open a point of up to ten sockets all at once, as before; 30 then opened in 0.6–1.4 s
 * (against 1.2–1.9 s six at a time, 5 tries each, on the shared machine). Workers share their
 * page's renderer, so they share this many (sources.ts).
 */
export const WEBSOCKET_OPEN_AT_ONCE = 10;

// The order here is the order of TRANSPORTS: of --help, the schema's enum and the `every` sweeps.
const TRANSPORT_DEFINITIONS = {
  ws: {
    label: 'WebSocket',
    carriage: 'frames',
    origin: 'main',
    path: '/ws',
    http: 'h1',
    about: 'WebSocket over an HTTP/1.1 upgrade, one TCP connection per socket',
    openAtOnce: WEBSOCKET_OPEN_AT_ONCE,
    compression: 'deflate',
    shades: ['#1f5fbf', '#5b9be6', '#0e3470', '#9cc3f2'],
  },
  'ws-h2': {
    label: 'WebSocket over HTTP/2',
    carriage: 'frames',
    origin: 'connect',
    path: '/ws',
    http: 'h2',
    about: 'WebSocket over HTTP/2 (RFC 8441 extended CONNECT), streams of one TCP connection',
    openAtOnce: WEBSOCKET_OPEN_AT_ONCE,
    compression: 'deflate',
    shades: ['#6a3fb5', '#a385d9', '#3b1f6e', '#cdbdec'],
  },
  'ws-stream': {
    label: 'WebSocketStream',
    carriage: 'frames',
    // The same endpoint as `ws`: the wire is the same RFC 6455 socket, only the page's API differs.
    origin: 'main',
    path: '/ws',
    http: 'h1',
    about: "WebSocketStream over an HTTP/1.1 upgrade: the page's read loop pulls each message, so a page that falls behind stops reading the socket",
    openAtOnce: WEBSOCKET_OPEN_AT_ONCE,
    compression: 'deflate',
    shades: ['#6f7d14', '#a9b84a', '#3d450a', '#d6e09a'],
    // Chrome 124+ (on by default); Firefox has not shipped it.
    onlyIn: { engines: ['chrome'], api: 'WebSocketStream' },
  },
  sse: {
    label: 'EventSource',
    carriage: 'events',
    origin: 'main',
    path: '/sse',
    http: 'h2',
    about: "EventSource over HTTP/2, on the page's own connection",
    compression: 'gzip',
    shades: ['#d0590b', '#f29a4b', '#7a3206', '#f7c48f'],
  },
  'sse-h1': {
    label: 'EventSource over HTTP/1.1',
    carriage: 'events',
    origin: 'h1',
    path: '/sse',
    http: 'h1',
    about: 'EventSource over an HTTP/1.1-only origin: at most 6 connections per host',
    perHostCap: 6,
    compression: 'gzip',
    shades: ['#b8860b', '#e0b94a', '#6b4e06', '#f0dc9a'],
  },
  fetch: {
    label: 'fetch',
    carriage: 'stream',
    origin: 'main',
    path: '/ndjson',
    http: 'h2',
    about: 'NDJSON read with fetch() and response.body.getReader(), over HTTP/2',
    compression: 'gzip',
    shades: ['#0f8a8a', '#52c2c2', '#074d4d', '#a3e0e0'],
  },
  'grpc-web': {
    label: 'gRPC-web',
    carriage: 'envelope',
    origin: 'main',
    path: '/pushlab.v1.PushService/Stream',
    http: 'h2',
    about: 'gRPC-web server streaming with Connect, the same rows as protobuf messages, over HTTP/2',
    shades: ['#a0306e', '#d77aa9', '#5c1a3e', '#eec1d8'],
  },
  poll: {
    label: 'poll',
    carriage: 'lines',
    origin: 'main',
    path: '/poll',
    http: 'h2',
    about: 'HTTP polling: a fetch every pollMs collects the batches due since the last one',
    shades: ['#6b6b6b', '#a0a0a0', '#3a3a3a', '#d0d0d0'],
  },
} as const satisfies Record<string, TransportInfo>;

/** The transports a page can open: the keys of TRANSPORT_DEFINITIONS. */
export type Transport = keyof typeof TRANSPORT_DEFINITIONS;
export const TRANSPORT_INFO: Readonly<Record<Transport, TransportInfo>> = TRANSPORT_DEFINITIONS;
export const TRANSPORTS = Object.keys(TRANSPORT_INFO) as readonly Transport[];

/** Whether a page of `engine` can open `t` (TransportInfo.onlyIn). */
export function opensIn(t: Transport, engine: Engine): boolean {
  const only = TRANSPORT_INFO[t].onlyIn;
  return only === undefined || only.engines.includes(engine);
}

/** The two the reference experiment compared: the default of sweeps and benches. */
export const CLASSIC_TRANSPORTS = ['ws', 'sse'] as const satisfies readonly Transport[];

/**
 * CDP instrumentation during a point: `off`, or `network`, the Network domain enabled on the
 * tab as DevTools does while it is open (every frame and event is then shipped to the driver).
 */
export const DEVTOOLS_MODES = ['off', 'network'] as const;
export type DevtoolsMode = (typeof DEVTOOLS_MODES)[number];

/**
 * How a batch is encoded: JSON text; MessagePack, decoded in the page with @msgpack/msgpack; or
 * Apache Arrow IPC record batches (protocol/arrow.ts), decoded in the page with apache-arrow.
 * What each is and which transport carries which: protocol/encodings.ts.
 */
export const ENCODINGS = ENCODING_NAMES;
export type Encoding = EncodingName;
/** The encodings a stream query names: all but the default (json). */
export type BinaryEncoding = NamedEncoding;
/** An encoding in words, as the advice and the knob comparisons name it. */
export const ENCODING_LABELS: Record<Encoding, string> = Object.fromEntries(ENCODINGS.map((e) => [e, ENCODING_INFO[e].label])) as Record<Encoding, string>;
/** A named encoding's part of a point id: `-mp` (msgpack, as ids have always said), `-ar` (arrow). */
export const ENCODING_TAGS: Record<BinaryEncoding, string> = Object.fromEntries(
  ENCODINGS.flatMap((e) => (ENCODING_INFO[e].tag === null ? [] : [[e, ENCODING_INFO[e].tag]])),
) as Record<BinaryEncoding, string>;

/** Whether `t` carries `encoding` (its carriage is one the encoding fits; every transport carries json). */
export function carries(t: Transport, encoding: Encoding): boolean {
  return ENCODING_INFO[encoding].carriages.includes(TRANSPORT_INFO[t].carriage);
}

/**
 * Whether `t` carries a `--rows` file's events in `encoding`: a protobuf envelope's default
 * encoding is the car row's own message (grpc-web's `Row`), which other events do not fit, so
 * there only a named encoding (Arrow) carries them.
 */
export function carriesFileEvents(t: Transport, encoding: Encoding): boolean {
  return TRANSPORT_INFO[t].carriage !== 'envelope' || encoding !== DEFAULT_ENCODING;
}

/** The refusal of a file's events where carriesFileEvents says no, in words. */
export function fileEventsNotCarried(t: Transport): string {
  const named = ENCODINGS.filter((e) => e !== DEFAULT_ENCODING && carries(t, e) && carriesFileEvents(t, e));
  return `${t} carries a --rows file's events only with encoding=${named.join(' or ')}: its default rows are the car row's protobuf message`;
}

/** The transports that carry `encoding`. */
export function transportsCarrying(encoding: Encoding): readonly Transport[] {
  return TRANSPORTS.filter((t) => carries(t, encoding));
}

/** The transports that carry `encoding: msgpack`. */
export const BINARY_TRANSPORTS: readonly Transport[] = transportsCarrying('msgpack');

/**
 * Compression of a stream: `off`, `deflate` (permessage-deflate, RFC 7692, on WebSocket
 * transports) or `gzip` (`Content-Encoding: gzip` on SSE and fetch). Each transport carries at
 * most one kind (TransportInfo.compression); the browser decodes it in its network service.
 */
export const COMPRESSIONS = ['off', 'deflate', 'gzip'] as const;
export type Compression = (typeof COMPRESSIONS)[number];
export type StreamCompression = Exclude<Compression, 'off'>;

/** The transports that carry `compression` (every one with a kind in TRANSPORT_INFO). */
export function compressionOf(t: Transport): StreamCompression | null {
  return TRANSPORT_INFO[t].compression ?? null;
}

/** Which browser a point runs in: the sweep's headless Chrome, or a headful one (under Xvfb when there is no display). */
export const DISPLAY_MODES = ['headless', 'headful'] as const;
export type DisplayMode = (typeof DISPLAY_MODES)[number];

/** What the page draws: full = table and charts; chart = charts only; none = counting only. */
export const RENDER_MODES = ['full', 'chart', 'none'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

/** Where the page parses: on its main thread, or in dedicated Workers. */
export const PARSE_MODES = ['main', 'worker'] as const;
export type ParseMode = (typeof PARSE_MODES)[number];

/**
 * The 12 columns of one row, after the reference experiment's event:
 * `[0, "2022-03-29T20:35:56.581Z", 1, 116.9232297, 40.676318, 4745, "c00070", 78,
 *   "32.07", "1970-01-01T00:00:00Z", "column 1", "another field"]` (about 120 bytes).
 */
export const ROW_COLUMNS = ['id', 'time', 'lane', 'lon', 'lat', 'gas', 'device', 'speed', 'temperature', 'since', 'note', 'extra'] as const;

export type Row = [
  id: number,
  time: string,
  lane: number,
  lon: number,
  lat: number,
  gas: number,
  device: string,
  speed: number,
  temperature: string,
  since: string,
  note: string,
  extra: string,
];

/** Index of the column the live chart aggregates (max per 1 s window), as the reference did. */
export const SPEED_COLUMN = 7;

/** One message: one JSON document, a WS text frame or one SSE event's data. */
export interface BatchMessage {
  /** Batches generated for this connection before this one (from 0); shed batches count too. */
  seq: number;
  /**
   * Write time in ms since the Unix epoch (fractional), from the server's clock: when the server
   * wrote the batch. The page's handler time minus it is transit (a diagnostic).
   */
  sentAt: number;
  /**
   * When the batch was due by the server's schedule, ms since the Unix epoch (fractional): the
   * birth of its newest event, from which every event's age is counted (protocol/age.ts). Each
   * encoding carries it through its codec.
   */
  dueAt: number;
  rows: Row[];
}

/** Builds row `i` of the server's row pool. Deterministic so runs are comparable. */
export function makeRow(i: number, epochMs: number): Row {
  // A cheap LCG keeps the values varied without Math.random, so two runs send the same bytes.
  const h = (Math.imul(i + 1, 2654435761) >>> 0) / 4294967296;
  return [
    i,
    new Date(epochMs + i).toISOString(),
    (i % 4) + 1,
    Math.round((116 + h) * 1e7) / 1e7,
    Math.round((40 + h / 2) * 1e6) / 1e6,
    1000 + ((i * 37) % 9000),
    `c${String(10000 + (i % 90000)).padStart(5, '0')}`,
    20 + ((i * 13) % 100),
    (20 + h * 20).toFixed(2),
    '1970-01-01T00:00:00Z',
    'column 1',
    'another field',
  ];
}

/** The JSON text before the rows: `{"seq":n,"sentAt":t,"dueAt":d,"rows":[`; the times may come preformatted. */
export function messageHead(seq: number, sentAt: number | string, dueAt: number | string): string {
  return `{"seq":${seq},"sentAt":${sentAt},"dueAt":${dueAt},"rows":[`;
}

/** ".001" … ".999" with trailing zeros dropped, as JSON prints them; "" for a whole ms. */
const MICROS = Array.from({ length: 1000 }, (_, k) => (k === 0 ? '' : `.${String(k).padStart(3, '0').replace(/0+$/, '')}`));

/**
 * Epoch ms to the µs as JSON number text (`1711745756581.125`), the same text as
 * `String(Math.round(ms * 1000) / 1000)`. The server stamps every batch, and printing a
 * 13-digit double is V8's slow path (about 7% of the server's CPU at batch 1); the whole-ms
 * part is printed once per ms and the fraction comes from a table.
 */
export class SentAtFormatter {
  private ms = Number.NaN;
  private msText = '';

  format(epochMs: number): string {
    const us = Math.round(epochMs * 1000);
    const ms = Math.floor(us / 1000);
    if (ms !== this.ms) {
      this.ms = ms;
      this.msText = String(ms);
    }
    return this.msText + MICROS[us - ms * 1000];
  }
}

/** The JSON text after the rows. */
export const MESSAGE_TAIL = ']}';

/** Limits of the stream query parameters (named as in the query); the server and the page validate against these. */
export const STREAM_LIMITS = { batch: LIMITS.batch, interval: LIMITS.intervalMs } as const;

export { ARROW_BATCH };

/**
 * The refusal of a `batch` too small for its encoding (EncodingInfo.minBatch: Arrow's
 * ARROW_BATCH); null when it fits or the encoding has no minimum of its own.
 */
export function encodingBatchMismatch(p: Pick<StreamParams, 'batch' | 'encoding'>): ParamError | null {
  const encoding = p.encoding ?? DEFAULT_ENCODING;
  const min = ENCODING_INFO[encoding].minBatch;
  if (!min || inRange(p.batch, min.range)) return null;
  const others = ENCODINGS.filter((e) => !ENCODING_INFO[e].minBatch).join(' or ');
  const allowed = `${rangeText(min.range)} with encoding=${encoding} (${min.why}); any batch from ${LIMITS.batch.min} with ${others}`;
  return paramError('batch', String(p.batch), allowed, (v) => `batch must be ${allowed}; got '${v}'`);
}

/** encodingBatchMismatch, by the name its first callers (Arrow's minimum) gave it. */
export const arrowBatchMismatch = encodingBatchMismatch;

export interface StreamParams {
  /** Rows per batch. */
  batch: number;
  /** Milliseconds between batches on one connection. */
  interval: number;
  /**
   * A tag the server shows with the connection in `/stats` (letters, digits, `-`, `_`; at
   * most 64): the lab page tags its connections with its run, to count what was shed for it alone.
   */
  client?: string;
  /** A named encoding (`msgpack`, `arrow`: protocol/encodings.ts) where the transport carries it; absent for JSON. */
  encoding?: BinaryEncoding;
  /**
   * `deflate` or `gzip`: compress the stream (the route refuses the kind its transport does not
   * carry, see TRANSPORT_INFO); absent (or `off` in the query) for none.
   */
  compression?: StreamCompression;
  /** `recorded`: batches fall due when a `--rows` file's events were recorded (protocol/pace.ts); absent (or `steady`): every interval. */
  pace?: 'recorded';
}

export const STREAM_DEFAULTS: Partial<StreamParams> = { interval: 1 };

/** A rejected parameter: which one, what was given, and what is allowed. */
export interface ParamError {
  param: string;
  value: string | null;
  allowed: string;
  message: string;
}

const CLIENT_TAG = /^[A-Za-z0-9_-]{1,64}$/;

/** Longest part of a client's value echoed back in an error; the rest is summarised. */
export const ECHO_MAX_CHARS = 64;

/**
 * A value from a request, made safe to echo in an error: at most ECHO_MAX_CHARS characters,
 * then an ellipsis and the full length, so a 5,000-character value does not come back twice.
 */
export function echoValue(text: string): string {
  return text.length <= ECHO_MAX_CHARS ? text : `${text.slice(0, ECHO_MAX_CHARS)}… (${text.length} characters)`;
}

/**
 * Every refusal of a parameter is made here, so every route (the stream routes, /poll, gRPC-web,
 * /stats) echoes what the request gave cut the same way: `given` once through echoValue, used
 * for both `value` and the message, and the parameter's name too, which can come from the
 * request (`/poll?id=1&<name>=`).
 */
export function paramError(param: string, given: string | null, allowed: string, message: (value: string, param: string) => string): ParamError {
  const value = given === null ? null : echoValue(given);
  const name = echoValue(param);
  return { param: name, value, allowed, message: message(value ?? '', name) };
}

/** A query value as one string: `a,b` for a repeated one. */
const queryText = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(',') : String(v));

/**
 * The refusal of `compression` a route's transport does not carry (`gzip` on a WebSocket,
 * anything on `poll`), naming what it carries and where the other kind works; null when it fits.
 */
export function compressionMismatch(transport: Transport, compression: StreamCompression | undefined): ParamError | null {
  if (compression === undefined) return null;
  const own = compressionOf(transport);
  if (own === compression) return null;
  const elsewhere = TRANSPORTS.filter((t) => compressionOf(t) === compression);
  const allowed = `${own ? `off or ${own}` : 'off'} on ${transport}; ${compression} on ${elsewhere.join(', ')}`;
  return paramError('compression', compression, allowed, (v) => `compression must be ${allowed}; got '${v}'`);
}

/**
 * Parses the stream query parameters: `batch` (required), `interval` (default 1 ms), and
 * optionally `encoding`, `compression` and `client`. Returns the parsed values or the first
 * error. A parameter given twice is refused: taking either one silently would run a point
 * nobody asked for.
 */
export function parseStreamParams(query: Record<string, unknown>): { ok: true; value: StreamParams } | { ok: false; error: ParamError } {
  const out: Partial<StreamParams> = {};
  for (const name of ['batch', 'interval', 'encoding', 'compression', 'client', 'pace'] as const) {
    const given = query[name];
    if (Array.isArray(given)) {
      const allowed = name === 'batch' || name === 'interval' ? `${name} once: ${rangeText(STREAM_LIMITS[name])}` : `${name} once`;
      return { ok: false, error: paramError(name, queryText(given), allowed, (v) => `${name} is given ${given.length} times (${v}); give it once`) };
    }
  }
  for (const name of ['batch', 'interval'] as const) {
    const limit = STREAM_LIMITS[name];
    const raw = query[name];
    const allowed = rangeText(limit);
    if (raw === undefined || raw === '') {
      const fallback = STREAM_DEFAULTS[name];
      if (fallback !== undefined) {
        out[name] = fallback;
        continue;
      }
      return { ok: false, error: paramError(name, null, allowed, () => `${name} is required: ${allowed}`) };
    }
    const text = String(raw);
    const n = parseDecimal(text.trim());
    if (!inRange(n, limit)) return { ok: false, error: paramError(name, text, allowed, (v) => `${name} must be ${allowed}; got '${v}'`) };
    out[name] = n;
  }
  if (query.encoding !== undefined) {
    const text = String(query.encoding);
    if (!ENCODINGS.includes(text as Encoding)) {
      const allowed = ENCODINGS.join(' or ');
      return { ok: false, error: paramError('encoding', text, allowed, (v) => `encoding must be ${allowed}; got '${v}'`) };
    }
    if (text !== DEFAULT_ENCODING) out.encoding = text as BinaryEncoding;
  }
  if (query.compression !== undefined) {
    const text = String(query.compression);
    if (!COMPRESSIONS.includes(text as Compression)) {
      const allowed = COMPRESSIONS.join(', ');
      return { ok: false, error: paramError('compression', text, allowed, (v) => `compression must be one of ${allowed}; got '${v}'`) };
    }
    if (text !== 'off') out.compression = text as StreamCompression;
  }
  if (query.pace !== undefined) {
    const text = String(query.pace);
    if (!PACES.includes(text as Pace)) {
      const allowed = PACES.join(' or ');
      return { ok: false, error: paramError('pace', text, allowed, (v) => `pace must be ${allowed}; got '${v}'`) };
    }
    if (text === 'recorded') out.pace = 'recorded';
  }
  if (query.client !== undefined) {
    const text = String(query.client);
    if (!CLIENT_TAG.test(text)) {
      const allowed = 'letters, digits, - and _, 1 to 64 of them';
      return { ok: false, error: paramError('client', text, allowed, (v) => `client must be ${allowed}; got '${v}'`) };
    }
    out.client = text;
  }
  return { ok: true, value: out as StreamParams };
}

/** Events per second one connection offers at these parameters. */
export function offeredEventsPerSec(p: StreamParams): number {
  return (p.batch * 1000) / p.interval;
}

/** Streams a point opens: `concurrency` in each of its tabs. */
export function streamsOf(p: { concurrency: number; tabs?: number }): number {
  return p.concurrency * (p.tabs ?? 1);
}

/** `poll`'s request interval unless a page or scenario names one, ms: 20 requests a second per connection. */
export const DEFAULT_POLL_MS = 50;

/** The path and query of a stream, on its transport's origin (TRANSPORT_INFO). */
export function streamPath(transport: Transport, p: StreamParams): string {
  const extra = `${p.encoding ? `&encoding=${p.encoding}` : ''}${p.compression ? `&compression=${p.compression}` : ''}${p.pace ? `&pace=${p.pace}` : ''}`;
  return `${TRANSPORT_INFO[transport].path}?batch=${p.batch}&interval=${p.interval}${extra}${p.client ? `&client=${p.client}` : ''}`;
}

/** The response header in which a poll's first request gets the id its later requests name (`/poll?id=`). */
export const POLL_ID_HEADER = 'pushlab-poll-id';
