/**
 * The command-line layer every entry point shares (server, sweep, lab, benches): parse argv
 * against a flag table, print `--help`, and turn any error into one line on stderr and one
 * exit code. protocol/flags.ts only parses and throws; printing and exiting happen here.
 */
import { exitCodeOf, PushlabError } from '../protocol/errors.js';
import { helpText, parseFlags, type Flags, type FlagSpec } from '../protocol/flags.js';
import { printable } from '../results/printable.js';
import { npmCommand } from '../protocol/shell.js';
import { tolerateLostOutput } from './stop.js';
import { holdRunningBuild } from './entry.js';
import { sourceMappedStack } from './stack.js';

/**
 * Parses `argv` (process.argv by default). On `--help` prints the help on stdout and exits 0;
 * bad input throws PushlabError PUSHLAB_BAD_FLAG, which `runCommand` reports, so no command
 * starts work on flags it did not understand.
 */
export function commandLineFlags<T extends Record<string, FlagSpec>>(specs: T, command: string, argv: readonly string[] = process.argv.slice(2)): Flags<T> {
  const usage = `npm run ${command} --`;
  const flags = parseFlags(specs, argv, usage);
  if (flags.help) {
    process.stdout.write(helpText(specs, usage));
    process.exit(0);
  }
  return flags;
}

/** What the line of an error that is not a PushlabError says before its stack: it is pushlab's fault, not the input's. */
export const BUG_PREFIX = 'internal error (a bug in pushlab, please report it with this text)';

/**
 * The one line a failed command prints: `pushlab <command>: <CODE>: <message>` for a
 * PushlabError (its code is the one docs/reliability.md's table lists, as fastify prints its
 * `FST_` codes), and `pushlab <command>: internal error (…): <stack>` for anything else, a bug,
 * whose stack is kept for the report, naming the TypeScript files (cli/stack.ts). Printable
 * (results/printable.ts): a message quotes what was refused, from a file or the network; its line
 * breaks too are escaped, so it stays one line.
 */
export function errorLine(command: string, err: unknown): string {
  if (err instanceof PushlabError) return printable(`pushlab ${command}: ${err.code}: ${err.message}`);
  const text = err instanceof Error ? (err.stack === undefined ? err.message : sourceMappedStack(err.stack)) : String(err);
  return printable(`pushlab ${command}: ${BUG_PREFIX}: ${text}`, true);
}

/** Exits once stdout has taken everything written to it: where a pipe is asynchronous (macOS), process.exit alone cuts it short. */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/**
 * Runs a command's `main`. A number it resolves to is the exit code (see EXIT); undefined
 * means the command keeps running (a server, the lab) and exits on its own. Any error becomes
 * one line on stderr and the exit code `exitCodeOf` gives it.
 */
export function runCommand(command: string, main: () => Promise<number | undefined>): void {
  // A reader that closed stdout early (`| head -3`) ends what stdout can show, not the command.
  tolerateLostOutput();
  holdRunningBuild();
  main().then(
    (code) => {
      if (code !== undefined) exitWhenFlushed(code);
    },
    (err: unknown) => {
      process.stderr.write(`${errorLine(command, err)}\n`);
      exitWhenFlushed(exitCodeOf(err));
    },
  );
}

/**
 * For a command written as a module with top-level await (the benches): an error that escapes
 * it becomes the same one line and exit code as under `runCommand`. Call before any work.
 */
export function reportErrorsAs(command: string): void {
  tolerateLostOutput();
  holdRunningBuild();
  process.once('uncaughtException', (err) => {
    process.stderr.write(`${errorLine(command, err)}\n`);
    process.exit(exitCodeOf(err));
  });
}

/**
 * The command that goes on with a saved run: `npm run <command> -- --resume <run-id>` and each
 * of `flags` that has a value (empty: left out), as shell words (protocol/shell.ts).
 */
export function resumeCommandLine(command: string, runId: string, flags: readonly (readonly [flag: string, value: string])[]): string {
  return npmCommand(command, ['--resume', runId, ...flags.filter(([, v]) => v).flat()]);
}
