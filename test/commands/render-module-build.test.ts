/**
 * `--render-module FILE` built with Vite as the driver builds it (puppeteer/render-module.ts):
 * a module that builds and exports mount is placed by its SHA-256; one that does not build, or
 * does not export the interface, or is not a file pushlab builds, is refused with one coded line.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { buildRenderModule } from '../../puppeteer/render-module.js';
import { ROOT, runSweep } from '../helpers/sweep-process.js';

const FIXTURES = 'test/fixtures/render-modules';

describe('building a render module', () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-render-modules-'));
  });
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  const refusal = async (file: string): Promise<PushlabError> => {
    const err = await buildRenderModule(file, `--render-module ${file}`, out, ROOT).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_RENDER_MODULE');
    expect((err as PushlabError).message).not.toContain('\n');
    return err as PushlabError;
  };

  it('builds a plain module into a directory named by its SHA-256', async () => {
    const file = `${FIXTURES}/counting.js`;
    const ref = await buildRenderModule(file, 'counting', out, ROOT);
    expect(ref).toEqual({
      path: file,
      sha256: createHash('sha256')
        .update(readFileSync(path.join(ROOT, file)))
        .digest('hex'),
    });
    expect(readFileSync(path.join(out, ref.sha256, 'module.js'), 'utf8')).toMatch(/export\s*\{[^}]*mount/);
  }, 60_000);

  it('builds the React example, with React and TanStack Table bundled in', async () => {
    const ref = await buildRenderModule('examples/react-table/rows-table.tsx', 'example', out, ROOT);
    const js = readFileSync(path.join(out, ref.sha256, 'module.js'), 'utf8');
    // No bare import is left for the browser to resolve, and React's development build is not in it.
    expect(js).not.toMatch(/from\s*["'](react|react-dom|@tanstack)/);
    expect(js).not.toContain('process.env.NODE_ENV');
  }, 120_000);

  it('refuses a module that does not build, quoting the build error', async () => {
    const err = await refusal(`${FIXTURES}/broken.js`);
    expect(err.message).toMatch(/^--render-module test\/fixtures\/render-modules\/broken\.js: does not build: .*pushlab-no-such-package/);
  }, 60_000);

  it('refuses a module that does not export mount, naming what it exports', async () => {
    const err = await refusal(`${FIXTURES}/no-mount.ts`);
    expect(err.message).toMatch(/does not export `mount` \(it exports `draw`\)/);
    // Nothing is left to serve for it.
    expect(
      existsSync(
        path.join(
          out,
          createHash('sha256')
            .update(readFileSync(path.join(ROOT, FIXTURES, 'no-mount.ts')))
            .digest('hex'),
        ),
      ),
    ).toBe(false);
  }, 60_000);

  it('refuses a file of another kind, a missing file and a directory', async () => {
    expect((await refusal('package.json')).message).toMatch(/must be one of \.js, \.mjs, \.jsx, \.ts, \.tsx .*got "\.json"/);
    expect((await refusal(`${FIXTURES}/missing.ts`)).message).toMatch(/missing\.ts: cannot read it/);
    const dir = path.join(out, 'a-folder.ts');
    await mkdir(dir);
    expect((await refusal(dir)).message).toMatch(/a directory, not a file pushlab reads/);
  });

  it('stops a sweep before anything starts, with one coded line and exit 2', async () => {
    const { code, stdout, stderr } = await runSweep(['--scenario', 'headline-batch', '--render-module', `${FIXTURES}/no-mount.ts`, '--out', out], 60_000);
    expect(code, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^pushlab sweep: PUSHLAB_BAD_RENDER_MODULE: --render-module test\/fixtures\/render-modules\/no-mount\.ts: it does not export `mount`/,
      ),
    ]);
  }, 70_000);
});
