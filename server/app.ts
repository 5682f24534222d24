/**
 * Builds the pushlab server without listening: fastify on node:http2 with TLS, HTTP/1.1
 * allowed (WebSocket upgrades need it; Chrome uses h2 for everything else), the stream
 * transports (transports/index.ts), `/stats`, `/origins`, and the built page. Listening also
 * starts the other origins (origins.ts) on the same address.
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { existsSync, mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { PushlabError } from '../protocol/errors.js';
import { RENDER_MODULES_PATH } from '../protocol/render-module.js';
import { carEventView, fileEventView, type EventView } from '../protocol/event-view.js';
import type { PayloadDescription } from '../protocol/payload.js';
import type { ServerStats } from '../protocol/server-stats.js';
import { echoValue, paramError, type ServerOrigins } from '../protocol/wire.js';
import type { TlsFiles } from './cert.js';
import type { ClockKind } from './clock.js';
import { H2_LISTENER_OPTIONS, SERVER_DEFAULTS, type SseWriter } from './defaults.js';
import { Hub } from './hub.js';
import allowOwnOrigins from './cors.js';
import { DEFAULT_HEARTBEAT, type Heartbeat } from './liveness.js';
import { ExtraOrigins } from './origins.js';
import { OwnOrigins } from './own-origins.js';
import { describePayload } from './payload.js';
import reportsRoute from './reports.js';
import { RowPool } from './rows.js';
import type { RowsSource } from './rows-source.js';
import type { TransportDeps } from './transports/deps.js';
import { connectHandlers, routePlugins } from './transports/index.js';

export interface ServerOptions {
  tls: TlsFiles;
  /** The page built by Vite; served at `/`. */
  webRoot?: string;
  /**
   * Team render modules the driver built (puppeteer/render-module.ts), a directory per module;
   * served at `/render-modules/` for the page to import.
   */
  renderModulesRoot?: string;
  /** Where sweeps write reports; served read-only at `/reports/` for the viewer. */
  reportsRoot?: string;
  sendBufferLimitBytes?: number;
  /** Heartbeat that finds dead peers (see liveness.ts). */
  heartbeat?: Heartbeat;
  /** How SSE batches are written (see transports/sse.ts). */
  sseWriter?: SseWriter;
  /** What wakes the pacing loop (see clock.ts): 'timer' costs less CPU, 'worker' is closer to the schedule. */
  clock?: ClockKind;
  /** Streams an HTTP/2 session serves before it is closed gracefully (see defaults.ts). */
  maxStreamsPerSession?: number;
  /**
   * Ports of the `h1` and `connect` origins (origins.ts): `next`, the two after the main port
   * (for a fixed main port: a tunnel can name them); `any`, free ones (default).
   */
  originPorts?: 'next' | 'any';
  /** A team's own events (`--rows`, rows-source.ts) in place of the car rows. */
  rows?: RowsSource;
  /** `--chart-field`: the numeric field the page's chart plots; '' or absent for the first numeric one (protocol/event-view.ts). */
  chartField?: string;
  logger?: boolean;
}

export type PushlabServer = Awaited<ReturnType<typeof buildServer>>;

