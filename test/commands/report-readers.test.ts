/**
 * One report check, as strict as the strictest reader (issue 31, class 4). A real sweep report
 * (reports/example) and a real advise report (test/fixtures/advise-report.json, from
 * `npm run advise -- --rate 20k --p99 200ms --transports sse,ws --render none --seed 5
 * --time-budget 80s`) are edited in many ways: wrong types at seeded random depths, NaN-like
 * and Infinity-like values, unknown transports, impossible advise targets, 10,000 levels of
 * nesting, huge strings. Every reader then either refuses the file with one PUSHLAB_BAD_REPORT
 * line naming the path, or reads it fully: the views and formats in-process, and `sweep
 * --resume` and `advise --resume` as a user runs them, which must refuse before a server or
 * Chrome starts. Then the CLI views on 20,000 and 100,000 points, within stated CPU times, and
 * SIGTERM during such a view.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { mulberry32 } from '../../protocol/random.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { adviceText, machineWordsOf } from '../../results/advice-words.js';
import { compareReports } from '../../results/compare.js';
import { knobComparisons } from '../../results/knobs.js';
import { benchmarkActionJson } from '../../results/views/benchmark-action.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { referenceTable } from '../../results/views/reference-table.js';
import { formatComparison, formatTable } from '../../results/views/terminal.js';
import { ROOT, serversAndChromes, watchDescendants } from '../helpers/sweep-process.js';
import { nodeArgs } from '../helpers/node-command.js';
import { bigReport } from '../../bench/big-report.js';

const SWEEP_TEXT = readFileSync(path.join(ROOT, 'reports/example/report.json'), 'utf8');
const ADVISE_TEXT = readFileSync(path.join(ROOT, 'test/fixtures/advise-report.json'), 'utf8');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, unknown>;

/**
 * Every reader in-process on `text`: the check, then each view and format. Returns the refusal,
 * or null when every reader read it whole. Anything but a PushlabError fails the test.
 */
function readAll(text: string, source = 'r.json'): PushlabError | null {
  let report: Report;
  try {
    report = parseReportText(text, source);
  } catch (err) {
    if (err instanceof PushlabError) return err;
    throw err;
  }
  const withKnobs = { ...report, knobs: report.knobs ?? knobComparisons(report.points, report.hosts, report.options.margins) };
  pointsCsv(report);
  repeatsCsv(report);
  formatTable(withKnobs, { wide: true });
  formatTable(withKnobs, { width: 100 });
  referenceTable(report);
  formatComparison(compareReports(report, report));
  for (const format of ['benchmark-action-bigger', 'benchmark-action-smaller'] as const) {
    try {
      const { text: json } = benchmarkActionJson(report, format);
      // The action's schema: a number for every value.
      for (const e of JSON.parse(json) as { value: unknown }[]) expect(typeof e.value === 'number' && Number.isFinite(e.value)).toBe(true);
    } catch (err) {
      // A run with no figure to chart, or two points of one id, is refused with a line.
      if (!(err instanceof PushlabError)) throw err;
    }
  }
  if (report.advice) adviceText(report.advice, machineWordsOf(report.environment));
  return null;
}

