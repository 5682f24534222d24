/**
 * bench:page's plain reference server (bench/plain-server.ts) sends what pushlab's server sends,
 * message for message: the same head, the same rows for each seq, one WebSocket text frame or
 * one SSE event (id = seq) per batch. The server part of bench:page is bare page on pushlab ÷
 * bare page on the plain server; it compares only how the bytes are written if the page parses
 * the same text from both. Real server process, real TLS, Node clients.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BatchMessage } from '../../protocol/wire.js';
import { startServer, type ServerHandle } from '../../puppeteer/measure/server-process.js';
import { RowPool } from '../../server/rows.js';
import { h2get } from '../helpers/h2-get.js';

const BATCH = 3;
let plain: ServerHandle;
/** The rows pushlab sends for batch `seq`: the same pool, epoch by epoch (the speed column walks). */
const pool = new RowPool();
const rowsOf = (seq: number, epochMs: number) => {
  pool.useEpochAt(epochMs);
  return JSON.parse(`[${pool.rowsText(seq, BATCH)}]`) as unknown;
};

beforeAll(async () => {
  plain = await startServer([], 30_000, [], 'bench/plain-server.ts');
}, 60_000);

afterAll(async () => {
  await plain?.stop();
});

/** Checks a run of messages: seq from 0 on, pushlab's rows for each (the epoch is the second of its sentAt). */
function expectPushlabMessages(messages: BatchMessage[]): void {
  expect(messages.map((m) => m.seq)).toEqual(messages.map((_, i) => i));
  for (const m of messages) {
    expect(Object.keys(m)).toEqual(['seq', 'sentAt', 'dueAt', 'rows']);
    // Written when due or later: event age counts from dueAt, transit from sentAt.
    expect(m.dueAt).toBeLessThanOrEqual(m.sentAt + 0.001);
    expect(m.rows).toEqual(rowsOf(m.seq, m.sentAt));
  }
}

describe('plain reference server', () => {
  it('sends one WebSocket text frame per batch, with pushlab message text', async () => {
    const ws = new WebSocket(`${plain.url.replace('https:', 'wss:')}ws?batch=${BATCH}&interval=1`, { rejectUnauthorized: false });
    const frames: { text: string; binary: boolean }[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data, binary) => {
        frames.push({ text: String(data), binary });
        if (frames.length === 20) resolve();
      });
      ws.on('error', reject);
    });
    ws.terminate();
    // A binary frame would reach the page as an ArrayBuffer, which the bare page does not count.
    expect(frames.every((f) => !f.binary)).toBe(true);
    expectPushlabMessages(frames.map((f) => JSON.parse(f.text) as BatchMessage));
  });

  it('sends one SSE event per batch over HTTP/2, id = seq, with pushlab message text', async () => {
    const session = http2.connect(plain.url, { rejectUnauthorized: false });
    try {
      const req = session.request({ ':path': `/sse?batch=${BATCH}&interval=1` });
      req.setEncoding('utf8');
      let text = '';
      await new Promise<void>((resolve, reject) => {
        req.on('data', (d: string) => {
          text += d;
          if (text.split('\n\n').length > 21) resolve();
        });
        req.on('error', reject);
      });
      req.close();
      const events = text
        .split('\n\n')
        .slice(0, 20)
        .filter((e) => e.includes('data:'));
      const parsed = events.map((e) => Object.fromEntries(e.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)])));
      const messages = parsed.map((e) => JSON.parse(e.data) as BatchMessage);
      expect(parsed.map((e) => Number(e.id))).toEqual(messages.map((m) => m.seq));
      expectPushlabMessages(messages);
      // The driver reads the figures it needs from /stats, as from pushlab's.
      const stats = JSON.parse((await h2get(session, '/stats')).body) as { batchesSent: number; sendBufferLimitBytes: number };
      expect(stats.batchesSent).toBeGreaterThanOrEqual(20);
      expect(stats.sendBufferLimitBytes).toBe(1024 * 1024);
      // Its query is checked as pushlab's is, and what it does not do is refused, not ignored.
      for (const bad of ['batch=0', 'batch=5&interval=x', 'batch=5&compression=gzip']) {
        const answer = await h2get(session, `/sse?${bad}`);
        expect(answer.status, bad).toBe(400);
        expect(JSON.parse(answer.body), bad).toMatchObject({ error: 'bad-parameter' });
      }
    } finally {
      session.close();
    }
  });
});
