/**
 * The row bytes every batch is cut from. Rows are serialised once, at start-up, so a tick
 * does no JSON work at all: the rows of any batch are one contiguous zero-copy `subarray`.
 *
 * So that the page's live aggregate (max speed per second) means something, each row's
 * `speed` follows a random walk: the pool holds `epochs` versions of its rows, one per second
 * of a cycle, that differ only in their speeds. Epoch e's rows sit at [e·size, (e+1)·size) of
 * one buffer, followed by epoch 0's rows again, so batch `seq` of size `b` in epoch e is rows
 * `[e·size + (seq·b) mod size, … + b)`, contiguous even where it wraps into the next epoch.
 * The hub picks the epoch once per tick from the wall clock (`useEpochAt`), so a tick still
 * costs nothing per event, and every connection sends the same speeds in the same second.
 * The walks are closed (they end where they start) so the cycle has no jump, and seeded, so
 * two runs send the same bytes. Epoch 0 is exactly `makeRow`.
 */
import { recordingOf, type RecordingOrWhy } from '../protocol/pace.js';
import { mulberry32 } from '../protocol/random.js';
import type { EventColumn, RowsFile } from '../protocol/rows-file.js';
import { makeRow, SPEED_COLUMN, STREAM_LIMITS, type Row } from '../protocol/wire.js';

/** Seconds in one cycle of the speed walk: each costs the pool's bytes once more in memory. */
export const SPEED_EPOCHS = 30;

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

/**
 * Events in a pool from a file: the file's events, cycled until a batch of the largest size
 * fits in it (a file of 50 events makes a pool of 10,000: 200 cycles), so batches of every size
 * (Arrow's tile the pool: protocol/arrow.ts arrowBatchStart) are the next events of the cycle.
 */
export function eventPoolSize(events: number): number {
  return events * Math.ceil(STREAM_LIMITS.batch.max / events);
}

/** What a pool is built into: the chain's bytes and where each chain row starts and ends. */
interface Built {
  bytes: Buffer;
  starts: Uint32Array;
  ends: Uint32Array;
}

export class RowPool {
  /** Rows in the pool; batches never exceed it, so a batch never repeats a row. */
  readonly size: number;
  readonly epochs: number;
  /** Rows in the chain: every epoch's, then epoch 0's first rows again (as many as the largest batch) so a batch never wraps. */
  readonly chainRows: number;
  /** The file's events this pool cycles, or null for the car rows. */
  readonly events: PoolEvents | null;
  /** How the pool's bytes are text: the car rows are ASCII, a file's events UTF-8 (offsets are bytes either way). */
  private readonly textEncoding: 'latin1' | 'utf8';
  /**
   * The build, in steps: 41 MB at the default size, about 0.8 s of one core here. The server
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
    size: number = STREAM_LIMITS.batch.max,
    epochMs = Date.UTC(2022, 2, 29, 20, 35, 56, 581),
    epochs = SPEED_EPOCHS,
    events: PoolEvents | null = null,
  ) {
    this.events = events;
    // A file's events have no speed walk: one epoch, the events as the file has them.
    this.size = events ? eventPoolSize(events.rows.texts.length) : size;
    this.epochs = events ? 1 : epochs;
    this.chainRows = this.epochs * this.size + Math.min(this.size, STREAM_LIMITS.batch.max);
    this.textEncoding = events ? 'utf8' : 'latin1';
    this.steps = events ? eventSteps(events.rows.texts, this.chainRows) : buildSteps(size, epochMs, epochs);
  }

  /** The file's recorded times as a cycle (`pace=recorded`, protocol/pace.ts), or why there is none; worked out on first use. */
  get recording(): RecordingOrWhy {
    const events = this.events;
    this.recorded ??= events
      ? recordingOf(events.rows.times, (i) => events.rows.placeOf(i))
      : { why: "the lab's car rows have no recorded times: give --rows FILE with them" };
    return this.recorded;
  }

  /** A pool of a file's events (see PoolEvents). */
  static fromEvents(events: PoolEvents): RowPool {
    return new RowPool(undefined, undefined, undefined, events);
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
    return this.base + ((seq * batch) % this.size);
  }

  /** Chain row `r`'s JSON text (for transports that encode rows otherwise, once per row). */
  rowText(r: number): string {
    const { bytes, starts, ends } = this.b;
    return bytes.toString(this.textEncoding, starts[r], ends[r]);
  }

  /** The rows of batch `seq` at size `batch` in the current epoch, as `row,row,…,row` (no brackets). Zero-copy. */
  rows(seq: number, batch: number): Buffer {
    const { bytes, starts, ends } = this.b;
    const first = this.firstRow(seq, batch);
    return bytes.subarray(starts[first], ends[first + batch - 1]);
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
function* buildSteps(size: number, epochMs: number, epochs: number): Generator<void, Built, void> {
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
  const chain = epochs * size + Math.min(size, STREAM_LIMITS.batch.max);
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
