/**
 * A browser someone else runs (`--browser`): browserless, a Selenium Grid 4 session's CDP
 * endpoint, or any Chrome started with `--remote-debugging-port`; or a Firefox started with
 * `--remote-debugging-port`, whose `ws://host:port/session` speaks WebDriver BiDi. The sweep
 * tries CDP first; an endpoint that answers in BiDi is a Firefox, driven over BiDi, with no
 * CPU figures (no CDP, and its /proc is not this machine's). The sweep connects instead of launching, measures in a browser context of its own (the browser's other
 * tabs are not ours to touch, and a new context is a new connection pool to the server), and
 * disconnects at the end, leaving the browser running.
 *
 * `relaunch()` cannot start a remote browser again: when the connection is up it opens a new
 * context (a fresh HTTP/2 connection to the server, what a relaunch gives a local Chrome); when
 * the browser disconnected it reconnects once; if that fails the browser is lost (BrowserLost),
 * and the runner deals its remaining repeats to the other browsers.
 */
import puppeteer, { type Browser, type BrowserContext, type CDPSession, type Page } from 'puppeteer-core';
import { PushlabError } from '../../protocol/errors.js';
import type { Engine } from '../../protocol/engine.js';
import { resolveEndpoint, safeUrl, type BrowserEndpoint } from './endpoint.js';
import { CdpTransport } from './cdp-transport.js';
import { MEASURED_VIEWPORT } from './chrome.js';
import { BrowserLost, type BrowserSlot } from './slot.js';

/** How long connecting (and reconnecting) may take, ms. */
export const CONNECT_TIMEOUT_MS = 15_000;

interface Connection {
  browser: Browser;
  context: BrowserContext | null;
  /** Null for a Firefox (BiDi). */
  cdp: CDPSession | null;
  engine: Engine;
}

/** A Firefox's BiDi endpoint, once CDP was refused in BiDi's words. */
async function connectBidi(ws: string): Promise<Connection> {
  // Our transport, so that a session that never comes can be closed rather than left open.
  const transport = await CdpTransport.open(ws, CONNECT_TIMEOUT_MS, false);
  const browser = await withTimeout(
    puppeteer.connect({ transport, protocol: 'webDriverBiDi', acceptInsecureCerts: true, defaultViewport: MEASURED_VIEWPORT, protocolTimeout: 120_000 }),
    CONNECT_TIMEOUT_MS,
    `${safeUrl(ws)} answered in WebDriver BiDi, so it was taken for a Firefox, and a BiDi session`,
  ).catch((err: unknown) => {
    transport.close();
    throw err;
  });
  try {
    const context = await browser.createBrowserContext().catch(() => null);
    return { browser, context, cdp: null, engine: 'firefox' };
  } catch (err) {
    await browser.disconnect().catch(() => undefined);
    throw err;
  }
}

async function connect(endpoint: BrowserEndpoint): Promise<Connection> {
  const ws = await resolveEndpoint(endpoint, CONNECT_TIMEOUT_MS);
  // Our transport: it refuses what is not CDP with a reason, where Puppeteer's would throw (cdp-transport.ts).
  const transport = await CdpTransport.open(ws, CONNECT_TIMEOUT_MS);
  const browser = await withTimeout(
    puppeteer.connect({
      transport,
      // As for a launched Chrome: Puppeteer's Network domain would ship every frame and event
      // to this driver (it halved EPS); the server's certificate is self-signed, which the
      // remote Chrome accepts through Security.setIgnoreCertificateErrors.
      networkEnabled: false,
      acceptInsecureCerts: true,
      defaultViewport: MEASURED_VIEWPORT,
      protocolTimeout: 120_000,
    }),
    CONNECT_TIMEOUT_MS,
    `connecting to ${safeUrl(ws)}`,
  )
    .catch((err: unknown) => {
      transport.close();
      // The endpoint answered, but not in CDP: that, rather than the closed connection it caused.
      throw transport.problem !== null ? new Error(transport.problem) : err;
    })
    .catch((err: unknown) => {
      // A browser that answered in WebDriver BiDi is a Firefox: connected to again, over BiDi.
      if (transport.speaksBidi) return null;
      throw err;
    });
  if (browser === null) return connectBidi(ws);
  try {
    // A context of our own; a CDP proxy that refuses to make one leaves the default context.
    const context = await browser.createBrowserContext().catch(() => null);
    return { browser, context, cdp: await browser.target().createCDPSession(), engine: 'chrome' };
  } catch (err) {
    await browser.disconnect().catch(() => undefined);
    throw err;
  }
}

export class RemoteBrowser implements BrowserSlot {
  private lostError: string | null = null;

  private constructor(
    readonly endpoint: BrowserEndpoint,
    private c: Connection,
    private readonly log: (line: string) => void,
  ) {}

  /** Connects, or fails with PUSHLAB_BAD_BROWSER naming the endpoint and why. */
  static async connect(endpoint: BrowserEndpoint, log: (line: string) => void): Promise<RemoteBrowser> {
    try {
      return new RemoteBrowser(endpoint, await connect(endpoint), log);
    } catch (err) {
      if (err instanceof PushlabError) throw err;
      throw new PushlabError('PUSHLAB_BAD_BROWSER', `--browser ${endpoint.given}: cannot connect (${reason(err)})`);
    }
  }

  browser(): Browser {
    return this.c.browser;
  }

  session(): CDPSession | null {
    return this.c.cdp;
  }

  /** A remote endpoint that speaks CDP is Chrome; one that speaks WebDriver BiDi is Firefox. */
  get engine(): Engine {
    return this.c.engine;
  }

  newPage(): Promise<Page> {
    return (this.c.context ?? this.c.browser).newPage();
  }

  /** Lost for good: disconnected and not reachable again. */
  get lost(): string | null {
    return this.lostError;
  }

  async relaunch(): Promise<void> {
    if (this.lostError !== null) throw new BrowserLost(this.lostError);
    if (this.c.browser.connected) {
      this.log(`${this.endpoint.given}: a new browser context, for a new connection to the server`);
      await this.c.context?.close().catch(() => undefined);
      this.c.context = await this.c.browser.createBrowserContext().catch(() => null);
      return;
    }
    this.log(`${this.endpoint.given}: disconnected; reconnecting once`);
    try {
      this.c = await connect(this.endpoint);
    } catch (err) {
      this.lostError = `reconnecting to ${this.endpoint.given} failed: ${reason(err)}`;
      throw new BrowserLost(this.lostError);
    }
  }

  /** Closes our context and disconnects; the browser itself keeps running (it is not ours). */
  async close(): Promise<void> {
    if (!this.c.browser.connected) return;
    await withTimeout(this.c.context?.close() ?? Promise.resolve(), 5000, 'closing the context').catch(() => undefined);
    await this.c.browser.disconnect().catch(() => undefined);
  }
}

function reason(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  // Not only Errors are thrown: a bare event object printed as "[object Object]".
  const text = typeof message === 'string' ? message : String(err);
  // Error texts may quote the URL they failed on: keep tokens out of logs and reports.
  return text.replace(/(wss?|https?):\/\/[^\s'"]+/g, (u) => {
    try {
      return safeUrl(u);
    } catch {
      return u;
    }
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
