/**
 * Connect/abort cycles against a running server, the way clients really go away: WS, SSE
 * over HTTP/2 (streams sharing sessions, as Chrome shares one per origin) and SSE over
 * HTTP/1.1, each ended by a clean close, a cancel, a dropped connection, a TCP reset, or an
 * abort before the response. Used by `npm run bench:faults` (1,000 cycles, server in its own
 * process) and by test/server/faults.test.ts (a short run against an in-process server).
 *
 * Every socket is made here (`net.connect`, then TLS over it) so a cycle can reset the TCP
 * connection itself: `resetAndDestroy()` needs the TCP handle, which a TLS socket hides.
 */
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import { mulberry32 } from '../protocol/random.js';

export const CHURN_ENDINGS = {
  ws: ['close', 'terminate', 'reset', 'early'],
  sse2: ['cancel', 'session-close', 'session-destroy', 'reset', 'early'],
  sse1: ['destroy', 'reset', 'early'],
} as const;
export type ChurnTransport = keyof typeof CHURN_ENDINGS;

export interface ChurnOptions {
  /** `https://host:port` of the server. */
  base: string;
  cycles: number;
  parallel: number;
  /** Seeds the choice of transport, ending and hold time, so a run can be repeated. */
  seed?: number;
  /** Longest time a stream is held open before it is ended, ms. */
  maxHoldMs?: number;
  /** Rows per batch asked for. */
  batch?: number;
  /** Gives up on a cycle that has not finished by then (a server that never answers), ms. */
  cycleTimeoutMs?: number;
}

export interface ChurnResult {
  cycles: number;
  /** Cycles per `transport:ending`. */
  byKind: Record<string, number>;
  /** Cycles that saw at least one event before they were ended. */
  streamed: number;
  /** Cycles that failed to connect or timed out (not an error in itself: a reset may race the handshake). */
  failed: number;
  wallMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ignore = () => undefined;

interface Target {
  host: string;
  port: number;
  /** Every TCP socket the run made, destroyed at its end so nothing outlives the run. */
  sockets: Set<net.Socket>;
}

/** A TLS connection over a TCP socket we keep, so the cycle can reset it. */
function tlsOver(t: Target, alpn: string[]): { tcp: net.Socket; secure: tls.TLSSocket } {
  const tcp = net.connect({ host: t.host, port: t.port });
  tcp.on('error', ignore);
  t.sockets.add(tcp);
  tcp.once('close', () => t.sockets.delete(tcp));
  const secure = tls.connect({ socket: tcp, servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: alpn });
  secure.on('error', ignore);
  return { tcp, secure };
}

/** Resolves when `ok` fires, or `false` on error/close/timeout. */
function firstOf(emitter: NodeJS.EventEmitter, ok: string, timeoutMs: number, failOn: string[] = ['error', 'close']): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(timer);
      emitter.off(ok, onOk);
      for (const f of failOn) emitter.off(f, onFail);
      resolve(v);
    };
    const onOk = () => done(true);
    const onFail = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    emitter.once(ok, onOk);
    for (const f of failOn) emitter.once(f, onFail);
  });
}

async function wsCycle(t: Target, path: string, ending: string, holdMs: number, timeoutMs: number): Promise<boolean> {
  let tcp: net.Socket | undefined;
  const ws = new WebSocket(`wss://${t.host}:${t.port}${path}`, {
    perMessageDeflate: false,
    createConnection: () => {
      const c = tlsOver(t, ['http/1.1']);
      tcp = c.tcp;
      return c.secure;
    },
  });
  ws.on('error', ignore);
  if (ending === 'early') {
    await sleep(holdMs / 4);
    ws.terminate();
    return false;
  }
  const got = await firstOf(ws, 'message', timeoutMs);
  await sleep(holdMs);
  if (ending === 'close') ws.close();
  else if (ending === 'terminate') ws.terminate();
  else tcp?.resetAndDestroy();
  return got;
}

/** HTTP/2 sessions shared by the SSE cycles, replaced when one is closed or destroyed. */
class SessionPool {
  private readonly sessions: (http2.ClientHttp2Session | null)[];
  private readonly tcps = new WeakMap<http2.ClientHttp2Session, net.Socket>();
  constructor(
    private readonly t: Target,
    size: number,
  ) {
    this.sessions = Array.from({ length: size }, () => null);
  }

  get(i: number): http2.ClientHttp2Session {
    const k = i % this.sessions.length;
    const s = this.sessions[k];
    if (s && !s.closed && !s.destroyed) return s;
    let tcp: net.Socket | undefined;
    const session = http2.connect(`https://${this.t.host}:${this.t.port}`, {
      createConnection: () => {
        const c = tlsOver(this.t, ['h2']);
        tcp = c.tcp;
        return c.secure;
      },
    });
    session.on('error', ignore);
    if (tcp) this.tcps.set(session, tcp);
    this.sessions[k] = session;
    return session;
  }