/** Every [path, value] of a document, containers included. */
function paths(v: unknown, at: (string | number)[] = [], out: [(string | number)[], unknown][] = []): [(string | number)[], unknown][] {
  out.push([at, v]);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function setAt(doc: Json, at: readonly (string | number)[], value: unknown): void {
  let o = doc as Record<string | number, unknown>;
  for (const k of at.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[at[at.length - 1]] = value;
}

const WRONG: unknown[] = ['x', -1, 1.5, null, {}, [], true, 'NaN', 'Infinity', { a: [1] }];

describe('edited reports through every reader: refused with the path, or read whole', () => {
  for (const [name, text] of [
    ['sweep', SWEEP_TEXT],
    ['advise', ADVISE_TEXT],
  ] as const) {
    it(`${name}: a wrong value at 400 seeded random places`, () => {
      const all = paths(JSON.parse(text)).filter(([at]) => at.length > 1 && at[0] !== 'schemaVersion');
      const random = mulberry32(31);
      let refused = 0;
      for (let n = 0; n < 400; n++) {
        const [at] = all[Math.floor(random() * all.length)];
        const doc = JSON.parse(text) as Json;
        setAt(doc, at, WRONG[n % WRONG.length]);
        const err = readAll(JSON.stringify(doc));
        if (err) {
          refused++;
          expect(err.code).toBe('PUSHLAB_BAD_REPORT');
          expect(err.message).toMatch(/^r\.json: \S+ must be .+, got /);
          expect(err.message.split('\n')).toHaveLength(1);
        }
      }
      // Most places hold a typed figure: most edits are refused.
      expect(refused).toBeGreaterThan(200);
    });
  }

  const sweep = () => JSON.parse(SWEEP_TEXT) as Json & { points: Json[] };
  const advise = () => JSON.parse(ADVISE_TEXT) as Json & { advice: Json & { target: Json; tried: Json[] } };
  const cases: [string, () => string, RegExp][] = [
    [
      'an unknown transport',
      () =>
        JSON.stringify({
          ...sweep(),
          points: sweep().points.map((p, i) => (i === 2 ? { ...p, point: { ...(p.point as Json), transport: 'carrier-pigeon' } } : p)),
        }),
      /points\[2\]\.point\.transport must be one of 'ws'.*got "carrier-pigeon"/,
    ],
    ['an Infinity-like figure (1e999)', () => SWEEP_TEXT.replace(/"eventsPerSec": [\d.]+/, '"eventsPerSec": 1e999'), /must be a number, got 1e999/],
    ['"NaN" as a median', () => SWEEP_TEXT.replace(/"median": [\d.]+/, '"median": "NaN"'), /\.median must be a number, got "NaN"/],
    ['advice: {}', () => JSON.stringify({ ...advise(), advice: {} }), /advice\.target must be an object, got nothing/],
    [
      'a tried candidate of the wrong type',
      () => JSON.stringify({ ...advise(), advice: { ...advise().advice, tried: [7] } }),
      /advice\.tried\[0\] must be an object, got 7/,
    ],
    [
      'a target of -5 events/s',
      () => JSON.stringify({ ...advise(), advice: { ...advise().advice, target: { ...advise().advice.target, eventsPerSec: -5 } } }),
      /advice\.target\.eventsPerSec must be events per second from 1 to .*got -5/,
    ],
    [
      'a target p99 of -1 ms',
      () => JSON.stringify({ ...advise(), advice: { ...advise().advice, target: { ...advise().advice.target, p99BoundMs: -1 } } }),
      /advice\.target\.p99BoundMs must be a latency from 1 ms to 60 s.*got -1/,
    ],
    [
      'a target of 1e12 events/s',
      () => JSON.stringify({ ...advise(), advice: { ...advise().advice, target: { ...advise().advice.target, eventsPerSec: 1e12 } } }),
      /advice\.target\.eventsPerSec must be events per second/,
    ],
    [
      'an unknown transport in advice',
      () => JSON.stringify({ ...advise(), advice: { ...advise().advice, transports: ['sse', 'pigeon'] } }),
      /advice\.transports\[1\] must be one of/,
    ],
    [
      '10,000 levels in an unknown field',
      () => SWEEP_TEXT.replace('"runId":', `"x": ${'['.repeat(10_000)}${']'.repeat(10_000)}, "runId":`),
      /^r\.json: x(\[0\])+ nests deeper than \d+ levels/,
    ],
    [
      '10,000 levels in an optional field',
      () => SWEEP_TEXT.replace('"interrupted":', `"knobs": ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}, "interrupted":`),
      /^r\.json: knobs(\.a)+ nests deeper than/,
    ],
    ['10,000 levels, not closed', () => `{"schemaVersion": 3, "x": ${'['.repeat(10_000)}`, /^r\.json: not valid JSON/],
    [
      'a 200,000-character note',
      () => JSON.stringify({ ...sweep(), points: sweep().points.map((p, i) => (i === 1 ? { ...p, notes: ['n'.repeat(200_000)] } : p)) }),
      /points\[1\]\.notes\[0\] is a string of 200000 characters; a report's strings are at most 100000/,
    ],
    ['a round that is not an index', () => SWEEP_TEXT.replace(/"round": 0/, '"round": -1'), /\.round must be an integer from 0/],
  ];
  for (const [what, make, refusal] of cases) {
    it(`refuses ${what}, naming the path`, () => {
      const err = readAll(make());
      expect(err?.code).toBe('PUSHLAB_BAD_REPORT');
      expect(err?.message).toMatch(refusal);
      expect(err!.message.length).toBeLessThan(600);
    });
  }

  it('reads the real reports, a version 2 one and bidi-laden ids whole, with no bidi control in any output', () => {
    expect(readAll(SWEEP_TEXT)).toBeNull();
    expect(readAll(ADVISE_TEXT)).toBeNull();
    expect(readAll(readFileSync(path.join(ROOT, 'test/fixtures/report-v2.json'), 'utf8'))).toBeNull();
    const doc = sweep();
    doc.points = doc.points.map((p, i) => ({ ...p, point: { ...(p.point as Json), id: `\u202e${i}-sw\u2066\u200f\u061c` } }));
    const r = parseReportText(JSON.stringify(doc), 'r.json');
    const outputs = [pointsCsv(r), repeatsCsv(r), formatTable(r, { wide: true }), benchmarkActionJson(r, 'benchmark-action-bigger').text];
    for (const o of outputs) expect(o).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(outputs[0]).toContain('\\u202e0-sw\\u2066\\u200f\\u061c');
  });
});

interface Ran {
  code: number | null;
  stderr: string;
  ms: number;
  servers: string[];
}

function run(script: string, args: string[], timeoutMs = 120_000): Promise<Ran> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs(script), ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return watchDescendants(child.pid!, exit).then(async (seen) => {
    clearTimeout(timer);
    return { code: await exit, stderr, ms: performance.now() - started, servers: serversAndChromes(seen) };
  });
}

/** `<out>/<run>/report.json` holding `text`. */
function runDir(out: string, run: string, text: string): void {
  mkdirSync(path.join(out, run), { recursive: true });
  writeFileSync(path.join(out, run, 'report.json'), text);
}

describe('--resume refuses an edited report before anything is launched', () => {
  const resumable = (text: string, edit: (doc: Json & { advice?: Json & { target: Json } }) => void) => {
    const doc = JSON.parse(text) as Json & { advice?: Json & { target: Json } };
    doc.interrupted = true;
    edit(doc);
    return JSON.stringify(doc);
  };
  const cases: [string, string, string, RegExp][] = [
    [
      'advise',
      'an impossible target (-5 events/s)',
      resumable(ADVISE_TEXT, (d) => (d.advice!.target.eventsPerSec = -5)),
      /advice\.target\.eventsPerSec must be events per second/,
    ],
    [
      'advise',
      'an impossible target (p99 -1 ms)',
      resumable(ADVISE_TEXT, (d) => (d.advice!.target.p99BoundMs = -1)),
      /advice\.target\.p99BoundMs must be a latency/,
    ],
    ['advise', 'an edited advice (winner: 5)', resumable(ADVISE_TEXT, (d) => (d.advice!.winner = 5)), /advice\.winner must be an object or null, got 5/],
    [
      'sweep',
      '10,000 levels in an optional field',
      resumable(SWEEP_TEXT, () => undefined).replace('"runId":', `"hosts": [${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}], "runId":`),
      /hosts\[0\](\.a)+ nests deeper than/,
    ],
    [
      'sweep',
      'an unknown transport',
      resumable(SWEEP_TEXT, (d) => ((d.points as Json[])[0].point = { ...((d.points as Json[])[0].point as Json), transport: 'x' })),
      /points\[0\]\.point\.transport must be one of/,
    ],
  ];
  for (const [command, what, text, refusal] of cases) {
    it(`${command} --resume: ${what}`, async () => {
      const out = path.join(dir, `${command}-${what.replace(/\W+/g, '-')}`);
      runDir(out, 'r1', text);
      const r = await run(`puppeteer/${command}/main.ts`, ['--resume', 'r1', '--out', out]);
      expect(r.code, r.stderr).toBe(EXIT.badInput);
      expect(r.servers, 'processes started before the refusal').toEqual([]);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^pushlab ${command}: `));
      expect(lines[0]).toContain('report.json: ');
      expect(lines[0]).toMatch(refusal);
    }, 150_000);
  }
});

/** Runs a view to its end: its exit code, stdout and stderr. */
function view(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgs('puppeteer/report/main.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * What they cost is `npm run bench:views`'s to say (CPU per view at 20,000 and 100,000 points,
 * against the goals these tests once held as CPU bounds: 30 s and 90 s): here, that a large run
 * is laid out whole, and that a signal stops a long layout at once.
 */
/** The one 20,000-point report both cases read, each from a run directory of its own. */
let big20000: string | undefined;
const bigText = () => (big20000 ??= bigReport(20_000, SWEEP_TEXT));

/** Both cases at once, and both views of the first together: a view's layout is one process's CPU, two cores take two. */
describe.concurrent('the CLI views on large runs', () => {
  it('20,000 points: --wide and --csv each lay out every point', async () => {
    const n = 20_000;
    const reports = path.join(dir, `big${n}`);
    runDir(reports, 'big', bigText());
    const [csv, wide] = await Promise.all([view(['--csv', path.join(reports, 'big')], 600_000), view(['--wide', path.join(reports, 'big')], 600_000)]);
    expect(csv.code, csv.stderr).toBe(EXIT.ok);
    // A header and one row per point.
    expect(csv.stdout.trimEnd().split('\n')).toHaveLength(n + 1);
    expect(wide.code, wide.stderr).toBe(EXIT.ok);
    for (const i of [0, 1, n / 2, n - 1]) expect(wide.stdout).toContain(`-n${i}`);
  }, 1_300_000);

  it('SIGTERM during a view of 20,000 points (1.5 s of CPU into it) stops it at once with exit 130', async () => {
    const reports = path.join(dir, 'big20000-sigterm');
    runDir(reports, 'big', bigText());
    const child = spawn(process.execPath, [...nodeArgs('puppeteer/report/main.ts'), '--wide', path.join(reports, 'big')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    // Past start-up and into reading and laying out: 1.5 s of the process's CPU, read from /proc,
    // not a wall time that load stretches. Bundled, the entry loads in about 0.45 s of CPU, and the
    // whole view takes about 3.3 s here (`report --wide` alone); at 3 s, the threshold this had
    // when start-up took 1 s, the view finished before the signal came (exit 0, CI at 63110d8).
    const cpuSec = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    for (const until = performance.now() + 120_000; cpuSec() < 1.5 && performance.now() < until;) await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = performance.now();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exit;
    clearTimeout(killer);
    expect(code).toBe(EXIT.interrupted);
    // Generous for a loaded machine; before the fix the view ran on to its end, minutes later.
    expect(performance.now() - sent).toBeLessThan(15_000);
  }, 240_000);
});
