/**
 * Every duration and count flag of sweep, advise, lab, report and server at its edges: the
 * largest value is taken, and one past it, a huge one, 1e400, a negative and NaN text are each
 * one PUSHLAB_BAD_FLAG naming the flag, the value and the allowed range. No Node RangeError
 * (ERR_OUT_OF_RANGE from a Buffer or a timer) is reached from a flag value: `--time-budget 200h`
 * gave one, blamed on `--out`, and so did the largest plan the limits allowed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutputDir } from '../../cli/output.js';
import { ROOT } from '../../cli/root.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseFlags, type FlagSpec } from '../../protocol/flags.js';
import { LIMITS, MAX_REPORT_REPEATS, MAX_SWEEP_POINTS, TIME_BUDGET_SEC } from '../../protocol/limits.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { checkSweepFlags, LAB_FLAGS, REPORT_FLAGS, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { reportFilesBytes } from '../../puppeteer/report/html.js';
import { SERVER_FLAGS } from '../../server/options.js';
import { nodeArgs } from '../helpers/node-command.js';

const HUGE = '9'.repeat(400);
const ADVISE_TARGET = ['--rate', '1k', '--p99', '100ms'];

/** A command's flags, parsed and checked as the command does. */
const COMMANDS = {
  sweep: (argv: string[]) => checkSweepFlags(parseFlags(SWEEP_FLAGS, argv, 'npm run sweep --')),
  advise: (argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, [...ADVISE_TARGET, ...argv], 'npm run advise --')),
  lab: (argv: string[]) => parseFlags(LAB_FLAGS, argv, 'npm run lab --'),
  report: (argv: string[]) => parseFlags(REPORT_FLAGS, argv, 'npm run report --'),
  server: (argv: string[]) => parseFlags(SERVER_FLAGS, argv, 'npm run server --'),
};
type Command = keyof typeof COMMANDS;

/** Flags a flag needs beside it to be checked at all. */
const BESIDE: Record<string, string[]> = {
  'sweep --grid-sessions': ['--grid', 'http://127.0.0.1:4444'],
  'sweep --max-repeats': ['--auto'],
  'advise --hidden-long-grace': ['--tab', 'hidden-long'],
};

interface Edge {
  command: Command;
  flag: string;
  /** The largest value taken. */
  max: string;
  /** One past it. */
  past: string;
  /** What the refusal must say is allowed. */
  allowed: string;
}

/** The table's numeric flags: their range is in the table. */
function tableEdges(command: Command, specs: Record<string, FlagSpec>): Edge[] {
  return Object.entries(specs).flatMap(([flag, s]) =>
    s.type === 'integer' || s.type === 'number' ? [{ command, flag, max: String(s.max), past: String(s.max + 1), allowed: `from ${s.min} to ${s.max}` }] : [],
  );
}

/** The counts and durations that are string flags, checked by the command's own check. */
const STRING_EDGES: Edge[] = [
  {
    command: 'sweep',
    flag: 'repeats',
    max: String(LIMITS.repeats.max),
    past: String(LIMITS.repeats.max + 1),
    allowed: `from ${LIMITS.repeats.min} to ${LIMITS.repeats.max}`,
  },
  { command: 'sweep', flag: 'seed', max: '4294967295', past: '4294967296', allowed: 'from 0 to 4294967295' },
  { command: 'sweep', flag: 'time-budget', max: '168h', past: '168.01h', allowed: 'at most 168h (604800 s)' },
  { command: 'advise', flag: 'time-budget', max: '604800', past: '604801', allowed: 'at most 168h (604800 s)' },
  { command: 'advise', flag: 'seed', max: '4294967295', past: '4294967296', allowed: 'from 0 to 4294967295' },
  { command: 'advise', flag: 'rate', max: '800M', past: '800000001', allowed: 'from 1 to 800M' },
  { command: 'advise', flag: 'p99', max: '60s', past: '60001', allowed: 'from 1 ms to 60 s' },
  {
    command: 'advise',
    flag: 'hidden-long-grace',
    max: String(LIMITS.hiddenLongGraceSec.max),
    past: String(LIMITS.hiddenLongGraceSec.max + 1),
    allowed: `from ${LIMITS.hiddenLongGraceSec.min} to ${LIMITS.hiddenLongGraceSec.max}`,
  },
];

