/**
 * `npm run build`: the lab page (`dist/web/`), the one-file report viewer (`dist/report/`) and
 * the Node sides bundled per entry point (`dist/node/`, which every command runs: cli/entry.ts),
 * built so that a command running in another terminal never loses them. Every command builds
 * first (`npm run sweep`, `advise`, `lab`, `server`, `report`, the benches),
 * and two raw `vite build`s emptied `dist/web` first: a server started meanwhile refused to start
 * ("the page is not built") and one already running answered 404.
 *
 * - A build goes into a directory of its own, `dist/builds/<ms>-<pid>-<random>/`, never into
 *   one anything reads: two builds at once cannot write over each other.
 * - When it is complete (`build.json` written last), `dist/current`, a symlink, is pointed at it
 *   by renaming a new symlink over the old one, which is atomic: a reader finds the old tree or
 *   the new one, never neither and never half of one. Two builds at once: the last rename wins,
 *   with a complete tree either way.
 * - `dist/web`, `dist/report` and `dist/node` are fixed symlinks through it (`current/web`, …),
 *   so every reader keeps its path; fastify-static resolves its root on every request, so a
 *   running server serves the new tree from the swap on.
 * - Nothing is built when `dist/current` is complete and was built from the same inputs (a
 *   SHA-256 of the files it is built from, cli/builds.ts INPUTS): `npm run sweep` after `npm run lab`
 *   starts at once. `--force` builds anyway.
 * - Builds other than the current one are removed once GRACE_MS old (a request in flight may
 *   still be reading one), and a build whose process is gone once GRACE_MS old too; never one
 *   a running command still holds (cli/builds.ts `holdBuild`), whatever its age.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLineFlags, runCommand } from './command.js';
import { ROOT } from './root.js';
import { pidRuns } from './pid.js';
import type { FlagSpec } from '../protocol/flags.js';
import { completeBuild, currentBuild, DIST, distPaths, heldBy, inputsHash, MARKER, NODE_ENTRIES, nodeEnv, type Marker } from './builds.js';

/** How long a replaced build is kept for a reader that is still in it, ms. */
const GRACE_MS = 10 * 60_000;

const BUILD_FLAGS = {
  force: { type: 'boolean', default: false, help: 'build even when dist/ is up to date' },
} as const satisfies Record<string, FlagSpec>;

