/**
 * Who may read and drive the main app: pushlab's own pages only (own-origins.ts). The page's
 * origin is the main one; `sse-h1` and the `origins` factor's replicas are other origins of the
 * same server, so their answers carry CORS for the page's origin, echoed (never `*`: any page
 * could read `*`, and a foreign page read `/reports/…` and `/stats` through it). A request from
 * a foreign page is refused before routing (403), so it starts no stream, upgrades no
 * WebSocket and reads nothing. Requests with no Origin (Node clients, benches, tests, curl, a
 * same-origin GET) are served as before, without CORS headers they would not read. gRPC-web's
 * POST with its own content type, and the poll stream's DELETE, are preflighted, so
 * preflights are answered too, for own pages only.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { POLL_ID_HEADER } from '../protocol/wire.js';
import { foreignRefusal, type OwnOrigins } from './own-origins.js';

/** Response headers a cross-origin page may read: the poll id, gRPC-web's status. */
const EXPOSED = `${POLL_ID_HEADER}, grpc-status, grpc-message`;

export default fp<{ own: OwnOrigins }>(
  async function allowOwnOrigins(app: FastifyInstance, { own }) {
    // onRequest, before routing's other hooks: an upgrade or a stream is refused before the hub
    // opens anything. On the raw response, so hijacked streams (SSE, NDJSON, gRPC-web) carry the
    // headers too: a later writeHead merges headers set this way.
    app.addHook('onRequest', async (request, reply) => {
      const verdict = own.judge(request.headers);
      // The answer depends on the Origin: a cache must not hand one page's answer to another.
      reply.raw.setHeader('vary', 'origin');
      if (verdict.kind === 'foreign') return reply.code(403).send(foreignRefusal(verdict.why));
      if (verdict.kind === 'own') {
        reply.raw.setHeader('access-control-allow-origin', verdict.origin);
        reply.raw.setHeader('access-control-expose-headers', EXPOSED);
      }
      // A preflight is answered here, before routing: Connect's routes take every method on
      // their paths and would answer OPTIONS with 405.
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
        const asked = request.headers['access-control-request-headers'];
        return reply
          .code(204)
          .header('access-control-allow-methods', 'GET, POST, DELETE')
          .header('access-control-allow-headers', typeof asked === 'string' ? asked : '')
          .header('access-control-max-age', '600')
          .send();
      }
      return undefined;
    });
  },
  { name: 'pushlab-cors' },
);
