/**
 * `--render-module FILE` (and a scenario's `renderModule`): a team's own page component, built
 * with Vite into RENDER_MODULES_DIR/<sha256>/module.js before anything starts, where the server
 * serves it and the lab page imports it (protocol/render-module.ts). A file that cannot be used
 * is refused here, once, with PUSHLAB_BAD_RENDER_MODULE: not a file pushlab builds, a build
 * that fails (its first error quoted), or no `mount` export.
 *
 * Why a module of its own and not a page rebuilt around it: one server serves every point of a
 * sweep, whose scenarios may name different modules (or none); the page each point loads is the
 * same build, and only what it imports differs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { readInputFile } from '../cli/input-file.js';
import { RENDER_MODULES_DIR, ROOT } from '../cli/root.js';
import { PushlabError } from '../protocol/errors.js';
import { renderExportsProblem, type RenderModuleRef } from '../protocol/render-module.js';
import type { Point } from '../protocol/factors.js';
import type { ScenarioFields, ScenarioInput } from '../protocol/scenario-schema.js';

/** What a render module may be written in: what Vite builds without a plugin (JSX included). */
export const RENDER_MODULE_EXTENSIONS = ['.js', '.mjs', '.jsx', '.ts', '.tsx'] as const;

/** How the refusal names the file: the flag or the scenario field it came from. */
const refuse = (label: string, what: string) => new PushlabError('PUSHLAB_BAD_RENDER_MODULE', `${label}: ${what}`);

/** The first line of a build's first error, without Vite's prefix: what the one-line refusal quotes. */
export function firstBuildError(err: unknown): string {
  const first = (err as { errors?: unknown[] } | null)?.errors?.[0] ?? err;
  const text = first instanceof Error ? first.message : typeof first === 'object' && first && 'message' in first ? String(first.message) : String(first);
  const line = text.split('\n').find((l) => l.trim() !== '') ?? 'the build failed with no message';
  return line.replace(/^\[vite\]:?\s*/, '').trim();
}

/**
 * Builds `file` (relative to `cwd`) into `outRoot`/<sha256>/module.js; resolves to which file
 * and version it was. `label` names it in a refusal (`--render-module ./x.tsx`).
 */
export async function buildRenderModule(file: string, label: string, outRoot = RENDER_MODULES_DIR, cwd = ROOT): Promise<RenderModuleRef> {
  const { abs, sha256 } = await readRenderModule(file, label, cwd);
  const dir = path.join(outRoot, sha256);
  // Built beside its final place, then renamed in: a server never serves half a module.
  const tmp = path.join(outRoot, `.build-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const exports = await viteBuild(abs, tmp, label);
    const problem = renderExportsProblem(Object.fromEntries(exports.map((name) => [name, 'function'])));
    if (problem) throw refuse(label, problem);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir).catch((err: NodeJS.ErrnoException) => {
      // Another command built the same source at the same moment: its copy serves as well.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return { path: file, sha256 };
}

/** A module's file, checked as one pushlab builds, and the SHA-256 of its text (what names its version). */
async function readRenderModule(file: string, label: string, cwd: string): Promise<{ abs: string; sha256: string }> {
  const abs = path.resolve(cwd, file);
  const ext = path.extname(abs);
  if (!(RENDER_MODULE_EXTENSIONS as readonly string[]).includes(ext)) {
    throw refuse(label, `must be one of ${RENDER_MODULE_EXTENSIONS.join(', ')} (an ES module Vite builds); got ${JSON.stringify(ext || path.basename(abs))}`);
  }
  const text = await readInputFile(
    abs,
    label,
    'PUSHLAB_BAD_RENDER_MODULE',
    `give an ES module exporting mount(host, page) (${RENDER_MODULE_EXTENSIONS.join(', ')})`,
  );
  return { abs, sha256: createHash('sha256').update(text).digest('hex') };
}

/**
 * The module a resumed run draws with: the one `recorded` when it began, built again from its
 * path, or from `given` (`--render-module` named again). Its text must be the version measured:
 * every measurement of one search draws with one page, so a file whose SHA-256 changed since is
 * refused (before it is built), as is a module named for a run that drew with pushlab's views.
 * `run` names the run in a refusal (`the search advise-20261129-003000`).
 */
export async function recordedRenderModule(
  recorded: RenderModuleRef | undefined,
  given: string,
  run: string,
  outRoot = RENDER_MODULES_DIR,
  cwd = ROOT,
): Promise<RenderModuleRef | undefined> {
  if (!recorded) {
    if (given === '') return undefined;
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--render-module ${given}: ${run} drew with pushlab's table and charts, and a resumed run keeps its page; drop --render-module, or start a new run with it`,
    );
  }
  const file = given || recorded.path;
  const label = given ? `--render-module ${given}` : `${file} (the render module ${run} drew with)`;
  const changed = (now: string) =>
    refuse(
      label,
      `its text changed since ${run} measured with it (sha256 ${recorded.sha256.slice(0, 12)}… then, ${now.slice(0, 12)}… now); restore that version to go on, or start a new run`,
    );
  const { sha256 } = await readRenderModule(file, label, cwd);
  if (sha256 !== recorded.sha256) throw changed(sha256);
  const built = await buildRenderModule(file, label, outRoot, cwd);
  // Changed between the check and the build's own read: what was built is not what was measured.
  if (built.sha256 !== recorded.sha256) throw changed(built.sha256);
  return recorded;
}