const EDGES: Edge[] = [
  ...tableEdges('sweep', SWEEP_FLAGS),
  ...tableEdges('lab', LAB_FLAGS),
  ...tableEdges('report', REPORT_FLAGS),
  ...tableEdges('server', SERVER_FLAGS),
  ...STRING_EDGES,
];

function run(command: Command, flag: string, value: string): unknown {
  return COMMANDS[command]([...(BESIDE[`${command} --${flag}`] ?? []), `--${flag}`, value]);
}

function refusal(command: Command, flag: string, value: string): PushlabError {
  try {
    run(command, flag, value);
  } catch (err) {
    expect(err, `${command} --${flag} ${value.slice(0, 20)}: ${String(err)}`).toBeInstanceOf(PushlabError);
    return err as PushlabError;
  }
  throw new Error(`${command} --${flag} ${value.slice(0, 20)} was taken`);
}

describe('every duration and count flag at its edges', () => {
  it('covers each command', () => {
    expect(new Set(EDGES.map((e) => e.command))).toEqual(new Set(Object.keys(COMMANDS)));
    expect(EDGES.length).toBeGreaterThan(15);
  });

  it.each(EDGES.map((e) => [`${e.command} --${e.flag}`, e] as const))('%s: its largest value is taken', (_, e) => {
    expect(() => run(e.command, e.flag, e.max)).not.toThrow();
  });

  const BAD = (e: Edge) => [e.past, HUGE, '1e400', '-1', 'NaN'];
  it.each(EDGES.flatMap((e) => BAD(e).map((v) => [`${e.command} --${e.flag} ${v.length > 12 ? `${v.slice(0, 6)}…(${v.length})` : v}`, e, v] as const)))(
    '%s: one PUSHLAB_BAD_FLAG naming the flag, the value and the range',
    (_, e, value) => {
      const err = refusal(e.command, e.flag, value);
      expect(err.code).toBe('PUSHLAB_BAD_FLAG');
      expect(err.message).toContain(`--${e.flag}`);
      expect(err.message).toContain(value.slice(0, 40));
      expect(err.message).toContain(e.allowed);
      expect(err.message).not.toContain('\n');
      expect(err.message.length).toBeLessThan(700);
    },
  );
});

describe('the disk space a plan needs is checked without a Node RangeError', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-bounds-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`a need past what one Buffer holds (the ${MAX_SWEEP_POINTS * LIMITS.repeats.max} repeats the limits allowed): statfs for the whole, a bounded probe`, async () => {
    const need = await reportFilesBytes(MAX_SWEEP_POINTS * LIMITS.repeats.max);
    expect(need).toBeGreaterThan(2 ** 31);
    let err: unknown = null;
    try {
      checkOutputDir('--out', path.join(dir, 'largest'), need);
    } catch (e) {
      err = e;
    }
    // Either it fits, or the one line says there is no space: never Buffer's ERR_OUT_OF_RANGE.
    if (err !== null) {
      expect(err).toBeInstanceOf(PushlabError);
      expect((err as PushlabError).message).toMatch(/no space left on/);
    }
  });
});

type Ran = { code: number; stderr: string };
function command(script: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs(script), ...args], { cwd: ROOT, timeout: 120_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr });
    });
  });
}

