/**
 * `--browser` at something that is not a Chrome DevTools endpoint, each a real server on
 * loopback: a WebSocket that sends text that is not JSON (it crashed the sweep with an
 * uncaught SyntaxError from Puppeteer's transport), JSON that is not CDP, a WebDriver BiDi
 * browser's messages, an HTTP server that refuses the upgrade, and `wss://` / `https://` with a
 * self-signed certificate (said "cannot connect ([object Object])"). Each is PUSHLAB_BAD_BROWSER
 * with the cause in words; the sweep exits 2 with one line and leaves nothing running.
 * The cases run at once (describe.concurrent), each on its own endpoint: most of the file's
 * time is the BiDi case waiting out its 15 s for a session, which the others no longer queue behind.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseBrowserItem } from '../../puppeteer/browser/endpoint.js';
import { notCdpBecause } from '../../puppeteer/browser/cdp-transport.js';
import { RemoteBrowser } from '../../puppeteer/browser/remote.js';
import { leftRunning, startFaultRun } from '../helpers/fault-run.js';
import { nodeCommand } from '../helpers/node-command.js';

const servers: (HttpServer | HttpsServer)[] = [];
const ports: Record<string, number> = {};

/** A WebSocket server on loopback that answers every connection and every message with `reply`. */
async function wsServer(name: string, reply: string, tls?: { key: string; cert: string }): Promise<void> {
  const server = tls ? createHttpsServer(tls) : createHttpServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    socket.send(reply);
    socket.on('message', () => socket.send(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  ports[name] = (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
  await wsServer('junk', 'hello there, not json');
  await wsServer('json', '{"hello":"world"}');
  await wsServer('bidi', JSON.stringify({ type: 'event', method: 'log.entryAdded', params: {} }));
  await wsServer('selfSigned', '{}', { key: pems.private, cert: pems.cert });
  const plain = createHttpServer((_req, res) => res.writeHead(404).end('no'));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  servers.push(plain);
  ports.plain = (plain.address() as AddressInfo).port;
}, 30_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function connectError(url: string): Promise<PushlabError> {
  const err = await RemoteBrowser.connect(parseBrowserItem(url), () => undefined).then(
    (b) => {
      void b.close();
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PushlabError);
  expect((err as PushlabError).code).toBe('PUSHLAB_BAD_BROWSER');
  return err as PushlabError;
}

describe.concurrent('a --browser that is not a DevTools endpoint', () => {
  it('text that is not JSON: refused with what it sent, not an uncaught SyntaxError', async () => {
    const err = await connectError(`ws://127.0.0.1:${ports.junk}/`);
    expect(err.message).toBe(
      `--browser ws://127.0.0.1:${ports.junk}/: cannot connect (not a Chrome DevTools (CDP) endpoint: it sent 'hello there, not json', which is not JSON)`,
    );
  });

  it('JSON that is not CDP, and a WebDriver BiDi endpoint that is no browser, each named', async () => {
    expect((await connectError(`ws://127.0.0.1:${ports.json}/`)).message).toContain(
      `not a Chrome DevTools (CDP) endpoint: it sent '{"hello":"world"}', which is not a CDP message`,
    );
    // A BiDi endpoint is taken for a Firefox (issue 25): this one sends BiDi events but never answers a session.
    expect((await connectError(`ws://127.0.0.1:${ports.bidi}/`)).message).toBe(
      `--browser ws://127.0.0.1:${ports.bidi}/: cannot connect (ws://127.0.0.1:${ports.bidi}/ answered in WebDriver BiDi, so it was taken for a Firefox, and a BiDi session: no answer within 15 s)`,
    );
  }, 30_000);

  it('an HTTP server that does not upgrade: its answer', async () => {
    expect((await connectError(`ws://127.0.0.1:${ports.plain}/`)).message).toContain(
      'cannot connect (it answered HTTP 404 Not Found instead of opening a WebSocket)',
    );
  });

  it('wss:// and https:// with a self-signed certificate: that, and what to do, not [object Object]', async () => {
    const wss = await connectError(`wss://127.0.0.1:${ports.selfSigned}/`);
    expect(wss.message).toContain('its TLS certificate is not trusted here (self-signed certificate, DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(wss.message).toContain('NODE_EXTRA_CA_CERTS');
    const https = await connectError(`https://127.0.0.1:${ports.selfSigned}/`);
    expect(https.message).toContain(
      `no DevTools answer from https://127.0.0.1:${ports.selfSigned}/json/version (its TLS certificate is not trusted here (self-signed certificate, DEPTH_ZERO_SELF_SIGNED_CERT)`,
    );
  });

  it('CDP messages pass: responses, errors and events', () => {
    expect(notCdpBecause('{"id":1,"result":{}}')).toBeNull();
    expect(notCdpBecause('{"id":2,"error":{"code":-32601,"message":"no"}}')).toBeNull();
    expect(notCdpBecause('{"method":"Target.targetCreated","params":{}}')).toBeNull();
    expect(notCdpBecause('[1]')).toMatch(/not a CDP message/);
  });

  it('the sweep: exit 2, one line, nothing left running', async () => {
    const r = startFaultRun([
      ...nodeCommand('puppeteer/sweep/main.ts'),
      '--scenario',
      'smoke',
      '--repeats',
      '1',
      '--out',
      '{dir}',
      '--browser',
      `ws://127.0.0.1:${ports.junk}/`,
    ]);
    try {
      const { code } = await r.exit;
      expect(code, r.output()).toBe(EXIT.badInput);
      const lines = r.output().trimEnd().split('\n');
      expect(lines.at(-1)).toBe(
        `pushlab sweep: PUSHLAB_BAD_BROWSER: --browser ws://127.0.0.1:${ports.junk}/: cannot connect (not a Chrome DevTools (CDP) endpoint: it sent 'hello there, not json', which is not JSON)`,
      );
      expect(r.output()).not.toMatch(/SyntaxError|\n\s+at /);
      expect(await leftRunning(r.dir, 15_000)).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 60_000);
});
