/**
 * The real server on loopback with real clients: parameter validation, the message format
 * on both transports, and bounded buffers with counted shedding when a client stops reading.
 */
import http2 from 'node:http2';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BatchMessage } from '../../protocol/wire.js';
import type { PushlabServer } from '../../server/app.js';
import { h2get } from '../helpers/h2-get.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SHED_LIMIT = 256 * 1024;
let app: PushlabServer;
let base: string;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ sendBufferLimitBytes: SHED_LIMIT });
  app = server.app;
  base = `127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function wsRejection(p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://${base}${p}`, { rejectUnauthorized: false });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => reject(new Error(`${p} opened`)));
  });
}

describe('query parameters', () => {
  const cases: [string, string, string | null][] = [
    ['batch=0', 'batch', '0'],
    ['batch=abc', 'batch', 'abc'],
    ['batch=10&interval=-1', 'interval', '-1'],
    ['batch=10&interval=0', 'interval', '0'],
    ['batch=100000000', 'batch', '100000000'],
    ['batch=1.5', 'batch', '1.5'],
    ['interval=1', 'batch', null],
  ];

  it('SSE answers a bad parameter with a 400 naming it, its value and the allowed range', async () => {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    try {
      for (const [query, param, value] of cases) {
        const r = await h2get(s, `/sse?${query}`);
        expect(r.status, query).toBe(400);
        const body = JSON.parse(r.body) as Record<string, unknown>;
        expect(body).toMatchObject({ error: 'bad-parameter', param, value });
        expect(String(body.allowed)).toMatch(/from .* to /);
        expect(String(body.message)).toContain(param);
      }
    } finally {
      s.close();
    }
  });

  it('WS refuses the upgrade with the same 400', async () => {
    for (const [query, param, value] of cases) {
      const r = await wsRejection(`/ws?${query}`);
      expect(r.status, query).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({ error: 'bad-parameter', param, value });
    }
  });
});

describe('repeated and oversized parameters, and /ws without an upgrade', () => {
  it.each(['batch=1&batch=2', 'batch=5&interval=1&interval=2'])('refuses a repeated parameter naming it (%s), on SSE and WS', async (query) => {
    const param = query.includes('interval=2') ? 'interval' : 'batch';
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    try {
      const r = await h2get(s, `/sse?${query}`);
      expect(r.status).toBe(400);
      const body = JSON.parse(r.body) as Record<string, string>;
      expect(body).toMatchObject({ error: 'bad-parameter', param });
      expect(body.message).toMatch(new RegExp(`^${param} is given 2 times`));
    } finally {
      s.close();
    }
    const w = await wsRejection(`/ws?${query}`);
    expect(w.status).toBe(400);
    expect(JSON.parse(w.body)).toMatchObject({ error: 'bad-parameter', param });
  });

  it('echoes at most 64 characters of a bad value, with its length', async () => {
    const long = '9'.repeat(5000);
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    try {
      for (const p of [`/sse?batch=${long}`, `/stats?reset=${long}`, `/nowhere/${long}`]) {
        const r = await h2get(s, p);
        expect(r.status, p.slice(0, 20)).toBeGreaterThanOrEqual(400);
        expect(r.body.length, p.slice(0, 20)).toBeLessThan(600);
        expect(r.body, p.slice(0, 20)).toContain('characters)');
        expect(r.body).not.toContain('9'.repeat(65));
      }
    } finally {
      s.close();
    }
  });

  it('answers /ws without an Upgrade header with 426 and a JSON body saying what to do', async () => {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    try {
      const r = await h2get(s, '/ws?batch=10');
      expect(r.status).toBe(426);
      expect(JSON.parse(r.body)).toMatchObject({ error: 'upgrade-required' });
      expect(r.body).toContain('WebSocket');
    } finally {
      s.close();
    }
    const h1 = await new Promise<{ status: number; upgrade: string | undefined; body: string }>((resolve, reject) => {
      https
        .get(`https://${base}/ws?batch=10`, { rejectUnauthorized: false, agent: false }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, upgrade: res.headers.upgrade, body }));
        })
        .on('error', reject);
    });
    expect(h1.status).toBe(426);
    expect(h1.upgrade).toBe('websocket');
    expect(JSON.parse(h1.body)).toMatchObject({ error: 'upgrade-required' });
  });
});

