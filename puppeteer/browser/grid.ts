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
import { spawn, type ChildProcess } from 'node:child_process';
import { PushlabError } from '../../protocol/errors.js';
import { printable } from '../../results/printable.js';
import { CHROME_ARGS } from './chrome.js';
import { connectFailureText, machineOf, parseBrowserItem, safeUrl, type BrowserEndpoint } from './endpoint.js';

/** How long the Grid may take to start a session (it queues what it cannot serve yet), ms. */
export const GRID_SESSION_TIMEOUT_MS = 60_000;
/** How long a status or delete request may take, ms. */
const GRID_REQUEST_TIMEOUT_MS = 10_000;
/** Well under the Grid's default 300 s session timeout. */
const KEEPALIVE_MS = 60_000;
/**
 * The most a Grid answer may be, bytes. A `/status` is about 1 KB a slot (a 100-node Grid of 16
 * slots each is under 2 MB); a new session's answer is its capabilities. Read as a stream and
 * refused past this, so a Grid (or whatever answers at its URL) cannot fill the driver's memory:
 * a 400 MB `/status` took it to 2.5 GB.
 */
export const MAX_GRID_ANSWER_BYTES = 4 * 1024 * 1024;
/** The most of a Grid's text a message quotes, characters. */
const QUOTE_CHARS = 500;
/**
 * How long a new-session request is kept after its wait gave up, ms: the Grid's own default
 * `--session-request-timeout` (300 s), after which it drops a queued request itself. A session it
 * grants meanwhile is deleted as soon as it arrives.
 */
const LATE_SESSION_MS = 300_000;
/** How long close() waits for such late answers, so that a session granted now is deleted, ms. */
const LATE_WAIT_ON_CLOSE_MS = 15_000;

/** One session pushlab opened. */
export interface GridSession {
  id: string;
}

const gridError = (message: string) => new PushlabError('PUSHLAB_BAD_GRID', message);

