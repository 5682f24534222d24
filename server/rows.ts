/**
 * The row bytes every batch is cut from. Rows are serialised once, at start-up, so a tick
 * does no JSON work at all: the rows of any batch are one contiguous zero-copy `subarray`.
 *
 * So that the page's live aggregate (max speed per second) means something, each row's
 * `speed` follows a random walk: the pool holds `epochs` versions of its rows, one per second
 * of a cycle, that differ only in their speeds. Epoch e's rows sit at [e·size, (e+1)·size) of
 * one buffer (the chain), followed by a tail of the next epochs' rows again (epoch 0's, 1's, …,
 * `maxBatch` rows in all), so batch `seq` of size `b` in epoch e is chain rows
 * `[e·size + (seq·b) mod size, … + b)`, contiguous even where it runs past the last epoch.
 * A batch larger than the pool (up to STREAM_LIMITS.batch.max, 10× POOL_ROWS) runs on through the
 * next seconds' rows, so it holds each row id several times, with that second's speed each time.
 * The hub picks the epoch once per tick from the wall clock (`useEpochAt`), so a tick still
 * costs nothing per event, and every connection sends the same speeds in the same second.
 * The walks are closed (they end where they start) so the cycle has no jump, and seeded, so
 * two runs send the same bytes. Epoch 0 is exactly `makeRow`.
 */
import { recordingOf, type RecordingOrWhy } from '../protocol/pace.js';
import { mulberry32 } from '../protocol/random.js';
import { ROWS_FILE_MAX_BYTES, type EventColumn, type RowsFile } from '../protocol/rows-file.js';
import { makeRow, SPEED_COLUMN, STREAM_LIMITS, type Row } from '../protocol/wire.js';

/** Seconds in one cycle of the speed walk: each costs the pool's bytes once more in memory. */
export const SPEED_EPOCHS = 30;

/**
 * Rows in the car pool: the devices the speed walk moves, each once per epoch (30 × 10,000 rows,
 * 40 MB of JSON). Also the fewest events a file's pool cycles to. It is not the largest batch: the
 * chain's tail (RowPool.maxBatch) is what lets a batch of up to STREAM_LIMITS.batch.max rows stay
 * one slice, for 13 MB more, where a pool of the largest batch's rows would cost 10× the 40 MB.
 */
export const POOL_ROWS = 10_000;

/**
 * The most text a file's pool holds in its cycle, and again in its tail: the bound a rows file
 * itself has (ROWS_FILE_MAX_BYTES), so a pool's chain is at most twice that, whatever the size of
 * its events. A file of a few large events would otherwise cycle to POOL_ROWS of them, and its
 * tail to 100,000 more: a file of one hundred 1 MB events made a 10 GB cycle before this bound.
 */
export const FILE_POOL_PART_MAX_BYTES = ROWS_FILE_MAX_BYTES;

/** Per-second step of the citywide speed level (km/h, sd), which moves every device's speed. */
const LEVEL_STEP = 3;
/** Per-second step of each device's own walk around that level (km/h, sd). */
const DEVICE_STEP = 2;
/** A speed no row has, to find where the speed sits in a row's JSON text. */
const SPEED_MARK = 987654321;

/** A closed random walk of `n` steps: w[0] = 0 and the step after w[n − 1] returns to 0. */
export function closedWalk(n: number, sd: number, random: () => number): number[] {
  // A sum of 3 uniforms is close enough to a normal step, and cheap.
  const steps = Array.from({ length: n }, () => (random() + random() + random() - 1.5) * 2 * sd);
  const mean = steps.reduce((a, b) => a + b, 0) / n;
  const out = [0];
  for (let k = 1; k < n; k++) out.push(out[k - 1] + steps[k - 1] - mean);
  return out;
}

/** Rows serialised per build step: a few ms of work, so a slice stays short. */
const ROWS_PER_STEP = 1000;

/**
 * A team's own events (`--rows FILE`, protocol/rows-file.ts) in place of the car rows: the
 * events in the file's order, their Arrow columns, and where they came from (the report's
 * payload description, payload.ts).
 */
