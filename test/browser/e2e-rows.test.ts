/**
 * `--rows FILE` end to end, headless Chromium:
 * - a HAR recorded in the test, as DevTools records one: a page receives WebSocket messages (single
 *   events and batches of them) from a loopback `ws` server while CDP's Network domain reports each
 *   frame (Network.webSocketFrameReceived), and the HAR's entries carry them as
 *   `_webSocketMessages`. Puppeteer has no HAR export, so the HAR is built from those CDP events,
 *   the way DevTools builds its own; nothing of it is written by hand. parseRowsFile gives back
 *   exactly the events sent, batches unpacked.
 * - the real server started by the driver's own path (startServer with `--rows`) on that HAR, and
 *   on an NDJSON file: its /payload describes the events, and a page on its origin reads `ws`
 *   (JSON, MessagePack, Arrow) and `sse` streams with 0 gaps, each decoding to the file's events
 *   in the order of the cycle. The page collects the messages; they are decoded here with the
 *   libraries the lab page uses (@msgpack/msgpack, apache-arrow) and protocol/arrow.ts eventFromArrow.
 *
 * - the lab page itself, drawing nothing (`render: none`), counting a file's events over ws in
 *   every encoding and over sse with its own counters: 0 gaps, 0 errors.
 * - the page following the rows (`render: full`): over ws in every encoding and over sse, 0 gaps,
 *   its table headed by the file's fields and each line one of the file's events as the shared
 *   formatter writes it (so Arrow and MessagePack show the same cell text as JSON), and its chart
 *   naming the --chart-field it plots; a --chart-field the events cannot plot stops the server.
 * - the recorded pace (`pace: recorded`, a bursty `t` field): every transport, 0 gaps, 0 errors.
 */
import { decode } from '@msgpack/msgpack';
import { RecordBatchReader } from 'apache-arrow';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARROW_HEAD_BYTES, arrowIpcBytes, arrowSeq, EVENT_SHAPE_KEY, eventFromArrow, JSON_FIELD_KEY, type EventFields } from '../../protocol/arrow.js';
import type { PayloadDescription } from '../../protocol/payload.js';
import { fileEventView } from '../../protocol/event-view.js';
import { eventColumns, parseRowsFile, type FileEvent } from '../../protocol/rows-file.js';
import { TRANSPORTS } from '../../protocol/wire.js';
import type { PageConfig, PageSnapshot } from '../../protocol/page-api.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { openLabPage } from '../../puppeteer/measure/page.js';
import { getJson, startServer, type ServerHandle } from '../../puppeteer/measure/server-process.js';
import { linesOf } from '../../web/lab/row-format.js';

const BATCH = 16;
const MESSAGES = 12;

/** Trades with short keys, prices as strings, a nested array of levels and non-ASCII text. */
const EVENTS: FileEvent[] = Array.from({ length: 29 }, (_, i) => ({
  s: i % 2 ? 'BTC' : 'ÉTH',
  p: (100 + i / 8).toFixed(3),
  q: i * 3,
  f: i + 0.5,
  up: i % 3 === 0,
  lv: [
    [i, i + 1],
    [i + 2, i + 3],
  ],
}));

/**
 * Streams `config` in the lab page until it has counted `batches` batches (at most 10 s), then
 * stops: every event of every batch counted, no gap, no error.
 */
async function countsEveryEvent(api: Awaited<ReturnType<typeof openLabPage>>, config: PageConfig, batches: number, label: string): Promise<void> {
  await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
  let snap = (await api.evaluate((p) => p.snapshot())) as PageSnapshot;
  for (let i = 0; i < 100 && snap.counters.batches < batches; i++) {
    await new Promise((r) => setTimeout(r, 100));
    snap = (await api.evaluate((p) => p.snapshot())) as PageSnapshot;
  }
  await api.evaluate((p) => p.stop());
  expect(snap.counters.batches, label).toBeGreaterThanOrEqual(batches);
  expect(snap.counters.events, label).toBe(snap.counters.batches * BATCH);
  expect({ gaps: snap.counters.gaps, errors: snap.counters.errors }, label).toEqual({ gaps: 0, errors: 0 });
}