/** A name no other build (another process, or this one later) takes: sortable by time. */
function uniqueName(): string {
  return `${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Lets the CommonJS packages inlined into an ESM bundle call `require` (Node's built-ins, a JSON
 * file, an optional addon): it is not defined in an ES module.
 */
const REQUIRE_BANNER = "import { createRequire as __pushlabCreateRequire } from 'node:module'; const require = __pushlabCreateRequire(import.meta.url);";

/**
 * The Node sides into `dir/node/`: each entry point (NODE_ENTRIES) bundled into one file at its
 * own path, with the packages it imports inlined and the code entries share in `node/chunks/`.
 *
 * Why: Node's ESM loader over the hundreds of files a command imports (ours, fastify's,
 * puppeteer's) was the largest part of every start, and a sweep starts two processes (itself and
 * its server), the tests hundreds. `sweep --help` 0.82 → 0.54 s, `server --help` 0.61 → 0.41 s
 * (docs/commands.md#every-command). Packages are inlined, not left external: external they were
 * still hundreds of files (sweep 0.77 s).
 * - `splitting`: a dynamic `import()` (apache-arrow, server/codecs/arrow.ts; puppeteer's BiDi)
 *   stays a file of its own, loaded only when used.
 * - `keepNames`: the bundler renames clashing classes (`Browser3`); a package that reads
 *   `constructor.name` (puppeteer's `TimeoutError`, which puppeteer/browser/grid.ts matches) keeps it.
 * - `ws` stays a package on disk: server/transports/ws.ts checks the private field of the ws
 *   that @fastify/websocket loads by requiring it from there, which must be the same module.
 * - `vite` stays a package on disk too: only `--render-module` loads it (puppeteer/render-module.ts),
 *   and bundled it drags in its optional dependencies, which do not resolve.
 * - Source maps beside the files, so a bug's stack still names the TypeScript files: a command
 *   maps the one it prints (cli/stack.ts), as `node --enable-source-maps` maps every one, which
 *   Node pays for in memory and start-up in every process, the measured server too.
 */
async function compileNode(dir: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: NODE_ENTRIES.map((f) => path.join(ROOT, f)),
    outdir: path.join(dir, 'node'),
    outbase: ROOT,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    external: ['ws', 'vite'],
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
}

/** Both Vite builds (the page, the viewer) into `dir`. */
async function buildPages(dir: string): Promise<void> {
  // root is given again because the configs' `root: 'web'` is relative to the working directory.
  const root = path.join(ROOT, 'web');
  // Imported here: an up-to-date dist/ (the common case, before every command) skips loading Vite.
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), root, logLevel: 'warn', build: { outDir: path.join(dir, 'web'), emptyOutDir: true } });
  await build({ configFile: path.join(ROOT, 'vite.report.config.ts'), root, logLevel: 'warn', build: { outDir: path.join(dir, 'report'), emptyOutDir: true } });
}

/**
 * The pages and the bundled Node sides into `dir`, then the marker: a directory with a marker is
 * a complete build. The two at once: neither keeps both cores busy alone (esbuild's bundle is
 * about 1.8 s here). Both settle before an error is thrown, so nothing still writes into a `dir`
 * the caller removes.
 */
async function buildInto(dir: string, marker: Marker): Promise<void> {
  const parts = await Promise.allSettled([buildPages(dir), compileNode(dir)]);
  for (const part of parts) if (part.status === 'rejected') throw part.reason;
  await writeFile(path.join(dir, MARKER), `${JSON.stringify(marker)}\n`);
}

/** `link` → `target`, replaced in one rename: a reader sees the old link or the new one, never none. */
async function swapLink(dist: string, link: string, target: string): Promise<void> {
  const tmp = path.join(dist, `.${path.basename(link)}-${uniqueName()}`);
  await symlink(target, tmp);
  try {
    const now = await lstat(link).catch(() => null);
    // The layout before builds/: a real directory, which a rename cannot replace. Moved aside
    // once (a reader may miss it for the moment between the two renames), removed later.
    if (now && !now.isSymbolicLink()) {
      await rename(link, path.join(dist, 'builds', `${uniqueName()}-old-${path.basename(link)}`)).catch((err: NodeJS.ErrnoException) => {
        // Another build moved it first.
        if (err.code !== 'ENOENT') throw err;
      });
    }
    await rename(tmp, link);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** `dist/web` → `current/web`, and `report` and `node` the same way, unless they are already. */
async function ensureFixedLinks(dist: string): Promise<void> {
  for (const name of ['web', 'report', 'node']) {
    const link = path.join(dist, name);
    const target = path.join('current', name);
    if ((await readlink(link).catch(() => null)) !== target) await swapLink(dist, link, target);
  }
}

/**
 * Removes builds no one needs: not the current one, none younger than GRACE_MS (a reader may
 * still be in one, or another build is about to point current at it), none whose process still
 * builds it. What cannot be removed is left for the next build.
 */
async function removeOldBuilds(builds: string, keep: readonly (string | null)[]): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(builds).catch(() => [] as string[])) {
    const m = /^(\d+)-(\d+)-[0-9a-f]+/.exec(name);
    if (!m || keep.includes(name) || now - Number(m[1]) < GRACE_MS) continue;
    const dir = path.join(builds, name);
    if (pidRuns(Number(m[2])) && completeBuild(dir) === null && !name.includes('-old-')) continue;
    if (heldBy(dir)) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Builds dist/ unless it is up to date (or `force`). */
async function buildDist(dist: string, force: boolean): Promise<void> {
  const p = distPaths(dist);
  // Read before Vite runs: it sets NODE_ENV to `production` in this process.
  const wanted: Marker = { inputs: inputsHash(), nodeEnv: nodeEnv() };
  const before = currentBuild(p.current);
  const up = before === null ? null : completeBuild(path.join(p.builds, before));
  let now = before;
  if (force || up?.inputs !== wanted.inputs || up.nodeEnv !== wanted.nodeEnv) {
    await mkdir(p.builds, { recursive: true });
    now = uniqueName();
    const dir = path.join(p.builds, now);
    try {
      await buildInto(dir, wanted);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    await swapLink(dist, p.current, path.join('builds', now));
  }
  await ensureFixedLinks(dist);
  // The one this build pointed at, and the one current points at now (another build's, if it swapped since).
  await removeOldBuilds(p.builds, [now, currentBuild(p.current)]);
}

runCommand('build', async () => {
  const flags = commandLineFlags(BUILD_FLAGS, 'build');
  await buildDist(DIST, flags.force);
  return 0;
});
