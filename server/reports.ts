/**
 * `GET /reports/` and `GET /reports/<run>/…/<file>.json`: the report viewer's read-only view
 * of `reports/`, and nothing else.
 *
 * This replaces @fastify/static's directory listing, which in 8.x listed any directory on the
 * disk (`/reports/%2e%2e/%2e%2e/root/`). A general static server has to get every corner of
 * URL decoding right; the viewer needs two things (web/src/report/load.ts): the names of the
 * runs, and `<run>/report.json`. So this route serves exactly that, from the raw request
 * path, and checks every step:
 * - the path is split on '/' BEFORE decoding, and each segment is decoded exactly once; a
 *   segment that decodes to '.', '..', a dotfile, or anything holding '/', '\', '%' (a
 *   double encoding), ':' or NUL is refused, as is any malformed escape;
 * - the file is resolved with realpath and must stay under the real `reports/` root, so a
 *   symlink cannot lead out;
 * - only regular `.json` files are served, and only the root is listed (the run directories
 *   that hold a report.json).
 * Every refusal is the same 404 without echoing the path: a probe learns nothing about what
 * exists outside.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export const REPORTS_PREFIX = '/reports/';
/** The one file name a run directory must hold to be listed. */
const RUN_REPORT = 'report.json';

/** Path segments below the prefix, decoded once and checked; null when any is not allowed. */
export function safeSegments(rawPath: string): string[] | null {
  const segments = rawPath.split('/');
  const out: string[] = [];
  for (const raw of segments) {
    let s: string;
    try {
      s = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (s === '' || s === '.' || s === '..' || s.startsWith('.') || /[/\\%:\0]/.test(s)) return null;
    out.push(s);
  }
  return out;
}

/** True when `candidate` is `root` itself or lies under it (both already real paths). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The run directories under `root` that hold a report.json, by name (symlinks that leave root are skipped). */
export async function listRuns(root: string): Promise<string[]> {
  const realRoot = await realpath(root);
  const names: string[] = [];
  for (const entry of await readdir(realRoot, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || safeSegments(encodeURIComponent(entry.name)) === null) continue;
    try {
      const report = await realpath(path.join(realRoot, entry.name, RUN_REPORT));
      if (isInside(realRoot, report) && (await stat(report)).isFile()) names.push(entry.name);
    } catch {
      // No report.json yet (a sweep before its first point) or a dangling link: not a run.
    }
  }
  return names.sort();
}

/** The real path of a servable file for `rawPath` (below the prefix), or null. */
export async function resolveReportFile(root: string, rawPath: string): Promise<string | null> {
  const segments = safeSegments(rawPath);
  if (segments === null || segments.length === 0 || !segments[segments.length - 1]!.endsWith('.json')) return null;
  try {
    const realRoot = await realpath(root);
    const file = await realpath(path.join(realRoot, ...segments));
    if (!isInside(realRoot, file) || !(await stat(file)).isFile()) return null;
    return file;
  } catch {
    return null;
  }
}

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
      const dirs = await listRuns(absRoot).catch(() => []);
      return reply.header('cache-control', 'no-store').send({ dirs, files: [] });
    };
    app.get('/reports', list);
    app.get(REPORTS_PREFIX, list);
    app.get(`${REPORTS_PREFIX}*`, async (request, reply) => {
      const raw = rawPathOf(request);
      if (!raw.startsWith(REPORTS_PREFIX)) return notFound(reply);
      const file = await resolveReportFile(absRoot, raw.slice(REPORTS_PREFIX.length));
      if (file === null) return notFound(reply);
      const { size } = await stat(file);
      // A sweep rewrites report.json after every point: never let a cache keep an old one.
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-length', size)
        .header('cache-control', 'no-store')
        .send(createReadStream(file));
    });
  },
  { name: 'pushlab-reports' },
);
