/**
 * The one line a failed command prints carries its error code (`pushlab sweep: PUSHLAB_BAD_FLAG: …`),
 * as fastify's lines carry `FST_` codes, and every code is a row of docs/reliability.md's table,
 * so the line can be looked up there. A bug (an error that is not a PushlabError) says it is one.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUG_PREFIX, errorLine } from '../../cli/command.js';
import { ROOT } from '../../cli/root.js';
import { ERROR_CODES, EXIT, PushlabError, type ErrorCode } from '../../protocol/errors.js';
import { docFiles, readDoc, withoutFences } from '../helpers/docs-files.js';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The first cells of the table under "Exit codes and error codes" whose header is `| code |`. */
function documentedCodes(): string[] {
  const doc = readDoc('docs/reliability.md');
  const lines = withoutFences(doc.slice(doc.indexOf('## Exit codes and error codes'))).split('\n');
  const start = lines.findIndex((l) => /^\| code \|/.test(l));
  const codes: string[] = [];
  for (let i = start + 2; start >= 0 && i < lines.length && lines[i].startsWith('|'); i++) codes.push(lines[i].split('|')[1].trim().replace(/^`|`$/g, ''));
  return codes;
}

/** Runs `runCommand('sweep', …)` in a real process whose main throws `what`; its exit code and stderr. */
function throwIn(what: string): Promise<{ code: number; stderr: string }> {
  const script = `import { runCommand } from './cli/command.ts'; import { PushlabError } from './protocol/errors.ts';
runCommand('sweep', async () => { ${what} });`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, timeout: 30_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr });
    });
  });
}

describe('the error line', () => {
  it('every ERROR_CODES entry is a row of the table in docs/reliability.md, and the table has no other', () => {
    expect(documentedCodes().sort()).toEqual([...CODES].sort());
  });

  it.each(CODES)('%s: a PushlabError with it prints `pushlab <command>: %s: <message>`', (code) => {
    expect(errorLine('sweep', new PushlabError(code, '--x 5: what went wrong'))).toBe(`pushlab sweep: ${code}: --x 5: what went wrong`);
  });

  it('a message quoting a line break or a control stays one printable line', () => {
    const line = errorLine('advise', new PushlabError('PUSHLAB_BAD_FLAG', "--out 'a\nb\u001b[2J': bad"));
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toBe("pushlab advise: PUSHLAB_BAD_FLAG: --out 'a\\u000ab\\u001b[2J': bad");
  });

  it('an error that is not a PushlabError is a bug: it says so and keeps its stack', () => {
    const line = errorLine('report', new TypeError("Cannot read properties of null (reading 'slots')"));
    expect(line.startsWith(`pushlab report: ${BUG_PREFIX}: TypeError: Cannot read properties of null`)).toBe(true);
    expect(line).toMatch(/\n\s+at /);
    expect(errorLine('lab', 'a thrown string')).toBe(`pushlab lab: ${BUG_PREFIX}: a thrown string`);
  });

  it('a command prints the code on stderr, one line, exit 2; a bug prints its stack, exit 2', async () => {
    const [coded, bug] = await Promise.all([
      throwIn(`throw new PushlabError('PUSHLAB_CANNOT_LISTEN', '--port 1: in use');`),
      throwIn(`throw new RangeError('oops');`),
    ]);
    expect(coded).toEqual({ code: EXIT.badInput, stderr: 'pushlab sweep: PUSHLAB_CANNOT_LISTEN: --port 1: in use\n' });
    expect(bug.code).toBe(EXIT.badInput);
    expect(bug.stderr.startsWith(`pushlab sweep: ${BUG_PREFIX}: RangeError: oops\n`), bug.stderr).toBe(true);
  });

  it('every error line the docs quote carries a documented code (docs/results/ keep what was printed on their day, and a line quoted as "before: `…`" what was printed before a fix)', () => {
    const quoted = ['README.md', ...docFiles().filter((d) => !d.startsWith(path.posix.join('docs', 'results')))].flatMap((file) =>
      [...readDoc(file).matchAll(/(?<!before: )`(pushlab [a-z:]+: [^`\n]*)`/g)].map((m) => ({ file, line: m[1] })),
    );
    const errorLines = quoted.filter(({ line }) => /^pushlab [a-z:]+: (<CODE>|PUSHLAB_|--|internal error)/.test(line));
    expect(errorLines.length).toBeGreaterThan(2);
    const uncoded = errorLines.filter(
      ({ line }) => !/^pushlab [a-z:<>]+: (<CODE>|internal error \(a bug)/.test(line) && !CODES.some((c) => line.includes(`: ${c}: `)),
    );
    expect(uncoded).toEqual([]);
  });
});
