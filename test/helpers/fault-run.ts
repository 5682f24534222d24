/**
 * Runs a command the way a person or a CI job does (`npm run sweep -- …`, or its node process
 * alone) for the fault-injection tests, in a temp directory of its own that is also its TMPDIR:
 * Chrome's profile, `--out` and every child's environment then name that directory, so "nothing
 * left running" can be checked by looking for it in every process's command line and
 * environment (/proc), whatever the process and whoever its parent is now. Not a test file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerStats } from '../../protocol/server-stats.js';
import { h1get } from './h2-get.js';
import { cmdline, descendants, ROOT } from './sweep-process.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Process groups of runs not cleaned up yet: a test that timed out still ends them when the test process exits. */
const live = new Set<number>();
process.once('exit', () => {
  for (const pgid of live) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

export interface FaultRun {
  /** The run's own directory: its TMPDIR, and where its reports go. */
  dir: string;
  child: ChildProcess;
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once `check` holds (checked every 50 ms and on output), rejects after `ms` or if the command exits first. */
  until<T>(what: string, check: () => T | null | undefined | false, ms: number): Promise<T>;
  /** The node process running `script` (the command's worker), found under the first process. */
  worker(script: string): number | null;
  /** Ends whatever is left (the whole process group) and removes the directory. */
  cleanUp(): void;
}

/**
 * Starts `argv` in its own process group (so the test can end everything it left), with
 * stdout and stderr captured together, in a new temp directory `dir`: `argv` and `env`'s
 * values may name it through `{dir}`, and `prepare` may put files there before the start.
 */
export function startFaultRun(argv: string[], env: Record<string, string> = {}, prepare?: (dir: string) => void): FaultRun {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-fault-'));
  prepare?.(dir);
  const args = argv.map((a) => a.replaceAll('{dir}', dir));
  const extra = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replaceAll('{dir}', dir)]));
  // As from a shell: vitest sets NODE_ENV=test, under which `npm run build` would build another page.
  const { NODE_ENV: _test, ...shell } = process.env;
  const child = spawn(args[0], args.slice(1), {
    cwd: ROOT,
    env: { ...shell, ...extra, TMPDIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child.pid!);
  let out = '';
  const waiters = new Set<() => void>();
  const take = (d: string) => {
    out += d;
    for (const w of waiters) w();
  };
  child.stdout!.setEncoding('utf8').on('data', take);
  child.stderr!.setEncoding('utf8').on('data', take);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let exited = false;
  void exit.then(() => (exited = true));
  return {
    dir,
    child,
    output: () => out,
    exit,
    until: (what, check, ms) =>
      new Promise((resolve, reject) => {
        const done = () => {
          clearInterval(timer);
          clearTimeout(deadline);
          waiters.delete(poll);
        };
        const poll = () => {
          if (exited) {
            done();
            return reject(new Error(`the command exited before ${what}:\n${out}`));
          }
          const v = check();
          if (v) {
            done();
            resolve(v);
          }
        };
        const timer = setInterval(poll, 50);
        const deadline = setTimeout(() => (done(), reject(new Error(`no ${what} within ${ms} ms:\n${out}`))), ms);
        waiters.add(poll);
        poll();
      }),
    worker: (script) => {
      const found = descendants(child.pid!).find((pid) => {
        // node itself, started on the entry compiled (…/main.js) or through tsx (…/main.ts); not the
        // shell npm runs `npm run build && exec node …` in, whose command line names it too.
        const c = cmdline(pid);
        return /^(\S*\/)?node /.test(c) && c.includes(script.replace(/\.ts$/, '.')) && !c.includes('--exit-with-stdin');
      });
      return found ?? null;
    },
    cleanUp: () => {
      live.delete(child.pid!);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone, as it should be
      }
      for (const pid of holding(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every process (but this one) whose command line or environment names `marker`. */
export function holding(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${d}/${file}`, 'utf8').includes(marker)) {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          // A zombie has ended; it only waits for its parent to reap it.
          if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') out.push(Number(d));
          break;
        }
      } catch {
        // gone, or not ours to read
      }
    }
  }
  return out;
}

/** Waits up to `ms` for no process to name `marker`; returns those still running, with their command lines. */
export async function leftRunning(marker: string, ms: number): Promise<string[]> {
  const until = Date.now() + ms;
  let left = holding(marker);
  while (left.length && Date.now() < until) {
    await sleep(50);
    left = holding(marker);
  }
  return left.map((pid) => `${pid}: ${cmdline(pid).slice(0, 200)}`);
}

/** Files under `dir`, relative, recursively. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/**
 * Resolves once the server a command started (the `server https://…/` line the sweep and advise
 * print) has opened `total` streams since it started and has one open: the page of the repeat
 * that opened the last of them is past its load and streaming, in its warm-up or its window.
 * Asks the server's /stats every 50 ms; rejects after `ms`, or once `ended()` says the command
 * ended.
 */
export async function streamsOpened(output: () => string, total: number, ms: number, ended: () => boolean = () => false): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const origin = /(?:^|\n)server (https:\/\/[^/\s]+)\//.exec(output())?.[1];
    if (origin) {
      const stats = await h1get(origin, '/stats').then(
        (r) => JSON.parse(r.body) as ServerStats,
        () => null,
      );
      if (stats && stats.connectionsTotal >= total && stats.connectionsOpen > 0) return;
    }
    if (ended()) throw new Error(`the command ended before its server opened ${total} streams:\n${output()}`);
    if (Date.now() > until) throw new Error(`the server opened no ${total} streams within ${ms} ms:\n${output()}`);
    await sleep(50);
  }
}
