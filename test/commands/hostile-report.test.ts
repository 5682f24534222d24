/**
 * A report is input from whoever made it (report.html is mailed, `npm run report` reads other
 * people's runs), and a browser or a server can put anything in an error. Two ways such text
 * once did harm, each tested at its root:
 * - CSV injection: every field of a report, one at a time, holds a formula, a line break, a
 *   quote, a comma and terminal controls; both CSVs, parsed back per RFC 4180, keep one row per
 *   point (or repeat), every column, and no cell that a spreadsheet would run;
 * - terminal control characters: results/printable.ts on ESC/CSI/OSC, BEL, C1 and bidi
 *   overrides; the sweep's progress lines; and `npm run report` (--compare, --reference, --csv,
 *   an error quoting the file) run as a user runs it, with nothing in stdout or stderr that a
 *   terminal would act on.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS } from '../../results/columns.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { printable } from '../../results/printable.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { FailedRepeat, MeasuredRepeat, Stat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report } from '../../protocol/report.js';
import { expandScenario } from '../../protocol/scenario.js';
import { Progress } from '../../puppeteer/sweep/progress.js';
import { type Runner, type RunnerEvents } from '../../puppeteer/sweep/runner.js';
import { emptyResult } from '../../puppeteer/report/recorder.js';
import { report as reportOf } from '../helpers/v2-fixture.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'report-v2.json');

/** Terminal controls of every kind: CSI (clear screen), OSC (window title, ended by BEL), BEL, 8-bit CSI, NEL, bidi override and isolate. */
const CONTROLS = '\u001b[2J\u001b]0;pwned\u0007\u0007\u009b31m\u0085\u202e\u2066';
/** A formula that forges a row, then quotes, commas and the controls. */
const HOSTILE = `=HYPERLINK("http://x","y")\r\n@SUM(1+1),"q"${CONTROLS}`;
/** Anything a terminal acts on, other than tab and line feed (and CR before LF, the CSV's row end). */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

let fixture: Report;

beforeAll(async () => {
  fixture = parseReportText(await readFile(FIXTURE, 'utf8'), FIXTURE);
});

/** RFC 4180: rows of cells; a quoted cell may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(quoted, 'a quoted cell is never closed').toBe(false);
  expect(cell === '' && row.length === 0, 'the CSV ends with a row end').toBe(true);
  return rows;
}

const stat = (v: number): Stat => ({ n: 3, mean: v, median: v, min: v, max: v, sd: 0, ciLow: v, ciHigh: v }) as Stat;

/**
 * The fixture's first point with every optional field the columns read (display, engine, compression,
 * tabs, poll interval, Workers, browsers, wire, per-tab and compression figures, the browser a repeat ran
 * in), plus a failed repeat, so every column of both CSVs has a field behind it.
 */
function fullPoint(): PointResult {
  const r = structuredClone(fixture.points[0]);
  Object.assign(r.point, {
    display: 'headful',
    compression: 'deflate',
    tabs: 2,
    pollMs: 50,
    parse: 'worker',
    workers: 2,
    encoding: 'arrow',
    engine: 'firefox',
    device: 'low-tier',
    throttle: 'main-thread',
    pace: 'recorded',
    tab: 'hidden-long',
    hiddenLongGraceSec: 20,
    link: '50ms±10ms,5mbit',
  });
  r.browsers = ['local'];
  r.notes = ['a note'];
  r.unsteady = [{ kind: 'outlier', rounds: [0], message: 'an outlier' }];
  Object.assign(r.summary!, {
    tabEventsPerSecMin: stat(1),
    tabEventsPerSecMax: stat(2),
    wireMegabytesPerSec: stat(3),
    compressionRatio: stat(0.5),
    jsonCeilingRatio: stat(0.4),
    bytesPerEvent: stat(50),
    wire: { http: { h1: 1, h2: 0 }, tcpConnections: 1, stalled: 0 },
    inputDelayP99Ms: stat(40),
    longFrameBlockingMsPerSec: stat(12),
  });
  for (const rep of r.repeats as MeasuredRepeat[]) {
    Object.assign(rep, {
      browserId: 'local',
      notes: ['a repeat note'],
      jsonCeilingEventsPerSec: 3_000_000,
      jsonCeilingRatio: 0.4,
      bytesPerEvent: 50,
      wire: { http: { h1: 0, h2: 2 }, tcpConnections: 1, stalled: 1 },
      perTabEventsPerSec: { min: 1, median: 2, max: 3 },
      compression: { kind: 'deflate', streams: 2, compressedStreams: 2, wireBytes: 10, wireMegabytesPerSec: 1, inputBytes: 20, outputBytes: 10, ratio: 0.5 },
      browser: { version: 'Chrome/156', headless: false, display: ':99', xvfb: true },
      input: {
        sent: 8,
        handled: 8,
        delayMs: { ...rep.latency },
        nextFrameMs: { ...rep.latency },
        longFrames: { count: 2, blockingMs: 40, durationMs: 140 },
      },
    });
  }
  const failed: FailedRepeat = {
    status: 'failed',
    verdict: 'failed',
    round: 3,
    startedAt: '',
    attempts: 2,
    notes: ['n'],
    error: 'page crashed',
    cause: 'renderer crashed',
    browserId: 'local',
  };
  r.repeats.push(failed);
  return r;
}

