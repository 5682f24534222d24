/**
 * The layers, as imports: protocol/ (the shapes the sides exchange) and results/ (pure: repeat
 * figures to summaries, verdicts and views) import neither Node nor the DOM's packages, nor any
 * side; the driver (puppeteer/) and the server do not import each other; protocol/ does not
 * import results/; and no files import each other round a circle (but one named pair). The web
 * tsconfig compiles protocol/ and results/ whole without Node's types, which catches a Node
 * global; this catches an import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/root.js';
import { ENCODING_NAMES } from '../../protocol/encodings.js';

function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Every module a file imports (type-only, side-effect and import() too), resolved to a repository path for relative ones. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
  return specs.map((s) => (s.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), s)) : s));
}

const BARE_ALLOWED_IN_PURE = new Set(['ajv', 'typebox', '@bufbuild/protobuf', '@bufbuild/protobuf/codegenv2', '@bufbuild/protobuf/wkt']);

describe('layers', () => {
  for (const layer of ['protocol', 'results']) {
    it(`${layer}/ imports no Node module, no browser driver and no side`, () => {
      const offending = tsFiles(layer).flatMap((f) =>
        importsOf(f)
          .filter((spec) =>
            spec.startsWith(`${layer}/`) || spec.startsWith('protocol/') || spec.startsWith('results/') ? false : !BARE_ALLOWED_IN_PURE.has(spec),
          )
          .filter((spec) => !(layer === 'protocol' && spec.startsWith('protocol/')))
          .map((spec) => `${f} imports ${spec}`),
      );
      expect(offending).toEqual([]);
    });
  }

  it('protocol/ does not import results/ (the shapes come first)', () => {
    const offending = tsFiles('protocol').flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('results/'))
        .map((s) => `${f} imports ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('results/ flows one way: repeat figures → summaries → views', () => {
    // The views come last: no stage before them reads one.
    const intoViews = tsFiles('results')
      .filter((f) => !f.startsWith('results/views/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((s) => s.startsWith('results/views/'))
          .map((s) => `${f} imports ${s}`),
      );
    // A repeat's figures and its verdict come before any summary of repeats.
    const summaries = ['results/point-summary.js', 'results/knobs.js', 'results/compare.js', 'results/sustains.js', 'results/advice-figures.js'];
    const repeatBack = ['results/summarise.ts', 'results/verdict.ts'].flatMap((f) =>
      importsOf(f)
        .filter((s) => summaries.includes(s))
        .map((s) => `${f} imports ${s}`),
    );
    expect([...intoViews, ...repeatBack]).toEqual([]);
  });

  it("a point's verdict has one definition: only results/verdict.ts decides (findLimit)", () => {
    const files = ['results', 'web', 'puppeteer', 'server', 'cli'].flatMap((d) => tsFiles(d)).filter((f) => f !== 'results/verdict.ts');
    const deciding = files.filter((f) => /\bfindLimit\b/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(deciding).toEqual([]);
  });

  it('only the recorder writes a report: no other driver or cli file changes its fields or saves it', () => {
    // Each command hands its report to puppeteer/report/recorder.ts and reads it back read-only;
    // saver.ts and file.ts are the recorder's own writers. A report (or one of its rounds, points
    // or hosts) changed anywhere else is a second writer: the sweep's main once changed
    // report.hosts from a runner event and from Firefox's onLaunch, and advise kept its own queue.
    const writers = new Set(['puppeteer/report/recorder.ts', 'puppeteer/report/saver.ts', 'puppeteer/report/file.ts']);
    const fields =
      'rounds|points|comparisons|knobs|saturation|hosts|environment|interrupted|resumeCommand|finishedAt|startedAt|advice|runId|scenarios|options|parseCeilings|engineCeilings|hostCeilings|repeats|summary|verdict|unsteady|lost';
    const changes = [
      // `x.points = …`, `round.finishedAt ??= …`, `report.options.timeBudgetSec = …` (a class's own `this.lost` is not a report's)
      new RegExp(`(?<!\\bthis)\\.(?:${fields})\\b(?:\\.\\w+|\\[[^\\]]*\\])*\\s*(?:[-+*/]|\\?\\?|\\|\\||&&)?=(?![=>])`),
      // `report.rounds.push(…)`, `result.repeats.push(…)`
      new RegExp(`\\.(?:${fields})\\.(?:push|pop|splice|shift|unshift|sort|reverse|fill)\\(`),
      // a point re-summarised in place
      /Object\.assign\([^,]*,\s*summarisePoint\(/,
      // a report file written
      /\b(?:writeReport|reportSaver)\(/,
    ];
    const offending = ['puppeteer', 'cli']
      .flatMap((d) => tsFiles(d))
      .filter((f) => !writers.has(f))
      .flatMap((f) =>
        readFileSync(path.join(ROOT, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (!/^\s*(\/\/|\*)/.test(line) && changes.some((re) => re.test(line)) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });

  it('the driver does not import the server, and the server does not import the driver', () => {
    const driver = tsFiles('puppeteer').flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('server/'))
        .map((s) => `${f} imports ${s}`),
    );
    const server = tsFiles('server').flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('puppeteer/'))
        .map((s) => `${f} imports ${s}`),
    );
    expect([...driver, ...server]).toEqual([]);
  });

  it('the page imports only protocol/ and results/ outside web/', () => {
    const offending = tsFiles('web').flatMap((f) =>
      importsOf(f)
        .filter((s) => /^(server|puppeteer|cli|bench)\//.test(s))
        .map((s) => `${f} imports ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('the lab page (web/lab/) and the report viewer (web/report/) import nothing from each other', () => {
    const across = (from: string, to: string) =>
      tsFiles(from).flatMap((f) =>
        importsOf(f)
          .filter((s) => s.startsWith(`${to}/`))
          .map((s) => `${f} imports ${s}`),
      );
    expect(tsFiles('web/lab').length).toBeGreaterThan(10);
    expect(tsFiles('web/report').length).toBeGreaterThan(5);
    expect([...across('web/lab', 'web/report'), ...across('web/report', 'web/lab')]).toEqual([]);
  });

  it('no import circle in the source, type-only imports and import() counted, but the lazy Arrow pair', () => {
    const files = SOURCE_DIRS.flatMap((d) => tsFiles(d));
    const known = new Set(files);
    const graph = new Map(
      files.map((f) => [
        f,
        [
          ...new Set(
            importsOf(f)
              .map((s) => s.replace(/\.js$/, '.ts'))
              .filter((s) => known.has(s)),
          ),
        ],
      ]),
    );
    const allowed = (circle: string[]) => ALLOWED_CIRCLES.some((a) => a.length === circle.length && a.every((f) => circle.includes(f)));
    // Each circle as its files and the imports that close it, so a failure says what to cut.
    const circles = circlesOf(graph)
      .filter((c) => !allowed(c))
      .map((c) =>
        c.flatMap((f) =>
          graph
            .get(f)!
            .filter((to) => c.includes(to))
            .map((to) => `${f} imports ${to}`),
        ),
      );
    expect(circles).toEqual([]);
    // The exception is still a circle, seen through its import(): else it is stale, delete it.
    expect(circlesOf(graph).filter(allowed)).toEqual(ALLOWED_CIRCLES);
  });

  it('no transport names an encoding: they carry what the codecs (server/codecs/, web/lab/codecs/) encode and decode', () => {
    const transports = [...tsFiles('server/transports'), ...tsFiles('web/lab/transports')];
    expect(transports.length).toBeGreaterThan(10);
    const offending = transports.flatMap((f) => {
      // Comments may say what a transport carries; code may not choose by it.
      const code = readFileSync(path.join(ROOT, f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1');
      return ENCODING_NAMES.flatMap((name) => {
        const literal = new RegExp(`(['"\`])${name}\\1`).test(code) ? [`${f} has the literal '${name}'`] : [];
        // An encoding's own module (server/msgpack.ts, web/lab/arrow-batch.ts, a codec file) or library (@msgpack/msgpack, apache-arrow).
        const imports = importsOf(f)
          .filter((spec) =>
            spec
              .toLowerCase()
              .split('/')
              .some((part) => part.includes(name)),
          )
          .map((spec) => `${f} imports ${spec}`);
        return [...literal, ...imports];
      });
    });
    expect(offending).toEqual([]);
  });
});

/** The source the circle check covers: every directory but the tests. */
const SOURCE_DIRS = ['protocol', 'results', 'server', 'web', 'puppeteer', 'cli', 'bench'];

/**
 * The one circle allowed: web/lab/arrow-batch.ts declares what the page needs of an Arrow batch
 * and loads its implementation, web/lab/arrow-decode.ts (which imports those interfaces back),
 * lazily with import(), so the JSON page's bundle does not carry apache-arrow. An interface
 * with a lazily loaded implementation; any other circle is a layer to cut.
 */
const ALLOWED_CIRCLES = [['web/lab/arrow-batch.ts', 'web/lab/arrow-decode.ts']];

/** The strongly connected components of more than one file (Tarjan), each sorted: every import circle. */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) circles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}
