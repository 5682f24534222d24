/**
 * Every input file is checked the same way, whichever command reads it. Each case runs the
 * real command as a child process (with CHROME_PATH pointing nowhere, so nothing could launch
 * if a check let it through) and must end at once with exit 2 and one line naming what is wrong:
 * - a run id names one directory directly under --out: `--resume ..` once read
 *   `<out>/../report.json`;
 * - every reader of a report makes the one check: `--resume` of a report missing its options,
 *   or whose points are not a list, crashed with a TypeError stack where `npm run report` said
 *   what was wrong; both now say the same;
 * - a path that is not a regular file is refused at once: a FIFO hung the sweep forever with
 *   no output, a directory was answered "does it exist?";
 * - a value is shown as written: `batch: 1e999` was refused with "got null".
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES, readInputFile } from '../../cli/input-file.js';
import { open, rm } from 'node:fs/promises';
import { EXIT, PushlabError, type ErrorCode } from '../../protocol/errors.js';
import { sourceAt } from '../../protocol/json-text.js';
import { parseReportText } from '../../protocol/report-check.js';
import { parseScenarioText } from '../../protocol/scenario.js';
import { parseFlags } from '../../protocol/flags.js';
import { checkSweepFlags, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { ROOT } from '../helpers/sweep-process.js';
import { nodeArgs } from '../helpers/node-command.js';

const FIXTURE = readFileSync(path.join(ROOT, 'test', 'fixtures', 'report-v2.json'), 'utf8');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-input-files-'));
const runs = path.join(dir, 'runs');
/** A command stuck on a read is killed after this long, and fails its case. */
const STUCK_MS = 20_000;

interface Ran {
  code: number | null;
  stderr: string;
  /** True when the command had to be killed: it hung. */
  hung: boolean;
}

function run(script: string, args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(script), ...args], {
      cwd: ROOT,
      env: { ...process.env, CHROME_PATH: '/nonexistent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let hung = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, STUCK_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, hung });
    });
  });
}

const sweep = (...args: string[]) => run('puppeteer/sweep/main.ts', args);
const report = (...args: string[]) => run('puppeteer/report/main.ts', ['--reports', runs, ...args]);

/** Exit 2 at once, and one line `pushlab <command>: <code>: …` with no stack; returns the message after the prefix. */
function refused(r: Ran, command: string, code: ErrorCode): string {
  expect(r.hung, `hung: ${r.stderr}`).toBe(false);
  expect(r.code, r.stderr).toBe(EXIT.badInput);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/TypeError|\n\s+at /);
  expect(lines[0].startsWith(`pushlab ${command}: ${code}: `), lines[0]).toBe(true);
  return lines[0].slice(`pushlab ${command}: ${code}: `.length);
}

/** A run directory under `runs` holding `text` as its report.json. */
function runWith(name: string, text: string): string {
  mkdirSync(path.join(runs, name), { recursive: true });
  const file = path.join(runs, name, 'report.json');
  writeFileSync(file, text);
  return file;
}

/** The fixture, interrupted (so --resume would go on), changed by `edit`. */
function interruptedReport(edit: (r: Record<string, unknown>) => void): string {
  const r = JSON.parse(FIXTURE) as Record<string, unknown>;
  r.interrupted = true;
  edit(r);
  return JSON.stringify(r);
}

beforeAll(() => {
  mkdirSync(runs, { recursive: true });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a run id names one directory directly under --out', () => {
  const resume = (value: string) => () => checkSweepFlags(parseFlags(SWEEP_FLAGS, ['--resume', value], 'sweep'));

  it.each(['..', '.', 'a/b', '../20260101-000000', '.hidden', 'a\\b', '/etc', 'x'.repeat(101), 'run id'])(
    'refuses %j, naming the flag, the value and what is allowed',
    (value) => {
      expect(resume(value)).toThrow(PushlabError);
      try {
        resume(value)();
      } catch (err) {
        expect((err as PushlabError).code).toBe('PUSHLAB_BAD_FLAG');
        expect((err as PushlabError).message).toBe(
          `--resume takes a run id, one directory name directly under the reports directory: a letter or digit, then letters, digits, ., _ or -, at most 100 (no / or \\, not . or ..), e.g. 20261123-141500 (here --out); got '${value}'`,
        );
      }
    },
  );

  it.each(['20261123-141500', 'lab-20261123-141500', 'example', 'a..b'])('takes %j', (value) => {
    expect(resume(value)().resume).toBe(value);
  });

  it('--resume .. reads nothing outside --out', async () => {
    // A report just outside --out: read, it would answer "that sweep finished".
    writeFileSync(path.join(dir, 'report.json'), FIXTURE);
    const message = refused(await sweep('--resume', '..', '--out', runs), 'sweep', 'PUSHLAB_BAD_FLAG');
    expect(message).toMatch(/^--resume takes a run id, .* got '\.\.'$/);
  });
});

