/**
 * `GET /reports/` and `GET /reports/<run>/…/<file>.json`: the report viewer's read-only view
 * of `reports/`, and nothing else.
 *
 * This replaces @fastify/static's directory listing, which in 8.x listed any directory on the
 * disk (`/reports/%2e%2e/%2e%2e/root/`). What may be served is one rule, cli/reports-dir.ts,
 * which the viewer's own server (`npm run report -- --serve`) uses too: segments split before
 * decoding and decoded once, no dot segments or dotfiles, realpath containment (no symlink out),
 * regular `.json` files only. Every refusal is the same 404 without echoing the path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import path from 'node:path';
import { openServableFile, REPORTS_PREFIX, servableRuns } from '../cli/reports-dir.js';

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ error: 'not-found', message: `only ${REPORTS_PREFIX} and the .json files of runs under it are served` });
}

/** The request's path as sent, before any router decoding, without the query. */
function rawPathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export default fp<{ root: string }>(
  async function reportsRoute(app: FastifyInstance, { root }) {
    const absRoot = path.resolve(root);
    const list = async (_request: FastifyRequest, reply: FastifyReply) => {
      // The viewer reads `{ dirs }` (runNamesFromListing); it was @fastify/static's shape.
      const dirs = await servableRuns(absRoot);
      return reply.header('cache-control', 'no-store').send({ dirs, files: [] });
    };
    app.get('/reports', list);
    app.get(REPORTS_PREFIX, list);
    app.get(`${REPORTS_PREFIX}*`, async (request, reply) => {
      const raw = rawPathOf(request);
      if (!raw.startsWith(REPORTS_PREFIX)) return notFound(reply);
      const opened = await openServableFile(absRoot, raw.slice(REPORTS_PREFIX.length));
      if (opened === null) return notFound(reply);
      // A sweep rewrites report.json after every point: never let a cache keep an old one.
      // The stream reads the descriptor that was checked, and closes it when done.
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-length', opened.size)
        .header('cache-control', 'no-store')
        .send(opened.handle.createReadStream());
    });
  },
  { name: 'pushlab-reports' },
);
