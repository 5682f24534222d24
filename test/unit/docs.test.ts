/**
 * The docs hold together: the README stays short and links every doc, every relative link
 * resolves (file and anchor), each doc says what it is for and links back, and the transport
 * table lists exactly the transports the code has.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/root.js';
import { TRANSPORTS } from '../../protocol/wire.js';
import { anchorsOf, docFiles, readDoc, withoutCode, withoutFences } from '../helpers/docs-files.js';

const README_MAX_LINES = 300;
const docs = docFiles();
const readme = readDoc('README.md');

/** Every link target of a markdown file that is not an absolute URL. */
function relativeLinks(text: string): string[] {
  return [...withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The rows of the first table whose header's first cell is `first`, as arrays of trimmed cells. */
function tableRows(text: string, first: string): string[][] {
  const lines = withoutFences(text).split('\n');
  const start = lines.findIndex((l, i) => l.startsWith('|') && l.split('|')[1]?.trim() === first && /^\|[\s:|-]+\|$/.test(lines[i + 1] ?? ''));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i].startsWith('|'); i++)
    rows.push(
      lines[i]
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  return rows;
}

describe('docs', () => {
  it(`the README is at most ${README_MAX_LINES} lines`, () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('there are docs, and the README links every one of them', () => {
    expect(docs.length).toBeGreaterThan(0);
    const linked = new Set(relativeLinks(readme).map((t) => path.posix.normalize(t.split('#')[0])));
    expect(docs.filter((d) => !linked.has(d))).toEqual([]);
  });

  it.each(docs)('%s starts with its title, a one-line purpose and a link back to the README', (doc) => {
    const [title, blank, purpose] = readDoc(doc).split('\n');
    expect(title).toMatch(/^# \S/);
    expect(blank).toBe('');
    const back = path.posix.relative(path.posix.dirname(doc), 'README.md');
    expect(purpose).toContain(`](${back})`);
  });

  it.each(['README.md', ...docs])('every relative link in %s resolves to a file and its anchor', (file) => {
    const broken: string[] = [];
    for (const target of relativeLinks(readDoc(file))) {
      const [rel, anchor] = target.split('#');
      const resolved = rel === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rel));
      if (resolved.startsWith('..') || !existsSync(path.join(ROOT, resolved))) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      const isMarkdown = statSync(path.join(ROOT, resolved)).isFile() && resolved.endsWith('.md');
      if (isMarkdown && !anchorsOf(readDoc(resolved)).has(anchor)) broken.push(`${target}: no heading gives #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('the transport table in docs/transports.md has one row per transport in protocol/wire.ts, and no other', () => {
    const rows = tableRows(readDoc('docs/transports.md'), 'transport');
    const names = rows.map((r) => r[0].replace(/^`|`$/g, ''));
    expect(names.length, 'rows in the table whose first column is "transport"').toBeGreaterThan(0);
    expect(new Set(names).size, 'each transport once').toBe(names.length);
    expect([...names].sort()).toEqual([...TRANSPORTS].sort());
  });
});