describe('every reader of a report makes the one check', () => {
  const broken: [string, (r: Record<string, unknown>) => void, string][] = [
    ['no-options', (r) => delete r.options, 'options must be an object, got nothing'],
    ['points-object', (r) => (r.points = { a: 1 }), 'points must be an array, got {"a":1}'],
    ['no-file', (r) => delete (r.options as Record<string, unknown>).file, 'options.file must be a string, got nothing'],
    ['bad-round', (r) => ((r.rounds as unknown[])[0] = 'round'), 'rounds[0] must be an object, got "round"'],
    [
      'bad-repeat',
      (r) => delete ((r.points as Record<string, unknown[]>[])[0].repeats[0] as Record<string, unknown>).notes,
      'points[0].repeats[0].notes must be an array of strings, got nothing',
    ],
  ];

  it.each(broken)('%s: --resume and npm run report refuse it alike', async (name, edit, what) => {
    const file = runWith(name, interruptedReport(edit));
    const [fromSweep, fromReport] = await Promise.all([sweep('--resume', name, '--out', runs), report('--csv', name)]);
    expect(refused(fromSweep, 'sweep', 'PUSHLAB_BAD_REPORT')).toBe(`${file}: ${what}`);
    expect(refused(fromReport, 'report', 'PUSHLAB_BAD_REPORT')).toBe(`${file}: ${what}`);
  });
});

describe('a path that is not a regular file is refused at once', () => {
  const fifo = path.join(dir, 'fifo.json');
  const aDir = path.join(dir, 'a-dir.json');
  const FIFO = 'a named pipe (FIFO), not a file pushlab reads';
  const DIR = 'a directory, not a file pushlab reads';

  beforeAll(() => {
    execFileSync('mkfifo', [fifo]);
    mkdirSync(aDir);
    // Run directories whose report.json is a FIFO, and a directory.
    mkdirSync(path.join(runs, 'fifo-run'), { recursive: true });
    execFileSync('mkfifo', [path.join(runs, 'fifo-run', 'report.json')]);
    mkdirSync(path.join(runs, 'dir-run', 'report.json'), { recursive: true });
    runWith('base', FIXTURE);
  });

  it('the scenario file (--file)', async () => {
    const [f, d] = await Promise.all([sweep('--file', fifo, '--list'), sweep('--file', aDir, '--list')]);
    expect(refused(f, 'sweep', 'PUSHLAB_BAD_SCENARIO')).toBe(`--file ${fifo}: ${FIFO}; give a scenario file (JSON)`);
    expect(refused(d, 'sweep', 'PUSHLAB_BAD_SCENARIO')).toBe(`--file ${aDir}: ${DIR}; give a scenario file (JSON)`);
  }, 60_000);

  it('the report --resume reads', async () => {
    const [f, d] = await Promise.all([sweep('--resume', 'fifo-run', '--out', runs), sweep('--resume', 'dir-run', '--out', runs)]);
    expect(refused(f, 'sweep', 'PUSHLAB_BAD_REPORT')).toMatch(new RegExp(`^--resume fifo-run: .*/fifo-run/report\\.json: ${FIFO.replace(/[()]/g, '\\$&')}; `));
    expect(refused(d, 'sweep', 'PUSHLAB_BAD_REPORT')).toMatch(new RegExp(`^--resume dir-run: .*/dir-run/report\\.json: ${DIR}; `));
  }, 60_000);

  it.each(
    [['--csv', fifo], ['--csv', 'fifo-run'], ['--csv', 'dir-run'], ['--compare', 'base', 'fifo-run'], ['--reference', fifo], ['fifo-run']].map((args) => ({
      name: args.join(' '),
      args,
    })),
  )(
    'npm run report $name',
    async ({ args }) => {
      expect(refused(await report(...args), 'report', 'PUSHLAB_BAD_REPORT')).toMatch(
        new RegExp(`: (${FIFO.replace(/[()]/g, '\\$&')}|${DIR}); give a run id, a run directory or a report\\.json$`),
      );
    },
    60_000,
  );

  it('readInputFile names what the path is: FIFO, directory, socket, device; and a missing file', async () => {
    const sock = path.join(dir, 'sock');
    const server = net.createServer().listen(sock);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const read = (p: string) => readInputFile(p, `x ${p}`, 'PUSHLAB_BAD_REPORT');
      await expect(read(fifo)).rejects.toThrow(`x ${fifo}: ${FIFO}; give a JSON file`);
      await expect(read(aDir)).rejects.toThrow(`x ${aDir}: ${DIR}; give a JSON file`);
      await expect(read(sock)).rejects.toThrow(`x ${sock}: a socket, not a file pushlab reads`);
      await expect(read('/dev/zero')).rejects.toThrow('x /dev/zero: a character device, not a file pushlab reads');
      await expect(read(path.join(dir, 'nope.json'))).rejects.toThrow(`x ${path.join(dir, 'nope.json')}: cannot read it: no such file (ENOENT)`);
      expect(await read(path.join(runs, 'base', 'report.json'))).toBe(FIXTURE);
    } finally {
      server.close();
    }
  });

  it('refuses a file larger than pushlab reads before reading it, naming its size', async () => {
    // Sparse: its size without its bytes, so the test writes nothing.
    const big = path.join(dir, 'big.json');
    const handle = await open(big, 'w');
    await handle.truncate(MAX_INPUT_BYTES + 1);
    await handle.close();
    try {
      const before = process.memoryUsage().rss;
      await expect(readInputFile(big, `--file ${big}`, 'PUSHLAB_BAD_SCENARIO', 'give a scenario file (JSON)')).rejects.toThrow(
        `--file ${big}: ${MAX_INPUT_BYTES + 1} bytes, above the ${MAX_INPUT_BYTES} (512 MiB) pushlab reads; give a scenario file (JSON)`,
      );
      // Refused from its size: nothing near 512 MiB was read into memory.
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
      // The limit is a parameter, for files that ought to be small.
      await expect(readInputFile(path.join(runs, 'base', 'report.json'), 'x', 'PUSHLAB_BAD_REPORT', 'give a JSON file', 1000)).rejects.toThrow(
        /^x: \d+ bytes, above the 1000 \(0 MiB\) pushlab reads/,
      );
    } finally {
      await rm(big, { force: true });
    }
  });
});

