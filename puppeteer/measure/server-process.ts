/**
 * The server under test runs in its own process, so its CPU (`process.cpuUsage()` in
 * `/stats`) is its own and not the driver's, and the OS can schedule it apart from Chrome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../../cli/root.js';
import { entryArgv } from '../../cli/entry.js';
import { ERROR_CODES, PushlabError, type ErrorCode } from '../../protocol/errors.js';
import { npmCommand } from '../../protocol/shell.js';
import type { PayloadDescription } from '../../protocol/payload.js';
import { PAYLOAD_SHAPE } from '../../protocol/report-shape.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import type { Point } from '../../protocol/factors.js';
import { TIME_FIELD } from '../../protocol/rows-file.js';
import { DEFAULT_ENCODING } from '../../protocol/encodings.js';
import { carriesFileEvents, fileEventsNotCarried } from '../../protocol/wire.js';

// The certificate is self-signed and the server is on loopback: nothing to verify.
const agent = new https.Agent({ rejectUnauthorized: false, keepAlive: true });

export function getJson<T>(url: string, timeoutMs = 10_000, method: 'GET' | 'POST' = 'GET'): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent, timeout: timeoutMs, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${method} ${url}: HTTP ${res.statusCode} ${body.slice(0, 200)}`));
        try {
          resolve(JSON.parse(body) as T);
        } catch (err) {
          reject(new Error(`${method} ${url}: not JSON (${String(err)})`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

export interface ServerHandle {
  url: string;
  /** `resetLateness` starts a new lateness window after this sample. */
  stats(resetLateness?: boolean): Promise<ServerStats>;
  stop(): Promise<void>;
  /**
   * Ends every stream the server has open, as a network drop would (`POST /drop`); the pages
   * reconnect by themselves. Resolves to how many it ended. A soak's forced reconnect.
   */
  dropStreams(): Promise<number>;
  /**
   * A server this process started: why it ended on its own (its exit code or signal and the end
   * of its stderr), null while it runs. Absent for a server it did not start (`--server`).
   */
  gone?(): string | null;
}

export function remoteServer(url: string): ServerHandle {
  const base = url.endsWith('/') ? url : `${url}/`;
  return {
    url: base,
    stats: (resetLateness = false) => getJson<ServerStats>(`${base}stats${resetLateness ? '?reset=lateness' : ''}`),
    stop: async () => undefined,
    dropStreams: async () => (await getJson<{ dropped: number }>(`${base}drop`, 10_000, 'POST')).dropped,
  };
}

/**
 * `--server <url>`: a running pushlab server, checked before anything else is launched: the
 * URL must be https (the server serves TLS only) and /stats must answer as pushlab's does.
 * Every failure is one line, PUSHLAB_BAD_SERVER.
 */
export async function connectServer(flag: string, url: string, timeoutMs = 5000): Promise<ServerHandle> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PushlabError('PUSHLAB_BAD_SERVER', `${flag} must be the https:// URL a pushlab server prints (e.g. https://127.0.0.1:8443/); got '${url}'`);
  }
  if (parsed.protocol !== 'https:') {
    throw new PushlabError('PUSHLAB_BAD_SERVER', `${flag} must be an https:// URL (the pushlab server serves TLS only); got '${url}'`);
  }
  const handle = remoteServer(parsed.href);
  let stats: Partial<ServerStats>;
  try {
    stats = await getJson<Partial<ServerStats>>(`${handle.url}stats`, timeoutMs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = err instanceof Error ? err.message.replace(/^GET \S+: /, '') : String(err);
    throw new PushlabError(
      'PUSHLAB_BAD_SERVER',
      `${flag} ${url}: no answer from ${handle.url}stats (${code === 'ECONNREFUSED' ? 'nothing is listening there' : why})`,
    );
  }
  if (typeof stats?.nowMs !== 'number' || typeof stats.eventsSent !== 'number') {
    throw new PushlabError('PUSHLAB_BAD_SERVER', `${flag} ${url}: ${handle.url}stats answered, but not as a pushlab server does`);
  }
  return handle;
}

/**
 * The started server's flags for a command's `--rows` (the same flag on both: protocol/rows-file.ts
 * ROWS_FLAG) and `--chart-field` (protocol/event-view.ts, checked by the server against its events), its path made absolute: the server runs in the project root, the command's path is
 * the command's own. A `--server` streams its own rows, so the two are refused together.
 */
export function serverArgs(rows: string, chartField = ''): string[] {
  return [...(rows ? ['--rows', path.resolve(rows)] : []), ...(chartField ? ['--chart-field', chartField] : [])];
}

/**
 * Points at a recorded pace need events with recorded times: with neither `--rows` nor a
 * `--server` (whose own rows may have them), refused before anything starts.
 */
export function checkPaceRows(points: readonly Pick<Point, 'id' | 'pace'>[], rows: string, server: string): void {
  const paced = points.find((p) => p.pace === 'recorded');
  if (!paced || rows || server) return;
  throw new PushlabError(
    'PUSHLAB_BAD_FLAG',
    `${paced.id}: pace recorded replays a --rows file's recorded times (a HAR's message times, or a '${TIME_FIELD}' field), and the lab's car rows have none; give --rows FILE, or pace steady`,
  );
}

