/**
 * `npm run build`: the lab page (`dist/web/`) and the one-file report viewer (`dist/report/`),
 * built so that a command running in another terminal never loses them. Every command that
 * needs the page builds first (`npm run sweep`, `advise`, `lab`, `server`, `report`, the benches),
 * and two raw `vite build`s emptied `dist/web` first: a server started meanwhile refused to start
 * ("the page is not built") and one already running answered 404.
 *
 * - A build goes into a directory of its own, `dist/builds/<ms>-<pid>-<random>/`, never into
 *   one anything reads: two builds at once cannot write over each other.
 * - When it is complete (`build.json` written last), `dist/current`, a symlink, is pointed at it
 *   by renaming a new symlink over the old one, which is atomic: a reader finds the old tree or
 *   the new one, never neither and never half of one. Two builds at once: the last rename wins,
 *   with a complete tree either way.
 * - `dist/web` and `dist/report` are fixed symlinks through it (`current/web`, `current/report`),
 *   so every reader keeps its path; fastify-static resolves its root on every request, so a
 *   running server serves the new tree from the swap on.
 * - Nothing is built when `dist/current` is complete and was built from the same inputs (a
 *   SHA-256 of the files the page is built from, INPUTS): `npm run sweep` after `npm run lab`
 *   starts at once. `--force` builds anyway.
 * - Builds other than the current one are removed once GRACE_MS old (a request in flight may
 *   still be reading one), and a build whose process is gone once GRACE_MS old too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandLineFlags, runCommand } from './command.js';
import { ROOT } from './root.js';
import { pidRuns } from './pid.js';
import type { FlagSpec } from '../protocol/flags.js';

/** What the page and the viewer are built from: directories (all their files) and files, relative to the root. */
const INPUTS = [
  'web',
  'protocol',
  'results',
  'vite.config.ts',
  'vite.report.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'cli/build.ts',
];

/** How long a replaced build is kept for a reader that is still in it, ms. */
const GRACE_MS = 10 * 60_000;

/** What a complete build holds, relative to its directory: the checks that it can be served. */
const BUILT_FILES = ['web/index.html', 'report/report.html'];

/** Written last into a build: it is complete, and what it was built from. */
const MARKER = 'build.json';

const BUILD_FLAGS = {
  force: { type: 'boolean', default: false, help: 'build even when dist/ is up to date' },
} as const satisfies Record<string, FlagSpec>;

interface Marker {
  inputs: string;
}

/** dist/ and the names in it. */
function distPaths(dist: string) {
  return { dist, builds: path.join(dist, 'builds'), current: path.join(dist, 'current') };
}

/** A name no other build (another process, or this one later) takes: sortable by time. */
function uniqueName(): string {
  return `${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

async function filesUnder(rel: string): Promise<string[]> {
  const abs = path.join(ROOT, rel);
  const info = await stat(abs).catch(() => null);
  if (!info) return [];
  if (!info.isDirectory()) return [rel];
  const out: string[] = [];
  for (const e of (await readdir(abs, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name === 'node_modules') continue;
    out.push(...(await filesUnder(path.join(rel, e.name))));
  }
  return out;
}

/** SHA-256 of the inputs' paths and bytes (and NODE_ENV, which Vite reads): equal inputs build equal pages. */
async function inputsHash(): Promise<string> {
  const h = createHash('sha256');
  h.update(`NODE_ENV=${process.env.NODE_ENV ?? ''}\0`);
  for (const rel of INPUTS) {
    for (const file of await filesUnder(rel)) {
      h.update(`${file}\0`);
      h.update(await readFile(path.join(ROOT, file)));
      h.update('\0');
    }
  }
  return h.digest('hex');
}

/** The marker of the build `dir`, when the build is complete; else null. */
async function completeBuild(dir: string): Promise<Marker | null> {
  try {
    const marker = JSON.parse(await readFile(path.join(dir, MARKER), 'utf8')) as Marker;
    for (const f of BUILT_FILES) if (!(await stat(path.join(dir, f))).isFile()) return null;
    return marker;
  } catch {
    return null;
  }
}

/** Both Vite builds into `dir`, then the marker: a directory with a marker is a complete build. */
async function buildInto(dir: string, inputs: string): Promise<void> {
  // root is given again because the configs' `root: 'web'` is relative to the working directory.
  const root = path.join(ROOT, 'web');
  // Imported here: an up-to-date dist/ (the common case, before every command) skips loading Vite.
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), root, logLevel: 'warn', build: { outDir: path.join(dir, 'web'), emptyOutDir: true } });
  await build({ configFile: path.join(ROOT, 'vite.report.config.ts'), root, logLevel: 'warn', build: { outDir: path.join(dir, 'report'), emptyOutDir: true } });
  await writeFile(path.join(dir, MARKER), `${JSON.stringify({ inputs } satisfies Marker)}\n`);
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

/** `dist/web` → `current/web` and `dist/report` → `current/report`, unless they are already. */
async function ensureFixedLinks(dist: string): Promise<void> {
  for (const name of ['web', 'report']) {
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
    if (pidRuns(Number(m[2])) && (await completeBuild(dir)) === null && !name.includes('-old-')) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The build dist/current points at (its name under builds/), or null. */
async function currentBuild(current: string): Promise<string | null> {
  const target = await readlink(current).catch(() => null);
  return target === null ? null : path.basename(target);
}

/** Builds dist/ unless it is up to date (or `force`). */
async function buildDist(dist: string, force: boolean): Promise<void> {
  const p = distPaths(dist);
  const inputs = await inputsHash();
  const before = await currentBuild(p.current);
  const up = before === null ? null : await completeBuild(path.join(p.builds, before));
  let now = before;
  if (force || up?.inputs !== inputs) {
    await mkdir(p.builds, { recursive: true });
    now = uniqueName();
    const dir = path.join(p.builds, now);
    try {
      await buildInto(dir, inputs);
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    await swapLink(dist, p.current, path.join('builds', now));
  }
  await ensureFixedLinks(dist);
  // The one this build pointed at, and the one current points at now (another build's, if it swapped since).
  await removeOldBuilds(p.builds, [now, await currentBuild(p.current)]);
}

runCommand('build', async () => {
  const flags = commandLineFlags(BUILD_FLAGS, 'build');
  await buildDist(path.join(ROOT, 'dist'), flags.force);
  return 0;
});