export async function buildServer(options: ServerOptions) {
  const app = Fastify({
    http2: true,
    https: {
      ...options.tls,
      allowHTTP1: true,
      ...H2_LISTENER_OPTIONS,
    },
    logger: options.logger ?? false,
  });
  const pool = options.rows ? RowPool.fromEvents(options.rows) : new RowPool();
  // Checked before anything listens: a --chart-field the events cannot plot is refused at start-up.
  const view = options.rows
    ? fileEventView(options.rows.file, options.rows.columns, options.rows.rows.events, options.chartField ?? '')
    : carEventView(options.chartField ?? '');
  const hub = new Hub({
    sendBufferLimitBytes: options.sendBufferLimitBytes ?? SERVER_DEFAULTS.sendBufferLimitBytes,
    clock: options.clock ?? SERVER_DEFAULTS.clock,
    pool,
  });
  app.decorate('hub', hub);
  // Streams never end by themselves, and a session whose client stopped reading never
  // drains; closing gracefully would wait forever. End streams, sessions and every TLS socket
  // (an HTTP/1.1 stream or WebSocket whose client vanished may still hold one) before the
  // server waits for them.
  const sessions = new Set<ServerHttp2Session>();
  const maxStreams = options.maxStreamsPerSession ?? SERVER_DEFAULTS.maxStreamsPerSession;
  app.server.on('session', (s: ServerHttp2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
    let streams = 0;
    s.on('stream', () => {
      // close() sends GOAWAY naming the last stream: the ones open go on, new requests go to a
      // new connection, and the session ends once its streams have.
      if (++streams === maxStreams) s.close();
    });
  });
  const sockets = new Set<TLSSocket>();
  app.server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    hub.shutdown();
    for (const s of sessions) s.destroy();
    for (const socket of sockets) socket.destroy();
  });

  // Fastify's own 404 echoes the whole URL; echo a bounded part of it.
  app.setNotFoundHandler(async (request, reply) => {
    const url = echoValue(request.raw.url ?? '');
    return reply.code(404).send({ error: 'not-found', message: `${request.method} ${url}: no such route or file` });
  });

  // Every origin of this server adds its port as it listens; every door asks it (own-origins.ts).
  const own = new OwnOrigins();
  await app.register(allowOwnOrigins, { own });
  const deps: TransportDeps = { hub, heartbeat: options.heartbeat ?? DEFAULT_HEARTBEAT, sseWriter: options.sseWriter ?? SERVER_DEFAULTS.sseWriter };
  // Every transport (transports/index.ts), each plugin once.
  for (const plugin of routePlugins()) await app.register(plugin, deps);

  const origins = new ExtraOrigins(options.tls, connectHandlers(deps), maxStreams, own);
  let originsListening: Promise<void> = Promise.resolve();
  app.addHook('onListen', async () => {
    const addr = app.server.address();
    if (typeof addr !== 'object' || !addr) return;
    own.addPort(addr.port);
    // allowHTTP1 already hands the app HTTP/1.1 requests; its types name only HTTP/2's.
    const route = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) =>
      app.routing(req as Http2ServerRequest, res as Http2ServerResponse);
    const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => app.server.emit('upgrade', req, socket, head);
    originsListening = origins.listen(route, upgrade, addr.address, addr.port, options.originPorts === 'next');
    await originsListening;
  });
  app.addHook('preClose', async () => origins.close());
  // Fastify logs and drops an error thrown in onListen: the command asks here instead.
  app.decorate('originErrors', async () => {
    await originsListening;
    return { ...origins.errors };
  });
  app.get('/origins', async (request): Promise<ServerOrigins & { errors: typeof origins.errors }> => {
    await originsListening;
    // The other origins listen on the main one's address, but a page reaches that address by
    // whatever name it used (a host name, an address behind NAT or a tunnel, not 0.0.0.0):
    // answer with the host the request named and each origin's own port.
    const asked = hostOf(request.host);
    const on = (url: string | null) => (url === null || asked === null ? url : withHost(url, asked));
    return { h1: on(origins.urls.h1), connect: on(origins.urls.connect), replicas: origins.urls.replicas.map((u) => on(u)!), errors: origins.errors };
  });
  // The clock `sentAt` is stamped with (hub.ts): pages estimate their offset against it (puppeteer/measure/clock-offset.ts).
  app.get('/clock', async () => ({ nowMs: performance.timeOrigin + performance.now() }));
  app.get('/stats', async (request, reply): Promise<ServerStats | undefined> => {
    const { reset } = request.query as { reset?: unknown };
    if (reset !== undefined && reset !== 'lateness') {
      const e = paramError(
        'reset',
        Array.isArray(reset) ? reset.map(String).join(',') : String(reset),
        'lateness',
        (v) => `reset must be 'lateness' (once); got '${v}'`,
      );
      await reply.code(400).send({ error: 'bad-parameter', ...e });
      return undefined;
    }
    return hub.stats(reset === 'lateness');
  });

  // What the events are (the report's header): worked out on the first request, then kept.
  let payload: Promise<PayloadDescription> | null = null;
  app.get('/payload', async () => (payload ??= describePayload(pool, options.rows ?? null, view.chartField)));
  // What the page draws (its table's columns, its chart's field): cheap, asked at every run's start.
  app.get('/events-view', async (): Promise<EventView> => view);

  // A soak's forced reconnect (puppeteer/soak/): every stream ends now, and the pages come back.
  app.post('/drop', async () => ({ dropped: hub.dropAll() }));

  if (options.webRoot) {
    if (!existsSync(path.join(options.webRoot, 'index.html'))) {
      throw new PushlabError('PUSHLAB_NOT_BUILT', `the page is not built: ${options.webRoot}/index.html is missing; run \`npm run build\``);
    }
    await app.register(fastifyStatic, { root: options.webRoot, prefix: '/' });
  }
  if (options.renderModulesRoot) {
    // Made here if missing: the driver may build its first module after the server started.
    mkdirSync(options.renderModulesRoot, { recursive: true });
    await app.register(fastifyStatic, { root: options.renderModulesRoot, prefix: `/${RENDER_MODULES_PATH}/`, decorateReply: false });
  }
  // Not @fastify/static: its listing served directories outside reports/ (see reports.ts).
  if (options.reportsRoot) await app.register(reportsRoute, { root: options.reportsRoot });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    hub: Hub;
    /** Once the other origins have tried to listen: why each that is not listening is not, by origin. */
    originErrors(): Promise<Partial<Record<string, string>>>;
  }
}

/** The host name of a Host header or :authority (`a:1`, `[::1]:2`), or null if it is not one. */
function hostOf(authority: string | undefined): string | null {
  if (!authority) return null;
  try {
    return new URL(`https://${authority}`).hostname;
  } catch {
    return null;
  }
}

function withHost(url: string, hostname: string): string {
  const u = new URL(url);
  u.hostname = hostname;
  return u.href;
}
