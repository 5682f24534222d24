/**
 * How a command is asked to stop, one rule for every entry point (sweep, lab, server, report
 * --serve, benches):
 *
 * - a signal: SIGINT (Ctrl-C), SIGTERM (`timeout`, CI runners, process managers), SIGHUP (the
 *   terminal closed). The first one asks the command to stop the way it stops on Ctrl-C; a
 *   second one, later than REPEAT_WINDOW_MS, stops it at once.
 * - the end of a process that started this one: npm, the shell npm runs a script in, tsx, a
 *   test runner. No signal announces that (Node has no parent-death signal), and a wrapper that
 *   dies of a signal often passes nothing on: dash, npm's script shell, dies of SIGTERM and
 *   SIGINT without a word to its child, and npm then exits and leaves the command running
 *   unowned. So the command watches its owners (OWNER_POLL_MS) and, when one ends, stops as on
 *   a first signal.
 *
 * Its own children are not watched here: each watches this process (server-process.ts,
 * chrome.ts, display.ts, bench/server.ts), so that a SIGKILL, which runs no handler, still ends them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT } from '../protocol/errors.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A signal repeated within this window is the same request: Ctrl-C reaches both npm and the
 * command (one process group), and npm forwards its own copy to its child; a person's second
 * Ctrl-C comes later than that.
 */
export const REPEAT_WINDOW_MS = 500;

/** How often the owners are checked, ms: a stop request is seen within this after one ends. */
export const OWNER_POLL_MS = 250;

/** A process, told apart from a later one that reuses its pid by its start time. */
export interface Owner {
  pid: number;
  /** /proc/<pid>/stat's starttime, or '' where there is no /proc. */
  start: string;
  /** Its program, for messages: `npm`, `sh`, `node`. */
  name: string;
}

interface Stat {
  ppid: number;
  state: string;
  start: string;
}

function statOf(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields 3 (state), 4 (ppid) and 22 (starttime) of proc(5).
    return { state: f[0], ppid: Number(f[1]), start: f[19] };
  } catch {
    return null;
  }
}

function nameOf(pid: number): string {
  try {
    // npm sets its title to `npm run sweep …`, which replaces its argv: the first word names it.
    const first = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/)[0];
    return path.basename(first) || 'a parent process';
  } catch {
    return 'a parent process';
  }
}

/** One variable of a process's starting environment; undefined where it cannot be read. */
function envOf(pid: number, name: string): string | null | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith(`${name}=`));
    return entry === undefined ? null : entry.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/**
 * The processes this one belongs to: its parent always, and up through every ancestor that
 * runs the same npm script (npm, pnpm and yarn give a script's processes
 * `npm_lifecycle_script`), up to and including the package manager that started the script.
 * So `npm run sweep` → sh → tsx → node watches all of sh, tsx and npm; a process started by
 * hand watches its parent. pid 1 never ends and is not watched. Where there is no /proc, the
 * parent stands in (and is seen to end when this process's ppid changes).
 */
export function commandOwners(env: NodeJS.ProcessEnv = process.env): Owner[] {
  if (statOf(process.pid) === null) return process.ppid > 1 ? [{ pid: process.ppid, start: '', name: 'the parent process' }] : [];
  const script = env.npm_lifecycle_script;
  const owners: Owner[] = [];
  let pid = process.ppid;
  // Bounded: a script's chain is npm, a shell, maybe tsx; a test runner adds a few.
  for (let depth = 0; depth < 12 && pid > 1; depth++) {
    const s = statOf(pid);
    if (!s) break;
    owners.push({ pid, start: s.start, name: nameOf(pid) });
    if (script === undefined || envOf(pid, 'npm_lifecycle_script') !== script) break;
    pid = s.ppid;
  }
  return owners;
}

/** Whether `owner` still runs: a zombie has ended, and a new process under its pid is not it. */
export function ownerAlive(owner: Owner): boolean {
  if (owner.start === '') return process.ppid === owner.pid;
  const s = statOf(owner.pid);
  return s !== null && s.start === owner.start && s.state !== 'Z' && s.state !== 'X';
}

export interface StopHandlers {
  /**
   * The first request: stop the way Ctrl-C stops the command (save what was measured, end the
   * children, exit). `why` names it: `SIGTERM`, `npm (pid 812), which ran this command, ended`.
   * Called once. Install it before the command prints anything a caller may react to: a signal
   * that comes before it meets Node's default, which ends the process on the spot.
   */
  stop(why: string): void;
  /** A second signal: end now. Default: exit 130 (children end with this process). */
  now?(why: string): void;
}

export interface StopOptions {
  /**
   * Watch the owners (default true). A process whose owner holds a pipe to it and ends it
   * through that (the server under `--exit-with-stdin`) has a better watch already.
   */
  watchOwners?: boolean;
}

/**
 * Installs the stop rule for this process: the handlers get the first request (signal or
 * owner's end) and a later second signal. Also keeps a terminal or pipe that went away
 * (SIGHUP's terminal, a reader that quit) from turning the next message into a crash.
 */
export function onStopRequest(handlers: StopHandlers, options: StopOptions = {}): void {
  let firstAt: number | null = null;
  const first = (why: string) => {
    firstAt = Date.now();
    clearInterval(watch);
    handlers.stop(why);
  };
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (firstAt === null) return first(signal);
      if (Date.now() - firstAt < REPEAT_WINDOW_MS) return;
      if (handlers.now) handlers.now(signal);
      else process.exit(EXIT.interrupted);
    });
  }
  tolerateLostOutput();
  const owners = options.watchOwners === false ? [] : commandOwners();
  const watch = setInterval(() => {
    const gone = owners.find((o) => !ownerAlive(o));
    if (gone && firstAt === null) first(`${gone.name} (pid ${gone.pid}), which ran this command, ended`);
  }, OWNER_POLL_MS);
  watch.unref();
  if (!owners.length) clearInterval(watch);
}

/**
 * For a command with nothing to save (the benches print as they go): the first request ends it
 * with exit 130, and its children, which watch it, end with it.
 */
export function exitOnStopRequest(command: string): void {
  onStopRequest({
    stop: (why) => {
      process.stderr.write(`pushlab ${command}: ${why}: stopped\n`);
      process.exit(EXIT.interrupted);
    },
  });
}

let outputTolerated = false;

/**
 * stdout and stderr may go away under a running command: the terminal closed (EIO, after
 * SIGHUP), a reader that quit (EPIPE). What they can show ends; the command still saves its
 * work and ends its children, so their write errors are dropped rather than thrown.
 */
export function tolerateLostOutput(): void {
  if (outputTolerated) return;
  outputTolerated = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
    });
  }
}

/**
 * The rule of the commands that measure and save (sweep, advise): before anything is launched
 * there is nothing to save (a --server check or a Chrome download may take long), so a request
 * ends at once; after, the first request stops after saving what was measured (`abort`), and a
 * second stops at once, still ending the server and Chrome (`killChildren`).
 */
export function stopAfterSaving(o: { launched: () => boolean; abort: () => void; killChildren: () => void; log: (line: string) => void }): void {
  onStopRequest({
    stop: (why) => {
      if (!o.launched()) {
        o.log(`\n${why}: stopped before anything was measured`);
        process.exit(EXIT.interrupted);
      }
      o.log(`\n${why}: stopping after saving what was measured (again to stop at once)`);
      o.abort();
    },
    now: () => {
      o.killChildren();
      process.exit(EXIT.interrupted);
    },
  });
}
