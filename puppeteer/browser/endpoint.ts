/**
 * `--browser`: where running browsers are, as the services that run them hand them out.
 * Each item is `[label=]url`:
 * - `ws://…` / `wss://…`: a CDP browser endpoint as is: Puppeteer's `browserWSEndpoint`
 *   (browserless, `chrome --remote-debugging-port`'s `webSocketDebuggerUrl`), or a Selenium
 *   Grid 4 session's `se:cdp` capability (`ws://grid:4444/session/<id>/se/cdp`);
 * - `http://host:port` / `https://…`: a DevTools HTTP endpoint, resolved through `/json/version`.
 * The label names the browser's machine in the report (and tells browsers apart when a
 * tunnel makes far hosts look local); `name@machine=url` names the browser and its machine
 * apart, for two browsers on one far machine. Nothing here connects except `resolveEndpoint`.
 */
import { isIP } from 'node:net';
import os from 'node:os';
import { PushlabError } from '../../protocol/errors.js';

export interface BrowserEndpoint {
  /** As given on the command line, for messages (credentials removed). */
  given: string;
  /** The label before `=` (its name, without any `@machine`), or null. */
  label: string | null;
  /** The machine named after `@` in the label (`name@machine=url`), or null. */
  machine: string | null;
  /** The URL with any credentials and query: what is connected to. */
  url: URL;
  kind: 'ws' | 'http';
  /** A `--grid` session's node (puppeteer/browser/grid.ts): the machine the browser runs on; absent otherwise. */
  gridNode?: { id: string; uri: string } | null;
}

const bad = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);

/** A label: letters, digits, `.`, `_`, `-`, at most 64 (it becomes a report id). */
const LABEL = /^[A-Za-z0-9][\w.-]{0,63}$/;

/**
 * The URL as it may be written down: no user or password, no query (browserless takes its
 * token there), no fragment. Tokens in a report or a log are tokens leaked.
 */
export function safeUrl(url: URL | string): string {
  const u = new URL(url.toString());
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.href;
}

/** Parses one `--browser` item; the error names the flag, the value and what is allowed. */
export function parseBrowserItem(item: string): BrowserEndpoint {
  const eq = item.indexOf('=');
  // A label comes before the scheme: `desk=ws://…`. An `=` after `://` is the URL's (a query).
  const hasLabel = eq > 0 && eq < item.indexOf('://');
  const fullLabel = hasLabel ? item.slice(0, eq) : null;
  const rest = hasLabel ? item.slice(eq + 1) : item;
  const at = fullLabel?.indexOf('@') ?? -1;
  const label = fullLabel !== null && at >= 0 ? fullLabel.slice(0, at) : fullLabel;
  const machine = fullLabel !== null && at >= 0 ? fullLabel.slice(at + 1) : null;
  let url: URL;
  try {
    url = new URL(rest);
  } catch {
    throw bad(
      `--browser takes [label=]url items, each a ws://, wss://, http:// or https:// URL of a running browser's DevTools endpoint; got '${redact(item)}'`,
    );
  }
  for (const part of [label, machine]) {
    if (part !== null && !LABEL.test(part)) {
      throw bad(
        `--browser label must be name=url or name@machine=url, each letters, digits, '.', '_' or '-' (at most 64, starting with a letter or digit); got '${fullLabel}'`,
      );
    }
  }
  const kind = url.protocol === 'ws:' || url.protocol === 'wss:' ? 'ws' : url.protocol === 'http:' || url.protocol === 'https:' ? 'http' : null;
  if (!kind) throw bad(`--browser URL must be ws://, wss://, http:// or https:// (a DevTools endpoint); got '${redact(rest)}'`);
  return { given: `${fullLabel ? `${fullLabel}=` : ''}${safeUrl(url)}`, label, machine, url, kind };
}

/** Every `--browser` item, with labels unique. */
export function parseBrowserList(items: readonly string[]): BrowserEndpoint[] {
  const out = items.map(parseBrowserItem);
  const seen = new Set<string>();
  for (const e of out) {
    const key = e.label ?? `${e.url.href}`;
    if (seen.has(key)) throw bad(`--browser names ${e.label ? `label '${e.label}'` : `'${safeUrl(e.url)}'`} twice; each browser once`);
    seen.add(key);
  }
  return out;
}

