/**
 * `--grid <url> --grid-sessions N`: pushlab asks a Selenium Grid 4 for N Chrome sessions
 * (WebDriver new session, with pushlab's launch flags), and shards the sweep over their CDP
 * endpoints (`se:cdp`) exactly as over `--browser` endpoints. The sessions are pushlab's: it
 * ends them (DELETE) on every way out, a normal end, an error, a first or second signal.
 *
 * A session's machine is the Grid node that runs it, read from the Grid's `/status` (each
 * slot names the session it holds and its node's URI), not the host of `se:cdp`, which is
 * the hub's: two sessions on one node compete for its CPU, two on two nodes do not.
 *
 * The Grid ends a session no WebDriver command touched for its `--session-timeout` (300 s by
 * default), and CDP traffic through `se:cdp` does not count: a keep-alive command goes to
 * every session each KEEPALIVE_MS. That timeout is also what ends sessions of a driver killed
 * with SIGKILL, which runs no handler.
 */
import { spawn } from 'node:child_process';
import { PushlabError } from '../../protocol/errors.js';
import { CHROME_ARGS } from './chrome.js';
import { connectFailureText, machineOf, parseBrowserItem, safeUrl, type BrowserEndpoint } from './endpoint.js';

/** How long the Grid may take to start a session (it queues what it cannot serve yet), ms. */
export const GRID_SESSION_TIMEOUT_MS = 60_000;
/** How long a status or delete request may take, ms. */
const GRID_REQUEST_TIMEOUT_MS = 10_000;
/** Well under the Grid's default 300 s session timeout. */
const KEEPALIVE_MS = 60_000;

/** One session pushlab opened. */
export interface GridSession {
  id: string;
}

const gridError = (message: string) => new PushlabError('PUSHLAB_BAD_GRID', message);

/** Checks `--grid`: an http(s) URL of a Grid (hub or standalone). */
export function parseGridUrl(raw: string): URL {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // said below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new PushlabError('PUSHLAB_BAD_FLAG', `--grid takes the http:// or https:// URL of a Selenium Grid 4 (hub or standalone, e.g. http://grid:4444); got '${raw.replace(/\/\/[^/@\s]*@/g, '//…@')}'`);
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * The new-session request: Chrome with the flags every pushlab launch gets (CHROME_ARGS),
 * headless, and the server's self-signed certificate accepted. `binary` only when given
 * (`--grid-binary`): a Grid node knows where its own Chrome is, unless it is a Chromium in a
 * place chromedriver does not look, as Debian's `/usr/bin/chromium` is.
 */
export function newSessionBody(binary: string | null): unknown {
  return {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        acceptInsecureCerts: true,
        'goog:chromeOptions': { args: [...CHROME_ARGS, '--headless=new'], ...(binary ? { binary } : {}) },
      },
    },
  };
}