/**
 * With a `--rows` file, a point whose transport cannot carry its events in its encoding
 * (grpc-web's default protobuf rows) would fail every repeat: refused before anything starts.
 */
export function checkRowsCarried(points: readonly Pick<Point, 'id' | 'transport' | 'encoding'>[], rows: string): void {
  if (!rows) return;
  const bad = points.find((p) => !carriesFileEvents(p.transport, p.encoding ?? DEFAULT_ENCODING));
  if (!bad) return;
  throw new PushlabError(
    'PUSHLAB_BAD_SCENARIO',
    `${bad.id} with --rows ${rows}: ${fileEventsNotCarried(bad.transport)}; give its scenario that encoding, or leave ${bad.transport} out`,
  );
}

/** The same, once the server described its events (/payload): events with no pace to replay are refused before the first point, naming why. */
export function checkPacePayload(points: readonly Pick<Point, 'id' | 'pace'>[], payload: PayloadDescription | null): void {
  const paced = points.find((p) => p.pace === 'recorded');
  const recorded = payload?.recorded;
  if (!paced || !recorded || !('why' in recorded)) return;
  throw new PushlabError(
    'PUSHLAB_BAD_ROWS',
    `${paced.id}: pace recorded replays the recorded times of ${payload!.source ?? "the server's events"}, and ${recorded.why}`,
  );
}

/** `--rows` or `--chart-field` beside `--server`: refused before anything starts. */
export function checkRowsWithServer(rows: string, server: string, chartField = ''): void {
  if (chartField && server) {
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--chart-field ${chartField} with --server ${server}: a running server's page plots the field it was started with; start it with --chart-field (${npmCommand('server', ['--chart-field', chartField])}), or leave out --server`,
    );
  }
  if (rows && server) {
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--rows ${rows} with --server ${server}: a running server streams the rows it was started with; start it with --rows (${npmCommand('server', ['--rows', rows])}), or leave out --server`,
    );
  }
}

/**
 * What the server's events are (GET /payload: protocol/payload.ts), for the report's header; null
 * from a server that does not answer it (an older pushlab) or answers in another shape.
 */
export async function serverPayload(server: ServerHandle): Promise<PayloadDescription | null> {
  try {
    const answer = await getJson<unknown>(`${server.url}payload`, 60_000);
    PAYLOAD_SHAPE.check(answer, ['payload']);
    return answer as PayloadDescription;
  } catch {
    return null;
  }
}

/**
 * Starts `server/main.ts` (or `script`, another server taking `--port` and `--exit-with-stdin`
 * and printing its URL the same way: bench:page's plain reference server) on a free loopback
 * port and waits for its URL line. The server is
 * owned by this process on every exit path: it holds the server's stdin (`--exit-with-stdin`),
 * and the pipe closes when this process ends, whether it exits, crashes or is killed. It runs
 * in a process group of its own, so a signal sent to this command's group (Ctrl-C, `timeout`)
 * reaches this process alone, which stops its work first and the server after: a server that
 * took the signal too would end under a repeat still measuring.
 */
export async function startServer(
  extraArgs: string[] = [],
  timeoutMs = 30_000,
  nodeArgs: string[] = [],
  script = 'server/main.ts',
  /** Behind a link (puppeteer/link/): started in its namespace, at its port, and reached at its URL rather than the one it prints. */
  placement?: { prefix: string[]; args: string[]; port: number; url: string },
): Promise<ServerHandle> {
  const [command, ...prefix] = placement ? [...placement.prefix, process.execPath] : [process.execPath];
  const args = [
    ...prefix,
    ...nodeArgs,
    ...entryArgv(script),
    '--port',
    String(placement?.port ?? 0),
    ...(placement?.args ?? []),
    '--exit-with-stdin',
    ...extraArgs,
  ];
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms: ${stderr.trim()}`));
    }, timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (https:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(serverStartError(code, stderr));
    });
  });
  const handle = remoteServer(placement?.url ?? url);
  // Every repeat after a server that died fails the same way: a caller that can tell stops instead.
  let stopping = false;
  let gone: string | null = null;
  child.once('exit', (code, signal) => {
    if (!stopping)
      gone = `the server exited on its own (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`;
  });
  return {
    ...handle,
    gone: () => gone,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/**
 * Why a server that exited before listening did: its own coded line (`pushlab server: CODE:
 * message`, a port in use, the page not built) is the caller's error with that code, so the
 * user sees one line and not a stack around it; anything else is a bug and keeps its text.
 */
export function serverStartError(code: number | null, stderr: string): Error {
  const m = /pushlab server: (PUSHLAB_[A-Z_]+): (.*)/.exec(stderr);
  if (m && Object.hasOwn(ERROR_CODES, m[1])) return new PushlabError(m[1] as ErrorCode, m[2]);
  return new Error(`the server exited with code ${code} before listening: ${stderr.trim()}`);
}
