/**
 * Cross-origin reads. The page's origin is the main one; `sse-h1` and the `origins` factor's
 * replicas are other origins, so their answers must say any origin may read them (the rows are
 * synthetic and public, and nothing here uses credentials). gRPC-web's POST with its own
 * content type, and the poll stream's DELETE, are preflighted, so preflights are answered too.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { POLL_ID_HEADER } from '../protocol/wire.js';

export const ANY_ORIGIN = { 'access-control-allow-origin': '*' } as const;

/** Response headers a cross-origin page may read: the poll id, gRPC-web's status. */
const EXPOSED = `${POLL_ID_HEADER}, grpc-status, grpc-message`;

export default fp(
  async function allowCrossOrigin(app: FastifyInstance) {
    // On the raw response, so hijacked streams (SSE, NDJSON, gRPC-web) carry them too: a later
    // writeHead merges headers set this way.
    app.addHook('onRequest', async (request, reply) => {
      reply.raw.setHeader('access-control-allow-origin', '*');
      reply.raw.setHeader('access-control-expose-headers', EXPOSED);
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
