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
import { eventPoolSize, RowPool } from '../../server/rows.js';
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
    expect(pool.size).toBe(eventPoolSize(37));
    expect(pool.size).toBeGreaterThanOrEqual(10_000);
    // Batch 3 of 10 starts at event 30 and wraps into the file's start.
    expect(pool.rows(3, 10).toString('utf8')).toBe([30, 31, 32, 33, 34, 35, 36, 0, 1, 2].map((i) => src.rows.texts[i]).join(','));
    expect(jsonEvents(pool, 0, 37)).toEqual(src.rows.events);
  });

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
    expect(d).toMatchObject({ source: null, sha256: null, format: null, shape: 'array', events: 200, nestingDepth: 1, chartField: 'speed' });
    expect(d.fields).toHaveLength(12);
    // About 133 bytes of JSON per car row (the figure).
    expect(d.bytesPerEvent.json).toBeGreaterThan(110);
    expect(d.bytesPerEvent.json).toBeLessThan(160);
  });
});
