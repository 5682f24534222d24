/**
 * `--rows FILE`: a team's own events, read from a file, in place of the lab's car rows. This
 * module turns the file's text into events and says what Arrow will make of them; it reads no
 * file (the server does, cli/input-file.ts) and has no Node or DOM imports.
 *
 * Three formats, told apart by the text itself:
 * - a HAR (Chrome DevTools, Playwright, mitmproxy): one JSON object with `log.entries`; the events
 *   are the text WebSocket messages received (`_webSocketMessages`, `type: "receive"`, opcode 1);
 * - a JSON array of events: the whole file is one JSON array whose elements are all arrays or all
 *   objects;
 * - NDJSON: one event per line, a JSON array or object; blank lines are skipped.
 *
 * The batch rule (HAR messages, and the whole-file array): an array whose elements are all arrays
 * or objects is a batch of events and is unpacked; an array holding any scalar is one event. So an
 * event that is itself an array of arrays (an order book's `[[price, qty], …]`) cannot be sent
 * bare in a HAR message or as a one-line file: wrap it in an object. An NDJSON line is always one
 * event, whatever it holds.
 *
 * Every refusal is PUSHLAB_BAD_ROWS, one line naming the file, where (line, element, or HAR entry
 * and message), the field when one is at fault, and what is allowed.
 */
import { PushlabError } from './errors.js';
import type { FlagSpec } from './flags.js';

/**
 * The largest rows file read, bytes. The server holds each event's JSON text twice (the pool's
 * cycle, server/rows.ts) and its MessagePack and Arrow forms once built, on top of the parse:
 * docs/your-stream.md gives what a pool from a file of this size measured.
 */
export const ROWS_FILE_MAX_BYTES = 128 * 1024 * 1024;

/** `--rows`, the same flag on the server, the sweep, advise and the lab. */
export const ROWS_FLAG = {
  type: 'string',
  default: '',
  defaultText: "the lab's car rows",
  help: 'stream the events of this file (NDJSON, a JSON array of events, or a HAR with received WebSocket messages) instead of the car rows: docs/your-stream.md',
} as const satisfies FlagSpec;

export type RowsFormat = 'ndjson' | 'json-array' | 'har';
export type EventShape = 'array' | 'object';
/** One event as the file holds it: a JSON array or object. */
export type FileEvent = unknown[] | Record<string, unknown>;

export interface RowsFile {
  format: RowsFormat;
  shape: EventShape;
  events: FileEvent[];
  /**
   * Each event's JSON text as it goes on the wire: an NDJSON line verbatim (trimmed), else the
   * event re-serialised by JSON.stringify (the same values; whitespace dropped).
   */
  texts: string[];
  /** Where event `i` came from, in words (`line 7`, `element 3`, `entry 0 message 12`). */
  placeOf(i: number): string;
  /**
   * When each event was recorded, epoch ms, or null: a HAR message's `time` (every event of a
   * batch message shares it), or an object event's `t` (ms, or an ISO 8601 date string). What
   * `--pace recorded` replays (protocol/pace.ts recordingOf).
   */
  times: (number | null)[];
}

/** What every refusal offers instead. */
const ALLOWED = 'give NDJSON (one JSON array or object per line), a JSON array of events, or a HAR with received WebSocket messages (docs/your-stream.md)';

function refuse(file: string, what: string, allowed = ALLOWED): PushlabError {
  return new PushlabError('PUSHLAB_BAD_ROWS', `--rows ${file}: ${what}; ${allowed}`);
}

const isEvent = (v: unknown): v is FileEvent => typeof v === 'object' && v !== null;
const shapeOf = (e: FileEvent): EventShape => (Array.isArray(e) ? 'array' : 'object');
const kindWords = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** The batch rule (see the top): a non-empty array of arrays or objects only. */
export function isBatch(v: unknown): v is FileEvent[] {
  return Array.isArray(v) && v.length > 0 && v.every(isEvent);
}

/** The field of an object event that says when it was recorded (`--pace recorded`). */
export const TIME_FIELD = 't';

