/**
 * The real server on one loopback port that a test can take away and bring back on that same
 * port mid-stream (its pages then reconnect to it), beside a real headless Chromium. Registers
 * its own beforeAll and afterAll. Not a test file itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { buildServer, type PushlabServer } from '../../server/app.js';
import { loadOrCreateCert, type TlsFiles } from '../../server/cert.js';
import { ROOT } from './sweep-process.js';

export interface RestartableLab {
  /** The server now (a new one after each `restart`). */
  readonly server: PushlabServer;
  readonly browser: Browser;
  /** The lab page's URL on the server's port, which `restart` keeps. */
  readonly url: string;
  /** Closes the server, waits `downMs`, and listens again on the same port. */
  restart(downMs: number): Promise<void>;
}

export function restartableLab(): RestartableLab {
  let certDir = '';
  let tls: TlsFiles;
  let server: PushlabServer | undefined;
  let browser: Browser | undefined;
  let port = 0;

  const listen = async (): Promise<PushlabServer> => {
    const s = await buildServer({ tls, webRoot: path.join(ROOT, 'dist/web') });
    await s.listen({ host: '127.0.0.1', port });
    const addr = s.server.address();
    port = typeof addr === 'object' && addr ? addr.port : port;
    return s;
  };

  beforeAll(async () => {
    certDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-cert-'));
    tls = await loadOrCreateCert(certDir);
    server = await listen();
    browser = (await launchChrome({ headless: true })).browser;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (certDir) await rm(certDir, { recursive: true, force: true });
  });

  return {
    get server() {
      return server!;
    },
    get browser() {
      return browser!;
    },
    get url() {
      return `https://127.0.0.1:${port}/`;
    },
    async restart(downMs) {
      await server!.close();
      server = undefined;
      await new Promise((r) => setTimeout(r, downMs));
      server = await listen();
    },
  };
}
