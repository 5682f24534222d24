/**
 * The repository's root directory, for commands that read or write files relative to it: the
 * nearest directory up from this module with a package.json. From source that is one up; from
 * a build (`dist/builds/<name>/node/…`, bundled into an entry or a chunk, no package.json) the
 * repository's.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function rootAbove(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'package.json'))) return d;
    if (path.dirname(d) === d) throw new Error(`no package.json above ${dir}: pushlab runs inside its repository`);
  }
}

export const ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Where the driver builds team render modules (`--render-module`, puppeteer/render-module.ts), a
 * directory per module named by its source's SHA-256; the server serves it at `/render-modules/`.
 * Beside dist/'s builds, never inside one: a rebuild of the page does not remove them.
 */
export const RENDER_MODULES_DIR = path.join(ROOT, 'dist', 'render-modules');
