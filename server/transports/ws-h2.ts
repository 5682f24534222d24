/**
 * The `ws-h2` transport: a WebSocket over an HTTP/2 stream (RFC 8441). Chrome opens it with an
 * extended CONNECT (`:method CONNECT`, `:protocol websocket`) on an HTTP/2 connection whose
 * server sent SETTINGS_ENABLE_CONNECT_PROTOCOL; after a 200 the stream carries RFC 6455 frames.
 * The server only sends, so it needs no WebSocket library: text frames go out as they do on
 * `ws` (ws-frame.ts), and of what the client sends only Close and Ping are acted on.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { compressionMismatch, parseStreamParams, type StreamParams } from '../../protocol/wire.js';
import { prepareStream } from '../params.js';
import type { Sink } from '../hub.js';
import { watchHttp2Session } from '../liveness.js';
import type { RowPool } from '../rows.js';
import { socketId } from '../sockets.js';
import { sendFrame } from '../ws-frame.js';
import { MessageCompressor } from '../compress.js';
import type { ConnectTransport, TransportDeps } from './deps.js';
import { streamEncoder, type SendMessage, type StreamEncoder } from '../codecs/index.js';
/** What the server answers a permessage-deflate offer with: every message compressed on its own (compress.ts). */
export const PERMESSAGE_DEFLATE_RESPONSE = 'permessage-deflate; server_no_context_takeover';
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** Larger client frames are refused (1009): the page sends nothing but control frames. */
const MAX_CLIENT_FRAME = 64 * 1024;

class WsH2Sink implements Sink {
  readonly transport = 'ws-h2' as const;
  readonly http = 'h2';
  readonly socket: number;

  /** The stream's encoder (codecs/): a text frame or a binary one per batch, as its encoding's messages are. */
  private readonly encoder: StreamEncoder;
  private readonly send: SendMessage;

  constructor(
    private readonly stream: ServerHttp2Stream,
    params: StreamParams,
    readonly compressor: MessageCompressor | null,
  ) {
    this.socket = socketId(stream.session?.socket);
    const encoder = streamEncoder(params, 'frames');
    this.encoder = encoder;
    this.send = (head, body, tail) => sendFrame(stream, encoder.info.text, head, body, tail, compressor);
  }

  bufferedBytes(): number {
    return this.stream.writableLength;
  }

  close(): void {
    this.stream.close(0x8); // NGHTTP2_CANCEL
  }

  isGone(): boolean {
    const s = this.stream;
    return s.destroyed || s.closed || !s.writable || s.session === undefined || s.session.destroyed;
  }

  write(seq: number, sentAt: string, dueAt: string, pool: RowPool, batch: number): number {
    if (this.isGone()) throw new Error('WebSocket-over-HTTP/2 stream closed');
    return this.encoder.write(seq, sentAt, dueAt, pool, batch, this.send);
  }
}

/** An unmasked control frame from the server. */
function controlFrame(opcode: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
}

/**
 * Reads the client's frames (always masked, RFC 6455 §5.3) and calls `onFrame` with each
 * unmasked payload. Returns false once the input cannot be a valid stream of frames.
 */
export class ClientFrames {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (opcode: number, payload: Buffer) => void) {}

  push(chunk: Buffer): 'ok' | 'too-big' | 'unmasked' {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.buf.length < 2) return 'ok';
      const b1 = this.buf[1];
      if ((b1 & 0x80) === 0) return 'unmasked';
      let len = b1 & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buf.length < 4) return 'ok';
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return 'ok';
        const high = this.buf.readUInt32BE(2);
        len = high ? Infinity : this.buf.readUInt32BE(6);
        at = 10;
      }
      if (len > MAX_CLIENT_FRAME) return 'too-big';
      if (this.buf.length < at + 4 + len) return 'ok';
      const mask = this.buf.subarray(at, at + 4);
      const payload = Buffer.from(this.buf.subarray(at + 4, at + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
      const opcode = this.buf[0] & 0x0f;
      this.buf = this.buf.subarray(at + 4 + len);
      this.onFrame(opcode, payload);
    }
  }
}