/** At most QUOTE_CHARS of `text` from the Grid, printable, one line, saying how long the whole was. */
function shown(text: string): string {
  return printable(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}… (${text.length} characters)` : text);
}

/** `shown(text)` as a quoted string. */
export function quoted(text: string): string {
  return JSON.stringify(shown(text));
}

/**
 * The body of `res` as text, read as a stream and refused past `limit` bytes (the request's
 * abort signal bounds its time): never buffered whole before its size is known.
 */
async function boundedText(res: Response, limit: number, refuse: (what: string) => Error): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw refuse(`its answer is ${declared} bytes (content-length), more than the ${limit} a Grid answer may be`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw refuse(`its answer is more than the ${limit} bytes a Grid answer may be (stopped reading at ${size})`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Checks `--grid`: an http(s) URL of a Grid (hub or standalone). */
export function parseGridUrl(raw: string): URL {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // said below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--grid takes the http:// or https:// URL of a Selenium Grid 4 (hub or standalone, e.g. http://grid:4444); got '${raw.replace(/\/\/[^/@\s]*@/g, '//…@')}'`,
    );
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
    /** How long a new session is waited for (GRID_SESSION_TIMEOUT_MS; shorter in tests). */
    private readonly sessionWaitMs = GRID_SESSION_TIMEOUT_MS,
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

  /**
   * One request to the Grid; its JSON `value`, or a coded error with the Grid's own message (cut
   * to QUOTE_CHARS, printable). The answer is read up to MAX_GRID_ANSWER_BYTES; `timeoutMs` bounds
   * the whole exchange.
   */
  private async request(method: string, pathname: string, what: string, timeoutMs: number, body?: unknown): Promise<unknown> {
    const fail = (why: string) => gridError(`--grid ${this.given}: ${what}: ${why}`);
    const timedOut = (err: unknown) => (err as { name?: unknown } | null)?.name === 'TimeoutError';
    const noAnswer = () =>
      fail(
        `no answer within ${timeoutMs / 1000} s${method === 'POST' ? ' (a Grid queues a request it has no free slot for: are its Chrome slots busy, or does no node offer Chrome?)' : ''}`,
      );
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.at(pathname), {
        method,
        headers: this.headers(),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw timedOut(err) ? noAnswer() : fail(connectFailureText(err));
    }
    try {
      text = await boundedText(res, MAX_GRID_ANSWER_BYTES, fail);
    } catch (err) {
      if (err instanceof PushlabError) throw err;
      throw timedOut(err) ? noAnswer() : fail(`its answer broke off (HTTP ${res.status})`);
    }
    let value: unknown;
    try {
      value = (JSON.parse(text) as { value?: unknown } | null)?.value;
    } catch {
      throw fail(`HTTP ${res.status}, not a WebDriver answer (${quoted(text)}): is it a Selenium Grid 4?`);
    }
    if (!res.ok) {
      const v = value as { error?: unknown; message?: unknown } | null;
      const message = typeof v?.message === 'string' ? v.message.split('\n')[0] : text;
      throw fail(`the Grid refused (HTTP ${res.status}${typeof v?.error === 'string' ? `, ${shown(v.error)}` : ''}): ${shown(message)}`);
    }
    return value;
  }

  /** The Grid's nodes as `/status` lists them, its shape checked (parseGridStatus). */
  private async status(): Promise<GridStatus> {
    const v = await this.request('GET', 'status', 'reading /status', GRID_REQUEST_TIMEOUT_MS);
    const checked = parseGridStatus(v);
    if (typeof checked === 'string') throw gridError(`--grid ${this.given}: /status is not a Selenium Grid 4 status: ${checked}`);
    return checked;
  }

  /**
   * Opens `n` Chrome sessions side by side; each one opened lands in `sessions` at once, so a
   * failure of another still leaves it to be deleted. Refuses before asking when the Grid is
   * not ready or has fewer free Chrome slots than `n` (it would queue the request).
   */
  async open(n: number, binary: string | null): Promise<BrowserEndpoint[]> {
    const before = await this.status();
    if (!before.ready) throw gridError(`--grid ${this.given}: the Grid is not ready: ${before.message !== undefined ? quoted(before.message) : 'no message'}`);
    const free = freeChromeSlots(before);
    if (free < n) {
      throw gridError(
        `--grid ${this.given}: no free slot: --grid-sessions ${n} asks for ${n} Chrome session(s), the Grid has ${free} free Chrome slot(s) (${before.message !== undefined ? printable(before.message.slice(0, QUOTE_CHARS)) : 'no message'})`,
      );
    }
    const settled = await Promise.allSettled(
      Array.from({ length: n }, async () => {
        const v = (await this.newSession(binary)) as { sessionId?: unknown; capabilities?: unknown } | null;
        const id = sessionIdOf(v);
        if (id === null) throw gridError(`--grid ${this.given}: new Chrome session: the answer has no sessionId`);
        // Recorded before anything else can fail: from here on it is ours to delete.
        this.sessions.push({ id });
        const caps = v?.capabilities;
        const cdp = caps && typeof caps === 'object' ? (caps as Record<string, unknown>)['se:cdp'] : undefined;
        if (typeof cdp !== 'string')
          throw gridError(`--grid ${this.given}: session ${quoted(id)} has no se:cdp capability (is CDP off on this Grid, or is the browser not Chrome?)`);
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

  /**
   * A new-session request, waited for GRID_SESSION_TIMEOUT_MS. The request itself is not
   * aborted then: a Grid that queued it may still grant the session, which nobody would end.
   * It goes on (up to LATE_SESSION_MS, in `late`), and a session that arrives after the wait
   * gave up is deleted at once.
   */
  private newSession(binary: string | null): Promise<unknown> {
    const asked = this.request('POST', 'session', 'new Chrome session', LATE_SESSION_MS, newSessionBody(binary));
    let timer: NodeJS.Timeout | undefined;
    let waitEnded = false;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        waitEnded = true;
        reject(
          gridError(
            `--grid ${this.given}: new Chrome session: no answer within ${this.sessionWaitMs / 1000} s (a Grid queues a request it has no free slot for: are its Chrome slots busy, or does no node offer Chrome?)`,
          ),
        );
      }, this.sessionWaitMs);
    });
    return Promise.race([asked, gaveUp]).then(
      (v) => {
        clearTimeout(timer);
        return v;
      },
      (err: unknown) => {
        clearTimeout(timer);
        // The wait gave up, not the request: end whatever the Grid grants later.
        if (waitEnded) this.deleteWhenGranted(asked);
        throw err;
      },
    );
  }

  /** Requests still out whose wait gave up; close() lets them land (for a while) to delete what they bring. */
  private readonly late = new Set<Promise<void>>();

  private deleteWhenGranted(asked: Promise<unknown>): void {
    const landing = asked.then(
      async (v) => {
        const id = sessionIdOf(v);
        if (id === null) return;
        this.log(`--grid ${this.given}: the Grid granted session ${quoted(id)} after the ${this.sessionWaitMs / 1000} s wait gave up: ending it`);
        await this.end([id]);
      },
      () => undefined,
    );
    this.late.add(landing);
    void landing.finally(() => this.late.delete(landing));
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
    await Promise.all(
      this.sessions.map((s) =>
        this.request('GET', `session/${encodeURIComponent(s.id)}/timeouts`, 'keep-alive', GRID_REQUEST_TIMEOUT_MS).catch(() => undefined),
      ),
    );
  }

  /**
   * Deletes every session (a failure is logged: the Grid's session timeout ends it later),
   * through an ender process (`end`) that a second signal does not cut off.
   */
  async close(): Promise<void> {
    if (this.keepalive) clearInterval(this.keepalive);
    if (this.late.size) {
      // A session the Grid grants in this while is deleted by the request's own handler.
      this.log(
        `--grid ${this.given}: waiting up to ${LATE_WAIT_ON_CLOSE_MS / 1000} s for ${this.late.size} session request(s) the Grid has not answered, to end what it grants`,
      );
      await Promise.race([Promise.all(this.late), new Promise((r) => setTimeout(r, LATE_WAIT_ON_CLOSE_MS).unref())]);
    }
    await this.end(this.sessions.splice(0).map((s) => s.id));
  }

  /** For an exit that cannot wait (a second signal, process.exit): the sessions not yet handed to an ender are, and this process does not wait. */
  closeDetached(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    void this.end(this.sessions.splice(0).map((s) => s.id));
  }

  /**
   * Ends sessions from a detached Node process (GRID_ENDER), each session's DELETE sent once,
   * and waits for its answers to log what failed. Not from this process: a Grid whose client
   * goes away in the middle of a DELETE keeps the session listed and turns not ready for good
   * (Grid 4.38 and 4.48 alike: the client killed 150 ms into the DELETE of two sessions), and a
   * second signal ends this process at once. A second DELETE of a session being ended hangs
   * too, so a session is handed over once, here, and is no longer this object's.
   */
  private async end(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    const jobs = ids.map((id) => ({ id, url: this.at(`session/${encodeURIComponent(id)}`).href }));
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, ['-e', GRID_ENDER, JSON.stringify({ jobs, headers: this.headers(), timeoutMs: GRID_REQUEST_TIMEOUT_MS })], {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (err) {
      this.log(
        `--grid ${this.given}: could not start the process that ends ${ids.length} session(s) (${String(err)}); the Grid ends them after its session timeout`,
      );
      return;
    }
    // Held for (close() waits for its answers); detached, so a process.exit meanwhile leaves it to finish.
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      child.once('error', () => resolve());
    });
    const answered = new Set<string>();
    for (const line of out.split('\n')) {
      const r = parseEnderLine(line);
      if (!r) continue;
      answered.add(r.id);
      if (r.failure !== null) this.log(`--grid ${this.given}: ending session ${r.id}: ${r.failure}; the Grid ends it after its session timeout`);
    }
    for (const id of ids.filter((x) => !answered.has(x)))
      this.log(`--grid ${this.given}: ending session ${id}: no word from the process that ended it; the Grid ends it after its session timeout`);
  }
}

