/**
 * The commands' exit codes and streams, run as a person or a script would run them: a child
 * process each, all started at once. None of these starts a browser or a server.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs(script), ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** One line on stderr, naming the command, with no stack trace. */
function oneLine(stderr: string, command: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^pushlab ${command}: PUSHLAB_[A-Z_]+: `));
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

const RUNS = {
  badFlag: ['puppeteer/sweep/main.ts', ['--retries', '9']],
  unknownScenario: ['puppeteer/sweep/main.ts', ['--scenario', 'no-such', '--list']],
  help: ['puppeteer/sweep/main.ts', ['--help']],
  list: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--list']],
  badHost: ['server/main.ts', ['--host', '0.0.0.0']],
} as const;
const ran = {} as Record<keyof typeof RUNS, Ran>;

beforeAll(async () => {
  await Promise.all(Object.entries(RUNS).map(async ([name, [script, args]]) => (ran[name as keyof typeof RUNS] = await run(script, [...args]))));
}, 60_000);

describe('npm run sweep', () => {
  it('exits 2 on a bad flag, with one line on stderr and nothing on stdout', () => {
    const r = ran.badFlag;
    expect(r.code).toBe(EXIT.badInput);
    expect(oneLine(r.stderr, 'sweep')).toBe("pushlab sweep: PUSHLAB_BAD_FLAG: --retries must be an integer from 0 to 5; got '9'");
    expect(r.stdout).toBe('');
  });

  it('exits 2 on an unknown scenario, naming the known ones', () => {
    const r = ran.unknownScenario;
    expect(r.code).toBe(EXIT.badInput);
    expect(oneLine(r.stderr, 'sweep')).toContain(
      "pushlab sweep: PUSHLAB_BAD_FLAG: --scenario names 'no-such', which is neither a scenario nor a group in the scenario file; known: smoke",
    );
  });

  it('prints --help on stdout and exits 0', () => {
    const r = ran.help;
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^usage: npm run sweep -- \[flags\]/);
    expect(r.stdout).toContain('--scenario');
    expect(r.stderr).toBe('');
  });

  it('--list puts one point a line on stdout and the summary with the estimated time on stderr', () => {
    const r = ran.list;
    expect(r.code).toBe(EXIT.ok);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^smoke\/\S+\t\d+ EPS offered\t2 × ~[\d.]+ s$/);
    expect(r.stderr).toMatch(/^2 points, 4 repeats in 2 rounds: about \d+ s \(estimated, build not included\)\n$/);
  });
});

describe('npm run server', () => {
  it('exits 2 on a non-loopback --host, with one line and no stack', () => {
    const r = ran.badHost;
    expect(r.code).toBe(EXIT.badInput);
    expect(oneLine(r.stderr, 'server')).toBe(
      "pushlab server: PUSHLAB_BAD_HOST: --host must be a loopback address (127.0.0.1, ::1, localhost) unless --allow-remote is given; got '0.0.0.0'",
    );
  });
});