/** A label part from a host name: what the report's browser ids allow (letters, digits, `.`, `_`, `-`). */
function labelPart(text: string): string {
  const s = text.replace(/[^\w.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (s || 'node').slice(0, 64);
}

/** The sessions pushlab opened on one Grid, and their ends. */
export class GridSessions {
  readonly sessions: GridSession[] = [];
  private keepalive: NodeJS.Timeout | null = null;

  constructor(
    readonly grid: URL,
    private readonly log: (line: string) => void,
  ) {}

  /** The Grid URL as it may be written down (no credentials or query). */
  get given(): string {
    return safeUrl(this.grid);
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (this.grid.username || this.grid.password) {
      h.authorization = `Basic ${Buffer.from(`${decodeURIComponent(this.grid.username)}:${decodeURIComponent(this.grid.password)}`).toString('base64')}`;
    }
    return h;
  }

  /** A URL under the Grid's, without credentials (fetch refuses them; they go as a header). */
  private at(pathname: string): URL {
    const u = new URL(pathname, this.grid);
    u.username = '';
    u.password = '';
    u.search = this.grid.search;
    return u;
  }

  /** One request to the Grid; its JSON `value`, or a coded error with the Grid's own message. */
  private async request(method: string, pathname: string, what: string, timeoutMs: number, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.at(pathname), { method, headers: this.headers(), body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const name = (err as { name?: unknown } | null)?.name;
      if (name === 'TimeoutError') {
        throw gridError(`--grid ${this.given}: ${what}: no answer within ${timeoutMs / 1000} s${method === 'POST' ? ' (a Grid queues a request it has no free slot for: are its Chrome slots busy, or does no node offer Chrome?)' : ''}`);
      }
      throw gridError(`--grid ${this.given}: ${what}: ${connectFailureText(err)}`);
    }
    const text = await res.text().catch(() => '');
    let value: unknown;
    try {
      value = (JSON.parse(text) as { value?: unknown }).value;
    } catch {
      throw gridError(`--grid ${this.given}: ${what}: HTTP ${res.status}, not a WebDriver answer (${JSON.stringify(text.slice(0, 120))}): is it a Selenium Grid 4?`);
    }
    if (!res.ok) {
      const v = value as { error?: unknown; message?: unknown } | null;
      const message = typeof v?.message === 'string' ? v.message.split('\n')[0] : text.slice(0, 200);
      throw gridError(`--grid ${this.given}: ${what}: the Grid refused (HTTP ${res.status}${typeof v?.error === 'string' ? `, ${v.error}` : ''}): ${message}`);
    }
    return value;
  }

  /** The Grid's nodes as `/status` lists them. */
  private async status(): Promise<GridStatus> {
    const v = (await this.request('GET', 'status', 'reading /status', GRID_REQUEST_TIMEOUT_MS)) as Partial<GridStatus> | null;
    if (!v || typeof v.ready !== 'boolean' || !Array.isArray(v.nodes)) throw gridError(`--grid ${this.given}: /status is not a Selenium Grid 4 status (no ready, no nodes)`);
    return v as GridStatus;
  }

  /**
   * Opens `n` Chrome sessions side by side; each one opened lands in `sessions` at once, so a
   * failure of another still leaves it to be deleted. Refuses before asking when the Grid is
   * not ready or has fewer free Chrome slots than `n` (it would queue the request).
   */
  async open(n: number, binary: string | null): Promise<BrowserEndpoint[]> {
    const before = await this.status();
    if (!before.ready) throw gridError(`--grid ${this.given}: the Grid is not ready: ${before.message ?? 'no message'}`);
    const free = freeChromeSlots(before);
    if (free < n) {
      throw gridError(`--grid ${this.given}: no free slot: --grid-sessions ${n} asks for ${n} Chrome session(s), the Grid has ${free} free Chrome slot(s) (${before.message ?? 'no message'})`);
    }
    const settled = await Promise.allSettled(
      Array.from({ length: n }, async () => {
        const v = (await this.request('POST', 'session', 'new Chrome session', GRID_SESSION_TIMEOUT_MS, newSessionBody(binary))) as { sessionId?: unknown; capabilities?: Record<string, unknown> } | null;
        const id = typeof v?.sessionId === 'string' ? v.sessionId : null;
        if (id === null) throw gridError(`--grid ${this.given}: new Chrome session: the answer has no sessionId`);
        const cdp = v?.capabilities?.['se:cdp'];
        // Recorded before anything else can fail: from here on it is ours to delete.
        this.sessions.push({ id });
        if (typeof cdp !== 'string') throw gridError(`--grid ${this.given}: session ${id} has no se:cdp capability (is CDP off on this Grid, or is the browser not Chrome?)`);
        return { id, cdp };
      }),
    );
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const opened = settled.map((r) => (r as PromiseFulfilledResult<{ id: string; cdp: string }>).value);
    const after = await this.status();
    const endpoints = opened.map(({ id, cdp }, i) => {
      const node = nodeOf(after, id);
      if (!node) this.log(`--grid: session ${id} is not in the Grid's /status: its machine is taken to be the Grid's`);
      const machine = labelPart(node ? machineOf(new URL(node.uri)) : machineOf(this.grid));
      const e = parseBrowserItem(`grid-${i + 1}@${machine}=${this.cdpUrl(cdp)}`);
      return { ...e, gridNode: node };
    });
    this.keepalive = setInterval(() => void this.touch(), KEEPALIVE_MS);
    this.keepalive.unref();
    return endpoints;
  }

  /** `se:cdp` names the hub as it sees itself; the host, port and credentials given are kept (tunnels, proxies), the path is the Grid's. */
  private cdpUrl(cdp: string): string {
    const out = new URL(cdp);
    out.protocol = this.grid.protocol === 'https:' ? 'wss:' : 'ws:';
    out.host = this.grid.host;
    out.username = this.grid.username;
    out.password = this.grid.password;
    return out.href;
  }

  /** A WebDriver command to each session, so the Grid does not end it for idleness. */
  private async touch(): Promise<void> {
    await Promise.all(this.sessions.map((s) => this.request('GET', `session/${encodeURIComponent(s.id)}/timeouts`, 'keep-alive', GRID_REQUEST_TIMEOUT_MS).catch(() => undefined)));
  }

  /**
   * Deletes every session (a failure is logged: the Grid's session timeout ends it later). Each
   * stays listed until the Grid answered, so a second signal meanwhile (closeDetached) deletes
   * it again rather than lose it with this process.
   */
  async close(): Promise<void> {
    if (this.keepalive) clearInterval(this.keepalive);
    await Promise.all(
      [...this.sessions].map(async (s) => {
        await this.request('DELETE', `session/${encodeURIComponent(s.id)}`, `ending session ${s.id}`, GRID_REQUEST_TIMEOUT_MS).catch((err: unknown) =>
          this.log(`${err instanceof Error ? err.message : String(err)}; the Grid ends it after its session timeout`),
        );
        this.sessions.splice(this.sessions.indexOf(s), 1);
      }),
    );
  }

  /**
   * For an exit that cannot wait (a second signal, process.exit): a detached Node process
   * deletes the sessions left, after this one has gone.
   */
  closeDetached(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    const all = this.sessions.splice(0);
    if (!all.length) return;
    const jobs = all.map((s) => ({ url: this.at(`session/${encodeURIComponent(s.id)}`).href, headers: this.headers() }));
    const script = `Promise.all(JSON.parse(process.argv[1]).map((j) => fetch(j.url, { method: 'DELETE', headers: j.headers, signal: AbortSignal.timeout(${GRID_REQUEST_TIMEOUT_MS}) }).catch(() => undefined)))`;
    try {
      spawn(process.execPath, ['-e', script, JSON.stringify(jobs)], { detached: true, stdio: 'ignore' }).unref();
    } catch {
      // Nothing more to do on the way out: the Grid's session timeout ends them.
    }
  }
}

/** What `/status` says, as far as pushlab reads it. */
interface GridStatus {
  ready: boolean;
  message?: string;
  nodes: {
    id?: string;
    uri?: string;
    availability?: string;
    slots?: { session?: { sessionId?: string } | null; stereotype?: { browserName?: string } }[];
  }[];
}

function freeChromeSlots(s: GridStatus): number {
  return s.nodes
    .filter((n) => n.availability === undefined || n.availability === 'UP')
    .flatMap((n) => n.slots ?? [])
    .filter((slot) => !slot.session && /^(chrome|chromium)$/i.test(slot.stereotype?.browserName ?? '')).length;
}

function nodeOf(s: GridStatus, sessionId: string): { id: string; uri: string } | null {
  for (const n of s.nodes) {
    if (typeof n.uri !== 'string') continue;
    if ((n.slots ?? []).some((slot) => slot.session?.sessionId === sessionId)) return { id: n.id ?? n.uri, uri: n.uri };
  }
  return null;
}