/**
 * The ender's script (`node -e`): one DELETE per job, each bounded by `timeoutMs`; one JSON
 * line per job on stdout, which may have gone with the sweep (its write errors are dropped).
 */
const GRID_ENDER = `
const { jobs, headers, timeoutMs } = JSON.parse(process.argv[1]);
process.stdout.on('error', () => undefined);
const say = (o) => { try { process.stdout.write(JSON.stringify(o) + '\\n'); } catch {} };
Promise.all(jobs.map(async (j) => {
  try {
    const r = await fetch(j.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = (await r.text()).slice(0, 2000);
    say({ id: j.id, status: r.status, text });
  } catch (e) {
    say({ id: j.id, error: e && e.name === 'TimeoutError' ? 'no answer within ' + timeoutMs / 1000 + ' s' : String((e && e.cause && e.cause.code) || (e && e.message) || e) });
  }
}));
`;

/** One line of the ender's output: the session and why ending it failed (null: it ended), or null for a line that is not one. */
export function parseEnderLine(line: string): { id: string; failure: string | null } | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!v || typeof v !== 'object') return null;
  const r = v as { id?: unknown; status?: unknown; text?: unknown; error?: unknown };
  if (typeof r.id !== 'string') return null;
  if (typeof r.error === 'string') return { id: r.id, failure: shown(r.error) };
  if (typeof r.status !== 'number') return null;
  if (r.status >= 200 && r.status < 300) return { id: r.id, failure: null };
  let message = typeof r.text === 'string' ? r.text : '';
  try {
    const m = (JSON.parse(message) as { value?: { message?: unknown } } | null)?.value?.message;
    if (typeof m === 'string') message = m.split('\n')[0];
  } catch {
    // Not JSON: quoted as it came.
  }
  return { id: r.id, failure: `the Grid refused (HTTP ${r.status}): ${shown(message)}` };
}

