/**
 * Dead peers: a client that stops answering heartbeats is dropped, which frees its stream;
 * one that answers stays, however little it reads. (HTTP/2 sessions get the same PING
 * heartbeat; Node's client cannot be told not to answer, so bench:server is its evidence.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { PushlabServer } from '../../server/app.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let app: PushlabServer;
let base: string;
let server: TestServer;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startTestServer({ heartbeat: { everyMs: 100, deadlineMs: 400 } });
  app = server.app;
  base = `wss://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
});

describe('heartbeat', () => {
  it('drops a WebSocket peer that stops answering pings, and frees its stream', async () => {
    const before = app.hub.stats().deadPeersDropped;
    const mute = new WebSocket(`${base}/ws?batch=1&interval=10`, { rejectUnauthorized: false, autoPong: false });
    const closed = new Promise<number>((resolve) => mute.once('close', (code) => resolve(code)));
    await new Promise((r) => mute.once('open', r));
    expect(app.hub.openCount).toBe(1);
    expect(await closed).toBe(1006); // terminated, no closing handshake
    await sleep(50);
    expect(app.hub.openCount).toBe(0);
    expect(app.hub.stats().deadPeersDropped).toBe(before + 1);
  });

  it('keeps a peer that answers pings', async () => {
    const live = new WebSocket(`${base}/ws?batch=1&interval=10`, { rejectUnauthorized: false });
    await new Promise((r) => live.once('open', r));
    await sleep(1000);
    expect(live.readyState).toBe(WebSocket.OPEN);
    expect(app.hub.openCount).toBe(1);
    live.close();
  });
});
