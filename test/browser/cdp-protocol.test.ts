/**
 * What Chrome itself says it negotiated, read over CDP (the Network domain, as DevTools shows
 * it), for every transport, next to what the server saw (`/stats`, which the sweep records and
 * e2e-transports checks). The two are independent: the server sees the socket and ALPN, CDP
 * sees Chrome's own request. A WebSocket has no response `protocol` in CDP; its handshake
 * status tells the two apart instead: 101 Switching Protocols for an HTTP/1.1 upgrade, 200 for
 * an HTTP/2 extended CONNECT (RFC 8441 §5).
 */
import path from 'node:path';
import type { Browser, CDPSession } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { ROOT } from '../helpers/sweep-process.js';
import { startServerSession, type ServerSession } from '../helpers/test-server.js';

/** What CDP reported for the page's stream requests. */
interface Seen {
  /** `response.protocol` of each HTTP response on the transport's path (`h2`, `http/1.1`). */
  protocols: string[];
  /** Handshake status of each WebSocket. */
  handshakes: number[];
}

let running: ServerSession;
let browser: Browser;

beforeAll(async () => {
  // The built lab page (`npm test` builds it first), as `npm run server` serves it.
  running = await startServerSession({ webRoot: path.join(ROOT, 'dist/web') });
  browser = (await launchChrome({ headless: true, handleSignals: false })).browser;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
});

/** Opens the lab page on `transport` with 2 connections, lets it receive, and returns what CDP saw. */
async function watch(transport: Transport): Promise<Seen> {
  const page = await browser.newPage();
  const cdp: CDPSession = await page.createCDPSession();
  const seen: Seen = { protocols: [], handshakes: [] };
  const path = TRANSPORT_INFO[transport].path;
  cdp.on('Network.responseReceived', (e: { response: { url: string; protocol?: string } }) => {
    if (new URL(e.response.url).pathname === path) seen.protocols.push(e.response.protocol ?? '?');
  });
  cdp.on('Network.webSocketHandshakeResponseReceived', (e: { response: { status: number } }) => seen.handshakes.push(e.response.status));
  await cdp.send('Network.enable');
  try {
    await page.goto(`https://127.0.0.1:${running.server.port}/`, { waitUntil: 'load' });
    await page.waitForFunction('typeof globalThis.pushlab === "object"', { timeout: 30_000 });
    await page.evaluate(`pushlab.start({ transport: ${JSON.stringify(transport)}, batch: 5, intervalMs: 1, concurrency: 2, render: 'none', pollMs: 20 })`);
    // Bounded: the page counts 200 events within 20 s, or the test fails here.
    await page.waitForFunction('pushlab.snapshot().then((s) => s.counters.events >= 200)', { timeout: 20_000, polling: 100 });
    await page.evaluate('pushlab.stop()');
  } finally {
    await page.close();
  }
  return seen;
}

describe('the protocol Chrome negotiated, from CDP', () => {
  it.each(TRANSPORTS.map((t) => [t]))(
    '%s',
    async (t) => {
      const seen = await watch(t);
      const route = TRANSPORT_INFO[t];
      if (route.carriage === 'frames') {
        expect(seen.handshakes, t).toEqual(route.http === 'h2' ? [200, 200] : [101, 101]);
      } else {
        // poll makes a request every pollMs: many responses, every one on the expected protocol.
        expect(seen.protocols.length, t).toBeGreaterThanOrEqual(2);
        expect(new Set(seen.protocols), t).toEqual(new Set([route.http === 'h2' ? 'h2' : 'http/1.1']));
      }
    },
    60_000,
  );
});
