/**
 * The server's second and third origins (see OriginKind in protocol/wire.ts), served by the
 * same hub on ports of their own, on the main server's address:
 * - `h1`: HTTPS with only HTTP/1.1 offered (ALPN), every request routed into the main app, so
 *   `/sse` there is EventSource under Chrome's 6-connections-per-host cap (`sse-h1`);
 * - `connect`: HTTP/2 with SETTINGS_ENABLE_CONNECT_PROTOCOL and real CONNECT handlers (the
 *   transports of that origin, transports/index.ts: `ws-h2.ts`), so Chrome runs WebSockets over
 *   HTTP/2 there (`ws-h2`). Chrome only does so on a connection it already has, so the page
 *   first fetches `/` there (204, CORS) to open one.
 * - replicas of the main origin (7, on the ports after those), for the `origins` factor, which
 *   spreads a page's connections over several origins and so several TCP connections.
 * With the main port fixed, they take the next ports (8444, 8445, then 8446–8452 by default) so
 * a tunnel or a firewall rule can name them; with port 0, any free ones. `GET /origins` says
 * where they are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import http2, { type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { listenErrorText } from '../cli/listen.js';
import { LIMITS } from '../protocol/limits.js';
import type { ServerOrigins } from '../protocol/wire.js';
import type { Duplex } from 'node:stream';
import type { TlsFiles } from './cert.js';
import { H2_LISTENER_OPTIONS } from './defaults.js';
import { foreignRefusal, type OwnOrigins } from './own-origins.js';
import type { ConnectHandler } from './transports/deps.js';

type Listener = https.Server | Http2SecureServer;

// Defined in protocol/limits.ts: the driver's link proxy (puppeteer/link/) forwards these ports too.
export { EXTRA_ORIGIN_PORTS } from '../protocol/limits.js';

export class ExtraOrigins {
  readonly urls: ServerOrigins = { h1: null, connect: null, replicas: [] };
  /** Why an origin is not listening, for `/origins` and the page's error. */
  readonly errors: Partial<Record<string, string>> = {};
  private readonly servers: Listener[] = [];
  private readonly sockets = new Set<TLSSocket>();
  private readonly sessions = new Set<ServerHttp2Session>();

  constructor(
    private readonly tls: TlsFiles,
    /** Extended CONNECT handlers by `:protocol` (transports/index.ts connectHandlers). */
    private readonly connects: ReadonlyMap<string, ConnectHandler>,
    private readonly maxStreamsPerSession: number,
    /** The rule every origin of this server judges a page by (own-origins.ts); each port is added as it listens. */
    private readonly own: OwnOrigins,
  ) {}

  /**
   * Starts them on `host`, next to the main server's `mainPort`; a port that is taken leaves
   * that origin off, with the reason. `upgrade` hands a replica's WebSocket upgrades to the main
   * server, whose WebSocket plugin listens there.
   */
  async listen(
    route: (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void,
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
    host: string,
    mainPort: number,
    fixedPorts: boolean,
  ): Promise<void> {
    const h1 = https.createServer({ ...this.tls, ALPNProtocols: ['http/1.1'], noDelay: H2_LISTENER_OPTIONS.noDelay }, route);
    const connect = http2.createSecureServer({ ...this.tls, ...H2_LISTENER_OPTIONS, settings: { enableConnectProtocol: true } });
    connect.on('session', (s: ServerHttp2Session) => {
      this.sessions.add(s);
      s.once('close', () => this.sessions.delete(s));
    });
    connect.on('stream', (stream, headers) => {
      // A foreign page opens no WebSocket here and gets no CORS grant: refused before any
      // handler runs (a browser always sends Origin with a WebSocket, over HTTP/2 too).
      const verdict = this.own.judge(headers);
      if (verdict.kind === 'foreign') {
        stream.respond({ ':status': 403, 'content-type': 'application/json; charset=utf-8', vary: 'origin' });
        stream.end(JSON.stringify(foreignRefusal(verdict.why)));
        return;
      }
      const open = headers[':method'] === 'CONNECT' ? this.connects.get(String(headers[':protocol'])) : undefined;
      if (open) return open(stream, headers);
      // Anything else (the page's warm-up fetch) gets an empty answer. That fetch carries
      // credentials, to open the connection in the pool WebSockets use, so CORS must name the
      // page's origin (never `*`), and only an own page's.
      const cors = verdict.kind === 'own' ? { 'access-control-allow-origin': verdict.origin, 'access-control-allow-credentials': 'true' } : {};
      stream.respond({ ':status': headers[':method'] === 'GET' || headers[':method'] === 'HEAD' ? 204 : 405, vary: 'origin', ...cors });
      stream.end();
    });
    const hostText = host.includes(':') ? `[${host}]` : host;
    const entries: [string, Listener, number, (url: string) => void][] = [
      ['h1', h1, fixedPorts ? mainPort + 1 : 0, (url) => (this.urls.h1 = url)],
      ['connect', connect, fixedPorts ? mainPort + 2 : 0, (url) => (this.urls.connect = url)],
    ];
    // Replicas of the main origin, for the `origins` factor: the same app, HTTP/2 with HTTP/1.1
    // allowed, and WebSocket upgrades handed to the main server.
    for (let k = 1; k < LIMITS.origins.max; k++) {
      const replica = http2.createSecureServer({ ...this.tls, ...H2_LISTENER_OPTIONS, allowHTTP1: true }, route);
      replica.on('upgrade', upgrade);
      replica.on('session', (s: ServerHttp2Session) => {
        this.sessions.add(s);
        s.once('close', () => this.sessions.delete(s));
        // The main origin's cap, for the same reason (see SERVER_DEFAULTS.maxStreamsPerSession).
        let streams = 0;
        s.on('stream', () => {
          if (++streams === this.maxStreamsPerSession) s.close();
        });
      });
      entries.push([`replica ${k}`, replica, fixedPorts ? mainPort + 2 + k : 0, (url) => this.urls.replicas.push(url)]);
    }
    for (const [kind, server, port, found] of entries) {
      server.on('secureConnection', (socket: TLSSocket) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
      });
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        this.servers.push(server);
        this.own.addPort((server.address() as AddressInfo).port);
        found(`https://${hostText}:${(server.address() as AddressInfo).port}/`);
      } catch (err) {
        this.errors[kind] = listenErrorText(err, host, port);
      }
    }
  }

  async close(): Promise<void> {
    for (const s of this.sessions) s.destroy();
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