/**
 * One Vite library build of `entry` into `outDir`: an ES module `module.js` with everything it
 * imports bundled (chunks beside it for its dynamic imports); resolves to the entry's exports.
 */
async function viteBuild(entry: string, outDir: string, label: string): Promise<string[]> {
  // Imported here: commands without a render module never load Vite.
  const { build } = await import('vite');
  let output: Awaited<ReturnType<typeof build>>;
  try {
    output = await build({
      configFile: false,
      root: path.dirname(entry),
      logLevel: 'silent',
      mode: 'production',
      // Library builds leave process.env alone; React and most UI libraries read NODE_ENV from it.
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      // JSX as production code whatever NODE_ENV this process has: Vite otherwise emits the
      // development runtime's jsxDEV calls, which the production React defined above lacks.
      oxc: { jsx: { development: false } },
      build: {
        outDir,
        emptyOutDir: true,
        copyPublicDir: false,
        target: 'es2022',
        lib: { entry, formats: ['es'], fileName: () => 'module.js' },
      },
    });
  } catch (err) {
    throw refuse(label, `does not build: ${firstBuildError(err)}`);
  }
  const outputs = Array.isArray(output) ? output : [output];
  for (const o of outputs) {
    if (!('output' in o)) continue;
    for (const chunk of o.output) if (chunk.type === 'chunk' && chunk.isEntry) return chunk.exports;
  }
  throw refuse(label, 'the build made no entry module');
}

/** The modules `files` name, each built once (a sweep's scenarios may share one). */
export async function buildRenderModules(files: readonly { file: string; label: string }[]): Promise<Map<string, RenderModuleRef>> {
  const built = new Map<string, RenderModuleRef>();
  for (const { file, label } of files) if (!built.has(file)) built.set(file, await buildRenderModule(file, label));
  return built;
}

/**
 * Each scenario's render module, built, by scenario id: `--render-module` (`flagFile`) for every
 * scenario when given, else each scenario's own `renderModule` or the file's `defaults`'.
 */
export async function scenarioRenderModules(
  scenarios: readonly ScenarioInput[],
  defaults: ScenarioFields | undefined,
  flagFile: string,
  source: string,
): Promise<Map<string, RenderModuleRef>> {
  const wanted = scenarios.flatMap((s) => {
    if (flagFile !== '') return [{ id: s.id, file: flagFile, label: `--render-module ${flagFile}` }];
    const file = s.renderModule ?? defaults?.renderModule;
    const where = s.renderModule !== undefined ? `scenario '${s.id}'` : 'defaults';
    return file === undefined ? [] : [{ id: s.id, file, label: `${source}: ${where} renderModule ${file}` }];
  });
  const built = await buildRenderModules(wanted);
  return new Map(wanted.map((w) => [w.id, built.get(w.file)!]));
}

/** `point` with its scenario's render module, when it has one. */
export function withRenderModule(point: Point, modules: ReadonlyMap<string, RenderModuleRef>): Point {
  const ref = modules.get(point.scenario);
  return ref ? { ...point, renderModule: ref } : point;
}