export interface PoolEvents {
  rows: RowsFile;
  columns: EventColumn[];
}

/** How a file's pool is laid out (filePoolShape). */
export interface FilePoolShape {
  /** Events in the cycle: the file's, repeated a whole number of times. */
  size: number;
  /** Events in the tail after it, the cycle's first ones again: the largest batch the pool serves. */
  maxBatch: number;
}

/**
 * A file's pool, from the bytes of each event's text (`eventBytes[i]`, without its comma): the
 * file's events cycled until there are POOL_ROWS of them (a file of 50 events makes a cycle of
 * 10,000: 200 times), but no further than FILE_POOL_PART_MAX_BYTES of text (at least once), then
 * a tail of the cycle's first events again, up to STREAM_LIMITS.batch.max events or
 * FILE_POOL_PART_MAX_BYTES, whichever comes first. A batch is then the next events of the cycle,
 * one slice; batches of every size are served up to the tail's events, and a larger batch is
 * refused at the query (Hub.batchRefusal). Each event costs its bytes and a comma.
 */
export function filePoolShape(eventBytes: readonly number[], partMaxBytes = FILE_POOL_PART_MAX_BYTES): FilePoolShape {
  const n = eventBytes.length;
  let fileBytes = 0;
  for (const b of eventBytes) fileBytes += b + 1;
  const cycles = Math.max(1, Math.min(Math.ceil(POOL_ROWS / n), Math.floor(partMaxBytes / fileBytes)));
  // The tail's row t is event t mod n (the cycle is whole files): add events while they fit.
  let tail = 0;
  for (let bytes = 0; tail < STREAM_LIMITS.batch.max; tail++) {
    bytes += eventBytes[tail % n] + 1;
    if (bytes > partMaxBytes) break;
  }
  // At least one event, though its UTF-8 be past the bound (the file's bound counts characters).
  return { size: n * cycles, maxBatch: Math.max(1, tail) };
}

/** What a pool is built into: the chain's bytes and where each chain row starts and ends. */
interface Built {
  bytes: Buffer;
  starts: Uint32Array;
  ends: Uint32Array;
}

export class RowPool {
  /** Rows in one epoch of the pool (a file's: events in its cycle). A batch may be larger: it runs on into the next epochs' rows. */
  readonly size: number;
  readonly epochs: number;
  /**
   * The largest batch this pool serves as one slice: the rows of its chain's tail.
   * STREAM_LIMITS.batch.max for the car rows; a file's tail may hold fewer (filePoolShape).
   */
  readonly maxBatch: number;
  /** Rows in the chain: every epoch's, then the next epochs' rows again (`maxBatch` of them) so a batch never wraps. */
  readonly chainRows: number;
  /** A file pool's bound on the text of its cycle and of its tail (FILE_POOL_PART_MAX_BYTES but in tests), bytes. */
  readonly filePartMaxBytes: number;
  /** The file's events this pool cycles, or null for the car rows. */
  readonly events: PoolEvents | null;
  /** How the pool's bytes are text: the car rows are ASCII, a file's events UTF-8 (offsets are bytes either way). */
  private readonly textEncoding: 'latin1' | 'utf8';
  /**
   * The build, in steps: 53 MB at the default size (40 MB of epochs, 13 MB of tail), about 0.9 s of one core here. The server
   * runs it on the event loop in slices after it starts (`buildInSlices`), so that second is
   * not on the start-up's path; whatever reads the rows first finishes what is left at once.
   */
  private readonly steps: Generator<void, Built, void>;
  private built: Built | null = null;
  /** The same rows as one JS string, for writers that need text (better-sse's API); built on first use. */
  private text: string | null = null;
  /** The current epoch's first chain row. */
  private base = 0;
  private recorded: RecordingOrWhy | null = null;

