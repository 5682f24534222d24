/**
 * The real server (in process, port 0) on a rows file: `/payload` describes it, `/events-view`
 * tells the page its columns and chart field (a --chart-field it cannot plot is refused), the fetch stream
 * (NDJSON lines) carries the file's events, and grpc-web refuses its default encoding (the car
 * row's protobuf message) with InvalidArgument while it carries the events as Arrow.
 */
import { Code, createClient, type ConnectError } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-node';
import { RecordBatchReader } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SHAPE_KEY, eventFromArrow, JSON_FIELD_KEY } from '../../protocol/arrow.js';
import { PushService } from '../../protocol/gen/pushlab/v1/push_pb.js';
import type { EventView } from '../../protocol/event-view.js';
import type { PayloadDescription } from '../../protocol/payload.js';
import { eventColumns, parseRowsFile } from '../../protocol/rows-file.js';
import { h2get } from '../helpers/h2-get.js';
import { startServerSession, type ServerSession } from '../helpers/test-server.js';

const FILE = 'book.ndjson';
const TEXT = Array.from({ length: 9 }, (_, i) => JSON.stringify([i, `sym${i}`, [[100 + i, 2]], i % 2 === 0])).join('\n');
const rows = parseRowsFile(TEXT, FILE);

describe('the server on a rows file', () => {
  let s: ServerSession;
  let port: number;
  const grpc = () =>
    createClient(PushService, createGrpcWebTransport({ baseUrl: `https://127.0.0.1:${port}`, httpVersion: '2', nodeOptions: { rejectUnauthorized: false } }));

  beforeAll(async () => {
    s = await startServerSession({ rows: { file: FILE, sha256: 'f'.repeat(64), rows, columns: eventColumns(rows, FILE) } });
    port = s.server.port;
  });

  afterAll(async () => {
    await s?.close();
  });

  it('/payload describes the events', async () => {
    const p = JSON.parse((await h2get(s.session, '/payload')).body) as PayloadDescription;
    expect(p).toMatchObject({
      source: FILE,
      sha256: 'f'.repeat(64),
      format: 'ndjson',
      shape: 'array',
      events: 9,
      fields: ['0', '1', '2', '3'],
      nestingDepth: 3,
      chartField: '0',
    });
  });

  it('/events-view tells the page its columns and the chart field: the first numeric one', async () => {
    const v = JSON.parse((await h2get(s.session, '/events-view')).body) as EventView;
    // Widths: each field's widest text, `true`/`false` and `[[108,2]]` included.
    expect(v).toEqual({ carRows: false, fields: ['0', '1', '2', '3'], widths: [1, 4, 9, 5], chartField: '0' });
  });

  it('refuses a --chart-field the events cannot plot before it listens, naming the numeric fields', async () => {
    const source = { file: FILE, sha256: 'f'.repeat(64), rows, columns: eventColumns(rows, FILE) };
    await expect(startServerSession({ rows: source, chartField: '1' })).rejects.toMatchObject({
      code: 'PUSHLAB_BAD_ROWS',
      message: "--chart-field 1: field '1' of --rows book.ndjson is not numeric; numeric fields: 0",
    });
  });

  it('grpc-web refuses the default encoding with InvalidArgument, saying why', async () => {
    const err = await (async () => {
      try {
        for await (const _ of grpc().stream({ batch: 5 })) return null;
      } catch (e) {
        return e as ConnectError;
      }
      return null;
    })();
    expect(err?.code).toBe(Code.InvalidArgument);
    expect(err?.rawMessage).toMatch(/grpc-web carries a --rows file's events only with encoding=arrow/);
  });

  it('grpc-web carries the events as Arrow: the next events of the cycle, decoded back', async () => {
    const got: Uint8Array[] = [];
    for await (const b of grpc().stream({ batch: 16, intervalMs: 5, encoding: 'arrow' })) {
      got.push(b.arrow);
      if (got.length === 3) break;
    }
    const batches = [...RecordBatchReader.from(Buffer.concat(got))];
    batches.forEach((rb, seq) => {
      const fields = {
        shape: rb.schema.metadata.get(EVENT_SHAPE_KEY) === 'array' ? ('array' as const) : ('object' as const),
        fields: rb.schema.fields.map((f) => ({ name: f.name, json: f.metadata.get(JSON_FIELD_KEY) === 'true' })),
      };
      const events = Array.from({ length: rb.numRows }, (_, r) => eventFromArrow(fields, (c) => rb.getChildAt(c)!.get(r)));
      expect(events).toEqual(Array.from({ length: 16 }, (_, k) => rows.events[(seq * 16 + k) % 9]));
    });
  });
});