describe('the commands: one line with its code', () => {
  let dir: string;
  const ran: Record<string, Ran> = {};
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-bounds-'));
    // MAX_SWEEP_POINTS points, with the most repeats a scenario may ask for: the largest plan the limits allowed.
    const batches = Array.from({ length: MAX_SWEEP_POINTS }, (_, i) => i + 1);
    const scenario = (repeats: number) => JSON.stringify({ scenarios: [{ id: 'big', transport: 'sse', batch: batches, concurrency: 1, repeats }] });
    writeFileSync(path.join(dir, 'largest.json'), scenario(LIMITS.repeats.max));
    writeFileSync(path.join(dir, 'at-bound.json'), scenario(MAX_REPORT_REPEATS / MAX_SWEEP_POINTS));
    const out = ['--out', path.join(dir, 'out')];
    const nobody = ['--server', 'https://127.0.0.1:1/'];
    const runs: Record<string, [string, string[]]> = {
      advise200h: ['puppeteer/advise/main.ts', [...ADVISE_TARGET, '--time-budget', '200h', ...out]],
      adviseWeek: ['puppeteer/advise/main.ts', [...ADVISE_TARGET, '--time-budget', '168h', ...out, ...nobody]],
      sweep200h: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--auto', '--time-budget', '200h', ...out]],
      largest: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'largest.json'), ...out]],
      largestByFlag: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'at-bound.json'), '--repeats', String(LIMITS.repeats.max), ...out]],
      atBound: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'at-bound.json'), ...out, ...nobody]],
    };
    // Two at a time: each is a node process with tsx, on a shared 2-core machine.
    const names = Object.keys(runs);
    for (let i = 0; i < names.length; i += 2) {
      await Promise.all(names.slice(i, i + 2).map(async (n) => (ran[n] = await command(...runs[n]))));
    }
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const oneLine = (r: Ran, prefix: string) => {
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).not.toMatch(/RangeError|ERR_OUT_OF_RANGE|internal error/);
    expect(r.stderr.startsWith(prefix), r.stderr).toBe(true);
    return r.stderr.trimEnd();
  };

  it('advise --time-budget 200h: the flag, not --out', () => {
    expect(oneLine(ran.advise200h, 'pushlab advise: PUSHLAB_BAD_FLAG: --time-budget must be a duration above 0 and at most 168h (604800 s)')).toMatch(
      /got '200h'$/,
    );
  });

  it('advise --time-budget 168h: taken, the disk check passes, and it stops at the server', () => {
    oneLine(ran.adviseWeek, 'pushlab advise: PUSHLAB_BAD_SERVER: --server https://127.0.0.1:1/');
  });

  it('sweep --auto --time-budget 200h', () => {
    oneLine(ran.sweep200h, 'pushlab sweep: PUSHLAB_BAD_FLAG: --time-budget must be a duration above 0 and at most 168h');
  });

  it(`the largest plan the limits allowed (${MAX_SWEEP_POINTS} points × ${LIMITS.repeats.max} repeats) is refused before it runs, naming where the repeats come from`, () => {
    const n = (x: number) => x.toLocaleString('en-US');
    const total = n(MAX_SWEEP_POINTS * LIMITS.repeats.max);
    expect(
      oneLine(
        ran.largest,
        `pushlab sweep: PUSHLAB_BAD_SCENARIO: ${path.join(dir, 'largest.json')}'s repeats: ${n(MAX_SWEEP_POINTS)} points would measure up to ${total} repeats`,
      ),
    ).toContain(`at most ${n(MAX_REPORT_REPEATS)}`);
    oneLine(
      ran.largestByFlag,
      `pushlab sweep: PUSHLAB_BAD_FLAG: --repeats ${LIMITS.repeats.max}: ${n(MAX_SWEEP_POINTS)} points would measure up to ${total} repeats`,
    );
  });

  it(`a plan at the bound (${MAX_REPORT_REPEATS} repeats) passes the disk check and stops at the server`, () => {
    oneLine(ran.atBound, 'pushlab sweep: PUSHLAB_BAD_SERVER: --server https://127.0.0.1:1/');
  });

  it('the budget bound is the one the flags say', () => {
    expect(TIME_BUDGET_SEC.max).toBe(604_800);
  });
});