interface HarMessage {
  type: 'send' | 'receive';
  time: number;
  opcode: number;
  data: string;
}

/**
 * Records the WebSocket frames `page` receives through CDP, as DevTools does for its HAR: each
 * socket an entry with its URL and its `_webSocketMessages`.
 */
async function recordHar(page: Page, run: () => Promise<void>): Promise<unknown> {
  const cdp = await page.createCDPSession();
  const entries = new Map<string, { request: { method: string; url: string }; _resourceType: string; _webSocketMessages: HarMessage[] }>();
  const entry = (id: string) => entries.get(id)!;
  cdp.on('Network.webSocketCreated', (e) =>
    entries.set(e.requestId, { request: { method: 'GET', url: e.url }, _resourceType: 'websocket', _webSocketMessages: [] }),
  );
  const frame = (type: HarMessage['type']) => (e: { requestId: string; timestamp: number; response: { opcode: number; payloadData: string } }) =>
    entry(e.requestId)._webSocketMessages.push({ type, time: e.timestamp, opcode: e.response.opcode, data: e.response.payloadData });
  cdp.on('Network.webSocketFrameReceived', frame('receive'));
  cdp.on('Network.webSocketFrameSent', frame('send'));
  await cdp.send('Network.enable');
  await run();
  await cdp.send('Network.disable');
  await cdp.detach();
  return { log: { version: '1.2', creator: { name: 'pushlab test (CDP Network events)', version: '1' }, entries: [...entries.values()] } };
}

/** What a page on the server's origin collected of one stream: its text messages, or its binary ones in base64. */
interface Collected {
  texts: string[];
  binary: string[];
}

async function collect(page: Page, url: string, kind: 'ws' | 'sse', count: number): Promise<Collected> {
  return page.evaluate(
    (u, k, n) =>
      new Promise<Collected>((resolve, reject) => {
        const out: Collected = { texts: [], binary: [] };
        const timer = setTimeout(() => reject(new Error(`${u}: ${out.texts.length + out.binary.length} of ${n} messages in 20 s`)), 20_000);
        const done = (close: () => void) => {
          if (out.texts.length + out.binary.length < n) return;
          clearTimeout(timer);
          close();
          resolve(out);
        };
        if (k === 'sse') {
          const es = new EventSource(u);
          es.onmessage = (e) => {
            out.texts.push(e.data as string);
            done(() => es.close());
          };
          return;
        }
        const ws = new WebSocket(u);
        ws.binaryType = 'arraybuffer';
        ws.onmessage = (e) => {
          if (typeof e.data === 'string') out.texts.push(e.data);
          else {
            const bytes = new Uint8Array(e.data as ArrayBuffer);
            let s = '';
            for (const b of bytes) s += String.fromCharCode(b);
            out.binary.push(btoa(s));
          }
          done(() => ws.close());
        };
        ws.onerror = () => reject(new Error(`${u}: WebSocket error`));
      }),
    url,
    kind,
    count,
  );
}

/** The events batch `seq` carries: the next BATCH of the cycle (the pool cycles the file's events). */
const expectedBatch = (events: readonly FileEvent[], seq: number) => Array.from({ length: BATCH }, (_, k) => events[(seq * BATCH + k) % events.length]);

/** Envelopes (JSON or MessagePack) in order: each seq one more than the last, each batch the cycle's next events. */
function checkEnvelopes(messages: { seq: number; rows: unknown[] }[], events: readonly FileEvent[]): void {
  expect(messages).toHaveLength(MESSAGES);
  messages.forEach((m, i) => {
    expect(m.seq, 'no gaps').toBe(messages[0].seq + i);
    expect(m.rows).toEqual(expectedBatch(events, m.seq));
  });
}

