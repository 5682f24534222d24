/**
 * The layout of `dist/` that `npm run build` writes (cli/build.ts) and every command reads:
 *
 * - `dist/builds/<ms>-<pid>-<random>/`: one build each, with `web/` (the lab page), `report/`
 *   (the one-file viewer), `node/` (the Node sides bundled: one file per entry point, NODE_ENTRIES,
 *   at its source's path, and the code they share in `node/chunks/`) and, written last,
 *   `build.json` (complete, and the hash of the sources it was built from);
 * - `dist/current` → the build in use, swapped by one rename;
 * - `dist/web`, `dist/report`, `dist/node` → fixed links through `current`.
 *
 * A command running from a build holds it (`holders/<pid>`), so a newer build never removes the
 * files of a sweep that is still running from an older one: a server it starts later, or a
 * module it loads lazily, must still be there an hour on.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './root.js';
import { pidRuns } from './pid.js';

/** What the page, the viewer and the compiled Node sides are built from: directories (all their files) and files, relative to the root. */
export const INPUTS = [
  'web',
  'protocol',
  'results',
  'cli',
  'server',
  'puppeteer',
  'bench',
  'vite.config.ts',
  'vite.report.config.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.json',
];

/**
 * Every file Node runs from a build as a process or a Worker (relative to the root): the commands
 * package.json runs, what they and the tests start by path (cli/entry.ts `entryArgv`: the server, a
 * bench's clients and plain server) and the report's view worker (loaded by a URL next to
 * puppeteer/report/main). Each is bundled into `node/` at its own path, `.ts` → `.js`.
 */
export const NODE_ENTRIES = [
  'server/main.ts',
  'puppeteer/sweep/main.ts',
  'puppeteer/advise/main.ts',
  'puppeteer/lab/main.ts',
  'puppeteer/soak/main.ts',
  'puppeteer/report/main.ts',
  'puppeteer/report/view-worker.ts',
  'puppeteer/link/relay.ts',
  'bench/arrow.ts',
  'bench/backpressure.ts',
  'bench/clients.ts',
  'bench/faults.ts',
  'bench/link.ts',
  'bench/page.ts',
  'bench/plain-server.ts',
  'bench/render.ts',
  'bench/rows.ts',
  'bench/server.ts',
  'bench/soak.ts',
  'bench/views.ts',
];

/** Written last into a build: it is complete, and what it was built from. */
export const MARKER = 'build.json';

/** What a complete build holds, relative to its directory: the checks that it can be served and run. */
export const BUILT_FILES = ['web/index.html', 'report/report.html', 'node/server/main.js'];

export interface Marker {
  /** SHA-256 of the sources (inputsHash). */
  inputs: string;
  /** NODE_ENV the page was built under: Vite reads it, so a page built under vitest's `test` differs. */
  nodeEnv: string;
}

/** NODE_ENV as a build records it. */
export const nodeEnv = (): string => process.env.NODE_ENV ?? '';

export const DIST = path.join(ROOT, 'dist');

/** dist/ and the names in it. */
export function distPaths(dist = DIST) {
  return { dist, builds: path.join(dist, 'builds'), current: path.join(dist, 'current') };
}

function filesUnder(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  let info;
  try {
    info = statSync(abs);
  } catch {
    return [];
  }
  if (!info.isDirectory()) return [rel];
  const out: string[] = [];
  for (const e of readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name === 'node_modules') continue;
    out.push(...filesUnder(path.join(rel, e.name)));
  }
  return out;
}

/** The files under `dirs` (relative to the root), sorted. */
export const sourceFiles = (dirs: readonly string[]): string[] => dirs.flatMap(filesUnder);

/**
 * SHA-256 of the inputs' paths and bytes: equal inputs (and NODE_ENV, Marker) build equal trees.
 * Synchronous: it runs once per process, before anything else is under way (about 30 ms here).
 */
export function inputsHash(): string {
  const h = createHash('sha256');
  for (const file of sourceFiles(INPUTS)) {
    h.update(`${file}\0`);
    h.update(readFileSync(path.join(ROOT, file)));
    h.update('\0');
  }
  return h.digest('hex');
}

/** The marker of the build `dir`, when the build is complete; else null. */
export function completeBuild(dir: string): Marker | null {
  try {
    const marker = JSON.parse(readFileSync(path.join(dir, MARKER), 'utf8')) as Marker;
    for (const f of BUILT_FILES) if (!statSync(path.join(dir, f)).isFile()) return null;
    return marker;
  } catch {
    return null;
  }
}

/** The build dist/current points at (its name under builds/), or null. */
export function currentBuild(current = distPaths().current): string | null {
  try {
    return path.basename(readlinkSync(current));
  } catch {
    return null;
  }
}

/**
 * The directory of the current build when it is complete and was built from the sources as they
 * are now; else null. Whatever NODE_ENV it was built under: the compiled Node sides do not read it.
 */
export function freshBuild(): string | null {
  const p = distPaths();
  const name = currentBuild(p.current);
  if (name === null) return null;
  const dir = path.join(p.builds, name);
  return completeBuild(dir)?.inputs === inputsHash() ? dir : null;
}

const HOLDERS = 'holders';

/**
 * Marks build `dir` as used by this process until it ends (a file named by its pid): the
 * cleaner (`heldBy`) leaves a build alone while one of its holders runs. Best effort: a build
 * that cannot be written to is only at the risk every build had before.
 */
export function holdBuild(dir: string): void {
  try {
    const holders = path.join(dir, HOLDERS);
    mkdirSync(holders, { recursive: true });
    writeFileSync(path.join(holders, String(process.pid)), '');
  } catch {
    // Read-only, or removed under us: nothing to hold.
  }
}

/** Whether a process that holds build `dir` still runs. */
export function heldBy(dir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync(path.join(dir, HOLDERS));
  } catch {
    return false;
  }
  return pids.some((p) => /^\d+$/.test(p) && Number(p) !== process.pid && pidRuns(Number(p)));
}

/**
 * The build this module runs from, when it was bundled into one (`dist/builds/<name>/node/…`: an
 * entry, or a chunk shared by several); null when it runs from source. The directory above the
 * nearest one named `node`: how deep this code sits depends on which file the bundler put it in.
 */
export function runningBuild(moduleFile: string): string | null {
  if (!moduleFile.endsWith('.js')) return null;
  for (let d = path.dirname(moduleFile); path.dirname(d) !== d; d = path.dirname(d)) if (path.basename(d) === 'node') return path.dirname(d);
  return null;
}