  constructor(
    size: number = POOL_ROWS,
    epochMs = Date.UTC(2022, 2, 29, 20, 35, 56, 581),
    epochs = SPEED_EPOCHS,
    events: PoolEvents | null = null,
    /** A file pool's bound on its cycle and its tail (filePoolShape); smaller in tests. */
    filePartMaxBytes = FILE_POOL_PART_MAX_BYTES,
  ) {
    this.events = events;
    this.filePartMaxBytes = filePartMaxBytes;
    // A file's events have no speed walk: one epoch, the events as the file has them.
    const shape = events
      ? filePoolShape(
          events.rows.texts.map((t) => Buffer.byteLength(t, 'utf8')),
          filePartMaxBytes,
        )
      : { size, maxBatch: STREAM_LIMITS.batch.max };
    this.size = shape.size;
    this.maxBatch = shape.maxBatch;
    this.epochs = events ? 1 : epochs;
    this.chainRows = this.epochs * this.size + this.maxBatch;
    this.textEncoding = events ? 'utf8' : 'latin1';
    this.steps = events ? eventSteps(events.rows.texts, this.chainRows) : buildSteps(size, epochMs, epochs, this.chainRows);
  }

  /** The file's recorded times as a cycle (`pace=recorded`, protocol/pace.ts), or why there is none; worked out on first use. */
  get recording(): RecordingOrWhy {
    const events = this.events;
    this.recorded ??= events
      ? recordingOf(events.rows.times, (i) => events.rows.placeOf(i))
      : { why: "the lab's car rows have no recorded times: give --rows FILE with them" };
    return this.recorded;
  }

  /** A pool of a file's events (see PoolEvents), its cycle and tail each at most `partMaxBytes` of text (filePoolShape). */
  static fromEvents(events: PoolEvents, partMaxBytes = FILE_POOL_PART_MAX_BYTES): RowPool {
    return new RowPool(undefined, undefined, undefined, events, partMaxBytes);
  }

