/**
 * Every command pushlab prints for pasting (resume commands, advise's check, the table's
 * `npm run report` hint) is built by protocol/shell.ts, and each argument reaches the command as
 * the one word it was: an `--out` holding `; touch x`, `$(…)`, quotes, spaces or line breaks
 * runs nothing when the line is pasted. Checked by running the printed line through bash (and
 * dash, where it applies) with `npm run <x> --` replaced by a printer of its argv.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeCommandLine } from '../../cli/command.js';
import { ROOT } from '../../cli/root.js';
import { npmCommand, shellWord } from '../../protocol/shell.js';
import { printable } from '../../results/printable.js';

const HOSTILE = [
  'reports/o; touch x',
  "it's 'quoted'",
  'a "double" one',
  'with  spaces\tand tab',
  '$(touch pwned)',
  '`touch pwned`',
  '${HOME} $HOME',
  'line\nbreak; touch x',
  'cr\r\nlf',
  'esc \u001b]0;title\u0007 bell',
  'bidi \u202eevil\u202c',
  'back\\slash \\n',
  'bang! !! !-1',
  'glob * ? [a]',
  '~/home',
  '-starts-with-dash',
  '',
  'plain/path-1.2_x',
  'é ü 日本',
  "'",
  "$'nested'",
];

const scratch = mkdtempSync(path.join(os.tmpdir(), 'pushlab-quote-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The arguments `line` passes once `npm run <script> --` is replaced by printf, run by `shell` in an empty directory. */
function argvOf(shell: string, line: string, script: string): string[] {
  const prefix = `npm run ${script} -- `;
  expect(line.startsWith(prefix), line).toBe(true);
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line.slice(prefix.length)}`], {
    cwd: scratch,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: '/nonexistent-home' },
  });
  return out.split('\0').slice(0, -1);
}

describe('shellWord and npmCommand', () => {
  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('%s: one argument through bash, as written, and nothing run', (_, s) => {
    const line = npmCommand('sweep', ['--out', s, '--repeats', '5']);
    expect(argvOf('bash', line, 'sweep')).toEqual(['--out', s, '--repeats', '5']);
    // One printable line: what the terminal shows is what is pasted.
    expect(line).not.toContain('\n');
    expect(printable(line)).toBe(line);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it.each(HOSTILE.filter((s) => !/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/.test(s)).map((s) => [JSON.stringify(s), s]))(
    '%s: the same through dash (POSIX sh)',
    (_, s) => {
      if (!existsSync('/bin/dash')) return;
      expect(argvOf('/bin/dash', npmCommand('report', ['--wide', s]), 'report')).toEqual(['--wide', s]);
      expect(readdirSync(scratch)).toEqual([]);
    },
  );

  it('a plain word stays as it is', () => {
    expect(shellWord('reports/advise-20260101-000000/confirm.json')).toBe('reports/advise-20260101-000000/confirm.json');
    expect(npmCommand('sweep', ['--resume', '20260101-000000'])).toBe('npm run sweep -- --resume 20260101-000000');
  });

  it('the resume command quotes each value and leaves out empty ones', () => {
    const out = "o; touch x $(id) 'q'\nz";
    const line = resumeCommandLine('advise', 'advise-20260101-000000', [
      ['--out', out],
      ['--browser', ''],
      ['--server', 'https://127.0.0.1:1/'],
    ]);
    expect(argvOf('bash', line, 'advise')).toEqual(['--resume', 'advise-20260101-000000', '--out', out, '--server', 'https://127.0.0.1:1/']);
  });
});

describe('every command printed for pasting is built by npmCommand', () => {
  /** Source files of the commands and the views they print. */
  function sources(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
  }

  it('no template string writes `npm run <x> -- …${value}` itself', () => {
    const files = ['cli', 'puppeteer', 'results', 'server', 'bench', 'protocol'].flatMap(sources).filter((f) => f !== path.join('protocol', 'shell.ts'));
    expect(files.length).toBeGreaterThan(20);
    const raw = files.flatMap((f) =>
      readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .map((text, i) => ({ at: `${f}:${i + 1}`, text }))
        // `<that run>`: a line for the person to complete, the rest of it constants.
        .filter(({ text }) => /npm run [a-z:-]+ --[^`]*\$\{/.test(text) && !text.includes('<that run>')),
    );
    expect(raw).toEqual([]);
  });
});
