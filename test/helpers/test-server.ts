/**
 * The real server on loopback for a test file: a fresh certificate in a temp directory, port 0,
 * and one `close()` that stops the server and removes the certificate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { buildServer, type PushlabServer, type ServerOptions } from '../../server/app.js';
import { loadOrCreateCert } from '../../server/cert.js';
import type { ServerOrigins } from '../../protocol/wire.js';
import { h2get } from './h2-get.js';

export interface TestServer {
  app: PushlabServer;
  port: number;
  close(): Promise<void>;
}

export async function startTestServer(options: Omit<ServerOptions, 'tls'> = {}): Promise<TestServer> {
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-cert-'));
  const app = await buildServer({ ...options, tls: await loadOrCreateCert(certDir) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  return {
    app,
    port: typeof addr === 'object' && addr ? addr.port : 0,
    close: async () => {
      await app.close();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

/** The server with one HTTP/2 session to it and the origins it announced, for a file of Node clients. */
export interface ServerSession {
  server: TestServer;
  session: http2.ClientHttp2Session;
  origins: ServerOrigins;
  close(): Promise<void>;
}

export async function startServerSession(options: Omit<ServerOptions, 'tls'> = {}): Promise<ServerSession> {
  const server = await startTestServer(options);
  const session = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
  const origins = JSON.parse((await h2get(session, '/origins')).body) as ServerOrigins;
  return {
    server,
    session,
    origins,
    close: async () => {
      session.close();
      await server.close();
    },
  };
}