/** An object event's TIME_FIELD as epoch ms: a finite number as it is, a string Date.parse reads; else null. */
function timeField(event: FileEvent): number | null {
  if (Array.isArray(event)) return null;
  const t = event[TIME_FIELD];
  if (typeof t === 'number') return Number.isFinite(t) ? t : null;
  if (typeof t === 'string') {
    const ms = Date.parse(t);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/** Collects events with where each came from, refusing a second shape. */
class Collector {
  readonly events: FileEvent[] = [];
  readonly texts: string[] = [];
  /** Where each event came from: an NDJSON line's number (a number costs a file of a million lines no string each), or the place in words. */
  readonly places: (number | string)[] = [];
  readonly times: (number | null)[] = [];
  private shape: EventShape | null = null;

  constructor(private readonly file: string) {}

  placeOf(i: number): string {
    const p = this.places[i];
    return typeof p === 'number' ? `line ${p}` : p;
  }

  add(event: FileEvent, text: string, place: number | string, time: number | null = timeField(event)): void {
    const shape = shapeOf(event);
    this.shape ??= shape;
    if (shape !== this.shape) {
      throw refuse(
        this.file,
        `${typeof place === 'number' ? `line ${place}` : place} is ${kindWords(event)} but ${this.placeOf(0)} is ${kindWords(this.events[0])}: mixed shapes`,
        'events must be all arrays or all objects',
      );
    }
    this.events.push(event);
    this.texts.push(text);
    this.places.push(place);
    this.times.push(time);
  }

  done(format: RowsFormat): RowsFile {
    return { format, shape: this.shape!, events: this.events, texts: this.texts, placeOf: (i) => this.placeOf(i), times: this.times };
  }
}

/** The events of a rows file's text (see the top for the formats and the batch rule). */
export function parseRowsFile(text: string, file: string): RowsFile {
  if (text.length > ROWS_FILE_MAX_BYTES) throw refuse(file, `${text.length} characters, above the ${ROWS_FILE_MAX_BYTES} bytes a rows file may hold`);
  if (text.trim() === '') throw refuse(file, 'the file is empty');
  let whole: unknown;
  let isWhole = true;
  try {
    whole = JSON.parse(text);
  } catch {
    isWhole = false;
  }
  const out = new Collector(file);
  let format: RowsFormat = 'ndjson';
  if (isWhole && isHar(whole)) {
    readHar(whole, file, out);
    format = 'har';
  } else if (isWhole && isBatch(whole)) {
    whole.forEach((e, i) => out.add(e, JSON.stringify(e), `element ${i}`));
    format = 'json-array';
  } else if (isWhole && isEvent(whole) && text.trim().includes('\n')) {
    // One event written over several lines: NDJSON of one event, re-serialised onto one line.
    out.add(whole, JSON.stringify(whole), 1);
  } else readLines(text, file, out);
  if (out.events.length === 0) throw refuse(file, 'no events in it');
  checkDepth(out, file);
  return out.done(format);
}

/** Deepest nesting a rows file may have: deeper is no real feed's, and walking it would overflow the stack. */
export const ROWS_MAX_DEPTH = 32;

function checkDepth(out: Collector, file: string): void {
  out.events.forEach((e, i) => {
    if (depthOf(e, ROWS_MAX_DEPTH + 1) > ROWS_MAX_DEPTH)
      throw refuse(file, `${out.placeOf(i)} nests deeper than ${ROWS_MAX_DEPTH} levels`, `events may nest ${ROWS_MAX_DEPTH} levels at most`);
  });
}

/** Nesting depth of `v` (0 for a scalar), counted no further than `cap`. */
function depthOf(v: unknown, cap: number): number {
  if (!isEvent(v)) return 0;
  if (cap === 0) return 1;
  let inner = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) inner = Math.max(inner, depthOf(x, cap - 1));
  return 1 + inner;
}

function readLines(text: string, file: string, out: Collector): void {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw refuse(file, `line ${i + 1} is not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (!isEvent(value)) throw refuse(file, `line ${i + 1} is ${kindWords(value)}, not an event`, 'each line must be a JSON array or object');
    out.add(value, line, i + 1);
  }
}

interface HarMessage {
  type?: unknown;
  /** When it was received, epoch seconds (Chrome DevTools and Playwright write a fraction). */
  time?: unknown;
  opcode?: unknown;
  data?: unknown;
}

function isHar(v: unknown): v is { log: { entries: unknown[] } } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const log = (v as { log?: unknown }).log;
  return typeof log === 'object' && log !== null && Array.isArray((log as { entries?: unknown }).entries);
}

/** The received text messages of every entry, each a JSON event or a batch of them. Binary messages (opcode 2) are skipped. */
function readHar(har: { log: { entries: unknown[] } }, file: string, out: Collector): void {
  const entries = har.log.entries;
  let received = 0;
  for (let e = 0; e < entries.length; e++) {
    const messages = (entries[e] as { _webSocketMessages?: unknown } | null)?._webSocketMessages;
    if (!Array.isArray(messages)) continue;
    for (let m = 0; m < messages.length; m++) {
      const msg = messages[m] as HarMessage | null;
      if (msg?.type !== 'receive' || msg.opcode === 2) continue;
      received++;
      const place = `entry ${e} message ${m}`;
      if (typeof msg.data !== 'string') throw refuse(file, `${place} has no text data (data is ${kindWords(msg.data)})`);
      let value: unknown;
      try {
        value = JSON.parse(msg.data);
      } catch (err) {
        throw refuse(
          file,
          `${place} is not JSON (${err instanceof Error ? err.message : String(err)})`,
          'each received message must be a JSON event or a batch',
        );
      }
      const time = typeof msg.time === 'number' && Number.isFinite(msg.time) ? msg.time * 1000 : null;
      if (isBatch(value)) value.forEach((ev, k) => out.add(ev, JSON.stringify(ev), `${place} event ${k}`, time));
      else if (isEvent(value)) out.add(value, JSON.stringify(value), place, time);
      else throw refuse(file, `${place} is ${kindWords(value)}, not an event`, 'each received message must be a JSON array or object, or an array of them');
    }
  }
  if (received === 0)
    throw refuse(
      file,
      `a HAR with no received text WebSocket messages (${entries.length} entries)`,
      'record the page while it receives its stream, or give NDJSON',
    );
}

/**
 * What an Arrow column of the events holds. Nested values (an array or object in a field) become
 * a `json` column: each value's JSON text, parsed back on the page; a field whose scalars are of
 * two kinds (numbers and strings) is refused. `null` and a missing key read as null.
 */
export type ColumnKind = 'int32' | 'float64' | 'bool' | 'utf8' | 'json';

export interface EventColumn {
  /** The object key, or the array index as text. */
  name: string;
  kind: ColumnKind;
}

const INT32 = 2 ** 31;

/** The Arrow columns of `rows`' events; refuses a field Arrow cannot hold, naming it. */
export function eventColumns(rows: RowsFile, file: string): EventColumn[] {
  const names = fieldNames(rows, file);
  return names.map((name) => ({ name, kind: columnKind(rows, name, file) }));
}

/** The events' fields: an object's keys in order of first appearance; an array's indices, which must be the same count in every event. */
export function fieldNames(rows: RowsFile, file: string): string[] {
  if (rows.shape === 'array') {
    const length = (rows.events[0] as unknown[]).length;
    rows.events.forEach((e, i) => {
      if ((e as unknown[]).length !== length) {
        throw refuse(
          file,
          `${rows.placeOf(i)} has ${(e as unknown[]).length} elements but ${rows.placeOf(0)} has ${length}`,
          'array events must all have the same length',
        );
      }
    });
    return Array.from({ length }, (_, k) => String(k));
  }
  const names = new Set<string>();
  for (const e of rows.events) for (const k of Object.keys(e)) names.add(k);
  return [...names];
}

const valueAt = (e: FileEvent, name: string): unknown => (Array.isArray(e) ? e[Number(name)] : e[name]);

function columnKind(rows: RowsFile, name: string, file: string): ColumnKind {
  let kind: ColumnKind | null = null;
  let first = -1;
  for (let i = 0; i < rows.events.length; i++) {
    const v = valueAt(rows.events[i], name);
    if (v === null || v === undefined) continue;
    if (isEvent(v)) return 'json';
    const k: ColumnKind =
      typeof v === 'number' ? (Number.isInteger(v) && v >= -INT32 && v < INT32 ? 'int32' : 'float64') : typeof v === 'boolean' ? 'bool' : 'utf8';
    if (kind === null || kind === k) {
      if (kind === null) first = i;
      kind = k;
    } else if ((kind === 'int32' && k === 'float64') || (kind === 'float64' && k === 'int32')) kind = 'float64';
    else {
      throw refuse(
        file,
        `field '${name}' is ${kindWords(v)} at ${rows.placeOf(i)} but ${kindWords(valueAt(rows.events[first], name))} at ${rows.placeOf(first)}: Arrow needs one type per field`,
        'give each field one kind of scalar (numbers, strings or booleans; nested arrays and objects travel as JSON text)',
      );
    }
  }
  // Null in every event: a text column of nulls.
  return kind ?? 'utf8';
}

/** Nesting depth of the events: 1 for flat arrays or objects of scalars, one more per level of arrays or objects inside. */
export function nestingDepth(events: readonly FileEvent[]): number {
  let max = 0;
  for (const e of events) max = Math.max(max, depthOf(e, ROWS_MAX_DEPTH));
  return max;
}
