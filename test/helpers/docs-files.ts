/** The documentation as tests read it: README.md and every markdown file under docs/. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../cli/root.js';

/** Repository-relative paths of every markdown file under docs/, sorted. */
export function docFiles(dir = 'docs'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) return docFiles(rel);
      return e.name.endsWith('.md') ? [rel] : [];
    })
    .sort();
}

export function readDoc(rel: string): string {
  return readFileSync(path.join(ROOT, rel), 'utf8');
}

/** The text outside fenced code blocks: a `#` comment in a shell example is not a heading. */
export function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** The text outside any code, fenced or inline: a `](` inside code is not a link. */
export function withoutCode(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown file's headings give, with GitHub's -1, -2… for repeated ones. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}
