/**
 * A pool from a rows file (`--rows`, server/rows.ts RowPool.fromEvents): a batch is the next
 * events of the cycle, sent as the file gave them, and JSON, MessagePack and Arrow decode to the
 * same events, through the decoders the page uses (JSON.parse, @msgpack/msgpack, apache-arrow's
 * reader with protocol/arrow.ts eventFromArrow). In process: the real server's streams are
 * test/browser/e2e-rows.test.ts's.
 */
import { decode } from '@msgpack/msgpack';
import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ARROW_HEAD_BYTES, EVENT_SHAPE_KEY, eventFromArrow, JSON_FIELD_KEY, type EventFields } from '../../protocol/arrow.js';
import { eventColumns, parseRowsFile } from '../../protocol/rows-file.js';
import { arrowCache, ArrowStream } from '../../server/arrow.js';
import { msgpackHead, msgpackRows } from '../../server/msgpack.js';
import { describePayload } from '../../server/payload.js';
import { Hub } from '../../server/hub.js';
import { poolMismatch } from '../../server/params.js';
import { FILE_POOL_PART_MAX_BYTES, filePoolShape, POOL_ROWS, RowPool } from '../../server/rows.js';
import { STREAM_LIMITS } from '../../protocol/wire.js';
import type { RowsSource } from '../../server/rows-source.js';

function source(text: string, file = 'feed.ndjson'): RowsSource {
  const rows = parseRowsFile(text, file);
  return { file, sha256: 'x', rows, columns: eventColumns(rows, file) };
}

/** Trades: objects with short keys, prices as strings, nested values, nulls, non-ASCII text. */
const TRADES = Array.from({ length: 37 }, (_, i) =>
  JSON.stringify({
    s: i % 2 ? 'BTC' : 'ÉTH',
    p: (100 + i / 8).toFixed(3),
    q: i * 3,
    f: i + 0.25,
    b: i % 3 === 0,
    lv: [[i, i + 1]],
    m: { k: `v${i}` },
    // Nulls in every kind of column: a number, a string, a boolean, a nested value.
    o: i % 4 ? i : null,
    note: i % 5 ? null : 'n',
    ok: i % 6 ? null : i % 4 === 0,
    x: i % 7 ? null : [i],
  }),
).join('\n');
const ARRAYS = Array.from({ length: 5 }, (_, i) => JSON.stringify([i, `name ${i}`, i * 1.5, { t: [i] }])).join('\n');

const jsonEvents = (pool: RowPool, seq: number, batch: number): unknown[] => JSON.parse(`[${pool.rows(seq, batch).toString('utf8')}]`) as unknown[];
const msgpackEvents = (pool: RowPool, seq: number, batch: number): unknown[] =>
  (decode(Buffer.concat([msgpackHead(seq, 1, 0.5, batch), msgpackRows(pool, seq, batch)])) as { rows: unknown[] }).rows;

function fieldsOf(rb: RecordBatch): EventFields {
  return {
    shape: rb.schema.metadata.get(EVENT_SHAPE_KEY) === 'array' ? 'array' : 'object',
    fields: rb.schema.fields.map((f) => ({ name: f.name, json: f.metadata.get(JSON_FIELD_KEY) === 'true' })),
  };
}

/** Batches seq 0…count-1 as an Arrow stream sends them, read back as events. */
async function arrowEvents(pool: RowPool, batch: number, count: number): Promise<unknown[][]> {
  await arrowCache(pool).load(batch);
  const stream = new ArrowStream();
  const ipc: Buffer[] = [];
  for (let seq = 0; seq < count; seq++)
    stream.write(seq, '1.5', '1', pool, batch, (head, body) => (ipc.push(body), head.length + body.length - ARROW_HEAD_BYTES));
  const out: unknown[][] = [];
  for (const rb of RecordBatchReader.from(Buffer.concat(ipc))) {
    const fields = fieldsOf(rb);
    out.push(Array.from({ length: rb.numRows }, (_, i) => eventFromArrow(fields, (c) => rb.getChildAt(c)!.get(i))));
  }
  return out;
}