/** Every leaf (string, number, boolean) of `value`, by its path of keys and indexes. */
function leaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...at, Array.isArray(value) ? Number(k) : k]));
  }
  return value === null ? [] : [at];
}

function setAt(target: unknown, at: (string | number)[], v: unknown): void {
  let o = target as Record<string | number, unknown>;
  for (const k of at.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[at[at.length - 1]] = v;
}

/** A cell a spreadsheet would run: `= + - @` (after any white space) or a leading tab or line break, unless it is a plain number. */
const runnable = (cell: string) => /^(?:\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|[\t\r\n])/.test(cell) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(cell);

describe('CSV injection: every field, every column, both CSVs', () => {
  it('one row per point and per repeat, every column, no cell a spreadsheet would run, no terminal control', () => {
    const base = fullPoint();
    const paths = leaves(base);
    expect(paths.length).toBeGreaterThan(150);
    // Which columns the hostile text reached, over all the injections.
    const reached = { points: new Set<string>(), repeats: new Set<string>() };
    for (const at of paths) {
      const r = structuredClone(base);
      setAt(r, at, HOSTILE);
      const report: Report = { ...fixture, points: [r, fixture.points[1]] };
      for (const [kind, csv, rows] of [
        ['points', pointsCsv(report), report.points.length],
        ['repeats', repeatsCsv(report), report.points.reduce((n, p) => n + p.repeats.length, 0)],
      ] as const) {
        const where = `${kind} CSV, ${at.join('.')} hostile`;
        expect(csv, where).not.toMatch(TERMINAL_CONTROL);
        const parsed = parseCsv(csv);
        expect(parsed, where).toHaveLength(1 + rows);
        const header = parsed[0];
        parsed.forEach((row, i) => {
          expect(row, `${where}, row ${i}`).toHaveLength(header.length);
          row.forEach((cell, k) => {
            expect(runnable(cell), `${where}, row ${i}, ${header[k]}: ${cell}`).toBe(false);
            if (cell.includes('HYPERLINK')) reached[kind].add(header[k]);
          });
        });
      }
    }
    // Every column of the column list (the four cells of a Stat each) took a hostile value from some field.
    const expectPoints = [...COLUMNS.flatMap((c) => (c.kind === 'stat' ? ['Median', 'Mean', 'CiLow', 'CiHigh'].map((s) => `${c.id}${s}`) : [c.id])), 'notes'];
    expect([...expectPoints].filter((c) => !reached.points.has(c))).toEqual([]);
    const csvRepeats = parseCsv(repeatsCsv({ ...fixture, points: [base] }))[0];
    // `status` is the one an enum check would stop early: a file can still hold anything there.
    // Long frames per second is computed (blocking ms ÷ window s): text in either field is NaN, never text in a cell.
    const computed = new Set(['longFrameBlockingMsPerSec']);
    expect(csvRepeats.filter((c) => !reached.repeats.has(c) && !computed.has(c))).toEqual([]);
  });

  it('keeps real numbers as numbers, negative ones too, and defuses the same text', () => {
    const r = structuredClone(fixture.points[0]);
    r.summary!.eventsPerSec.ciLow = -12.5;
    r.notes = ['-12.5', ' =1+1', '\t@x'];
    const rows = parseCsv(pointsCsv({ ...fixture, points: [r] }));
    const at = (id: string) => rows[1][rows[0].indexOf(id)];
    expect(at('eventsPerSecCiLow')).toBe('-12.5');
    expect(at('notes')).toBe("'-12.5;  =1+1; \t@x");
  });
});

describe('terminal text: printable()', () => {
  it('writes every control a terminal acts on as its \\u escape, and nothing else', () => {
    expect(printable(`a${CONTROLS}b`)).toBe('a\\u001b[2J\\u001b]0;pwned\\u0007\\u0007\\u009b31m\\u0085\\u202e\\u2066b');
    expect(printable('tab\there\nnext\r\nlast\rover')).toBe('tab\\u0009here\\u000anext\\u000d\\u000alast\\u000dover');
    // Laid-out text keeps its tabs and line breaks; a bare CR (which writes over the line) is escaped.
    expect(printable('tab\there\nnext\r\nlast\rover', true)).toBe('tab\there\nnext\r\nlast\\u000dover');
    expect(printable('plain ✓ ±1.2 % Chrome/156 — ok')).toBe('plain ✓ ±1.2 % Chrome/156 — ok');
  });

  it('is idempotent, and keeps JSON valid with the same value', () => {
    const once = printable(HOSTILE, true);
    expect(printable(once, true)).toBe(once);
    const doc = { id: HOSTILE, list: [CONTROLS, 'x'] };
    const shown = printable(JSON.stringify(doc, null, 2), true);
    expect(shown).not.toMatch(TERMINAL_CONTROL);
    expect(JSON.parse(shown)).toEqual(doc);
  });

  it("the sweep's progress writes no control sequence but its own redraw", () => {
    const points = expandScenario({ id: `p${CONTROLS}`, batch: 20, concurrency: 4, repeats: 2 });
    for (const tty of [true, false]) {
      const runner = new EventEmitter<RunnerEvents>();
      const report = reportOf(points.map(emptyResult), {
        options: { repeats: 2, seed: 1, auto: false, maxRepeats: 10, timeBudgetSec: null, findMax: false, retries: 0, file: 'x.json' },
      });
      const out: string[] = [];
      const progress = new Progress(runner as unknown as Runner, report, { write: (t) => out.push(t), tty, columns: 400, remainingSec: () => 40 });
      const round = { index: 0, seed: 1, order: points.map((p) => p.id), startedAt: '', finishedAt: null, parseCeilings: [] };
      report.rounds.push(round);
      runner.emit('round-start', round, 2);
      runner.emit('repeat-start', points[0], 0, 0, 2);
      runner.emit('attempt-failed', points[0], 1, new Error(`net::ERR ${CONTROLS}\nforged line`), undefined);
      runner.emit('phase', points[0], 'window', 2000, 5000);
      progress.close();
      const text = out.join('').replaceAll('\r\u001b[2K', '');
      expect(text, `tty ${tty}`).not.toMatch(TERMINAL_CONTROL);
      expect(text).toContain('\\u001b]0;pwned');
    }
  });
});

function runReport(reports: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs('puppeteer/report/main.ts'), '--reports', reports, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run report prints nothing a terminal acts on', () => {
  let reports: string;

  beforeAll(async () => {
    reports = await mkdtemp(path.join(os.tmpdir(), 'pushlab-hostile-'));
    // Ids, labels, notes, versions and errors from the file, raw in its JSON strings (JSON allows C1 and bidi characters unescaped).
    const hostile = structuredClone(fixture);
    hostile.runId = `run${CONTROLS}`;
    hostile.environment.chromeVersion = `156${CONTROLS}`;
    hostile.environment.cpuModel = `cpu${CONTROLS}`;
    for (const p of hostile.points) {
      p.point.id = `${p.point.id}${CONTROLS}`;
      p.notes = [`note${CONTROLS}`];
      p.verdict = `${p.verdict}${CONTROLS}` as PointResult['verdict'];
    }
    for (const c of hostile.comparisons) c.text = `${c.text}${CONTROLS}`;
    for (const name of ['a', 'b']) {
      await mkdir(path.join(reports, name));
      await writeFile(
        path.join(reports, name, 'report.json'),
        JSON.stringify({ ...hostile, runId: `${name}${CONTROLS}` })
          .replaceAll('\\u009b', '\u009b')
          .replaceAll('\\u0085', '\u0085'),
      );
    }
    // A file with a hostile value where the check wants a number: the error quotes it.
    await mkdir(path.join(reports, 'bad'));
    await writeFile(
      path.join(reports, 'bad', 'report.json'),
      JSON.stringify({ ...fixture, environment: { ...fixture.environment, cores: `8${CONTROLS}` } }).replaceAll('\\u009b', '\u009b'),
    );
  });

  afterAll(async () => {
    if (reports) await rm(reports, { recursive: true, force: true });
  });

  it.each(
    [
      ['--compare', 'a', 'b'],
      ['--reference', 'a'],
      ['--csv', 'a'],
      ['--csv-repeats', 'a'],
      ['--compare', '--scenarios', 'smoke,nope', 'a'],
      ['--csv', 'bad'],
    ].map((args) => ({ name: args.join(' '), args })),
  )(
    '$name',
    async ({ args }) => {
      const r = await runReport(reports, args);
      expect(r.stdout + r.stderr, r.stderr).not.toMatch(TERMINAL_CONTROL);
      // The hostile text did reach the output, shown as escapes.
      expect(r.stdout + r.stderr).toMatch(/\\u001b\]0;pwned|\\u009b/);
    },
    30_000,
  );
});
