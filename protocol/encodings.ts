/**
 * What an encoding is, for every side: its words, its part of a point id, how a transport can
 * carry it, and the facts of its framing both sides must agree on. An encoding is one entry of
 * ENCODING_DEFINITIONS; the server (server/codecs/index.ts) and the page (web/lab/codecs/index.ts)
 * each hold a Record<EncodingName, …> of codecs, so the compiler refuses an encoding one side
 * cannot encode or decode. Transports never name an encoding: they carry a codec's bytes the way
 * their carriage says (test/unit/layers.test.ts keeps them so). No Node or DOM imports.
 */
import { LIMITS, type Range } from './limits.js';

/**
 * How a transport carries one batch, which says what an encoding must give it:
 * - `frames`: one WebSocket message per batch, a text frame or a binary one (EncodingInfo.text);
 * - `stream`: one endless byte stream (a `fetch` response), so the messages must say where they end;
 * - `envelope`: a message of the transport's own type with `seq`, `sentAt` and `dueAt` fields (gRPC-web's
 *   protobuf), whose `bytes` field carries an encoding's batch without its head; the default
 *   encoding is the envelope's own rows there;
 * - `events`: EventSource events, text by nature;
 * - `lines`: a poll answer's lines of text.
 */
export type Carriage = 'frames' | 'stream' | 'envelope' | 'events' | 'lines';

export interface EncodingInfo {
  /** The encoding in words, as the advice and the knob comparisons name it. */
  label: string;
  /** What the page decodes it with, in words (`the in-page JSON.parse ceiling`). */
  decoder: string;
  /** Its part of a point id (`-mp`); null for the default, which adds nothing to an id. */
  tag: string | null;
  /** The carriages it fits (Carriage); a transport carries it when its own carriage is one of them (carries()). */
  carriages: readonly Carriage[];
  /** Its messages are text: a WebSocket text frame, and bytes counted in characters. */
  text: boolean;
  /** The `content-type` of a byte stream of it (`fetch`). */
  contentType: string;
  /** The smallest batch worth sending in it, with the reason, when that is above the stream limits' own. */
  minBatch?: { range: Range; why: string };
}

/**
 * Rows per batch with `encoding=arrow`. Every record batch message carries about 720 bytes of
 * metadata (its flatbuffer header: a node and buffers for each of the 12 columns, measured on
 * the row pool) against about 51 bytes per row, so below 15 rows a message is more metadata than
 * rows, and at batch 1 the server's encoded batches of one size take 300,000 messages: 230 MB
 * and half a minute to build (issue 31). At 16 the rows outweigh the metadata. The lab's own
 * Arrow sizes (scenarios.json: 400, 4,000, 10,000) are far above it; the advisor leaves Arrow
 * out where its batch would be smaller (puppeteer/advise/candidates.ts).
 */
export const ARROW_BATCH: Range = { min: 16, max: LIMITS.batch.max, integer: true };

// The order here is the order of ENCODINGS: of --help, the schema's enum and the form's choices.
const ENCODING_DEFINITIONS = {
  /** JSON text, the default: one JSON document per batch (protocol/wire.ts BatchMessage). */
  json: {
    label: 'JSON',
    decoder: 'JSON.parse',
    tag: null,
    carriages: ['frames', 'stream', 'envelope', 'events', 'lines'],
    text: true,
    contentType: 'application/x-ndjson',
  },
  /** MessagePack: a map `{seq, sentAt, dueAt, rows}`, self-delimiting, so a byte stream needs nothing between batches. */
  msgpack: {
    label: 'MessagePack',
    decoder: 'MessagePack',
    tag: 'mp',
    carriages: ['frames', 'stream'],
    text: false,
    contentType: 'application/vnd.msgpack',
  },
  /**
   * Apache Arrow IPC record batches behind pushlab's 24-byte head (protocol/arrow.ts), which says
   * how many bytes follow, so a byte stream can be cut; in an envelope, the IPC bytes alone.
   */
  arrow: {
    label: 'Arrow IPC',
    decoder: 'Arrow',
    tag: 'ar',
    carriages: ['frames', 'stream', 'envelope'],
    text: false,
    // Pushlab's own framing of IPC messages (protocol/arrow.ts), not a bare IPC stream.
    contentType: 'application/vnd.pushlab.arrow-frames',
    minBatch: { range: ARROW_BATCH, why: 'smaller batches are mostly Arrow metadata' },
  },
} as const satisfies Record<string, EncodingInfo>;

/** The encodings a stream can have: the keys of ENCODING_DEFINITIONS. */
export type EncodingName = keyof typeof ENCODING_DEFINITIONS;
export const ENCODING_INFO: Readonly<Record<EncodingName, EncodingInfo>> = ENCODING_DEFINITIONS;
export const ENCODING_NAMES = Object.keys(ENCODING_INFO) as readonly EncodingName[];

/** The default encoding: what a stream query without `encoding` gets, and what a point id does not name. */
export const DEFAULT_ENCODING = 'json' satisfies EncodingName;
/** The encodings a stream query names (`encoding=…`); the default is named by leaving it out. */
export type NamedEncoding = Exclude<EncodingName, typeof DEFAULT_ENCODING>;

/** The encoding of a stream whose query may leave it out. */
export function encodingOf(p: { encoding?: NamedEncoding }): EncodingName {
  return p.encoding ?? DEFAULT_ENCODING;
}