/** Handles one extended CONNECT for `/ws` on the `connect` origin (origins.ts). */
function handleWsConnect(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, { hub, heartbeat }: TransportDeps): void {
  const url = new URL(headers[':path'] ?? '/', 'https://pushlab');
  const refuse = (status: number, body: object) => {
    stream.respond({ ':status': status, 'content-type': 'application/json; charset=utf-8' });
    stream.end(JSON.stringify(body));
  };
  if (url.pathname !== '/ws') return refuse(404, { error: 'not-found', message: `${url.pathname}: the only WebSocket here is /ws` });
  if (headers['sec-websocket-version'] !== '13') {
    return refuse(400, {
      error: 'bad-header',
      param: 'sec-websocket-version',
      value: String(headers['sec-websocket-version'] ?? ''),
      allowed: '13',
      message: 'sec-websocket-version must be 13',
    });
  }
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  const parsed = parseStreamParams(query);
  if (!parsed.ok) return refuse(400, { error: 'bad-parameter', ...parsed.error });
  const mismatch = compressionMismatch('ws-h2', parsed.value.compression);
  if (mismatch) return refuse(400, { error: 'bad-parameter', ...mismatch });
  // permessage-deflate only when asked for and offered (every browser offers it).
  const offered = String(headers['sec-websocket-extensions'] ?? '')
    .split(',')
    .some((e) => e.split(';')[0].trim() === 'permessage-deflate');
  const deflate = parsed.value.compression === 'deflate' && offered;
  // What the encoding prepares (an Arrow size's batches) is ready before the stream opens; other streams keep flowing meanwhile.
  void prepareStream(hub, parsed.value).then(
    (refusal) => {
      if (stream.destroyed || stream.closed) return;
      if (refusal) return refuse(refusal.status, refusal.body);
      openWsStream(stream, parsed.value, deflate, { hub, heartbeat });
    },
    (err: unknown) => {
      if (!stream.destroyed && !stream.closed)
        refuse(500, { error: 'internal', message: `the stream's encoded batches could not be built: ${err instanceof Error ? err.message : String(err)}` });
    },
  );
}

/** Answers an accepted CONNECT with 200 and streams on it until either side closes. */
function openWsStream(stream: ServerHttp2Stream, params: StreamParams, deflate: boolean, { hub, heartbeat }: Pick<TransportDeps, 'hub' | 'heartbeat'>): void {
  stream.respond({ ':status': 200, ...(deflate ? { 'sec-websocket-extensions': PERMESSAGE_DEFLATE_RESPONSE } : {}) });
  const handle = hub.open(new WsH2Sink(stream, params, deflate ? new MessageCompressor('deflate') : null), params);
  const end = (code: number) => {
    handle.close();
    if (!stream.destroyed && stream.writable) {
      const payload = Buffer.alloc(2);
      payload.writeUInt16BE(code);
      stream.end(controlFrame(OP_CLOSE, payload));
    }
  };
  const frames = new ClientFrames((opcode, payload) => {
    if (opcode === OP_CLOSE) end(payload.length >= 2 ? payload.readUInt16BE(0) : 1000);
    else if (opcode === OP_PING && payload.length <= 125 && stream.writable) stream.write(controlFrame(OP_PONG, payload));
  });
  stream.on('data', (chunk: Buffer) => {
    const state = frames.push(chunk);
    if (state === 'too-big') end(1009);
    else if (state === 'unmasked') end(1002);
  });
  stream.once('close', handle.close);
  stream.once('error', handle.close);
  if (stream.session) watchHttp2Session(stream.session, heartbeat);
}

/** `ws-h2`: WebSockets (`:protocol websocket`) on the connect origin. */
export const wsOverHttp2: ConnectTransport = { protocol: 'websocket', open: handleWsConnect };