describe('message format', () => {
  it('WS: one JSON document per frame, seq from 0, `batch` rows of 12 columns', async () => {
    const ws = new WebSocket(`wss://${base}/ws?batch=7&interval=2`, { rejectUnauthorized: false });
    const got: BatchMessage[] = [];
    ws.on('message', (data, isBinary) => {
      expect(isBinary).toBe(false);
      got.push(JSON.parse(data.toString()) as BatchMessage);
    });
    await sleep(300);
    ws.close();
    expect(got.length).toBeGreaterThan(50);
    got.forEach((m, i) => {
      expect(m.seq).toBe(i);
      expect(m.rows).toHaveLength(7);
      for (const row of m.rows) expect(row).toHaveLength(12);
      expect(Math.abs(m.sentAt - Date.now())).toBeLessThan(5000);
    });
  });

  // Batch 3 goes out as one copied buffer, batch 40 (over 2 KiB of rows) as three corked writes.
  it.each([3, 40])('SSE over HTTP/2: one event per batch with id = seq (batch %i)', async (batch) => {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    const req = s.request({ ':path': `/sse?batch=${batch}&interval=2` });
    let text = '';
    let headers: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (headers = h));
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    await sleep(300);
    req.close();
    s.close();
    expect(headers[':status']).toBe(200);
    expect(headers['content-type']).toContain('text/event-stream');
    expect(headers.connection).toBeUndefined();
    const events = text.split('\n\n').filter((e) => e.includes('data: '));
    expect(events.length).toBeGreaterThan(50);
    events.slice(0, -1).forEach((e, i) => {
      const id = /^id: (\d+)$/m.exec(e)?.[1];
      const data = /^data: (.*)$/m.exec(e)?.[1];
      const m = JSON.parse(data!) as BatchMessage;
      expect(Number(id)).toBe(i);
      expect(m.seq).toBe(i);
      expect(m.rows).toHaveLength(batch);
    });
  });

  it('SSE continues the sequence after Last-Event-ID', async () => {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    const req = s.request({ ':path': '/sse?batch=1&interval=5', 'last-event-id': '41' });
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    await sleep(100);
    req.close();
    s.close();
    expect(/^id: (\d+)$/m.exec(text)?.[1]).toBe('42');
  });

  /** The first event id an SSE stream sends for this Last-Event-ID header (absent when undefined). */
  async function firstIdAfter(lastEventId: string | undefined): Promise<string | undefined> {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    const headers: http2.OutgoingHttpHeaders = { ':path': '/sse?batch=1&interval=2' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const req = s.request(headers);
    let text = '';
    req.setEncoding('utf8');
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event within 3 s after Last-Event-ID '${lastEventId}'`)), 3000);
        req.on('data', (d: string) => {
          text += d;
          if (/^id: \d+$/m.test(text)) resolve(clearTimeout(timer));
        });
      });
    } finally {
      req.close();
      s.close();
    }
    return /^id: (\d+)$/m.exec(text)?.[1];
  }

  // ' 5' and other non-ASCII or padded values never reach a handler as sent: HTTP strips the
  // whitespace around a field value (RFC 9110 §5.5) and nghttp2 drops invalid ones, so those are
  // checked on resumeSeq itself (test/unit/sse-resume.test.ts).
  it.each(['99999999999999999999', '9007199254740991', '1e3', '0x10', '-1', '', '1.5', '7, 8', '+5'])(
    "SSE starts from 0 after a bad Last-Event-ID '%s', and counts it",
    async (bad) => {
      const before = app.hub.stats().badLastEventIds;
      expect(await firstIdAfter(bad)).toBe('0');
      expect(app.hub.stats().badLastEventIds).toBe(before + 1);
    },
  );

  it('SSE accepts the largest Last-Event-ID whose successor is safe; no header is a first connect, not counted', async () => {
    const before = app.hub.stats().badLastEventIds;
    expect(await firstIdAfter(String(Number.MAX_SAFE_INTEGER - 1))).toBe(String(Number.MAX_SAFE_INTEGER));
    expect(await firstIdAfter('0')).toBe('1');
    expect(await firstIdAfter(undefined)).toBe('0');
    expect(app.hub.stats().badLastEventIds).toBe(before);
  });
});

describe('a client that stops reading', () => {
  it('WS: the server sheds and counts, its queue stays bounded, and the client sees exactly the shed batches as gaps', async () => {
    const ws = new WebSocket(`wss://${base}/ws?batch=400&interval=1`, { rejectUnauthorized: false });
    const seqs: number[] = [];
    ws.on('message', (data) => seqs.push((JSON.parse(data.toString()) as BatchMessage).seq));
    await new Promise((r) => ws.once('open', r));
    await sleep(200);
    ws.pause();
    await sleep(2500);
    const stalled = app.hub
      .stats()
      .connections.filter((c) => c.transport === 'ws')
      .at(-1)!;
    expect(stalled.shed).toBeGreaterThan(100);
    // One batch (~55 KB) may overshoot the bound; nothing more is queued.
    expect(stalled.bufferedBytes).toBeLessThan(SHED_LIMIT + 64 * 1024);
    ws.resume();
    await sleep(1000);
    // Read both sides in the same turn of the event loop, so no batch moves in between.
    const after = app.hub.stats().connections.find((c) => c.id === stalled.id)!;
    const received = [...seqs];
    ws.close();
    let gaps = 0;
    for (let i = 1; i < received.length; i++) gaps += received[i] - received[i - 1] - 1;
    expect(received[0]).toBe(0);
    expect(gaps).toBe(after.shed);
    expect(received.length + gaps).toBe(received.at(-1)! + 1);
    expect(after.bufferedBytes).toBeLessThan(SHED_LIMIT);
  }, 15_000);

  it('SSE over HTTP/2: a paused stream is shed per stream, and the session survives', async () => {
    const s = http2.connect(`https://${base}`, { rejectUnauthorized: false });
    const req = s.request({ ':path': '/sse?batch=400&interval=1' });
    await new Promise((r) => req.once('response', r));
    req.pause();
    await sleep(2000);
    const stalled = app.hub
      .stats()
      .connections.filter((c) => c.transport === 'sse')
      .at(-1)!;
    expect(stalled.http).toBe('h2');
    expect(stalled.shed).toBeGreaterThan(100);
    expect(stalled.bufferedBytes).toBeLessThan(SHED_LIMIT + 64 * 1024);
    // Another stream on the same session still gets its batches.
    const other = s.request({ ':path': '/sse?batch=1&interval=1' });
    let text = '';
    other.setEncoding('utf8');
    other.on('data', (d: string) => (text += d));
    await sleep(300);
    expect(text).toContain('id: 0');
    other.close();
    req.close();
    s.close();
  }, 15_000);
});