  reset(session: http2.ClientHttp2Session): void {
    this.tcps.get(session)?.resetAndDestroy();
  }

  closeAll(): void {
    for (const s of this.sessions) s?.destroy();
  }
}

async function sse2Cycle(pool: SessionPool, slot: number, path: string, ending: string, holdMs: number, timeoutMs: number): Promise<boolean> {
  const session = pool.get(slot);
  const req = session.request({ ':path': path, accept: 'text/event-stream' });
  req.on('error', ignore);
  if (ending === 'early') {
    await sleep(holdMs / 4);
    req.close(http2.constants.NGHTTP2_CANCEL);
    return false;
  }
  const got = await firstOf(req, 'data', timeoutMs);
  await sleep(holdMs);
  if (ending === 'cancel') req.close(http2.constants.NGHTTP2_CANCEL);
  else if (ending === 'session-close') {
    req.close(http2.constants.NGHTTP2_CANCEL);
    session.close();
  } else if (ending === 'session-destroy') session.destroy();
  else pool.reset(session);
  return got;
}

async function sse1Cycle(t: Target, path: string, ending: string, holdMs: number, timeoutMs: number): Promise<boolean> {
  let tcp: net.Socket | undefined;
  const req = https.request({
    host: t.host,
    port: t.port,
    path,
    headers: { accept: 'text/event-stream' },
    agent: false,
    createConnection: () => {
      const c = tlsOver(t, ['http/1.1']);
      tcp = c.tcp;
      return c.secure;
    },
  });
  req.on('error', ignore);
  req.end();
  if (ending === 'early') {
    await sleep(holdMs / 4);
    req.destroy();
    return false;
  }
  const res = await new Promise<NodeJS.ReadableStream | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    req.once('response', (r) => (clearTimeout(timer), resolve(r)));
    req.once('close', () => (clearTimeout(timer), resolve(null)));
  });
  const got = res ? await firstOf(res, 'data', timeoutMs, ['error', 'end', 'close']) : false;
  await sleep(holdMs);
  if (ending === 'destroy') req.destroy();
  else tcp?.resetAndDestroy();
  return got;
}

/** Runs `cycles` connect/abort cycles, `parallel` at a time; bounded by cycleTimeoutMs per cycle. */
export async function runChurn(options: ChurnOptions): Promise<ChurnResult> {
  const url = new URL(options.base);
  const t: Target = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), sockets: new Set() };
  const random = mulberry32(options.seed ?? 1);
  const maxHold = options.maxHoldMs ?? 40;
  const timeoutMs = options.cycleTimeoutMs ?? 5_000;
  const path = (transport: ChurnTransport) => `/${transport === 'ws' ? 'ws' : 'sse'}?batch=${options.batch ?? 20}&interval=1`;
  // Two shared sessions: several cycles' streams ride each one at a time, as in Chrome.
  const pool = new SessionPool(t, 2);
  const transports = Object.keys(CHURN_ENDINGS) as ChurnTransport[];
  const byKind: Record<string, number> = {};
  let next = 0;
  let streamed = 0;
  let failed = 0;
  const started = performance.now();

  const one = async (slot: number): Promise<void> => {
    const transport = transports[Math.floor(random() * transports.length)]!;
    const endings: readonly string[] = CHURN_ENDINGS[transport];
    const ending = endings[Math.floor(random() * endings.length)]!;
    const hold = random() * maxHold;
    byKind[`${transport}:${ending}`] = (byKind[`${transport}:${ending}`] ?? 0) + 1;
    let got: boolean;
    if (transport === 'ws') got = await wsCycle(t, path(transport), ending, hold, timeoutMs);
    else if (transport === 'sse2') got = await sse2Cycle(pool, slot, path(transport), ending, hold, timeoutMs);
    else got = await sse1Cycle(t, path(transport), ending, hold, timeoutMs);
    if (got) streamed++;
    else if (ending !== 'early') failed++;
  };
  // Every cycle is bounded: one that has not finished in twice its timeout is abandoned and
  // counted as failed, so a server that never answers cannot hold the run.
  const bounded = async (slot: number): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(() => (failed++, resolve()), 2 * timeoutMs)));
    await Promise.race([one(slot), late]);
    clearTimeout(timer);
  };
  const worker = async (slot: number): Promise<void> => {
    while (next < options.cycles) {
      next++;
      await bounded(slot);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.parallel }, (_, i) => worker(i)));
  } finally {
    pool.closeAll();
    for (const socket of t.sockets) socket.destroy();
  }
  return { cycles: next, byKind, streamed, failed, wallMs: performance.now() - started };
}
