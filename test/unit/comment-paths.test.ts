/**
 * The source files a comment names exist: a comment that sends the reader to `protocol/wire.ts`
 * or `compress.ts` sends them somewhere real. Files get renamed and split; their old names stayed
 * behind in comments (issue 32 found eight: the local and remote browser, the report command's…).
 * A name with a directory resolves from the repository root, from the commenting file's directory
 * or one above it, or is the tail of a path in the tree; a bare name is some file's name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/root.js';

/** The directories scanned and named: the source, the tests and the docs. Generated code aside. */
const DIRS = ['protocol', 'results', 'server', 'web', 'puppeteer', 'cli', 'bench', 'test', 'docs', 'proto'];
const SKIP = new Set(['node_modules', 'dist', 'gen']);

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : filesUnder(rel);
    return [rel];
  });
}

/** The comment text of each line of a TypeScript file: after a `//` that follows a space (not a URL's), or a block comment's line. */
function commentLines(text: string): { line: number; comment: string }[] {
  return text.split('\n').flatMap((l, i) => {
    const block = /^\s*(?:\/\*\*?|\*)(.*)$/.exec(l);
    const trailing = /(?:^|\s)\/\/(.*)$/.exec(l);
    const comment = block?.[1] ?? trailing?.[1];
    return comment === undefined ? [] : [{ line: i + 1, comment }];
  });
}

describe('comments name files that exist', () => {
  const files = [...DIRS.flatMap((d) => filesUnder(d)), ...readdirSync(ROOT).filter((n) => n.endsWith('.ts'))];
  const known = new Set(files);
  const names = new Set(files.map((f) => path.posix.basename(f)));

  function exists(name: string, from: string): boolean {
    if (!name.includes('/')) return names.has(name);
    if (known.has(name) || files.some((f) => f.endsWith(`/${name}`))) return true;
    for (let dir = path.posix.dirname(from); dir !== '.'; dir = path.posix.dirname(dir)) {
      if (known.has(path.posix.normalize(path.posix.join(dir, name)))) return true;
    }
    return false;
  }

  it('every `*.ts` a comment names is in the tree', () => {
    const dead = files
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        commentLines(readFileSync(path.join(ROOT, f), 'utf8')).flatMap(({ line, comment }) =>
          [...comment.matchAll(/(?<![\w./@-])((?:\.{1,2}\/|[\w-]+\/)*[\w.-]+\.ts)\b/g)]
            .map((m) => m[1])
            .filter((name) => !exists(name, f))
            .map((name) => `${f}:${line} names ${name}`),
        ),
      );
    expect(dead).toEqual([]);
  });
});