describe('a value is shown as written', () => {
  it('batch: 1e999 in a scenario file', async () => {
    const file = path.join(dir, 'huge-batch.json');
    writeFileSync(file, '{ "scenarios": [ { "id": "a", "batch": 1e999, "concurrency": 1 } ] }\n');
    expect(refused(await sweep('--file', file, '--list'), 'sweep', 'PUSHLAB_BAD_SCENARIO')).toBe(`${file}: scenarios[0].batch must be ≤ 100000, got 1e999`);
    expect(() => parseScenarioText('{ "scenarios": [ { "id": "a", "batch": [1, -2.50e+3], "concurrency": 1 } ] }', 's.json')).toThrow(
      's.json: scenarios[0].batch[1] must be ≥ 1, got -2.50e+3',
    );
  });

  it('a report number past the largest double', async () => {
    const file = runWith('huge-cores', FIXTURE.replace(/"cores": \d+/, '"cores": 1e999'));
    expect(refused(await report('--csv', 'huge-cores'), 'report', 'PUSHLAB_BAD_REPORT')).toBe(`${file}: environment.cores must be a number, got 1e999`);
    expect(() => parseReportText('{"schemaVersion": 2e0, "runId": -0.0e5}', 'r.json')).toThrow('r.json: runId must be a string, got -0.0e5');
  });

  it('sourceAt finds the text of a value by its path, the last of a key given twice', () => {
    const text = '{ "a": [1, { "b": 1E400 }, "x\\"y"], "a2": { }, "c": 1, "c": 2.0 }';
    expect(sourceAt(text, ['a', '1', 'b'])).toBe('1E400');
    expect(sourceAt(text, ['a', '2'])).toBe('"x\\"y"');
    expect(sourceAt(text, ['a2'])).toBe('{ }');
    expect(sourceAt(text, ['c'])).toBe('2.0');
    expect(sourceAt(text, ['a', '3'])).toBeUndefined();
    expect(sourceAt(text, [])).toBe(text);
  });
});