describe('RowPool.fromEvents', () => {
  it('cycles the file until the largest batch fits, and a batch is the next events of the cycle, verbatim', () => {
    const src = source(TRADES);
    const pool = RowPool.fromEvents(src);
    expect(pool.size).toBe(37 * Math.ceil(POOL_ROWS / 37));
    expect(pool.maxBatch).toBe(STREAM_LIMITS.batch.max);
    // Batch 3 of 10 starts at event 30 and wraps into the file's start.
    expect(pool.rows(3, 10).toString('utf8')).toBe([30, 31, 32, 33, 34, 35, 36, 0, 1, 2].map((i) => src.rows.texts[i]).join(','));
    expect(jsonEvents(pool, 0, 37)).toEqual(src.rows.events);
  });

  it('a batch larger than the cycle runs on through it: JSON, MessagePack and Arrow, exact counts', async () => {
    const pool = RowPool.fromEvents(source(TRADES));
    const batch = 2 * pool.size + 5;
    const json = jsonEvents(pool, 1, batch);
    expect(json).toHaveLength(batch);
    expect(json[pool.size]).toEqual(json[0]);
    expect(msgpackEvents(pool, 1, batch)).toEqual(json);
    // Arrow holds one batch of this size (protocol/arrow.ts arrowTiling), the cycle's first events on.
    const arrow = await arrowEvents(pool, batch, 2);
    expect(arrow.map((b) => b.length)).toEqual([batch, batch]);
    expect(arrow[0]).toEqual(jsonEvents(pool, 0, batch));
  }, 60_000);

  it.each([
    ['objects with nested values', TRADES, 16],
    ['arrays with a nested object', ARRAYS, 20],
  ])('JSON, MessagePack and Arrow decode to the same events: %s', async (_, text, batch) => {
    const pool = RowPool.fromEvents(source(text));
    const arrow = await arrowEvents(pool, batch, 4);
    for (let seq = 0; seq < 4; seq++) {
      const json = jsonEvents(pool, seq, batch);
      expect(json).toHaveLength(batch);
      expect(msgpackEvents(pool, seq, batch)).toEqual(json);
      expect(arrow[seq]).toEqual(json);
    }
  });

  it('describes its payload: source, hash, events, bytes per event per encoding, fields, depth', async () => {
    const src = source(TRADES);
    const d = await describePayload(RowPool.fromEvents(src), src, 'q');
    expect(d).toMatchObject({
      source: 'feed.ndjson',
      sha256: 'x',
      format: 'ndjson',
      shape: 'object',
      events: 37,
      fields: ['s', 'p', 'q', 'f', 'b', 'lv', 'm', 'o', 'note', 'ok', 'x'],
      nestingDepth: 3,
      chartField: 'q',
    });
    const textBytes = src.rows.texts.reduce((a, t) => a + Buffer.byteLength(t) + 1, 0) / 37;
    expect(d.bytesPerEvent.json).toBeCloseTo(textBytes, 9);
    expect(d.bytesPerEvent.msgpack).toBeGreaterThan(0);
    expect(d.bytesPerEvent.msgpack).toBeLessThan(d.bytesPerEvent.json);
    expect(d.bytesPerEvent.arrow).toBeGreaterThan(0);
  });

  it('describes the car rows too, with no source', async () => {
    const d = await describePayload(new RowPool(200, undefined, 1), null, 'speed');
    expect(d).toMatchObject({
      source: null,
      sha256: null,
      format: null,
      shape: 'array',
      events: 200,
      nestingDepth: 1,
      chartField: 'speed',
      maxBatch: STREAM_LIMITS.batch.max,
    });
    expect(d.fields).toHaveLength(12);
    // About 133 bytes of JSON per car row (the figure).
    expect(d.bytesPerEvent.json).toBeGreaterThan(110);
    expect(d.bytesPerEvent.json).toBeLessThan(160);
  });
});

