/**
 * A bug's stack trace as it reads from source: each frame in a bundled file (`dist/node/…`,
 * cli/build.ts) followed by the TypeScript file and line it was built from, read from the source
 * map beside the bundle. Node reads the maps itself only under `--enable-source-maps`, which
 * costs every process memory and start-up (the measured server too), for a stack read once.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `file:///…/x.js:12:5` or `/…/x.js:12:5` in a frame. */
const FRAME = /(file:\/\/[^\s()]+?\.js|\/[^\s()]+?\.js):(\d+):(\d+)/;

/** The source map beside `file` (`file.map`), or null: none (from source), or unreadable. */
function mapBeside(file: string): SourceMap | null {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload);
  } catch {
    return null;
  }
}

/** `stack` with each bundled frame's position (`chunks/chunk-X.js:9:3`) replaced by its source's (`server/hub.ts:42:3`); anything else as it was. */
export function sourceMappedStack(stack: string): string {
  const maps = new Map<string, SourceMap | null>();
  return stack
    .split('\n')
    .map((line) => {
      const m = FRAME.exec(line);
      if (!m) return line;
      const file = m[1].startsWith('file:') ? fileURLToPath(m[1]) : m[1];
      if (!maps.has(file)) maps.set(file, mapBeside(file));
      const entry = maps.get(file)?.findEntry(Number(m[2]) - 1, Number(m[3]) - 1);
      if (!entry || !('originalSource' in entry)) return line;
      const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
      return line.replace(m[0], `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
    })
    .join('\n');
}
