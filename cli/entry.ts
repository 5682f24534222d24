/**
 * How pushlab starts its own Node entry points (the server a sweep owns, a bench's clients, a
 * command a test runs): as the JavaScript `npm run build` compiled into `dist/node/`, or through
 * tsx when there is no build of the sources as they are.
 *
 * Why compiled: `node puppeteer/sweep/main.js --help` took 0.9 s and 1.2 s of CPU here against
 * 2.5 s and 4.0 s through tsx (`/usr/bin/time`, one run each after a warm cache), whose loader
 * hooks see every module puppeteer and fastify load; and tsx starts esbuild service processes of
 * its own, which a signal can leave behind.
 *
 * - Run from a build (`npm run sweep`): the entry of the same build, never `dist/current`, which a
 *   later build may move; the build is held (cli/builds.ts) while this process runs.
 * - Run from source (`node --import tsx …`, vitest): the current build's when it was built from
 *   exactly these sources, else tsx. So an edit not yet built runs as edited, never stale.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBuild, holdBuild, runningBuild } from './builds.js';
import { ROOT } from './root.js';

const HERE = fileURLToPath(import.meta.url);

/** The build this process runs from (null: from source). */
export const RUNNING_BUILD = runningBuild(HERE);

let fresh: string | null | undefined;

/** The build whose compiled entries to start, or null for tsx. */
function buildToStart(): string | null {
  if (RUNNING_BUILD !== null) return RUNNING_BUILD;
  if (fresh === undefined) fresh = freshBuild();
  return fresh;
}

/**
 * The arguments after `node` that run `script` (a TypeScript entry, relative to the root:
 * `server/main.ts`): `[<build>/node/server/main.js]` or `['--import', 'tsx', <root>/server/main.ts]`.
 */
export function entryArgv(script: string): string[] {
  const build = buildToStart();
  if (build === null) return ['--import', 'tsx', path.join(ROOT, script)];
  return [path.join(build, 'node', script.replace(/\.ts$/, '.js'))];
}

/** Holds the build this process runs from (a no-op from source): see cli/builds.ts. */
export function holdRunningBuild(): void {
  if (RUNNING_BUILD !== null) holdBuild(RUNNING_BUILD);
}