function arrowBatches(binary: string[], events: readonly FileEvent[]): void {
  const frames = binary.map((b) => Buffer.from(b, 'base64'));
  const seqs = frames.map((f) => arrowSeq(new DataView(f.buffer, f.byteOffset, f.byteLength), 0));
  seqs.forEach((s, i) => expect(s, 'no gaps').toBe(seqs[0] + i));
  const ipc = Buffer.concat(
    frames.map((f) => {
      expect(arrowIpcBytes(new DataView(f.buffer, f.byteOffset, f.byteLength), 0)).toBe(f.byteLength - ARROW_HEAD_BYTES);
      return f.subarray(ARROW_HEAD_BYTES);
    }),
  );
  const batches = [...RecordBatchReader.from(ipc)];
  expect(batches).toHaveLength(MESSAGES);
  batches.forEach((rb, i) => {
    const fields: EventFields = {
      shape: rb.schema.metadata.get(EVENT_SHAPE_KEY) === 'array' ? 'array' : 'object',
      fields: rb.schema.fields.map((f) => ({ name: f.name, json: f.metadata.get(JSON_FIELD_KEY) === 'true' })),
    };
    const decoded = Array.from({ length: rb.numRows }, (_, r) => eventFromArrow(fields, (c) => rb.getChildAt(c)!.get(r)));
    // Arrow batches tile the pool (protocol/arrow.ts arrowBatchStart): at these seqs, the JSON stream's rows.
    expect(decoded).toEqual(expectedBatch(events, seqs[i]));
  });
}