describe('filePoolShape: the bound on a file pool', () => {
  it('small events: a cycle of at least POOL_ROWS events, whole files, and a tail of the largest batch', () => {
    expect(filePoolShape(Array<number>(37).fill(120))).toEqual({ size: 37 * Math.ceil(POOL_ROWS / 37), maxBatch: STREAM_LIMITS.batch.max });
    expect(filePoolShape(Array<number>(1_000_000).fill(97))).toEqual({ size: 1_000_000, maxBatch: STREAM_LIMITS.batch.max });
  });

  it('large events: the cycle and the tail each stop at FILE_POOL_PART_MAX_BYTES, at least one file, and the largest batch is the tail', () => {
    // 100 events of 1 MB: one file (100 MB) a cycle, not 10,000 events (10 GB); a tail of 134 events (128 MiB).
    const mb = filePoolShape(Array<number>(100).fill(1_000_000));
    expect(mb).toEqual({ size: 100, maxBatch: Math.floor(FILE_POOL_PART_MAX_BYTES / 1_000_001) });
    // Events of 13 KB: a tail of about 10,000, not 100,000 (1.3 GB).
    const big = filePoolShape(Array<number>(10_000).fill(13_000));
    expect(big.size).toBe(10_000);
    expect(big.maxBatch).toBe(Math.floor(FILE_POOL_PART_MAX_BYTES / 13_001));
    // Whatever the events, the chain's text is at most twice the bound.
    for (const bytes of [[100_000_000], Array<number>(3).fill(40_000_000), Array<number>(5000).fill(20_000)]) {
      const { size, maxBatch } = filePoolShape(bytes);
      const at = (r: number) => bytes[r % bytes.length] + 1;
      let cycle = 0;
      for (let r = 0; r < size; r++) cycle += at(r);
      let tail = 0;
      for (let r = 0; r < maxBatch; r++) tail += at(r);
      expect(cycle, String(bytes.length)).toBeLessThanOrEqual(
        Math.max(
          FILE_POOL_PART_MAX_BYTES,
          bytes.reduce((a, b) => a + b + 1, 0),
        ),
      );
      expect(tail, String(bytes.length)).toBeLessThanOrEqual(FILE_POOL_PART_MAX_BYTES);
    }
  });
});

describe('a file pool past its bound', () => {
  it('serves batches up to its tail, tells /payload, and the routes refuse a larger batch naming it', async () => {
    const src = source(TRADES);
    // A bound of about 20 events' text: the cycle is the file once, the tail its first 20-odd events.
    const part = 2000;
    const pool = RowPool.fromEvents(src, part);
    const shape = filePoolShape(
      src.rows.texts.map((t) => Buffer.byteLength(t, 'utf8')),
      part,
    );
    expect([pool.size, pool.maxBatch]).toEqual([shape.size, shape.maxBatch]);
    expect(pool.size).toBe(37);
    expect(pool.maxBatch).toBeLessThan(37);
    expect(jsonEvents(pool, 1, pool.maxBatch)).toHaveLength(pool.maxBatch);
    expect((await describePayload(pool, src, 'q')).maxBatch).toBe(pool.maxBatch);
    const hub = new Hub({ sendBufferLimitBytes: 1 << 20, pool });
    try {
      expect(poolMismatch(hub, { batch: pool.maxBatch, interval: 1 })).toBeNull();
      expect(poolMismatch(hub, { batch: pool.maxBatch + 1, interval: 1 })).toEqual({
        param: 'batch',
        value: String(pool.maxBatch + 1),
        allowed: `an integer from 1 to ${pool.maxBatch} with this --rows file`,
        message: `batch must be at most ${pool.maxBatch} with this server's --rows file: the pool keeps at most 2000 bytes of its events past their cycle, so a batch is one slice (docs/your-stream.md); got '${pool.maxBatch + 1}'`,
      });
    } finally {
      hub.shutdown();
    }
  });
});
