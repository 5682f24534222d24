/**
 * The one check every reader makes of a report.json before trusting its type: the CLI
 * (`npm run report`: its views and formats), `npm run sweep -- --resume`, `npm run advise --
 * --resume`, the self-contained report.html and the served viewer all go through `parseReport`,
 * so each accepts exactly what the others do. It is a full check of the document against its
 * types (protocol/report-shape.ts, which names every field of `Report` and `Advice`), with the
 * ranges a reader plans from, and two bounds no type states (REPORT_BOUNDS): how deep the
 * document nests and how long one string is. A bad file fails here with a path, the value and
 * what is allowed, instead of a TypeError halfway down a table, or a RangeError when a resumed
 * sweep saves what it measured.
 */
import { PushlabError } from './errors.js';
import { describeJsonValue, parseJsonText, sourceAt, syntaxErrorText } from './json-text.js';
import { SCHEMA_VERSION, type Report } from './report.js';
import { REPORT } from './report-shape.js';
import { isObject, ShapeRefusal } from './shape.js';

/**
 * Older versions this build reads, each with its step to the next version: a report of one of
 * them is checked like a current one (the fields checked here mean the same in both) and then
 * converted, step by step, to SCHEMA_VERSION, so every reader sees the current shape only and a
 * report written back (a resumed sweep) is of the current version.
 */
const UPGRADES: Readonly<Record<number, (data: Record<string, unknown>) => Record<string, unknown>>> = {
  // 2 → 3 only adds optional fields (protocol/report.ts, SCHEMA_VERSION), so every field of a
  // version 2 report means the same in 3. What a version 2 report leaves unsaid is said: every
  // one was measured in Chrome. A copy, so the caller's object is left as it was.
  2: (data) => {
    const environment = data.environment;
    // A broken environment is left for the check to name.
    return { ...data, schemaVersion: 3, environment: isObject(environment) ? { ...environment, engine: environment.engine ?? 'chrome' } : environment };
  },
  // 3 → 4 changes what a repeat's `latency` is (event age, was transit) and adds only optional
  // fields: each measured repeat is marked `latencyBook: 'transit'`, so a resumed run's old
  // repeats are never read as event age. Broken points and repeats are left for the check.
  3: (data) => ({
    ...data,
    schemaVersion: 4,
    points: Array.isArray(data.points)
      ? data.points.map((p: unknown) =>
          isObject(p) && Array.isArray(p.repeats)
            ? { ...p, repeats: p.repeats.map((r: unknown) => (isObject(r) && r.status === 'ok' ? { ...r, latencyBook: 'transit' } : r)) }
            : p,
        )
      : data.points,
  }),
};

/** Every schemaVersion this build reads: the one it writes, and those it converts on read. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [...Object.keys(UPGRADES).map(Number), SCHEMA_VERSION].sort((a, b) => a - b);

/** What a refusal says is allowed. */
const READABLE_TEXT = `this build reads schemaVersion ${SCHEMA_VERSION}, and ${READABLE_SCHEMA_VERSIONS.filter((v) => v !== SCHEMA_VERSION).join(', ')} converted to it on read`;

/**
 * What no type states but every reader needs. Depth: the types nest 11 levels at most
 * (advice.tried[].repeats[].repeat.tabs[].page.perConnectionBatchesPerSec.min); unknown fields
 * are let through (a field a later build of this schemaVersion dropped), and a 10,000-level one
 * once passed the check and overflowed the stack of the JSON.stringify that saves a resumed
 * sweep, losing the repeat it had measured. Strings: ids, notes and errors are lines, a browser's
 * stack a few KB; a 10 MB one froze the viewer's layout.
 */
export const REPORT_BOUNDS = {
  /** Objects and arrays nested inside each other, the document itself being level 1. */
  maxDepth: 32,
  /** Characters of one string, keys included. */
  maxStringChars: 100_000,
} as const;

/** `points[3].point.batch` for ['points', 3, 'point', 'batch']. */
function pathText(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'the document';
}

/**
 * The first place `data` breaks REPORT_BOUNDS, or null. Iterative (a stack of what is left to
 * visit), so a document nested past any call stack is measured, not crashed on.
 */
