/**
 * The build bundles only the entry points cli/builds.ts lists (NODE_ENTRIES): a file Node is
 * told to run that is not in the list is missing from `dist/node/`, and a command, a test or a
 * bench that starts it fails only once it gets there. So: every entry package.json runs, and every
 * server, driver or bench file the code and the tests name by path (to start it, or to find its
 * process), is in the list, and every file in the list exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_ENTRIES } from '../../cli/builds.js';
import { ROOT } from '../../cli/root.js';

/** Where a file is named to be started: the Node sides and the tests that start something. */
const NAMING_DIRS = ['server', 'puppeteer', 'bench', 'cli', 'test/commands', 'test/browser', 'test/server', 'test/helpers'];

function tsFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return tsFilesUnder(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('the bundled entry points', () => {
  it('every file in NODE_ENTRIES exists', () => {
    expect(NODE_ENTRIES.filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  it("every `node dist/node/<entry>.js` package.json's scripts run is one", () => {
    const scripts = Object.values((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const run = scripts.flatMap((s) => [...s.matchAll(/dist\/node\/(\S+)\.js/g)].map((m) => `${m[1]}.ts`));
    expect(run.length).toBeGreaterThan(10);
    expect(run.filter((f) => !NODE_ENTRIES.includes(f))).toEqual([]);
  });

  it('every server, driver or bench file named by path in the code and the tests is one', () => {
    const named = new Set(
      NAMING_DIRS.flatMap(tsFilesUnder).flatMap((f) =>
        [...readFileSync(path.join(ROOT, f), 'utf8').matchAll(/['"`]((?:server|puppeteer|bench)\/[\w/-]+\.ts)['"`]/g)].map((m) => m[1]),
      ),
    );
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((f) => !NODE_ENTRIES.includes(f))).toEqual([]);
  });
});
