/**
 * What of a reports directory may be served over HTTP, as one rule for both servers that serve
 * it: the main server's `/reports/` route (server/reports.ts) and the viewer's own server,
 * `npm run report -- --serve` (puppeteer/report/runs.ts). It lives in cli/, the Node-side code
 * every command shares, because protocol/ has no Node and the server and the driver do not
 * import each other. Before it was shared, the viewer's server followed a symlink inside
 * reports/ to a file outside it that the main server refused.
 *
 * The viewer needs two things (web/report/load.ts): the names of the runs, and the `.json`
 * files of a run (`<run>/report.json`). So exactly that is served, from the raw request path:
 * - the path is split on '/' BEFORE decoding, and each segment is decoded exactly once; a
 *   segment that decodes to '', '.', '..', a dotfile, or anything holding '/', '\', '%' (a
 *   double encoding), ':' or NUL is refused, as is any malformed escape;
 * - the file is resolved with realpath and must stay under the real root, so a symlink cannot
 *   lead out (a link that stays inside is fine);
 * - only regular `.json` files are served (not a directory, FIFO or device), and only the root
 *   is listed: the run directories that hold such a report.json;
 * - the file served is the one opened, checked again on its descriptor (where it really is, by
 *   /proc/self/fd on Linux): a directory swapped for a symlink between the check and the open
 *   cannot lead out.
 * A refusal is null, never the reason: a server answers every one with the same 404, so a probe
 * learns nothing about what exists outside.
 */
import { constants } from 'node:fs';
import { open, readdir, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Where both servers serve the reports directory (the viewer's LISTING_URL, web/report/load.ts). */
export const REPORTS_PREFIX = '/reports/';

/** The one file name a run directory must hold to be listed. */
export const RUN_REPORT = 'report.json';

/** Path segments (below the served prefix), decoded once and checked; null when any is not allowed. */
export function safeSegments(rawPath: string): string[] | null {
  const out: string[] = [];
  for (const raw of rawPath.split('/')) {
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

/** The real path of `segments` under `realRoot` when it is a regular file inside it, else null. */
async function regularFileInside(realRoot: string, segments: readonly string[]): Promise<string | null> {
  try {
    const file = await realpath(path.join(realRoot, ...segments));
    return isInside(realRoot, file) && (await stat(file)).isFile() ? file : null;
  } catch {
    // Missing, a dangling link, a loop, no permission: not servable.
    return null;
  }
}

/** The run directories under `root` that hold a servable report.json, by name, sorted; [] when root cannot be read. */
export async function servableRuns(root: string): Promise<string[]> {
  let realRoot: string;
  let entries: string[];
  try {
    realRoot = await realpath(root);
    entries = await readdir(realRoot);
  } catch {
    return [];
  }
  const runs: string[] = [];
  for (const name of entries) {
    if (safeSegments(encodeURIComponent(name)) === null) continue;
    if ((await regularFileInside(realRoot, [name, RUN_REPORT])) !== null) runs.push(name);
  }
  return runs.sort();
}

/** The real path of the file `rawPath` (the raw request path below the prefix) names, when it may be served; else null. */
export async function servableFile(root: string, rawPath: string): Promise<string | null> {
  const segments = safeSegments(rawPath);
  if (segments === null || segments.length === 0 || !segments[segments.length - 1].endsWith('.json')) return null;
  try {
    return await regularFileInside(await realpath(root), segments);
  } catch {
    return null;
  }
}

/** Where an open file really is (Linux: /proc/self/fd), or null where that cannot be read. */
async function openedPath(handle: FileHandle): Promise<string | null> {
  return readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
}

/**
 * The file `rawPath` names, opened, when it may be served, with its size; else null. The caller
 * reads it from the handle and closes it. What is served is what was opened: a regular file (no
 * FIFO to block on, no symlink as its last part) that is, by its descriptor, inside the root.
 */
export async function openServableFile(root: string, rawPath: string): Promise<{ handle: FileHandle; size: number } | null> {
  const file = await servableFile(root, rawPath);
  if (file === null) return null;
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const [info, where, realRoot] = await Promise.all([handle.stat(), openedPath(handle), realpath(root)]);
    if (info.isFile() && (where === null || isInside(realRoot, where))) return { handle, size: info.size };
  } catch {
    // Gone or unreadable between the check and now: not servable.
  }
  await handle.close();
  return null;
}
