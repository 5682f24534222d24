/**
 * Dead peers: a client that stops answering heartbeats is dropped, which frees its stream;
 * one that answers stays, however little it reads. (HTTP/2 sessions get the same PING
 * heartbeat; Node's client cannot be told not to answer, so bench:server is its evidence.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildServer, type PushlabServer } from '../server/app.js';
import { loadOrCreateCert } from '../server/cert.js';

let app: PushlabServer;
let base: string;
let certDir: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  certDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-cert-'));
  app = await buildServer({ tls: await loadOrCreateCert(certDir), heartbeat: { everyMs: 100, deadlineMs: 400 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  base = `wss://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await rm(certDir, { recursive: true, force: true });
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
