/**
 * The server's second and third origins (see OriginKind in protocol/wire.ts), served by the
 * same hub on ports of their own, on the main server's address:
 * - `h1`: HTTPS with only HTTP/1.1 offered (ALPN), every request routed into the main app, so
 *   `/sse` there is EventSource under Chrome's 6-connections-per-host cap (`sse-h1`);
 * - `connect`: HTTP/2 with SETTINGS_ENABLE_CONNECT_PROTOCOL and a real CONNECT handler
 *   (ws-h2.ts), so Chrome runs WebSockets over HTTP/2 there (`ws-h2`). Chrome only does so on a
 *   connection it already has, so the page first fetches `/` there (204, CORS) to open one.
 * With the main port fixed, they take the next two (8444, 8445 by default) so a tunnel or a
 * firewall rule can name them; with port 0, any free ones. `GET /origins` says where they are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import http2, { type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ServerOrigins } from '../protocol/wire.js';
import type { TlsFiles } from './cert.js';
import type { Hub } from './hub.js';
import type { Heartbeat } from './liveness.js';
import { CORS } from './sse.js';
import { handleWsConnect } from './ws-h2.js';

type Listener = https.Server | Http2SecureServer;

export class ExtraOrigins {
  readonly urls: ServerOrigins = { h1: null, connect: null };
  /** Why an origin is not listening, for `/origins` and the page's error. */
  readonly errors: Partial<Record<keyof ServerOrigins, string>> = {};
  private readonly servers: Listener[] = [];
  private readonly sockets = new Set<TLSSocket>();
  private readonly sessions = new Set<ServerHttp2Session>();

  constructor(
    private readonly tls: TlsFiles,
    private readonly hub: Hub,
    private readonly heartbeat: Heartbeat,
  ) {}

  /** Starts both on `host`, next to the main server's `mainPort`; a port that is taken leaves that origin off, with the reason. */
  async listen(route: (req: IncomingMessage, res: ServerResponse) => void, host: string, mainPort: number, fixedPorts: boolean): Promise<void> {
    const h1 = https.createServer({ ...this.tls, ALPNProtocols: ['http/1.1'] }, route);
    const connect = http2.createSecureServer({ ...this.tls, settings: { enableConnectProtocol: true } });
    connect.on('session', (s: ServerHttp2Session) => {
      this.sessions.add(s);
      s.once('close', () => this.sessions.delete(s));
    });
    connect.on('stream', (stream, headers) => {
      if (headers[':method'] === 'CONNECT' && headers[':protocol'] === 'websocket') return handleWsConnect(stream, headers, this.hub, this.heartbeat);
      // Anything else (the page's warm-up fetch) gets an empty answer. That fetch carries
      // credentials, to open the connection in the pool WebSockets use, so CORS must name the
      // page's origin rather than `*`.
      const origin = headers.origin;
      const cors = origin ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' } : lower(CORS);
      stream.respond({ ':status': headers[':method'] === 'GET' || headers[':method'] === 'HEAD' ? 204 : 405, ...cors });
      stream.end();
    });
    const hostText = host.includes(':') ? `[${host}]` : host;
    const entries: [keyof ServerOrigins, Listener, number][] = [
      ['h1', h1, fixedPorts ? mainPort + 1 : 0],
      ['connect', connect, fixedPorts ? mainPort + 2 : 0],
    ];
    for (const [kind, server, port] of entries) {
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
        this.urls[kind] = `https://${hostText}:${(server.address() as AddressInfo).port}/`;
      } catch (err) {
        this.errors[kind] = `port ${port} on ${host}: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
  }

  async close(): Promise<void> {
    for (const s of this.sessions) s.destroy();
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** HTTP/2 wants lower-case header names. */
function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