/** An item for an error message, without what looks like a secret. */
function redact(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/g, '//…@').replace(/\?\S*/g, '?…');
}

/**
 * Why connecting to a browser endpoint failed, in words: nothing listening, no such host, a
 * certificate this machine does not trust (with what to do), TLS spoken to a plain port. The
 * socket's error, or the one fetch() wraps in `cause`; URLs in it lose their credentials.
 */
export function connectFailureText(err: unknown): string {
  const outer = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const inner = outer?.cause && typeof outer.cause === 'object' ? (outer.cause as { code?: unknown; message?: unknown }) : outer;
  const code = typeof inner?.code === 'string' ? inner.code : undefined;
  const raw = typeof inner?.message === 'string' && inner.message ? inner.message : String(err);
  // OpenSSL's text spans lines and names its source file; its reason is the part people read.
  const message = (/SSL routines:[^:]*:([^:]+)/.exec(raw)?.[1] ?? raw).replace(/\s+/g, ' ').trim();
  if (code === 'ECONNREFUSED') return 'nothing is listening there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `no such host (${code})`;
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) {
    return `its TLS certificate is not trusted here (${message}, ${code}): give the endpoint a certificate this machine trusts, or name its CA in NODE_EXTRA_CA_CERTS`;
  }
  if (code === 'EPROTO' || code?.startsWith('ERR_SSL_')) return `TLS failed (${redact(message)}): is it a plain ws:// or http:// endpoint?`;
  return redact(code && !message.includes(code) ? `${message} (${code})` : message);
}

/** Whether a host name is loopback or an address of this machine's own interfaces. */
export function isThisMachine(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4 && h.startsWith('127.')) return true;
  if (h === '::1') return true;
  if (h === os.hostname().toLowerCase()) return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((a) => a.address.toLowerCase() === h));
}

/** The machine a URL points at, as the report names it: `localhost` for this machine. */
export function machineOf(url: URL): string {
  return isThisMachine(url.hostname) ? 'localhost' : url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * The WebSocket to connect to. A ws URL is used as given. An http URL is resolved through
 * `/json/version`, whose `webSocketDebuggerUrl` names the host and port as Chrome sees itself
 * (`ws://127.0.0.1:9222/…`): behind a tunnel or a proxy that address is not the one reachable
 * from here, so the host and port are taken from the URL given and only the path from Chrome.
 */
export async function resolveEndpoint(e: BrowserEndpoint, timeoutMs = 10_000): Promise<string> {
  if (e.kind === 'ws') return e.url.href;
  const versionUrl = new URL('/json/version', e.url);
  versionUrl.search = e.url.search;
  // fetch() refuses a URL with credentials: they travel as Basic authorization instead.
  versionUrl.username = '';
  versionUrl.password = '';
  const headers: Record<string, string> = {};
  if (e.url.username || e.url.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(e.url.username)}:${decodeURIComponent(e.url.password)}`).toString('base64')}`;
  }
  let body: unknown;
  try {
    const res = await fetch(versionUrl, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    throw new PushlabError('PUSHLAB_BAD_BROWSER', `--browser ${e.given}: no DevTools answer from ${safeUrl(versionUrl)} (${connectFailureText(err)})`);
  }
  const ws = (body as { webSocketDebuggerUrl?: unknown } | null)?.webSocketDebuggerUrl;
  if (typeof ws !== 'string')
    throw new PushlabError(
      'PUSHLAB_BAD_BROWSER',
      `--browser ${e.given}: ${safeUrl(versionUrl)} answered without a webSocketDebuggerUrl; is it a Chrome DevTools endpoint?`,
    );
  const out = new URL(ws);
  out.protocol = e.url.protocol === 'https:' ? 'wss:' : 'ws:';
  out.host = e.url.host;
  // The credentials and token given reach the WebSocket too (ws sends them as Basic authorization).
  out.username = e.url.username;
  out.password = e.url.password;
  out.search = e.url.search;
  return out.href;
}