  /**
   * Builds what is left on the event loop, in slices of about `sliceMs` with a setImmediate
   * between them, so requests are served meanwhile. Resolves once the pool is built, by these
   * slices or by a reader that finished it.
   */
  async buildInSlices(sliceMs = 5): Promise<void> {
    while (!this.built) {
      const end = performance.now() + sliceMs;
      while (!this.built && performance.now() < end) this.step();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private step(): void {
    const r = this.steps.next();
    if (r.done) this.built = r.value;
  }

  /** Finishes the build at once, where the slices have not: before a stream's schedule starts, so its first tick is not the one that waits. */
  finishBuild(): void {
    while (!this.built) this.step();
  }

  /** The built pool: finishes the build at once when nothing has. */
  private get b(): Built {
    this.finishBuild();
    return this.built!;
  }

  /** Selects the speeds of the second holding `epochMs` (wall clock); once per tick, not per batch. */
  useEpochAt(epochMs: number): void {
    this.base = (Math.floor(epochMs / 1000) % this.epochs) * this.size;
  }

  /** The current epoch (useEpochAt), from 0. */
  get epoch(): number {
    return this.base / this.size;
  }

  /** The chain row batch `seq` at size `batch` starts at, in the current epoch; its rows are [first, first + batch). */
  firstRow(seq: number, batch: number): number {
    // The routes refuse a larger batch (Hub.batchRefusal); past the tail a slice would silently run short.
    if (batch > this.maxBatch) throw new Error(`batch ${batch} is more than the pool's largest, ${this.maxBatch}`);
    return this.base + ((seq * batch) % this.size);
  }

  /** Chain row `r`'s JSON text (for transports that encode rows otherwise, once per row). */
  rowText(r: number): string {
    const { bytes, starts, ends } = this.b;
    return bytes.toString(this.textEncoding, starts[r], ends[r]);
  }

  /** The rows of batch `seq` at size `batch` in the current epoch, as `row,row,…,row` (no brackets). Zero-copy. */
  rows(seq: number, batch: number): Buffer {
    const first = this.firstRow(seq, batch);
    const { bytes, starts, ends } = this.b;
    return bytes.subarray(starts[first], ends[first + batch - 1]);
  }

  /** Bytes of chain rows [0, n) with the commas between them: the JSON text of the pool's first n rows (n at most chainRows). */
  firstRowsBytes(n: number): number {
    const { starts, ends } = this.b;
    return ends[n - 1] - starts[0];
  }

  /**
   * The same rows as `rows()`, as a string: for the car rows a V8 slice of the pool (no copy
   * until written); for a file's events (UTF-8, where byte offsets are not string offsets) a
   * decode of the batch's bytes, a copy per batch that only better-sse's writers pay.
   */
  rowsText(seq: number, batch: number): string {
    const { bytes, starts, ends } = this.b;
    const first = this.firstRow(seq, batch);
    if (this.textEncoding === 'utf8') return bytes.toString('utf8', starts[first], ends[first + batch - 1]);
    this.text ??= bytes.toString('latin1');
    return this.text.slice(starts[first], ends[first + batch - 1]);
  }
}

/**
 * The pool's build, a step at a time. Each row is serialised once, around a placeholder speed;
 * an epoch's row is its text with that epoch's speed spliced in. The chain is cut in pieces of
 * ROWS_PER_STEP rows, each joined and encoded in its own step, and the pieces joined by commas
 * at the end: the same bytes as one join of every row.
 */
function* buildSteps(size: number, epochMs: number, epochs: number, chain: number): Generator<void, Built, void> {
  const random = mulberry32(0x5eed);
  const level = closedWalk(epochs, LEVEL_STEP, random);
  const parts: { head: string; tail: string; speeds: string[] }[] = [];
  for (let i = 0; i < size; i++) {
    const row = makeRow(i, epochMs);
    const marked: Row = [...row];
    marked[SPEED_COLUMN] = SPEED_MARK;
    const [head, tail] = JSON.stringify(marked).split(String(SPEED_MARK));
    const own = closedWalk(epochs, DEVICE_STEP, random);
    // Whole km/h, never below 1: a walk may wander, a car's speed stays positive.
    const speeds = level.map((l, k) => String(Math.max(1, Math.round(row[SPEED_COLUMN] + l + own[k]))));
    parts.push({ head, tail, speeds });
    if ((i + 1) % ROWS_PER_STEP === 0) yield;
  }
  const starts = new Uint32Array(chain);
  const ends = new Uint32Array(chain);
  const pieces: Buffer[] = [];
  const comma = Buffer.from(',');
  let offset = 0;
  for (let from = 0; from < chain; from += ROWS_PER_STEP) {
    const texts: string[] = [];
    for (let r = from; r < Math.min(chain, from + ROWS_PER_STEP); r++) {
      const p = parts[r % size];
      const text = p.head + p.speeds[Math.floor(r / size) % epochs] + p.tail;
      texts.push(text);
      starts[r] = offset;
      ends[r] = offset + text.length;
      offset += text.length + 1;
    }
    if (pieces.length) pieces.push(comma);
    pieces.push(Buffer.from(texts.join(','), 'latin1'));
    yield;
  }
  return { bytes: Buffer.concat(pieces), starts, ends };
}

/**
 * A file pool's build, a step at a time: chain row r is event `r mod n`'s text, as the file gave
 * it (protocol/rows-file.ts RowsFile.texts); nothing is parsed or serialised here. Each event is
 * encoded to UTF-8 once, and the chain is the events' bytes in turn, joined by commas.
 */
function* eventSteps(texts: readonly string[], chain: number): Generator<void, Built, void> {
  const n = texts.length;
  const encoded: Buffer[] = new Array<Buffer>(n);
  for (let i = 0; i < n; i++) {
    encoded[i] = Buffer.from(texts[i], 'utf8');
    if ((i + 1) % ROWS_PER_STEP === 0) yield;
  }
  let total = chain - 1;
  for (let r = 0; r < chain; r++) total += encoded[r % n].length;
  const bytes = Buffer.allocUnsafe(total);
  const starts = new Uint32Array(chain);
  const ends = new Uint32Array(chain);
  let offset = 0;
  for (let r = 0; r < chain; r++) {
    if (r > 0) bytes[offset++] = 0x2c; // ','
    starts[r] = offset;
    offset += encoded[r % n].copy(bytes, offset);
    ends[r] = offset;
    if ((r + 1) % ROWS_PER_STEP === 0) yield;
  }
  return { bytes, starts, ends };
}