function boundsBroken(data: unknown): { path: (string | number)[]; why: string } | null {
  type Frame = { value: unknown; depth: number; parent: Frame | null; key: string | number | null };
  const pathOf = (f: Frame) => {
    const path: (string | number)[] = [];
    for (let at: Frame | null = f; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Frame[] = [{ value: data, depth: 1, parent: null, key: null }];
  const longString = (s: string, f: Frame) => ({
    path: pathOf(f),
    why: `is a string of ${s.length} characters; a report's strings are at most ${REPORT_BOUNDS.maxStringChars}`,
  });
  while (stack.length) {
    const f = stack.pop()!;
    const v = f.value;
    if (typeof v === 'string') {
      if (v.length > REPORT_BOUNDS.maxStringChars) return longString(v, f);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (f.depth > REPORT_BOUNDS.maxDepth)
      return { path: pathOf(f), why: `nests deeper than ${REPORT_BOUNDS.maxDepth} levels of objects and arrays, which no report field does` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const x: unknown = v[i];
        // Scalars are checked here, not pushed: a report's arrays of numbers are long.
        if (typeof x === 'string' && x.length > REPORT_BOUNDS.maxStringChars) return longString(x, { value: x, depth: f.depth + 1, parent: f, key: i });
        if (x !== null && typeof x === 'object') stack.push({ value: x, depth: f.depth + 1, parent: f, key: i });
      }
      continue;
    }
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      const child: Frame = { value: (v as Record<string, unknown>)[key], depth: f.depth + 1, parent: f, key };
      if (key.length > REPORT_BOUNDS.maxStringChars)
        return { path: pathOf(f), why: `has a key of ${key.length} characters; a report's strings are at most ${REPORT_BOUNDS.maxStringChars}` };
      const x = child.value;
      if (typeof x === 'string' && x.length > REPORT_BOUNDS.maxStringChars) return longString(x, child);
      if (x !== null && typeof x === 'object') stack.push(child);
    }
  }
  return null;
}

/** Checks the parsed report `data` of `source`; `text`, when given, is the file, to show values as written. */
class Checker {
  constructor(
    private readonly source: string,
    private readonly text: string | undefined,
  ) {}

  bad(message: string): PushlabError {
    return new PushlabError('PUSHLAB_BAD_REPORT', `${this.source}: ${message}`);
  }

  shown(v: unknown, path: readonly (string | number)[]): string {
    return describeJsonValue(v, this.text === undefined ? undefined : sourceAt(this.text, path.map(String)));
  }
}

/** Parses report.json text; the error names the source and what is wrong. */
export function parseReportText(text: string, source: string): Report {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new PushlabError('PUSHLAB_BAD_REPORT', `${source}: not valid JSON: ${syntaxErrorText(parsed.error)}`);
  return parseReport(parsed.value, source, text);
}

/** Checks parsed JSON is a report this build can read, and returns it typed. `text`: the file it came from, when there is one. */
export function parseReport(data: unknown, source: string, text?: string): Report {
  const c = new Checker(source, text);
  if (!isObject(data)) throw c.bad(`expected a JSON object, got ${c.shown(data, [])}`);
  if (data.schemaVersion === undefined) throw c.bad('has no schemaVersion; is it a pushlab report.json?');
  const version = data.schemaVersion;
  if (typeof version !== 'number' || !READABLE_SCHEMA_VERSIONS.includes(version)) {
    const newer = typeof version === 'number' && version > SCHEMA_VERSION ? ', written by a newer pushlab: read it with that one' : '';
    throw c.bad(`${READABLE_TEXT}; got ${c.shown(version, ['schemaVersion'])}${newer}`);
  }
  const broken = boundsBroken(data);
  if (broken) throw c.bad(`${pathText(broken.path)} ${broken.why}`);
  let current: Record<string, unknown> = data;
  for (let v = version; v < SCHEMA_VERSION; v++) current = UPGRADES[v](current);
  try {
    REPORT.check(current, []);
  } catch (err) {
    if (!(err instanceof ShapeRefusal)) throw err;
    throw c.bad(`${pathText(err.path)} must be ${err.allowed}, got ${c.shown(err.value, err.path)}`);
  }
  return current as unknown as Report;
}