/** A WebDriver answer's `sessionId`, when it is a non-empty string of a sane length. */
function sessionIdOf(v: unknown): string | null {
  const id = v && typeof v === 'object' ? (v as { sessionId?: unknown }).sessionId : undefined;
  return typeof id === 'string' && id !== '' && id.length <= 256 ? id : null;
}

/**
 * `/status`'s `value` checked for what pushlab reads: the status, or what is wrong with it,
 * naming the field (`nodes[2] must be an object, got null`). A Grid is a peer pushlab does not
 * control; a null node gave a TypeError stack.
 */
export function parseGridStatus(v: unknown): GridStatus | string {
  const got = (x: unknown) => (x === undefined ? 'nothing' : shown(JSON.stringify(x) ?? String(x)));
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isObject(v)) return `value must be an object, got ${got(v)}`;
  if (typeof v.ready !== 'boolean') return `value.ready must be true or false, got ${got(v.ready)}`;
  if (v.message !== undefined && typeof v.message !== 'string') return `value.message must be a string, got ${got(v.message)}`;
  if (!Array.isArray(v.nodes)) return `value.nodes must be an array, got ${got(v.nodes)}`;
  for (const [i, n] of v.nodes.entries()) {
    const at = `value.nodes[${i}]`;
    if (!isObject(n)) return `${at} must be an object, got ${got(n)}`;
    for (const f of ['id', 'uri', 'availability'] as const)
      if (n[f] !== undefined && typeof n[f] !== 'string') return `${at}.${f} must be a string, got ${got(n[f])}`;
    if (typeof n.uri === 'string' && !URL.canParse(n.uri)) return `${at}.uri must be a URL, got ${got(n.uri)}`;
    if (n.slots === undefined) continue;
    if (!Array.isArray(n.slots)) return `${at}.slots must be an array, got ${got(n.slots)}`;
    for (const [j, slot] of n.slots.entries()) {
      const sat = `${at}.slots[${j}]`;
      if (!isObject(slot)) return `${sat} must be an object, got ${got(slot)}`;
      if (slot.session !== undefined && slot.session !== null) {
        if (!isObject(slot.session)) return `${sat}.session must be an object or null, got ${got(slot.session)}`;
        if (slot.session.sessionId !== undefined && typeof slot.session.sessionId !== 'string')
          return `${sat}.session.sessionId must be a string, got ${got(slot.session.sessionId)}`;
      }
      if (slot.stereotype !== undefined) {
        if (!isObject(slot.stereotype)) return `${sat}.stereotype must be an object, got ${got(slot.stereotype)}`;
        const b = slot.stereotype.browserName;
        if (b !== undefined && typeof b !== 'string') return `${sat}.stereotype.browserName must be a string, got ${got(b)}`;
      }
    }
  }
  return v as unknown as GridStatus;
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