describe('--rows from a file, headless Chromium', () => {
  let dir: string;
  let browser: Browser;
  let feed: Server;
  let har: unknown;
  const servers: ServerHandle[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-rows-'));
    browser = (await launchChrome({ headless: true })).browser;
    // A feed on loopback: a first message of one event, then batches of 4 (arrays of events), as trading feeds send them.
    feed = createServer();
    const wss = new WebSocketServer({ server: feed });
    wss.on('connection', (socket) => {
      socket.send(JSON.stringify(EVENTS[0]));
      for (let i = 1; i < EVENTS.length; i += 4) socket.send(JSON.stringify(EVENTS.slice(i, i + 4)));
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    const port = (feed.address() as { port: number }).port;
    const page = await browser.newPage();
    const messages = 1 + Math.ceil((EVENTS.length - 1) / 4);
    har = await recordHar(page, async () => {
      await page.evaluate(
        (u, n) =>
          new Promise<void>((resolve) => {
            const ws = new WebSocket(u);
            let got = 0;
            ws.onopen = () => ws.send('{"subscribe":"trades"}');
            ws.onmessage = () => {
              if (++got === n) {
                ws.close();
                resolve();
              }
            };
          }),
        `ws://127.0.0.1:${port}/`,
        messages,
      );
    });
    await page.close();
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await browser?.close();
    await new Promise((resolve) => feed?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a HAR recorded from the page gives back the events received, batches unpacked, the message sent left out', () => {
    const rows = parseRowsFile(JSON.stringify(har), 'recorded.har');
    expect(rows.format).toBe('har');
    expect(rows.events).toEqual(EVENTS);
  });

  it.each(['har', 'ndjson'] as const)(
    'the server on a %s file: /payload describes it, and ws (JSON, MessagePack, Arrow) and sse deliver its events with 0 gaps',
    { timeout: 90_000 },
    async (kind) => {
      const file = path.join(dir, `feed.${kind}`);
      await writeFile(file, kind === 'har' ? JSON.stringify(har) : EVENTS.map((e) => JSON.stringify(e)).join('\n'));
      const server = await startServer(['--rows', file]);
      servers.push(server);
      const payload = await getJson<PayloadDescription>(`${server.url}payload`, 60_000);
      expect(payload).toMatchObject({
        source: file,
        format: kind,
        shape: 'object',
        events: EVENTS.length,
        fields: ['s', 'p', 'q', 'f', 'up', 'lv'],
        nestingDepth: 3,
      });
      expect(payload.sha256).toMatch(/^[0-9a-f]{64}$/);
      for (const bytes of Object.values(payload.bytesPerEvent)) expect(bytes).toBeGreaterThan(0);

      const page = await browser.newPage();
      try {
        await page.goto(server.url);
        const wss = server.url.replace(/^https:/, 'wss:');
        const query = `batch=${BATCH}&interval=20`;
        const json = await collect(page, `${wss}ws?${query}`, 'ws', MESSAGES);
        checkEnvelopes(
          json.texts.map((t) => JSON.parse(t) as { seq: number; rows: unknown[] }),
          EVENTS,
        );
        const mp = await collect(page, `${wss}ws?${query}&encoding=msgpack`, 'ws', MESSAGES);
        checkEnvelopes(
          mp.binary.map((b) => decode(Buffer.from(b, 'base64')) as { seq: number; rows: unknown[] }),
          EVENTS,
        );
        const arrow = await collect(page, `${wss}ws?${query}&encoding=arrow`, 'ws', MESSAGES);
        arrowBatches(arrow.binary, EVENTS);
        const sse = await collect(page, `${server.url}sse?${query}`, 'sse', MESSAGES);
        checkEnvelopes(
          sse.texts.map((t) => JSON.parse(t) as { seq: number; rows: unknown[] }),
          EVENTS,
        );
      } finally {
        await page.close();
      }
    },
  );

  it("the lab page (render none) counts a file's events over ws in every encoding and over sse: 0 gaps, 0 errors", { timeout: 90_000 }, async () => {
    const file = path.join(dir, 'lab.ndjson');
    await writeFile(file, EVENTS.map((e) => JSON.stringify(e)).join('\n'));
    const server = await startServer(['--rows', file]);
    servers.push(server);
    const page = await browser.newPage();
    try {
      const api = await openLabPage(page, server.url);
      for (const [transport, encoding] of [
        ['ws', 'json'],
        ['ws', 'msgpack'],
        ['ws', 'arrow'],
        ['sse', 'json'],
      ] as const) {
        await countsEveryEvent(api, { transport, encoding, batch: BATCH, intervalMs: 10, concurrency: 2, render: 'none' }, 40, `${transport} ${encoding}`);
      }
    } finally {
      await page.close();
    }
  });

  it("at the recorded pace (a file's bursty 't' times), the lab page takes every transport's stream with 0 gaps, 0 errors", { timeout: 120_000 }, async () => {
    // Bursts of 8 events recorded in one instant, 45 ms apart: batches fall due together.
    const file = path.join(dir, 'paced.ndjson');
    await writeFile(file, EVENTS.map((e, i) => JSON.stringify({ ...e, t: 1_764_000_000_000 + 45 * Math.floor(i / 8) })).join('\n'));
    const server = await startServer(['--rows', file]);
    servers.push(server);
    const recorded = (await getJson<PayloadDescription>(`${server.url}payload`, 60_000)).recorded;
    expect(recorded).toMatchObject({ eventsPerSec: expect.any(Number), periodMs: expect.any(Number) });
    const page = await browser.newPage();
    try {
      const api = await openLabPage(page, server.url);
      for (const transport of TRANSPORTS) {
        // grpc-web carries a file's events in Arrow only.
        const encoding = transport === 'grpc-web' ? 'arrow' : 'json';
        await countsEveryEvent(api, { transport, encoding, batch: BATCH, intervalMs: 10, concurrency: 2, render: 'none', pace: 'recorded' }, 30, transport);
      }
    } finally {
      await page.close();
    }
  });

  it(
    "the lab page (render full) follows a file's events: its table's head is their fields, its lines their values in every encoding, its chart names its field",
    { timeout: 120_000 },
    async () => {
      // Short keys, prices as strings, a nested array, and a long text field the table cuts.
      const events = EVENTS.map((e, i) => ({ ...e, note: `order ${i} filled in ${'several parts, '.repeat(4)}` }));
      const file = path.join(dir, 'page.ndjson');
      const text = events.map((e) => JSON.stringify(e)).join('\n');
      await writeFile(file, text);
      const server = await startServer(['--rows', file, '--chart-field', 'f']);
      servers.push(server);
      expect((await getJson<PayloadDescription>(`${server.url}payload`, 60_000)).chartField).toBe('f');
      // What the page should draw, by the same functions the server and the page use.
      const rows = parseRowsFile(text, file);
      const view = fileEventView(file, eventColumns(rows, file), rows.events, 'f');
      const lines = linesOf(view);
      const expected = new Set(rows.events.map((e) => lines.line(e)));
      expect(expected.size, 'one line per event').toBe(events.length);
      const page = await browser.newPage();
      try {
        const api = await openLabPage(page, server.url);
        for (const [transport, encoding, parse] of [
          ['ws', 'json', 'main'],
          ['ws', 'msgpack', 'main'],
          ['ws', 'arrow', 'main'],
          ['sse', 'json', 'main'],
          // Workers post the rows in view to the main thread: a file's events as they are.
          ['ws', 'arrow', 'worker'],
        ] as const) {
          const label = `${transport} ${encoding} ${parse}`;
          const config: PageConfig = { transport, encoding, parse, batch: BATCH, intervalMs: 10, concurrency: 2, render: 'full', renderEveryMs: 50 };
          await api.evaluate((p, c) => p.start(c).then(() => undefined), config);
          let snap = (await api.evaluate((p) => p.snapshot())) as PageSnapshot;
          for (let i = 0; i < 100 && snap.counters.batches < 40; i++) {
            await new Promise((r) => setTimeout(r, 100));
            snap = (await api.evaluate((p) => p.snapshot())) as PageSnapshot;
          }
          // Past a redraw (every 50 ms) after the last count.
          await new Promise((r) => setTimeout(r, 300));
          // A string: this file is compiled without the DOM's types.
          const drawn = (await page.evaluate(`({
          head: document.querySelector('#table .stream-table-head')?.textContent ?? null,
          lines: [...document.querySelectorAll('#table .stream-table-lines > div')].map((d) => d.textContent ?? ''),
          chart: document.getElementById('chart-speed')?.getAttribute('aria-label') ?? null,
        })`)) as { head: string | null; lines: string[]; chart: string | null };
          await api.evaluate((p) => p.stop());
          expect({ gaps: snap.counters.gaps, errors: snap.counters.errors }, label).toEqual({ gaps: 0, errors: 0 });
          expect(snap.counters.batches, label).toBeGreaterThanOrEqual(40);
          expect(drawn.head, label).toBe(lines.heading);
          expect(drawn.head?.split(/ +/).filter(Boolean), label).toEqual(['s', 'p', 'q', 'f', 'up', 'lv', 'note']);
          expect(drawn.lines.length, label).toBeGreaterThanOrEqual(10);
          for (const line of drawn.lines) expect(expected.has(line), `${label}: ${line}`).toBe(true);
          // The long text field is the last column, cut to its bounded width.
          expect(
            drawn.lines.every((l) => l.endsWith('…')),
            label,
          ).toBe(true);
          expect(drawn.chart, label).toBe('max of f of the events received per 1 s');
        }
      } finally {
        await page.close();
      }
    },
  );

  it('a --chart-field the events cannot plot stops the server at start-up, naming their numeric fields', async () => {
    const file = path.join(dir, 'chart.ndjson');
    await writeFile(file, EVENTS.map((e) => JSON.stringify(e)).join('\n'));
    await expect(startServer(['--rows', file, '--chart-field', 'p'])).rejects.toMatchObject({
      code: 'PUSHLAB_BAD_ROWS',
      message: expect.stringContaining(`--chart-field p: field 'p' of --rows ${file} is not numeric; numeric fields: q, f`),
    });
  });

  it('a file that cannot serve stops the server at start-up with one PUSHLAB_BAD_ROWS line', async () => {
    const file = path.join(dir, 'mixed.ndjson');
    await writeFile(file, '[1]\n{"a":1}\n');
    await expect(startServer(['--rows', file])).rejects.toMatchObject({
      code: 'PUSHLAB_BAD_ROWS',
      message: expect.stringContaining('line 2 is an object but line 1 is an array'),
    });
  });
});
