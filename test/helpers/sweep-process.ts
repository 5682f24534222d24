/**
 * Runs `npm run sweep`'s entry point as its own process for the end-to-end tests, and finds
 * what it left behind. Not a test file itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { PointResult, Report } from '../../protocol/report.js';
import { parseReportText } from '../../protocol/report-check.js';
import { nodeArgs } from './node-command.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface SweepRun {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr matches, rejects after `timeoutMs` or if the sweep exits first. */
  waitForStderr(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startSweep(args: string[]): SweepRun {
  return startCommand('puppeteer/sweep/main.ts', args);
}

/** Any entry point (`puppeteer/lab/main.ts`, `bench/server.ts`, …) as its own process. */
export function startCommand(script: string, args: string[]): SweepRun {
  const child = spawn(process.execPath, [...nodeArgs(script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of waiters) w();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    waitForStderr: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(err);
          if (m) {
            done();
            resolve(m);
          }
        };
        const timer = setTimeout(() => (done(), reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms:\n${err}`))), timeoutMs);
        const onExit = () => (done(), reject(new Error(`the sweep exited before ${pattern} appeared:\n${err}`)));
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        waiters.add(check);
        child.once('exit', onExit);
        check();
      }),
  };
}

/** Runs a sweep to its end. */
export async function runSweep(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startSweep(args);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const { code } = await run.exit;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
}

function procInfo(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

/** Every live process under `pid` (children, theirs, …), from /proc. */
export function descendants(pid: number): number[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => procInfo(Number(d)))
    .filter((p): p is ProcInfo => p !== null);
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const p of all) {
      if (p.ppid === parent) {
        out.push(p.pid);
        walk(p.pid);
      }
    }
  };
  walk(pid);
  return out;
}

/** Those of `pids` still running (a zombie has exited: it only waits to be reaped). */
export function stillRunning(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    const p = procInfo(pid);
    return p !== null && p.state !== 'Z';
  });
}

/** Waits up to `ms` for every one of `pids` to end; returns those still running. */
export async function waitGone(pids: readonly number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  let left = stillRunning(pids);
  while (left.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    left = stillRunning(left);
  }
  return left;
}

/** The command line of a process, for failure messages. */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '(gone)';
  }
}

/** A process's pids and command lines, as a watcher saw them. */
export type Seen = Map<number, string>;

/**
 * Watches every process under `pid` every 50 ms until `until` settles, and returns each one it
 * saw with its command line: whether a command started a server or Chrome at all, even one it
 * ended again before it exited.
 */
export async function watchDescendants(pid: number, until: Promise<unknown>): Promise<Seen> {
  const seen: Seen = new Map();
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    // Read again every time: right after fork a child still shows its parent's command line.
    for (const d of descendants(pid)) {
      const c = cmdline(d);
      if (c !== '(gone)' && c !== '') seen.set(d, c);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return seen;
}

/** The server and Chrome processes among `seen`. */
export function serversAndChromes(seen: Seen): string[] {
  return [...seen.values()].filter((c) => c.includes('server/main.ts') || /chrom/i.test(c.split(' ')[0] ?? ''));
}

/** A point's first repeat, which an end-to-end test expects to have measured (else it says why not). */
export function firstMeasured(p: PointResult): MeasuredRepeat {
  const r = p.repeats[0];
  if (r?.status !== 'ok') throw new Error(`${p.point.id} failed: ${r ? r.error : 'no repeat'}`);
  return r;
}

/** Every repeat that measured, across a report's points. */
export function measuredOf(r: Report): MeasuredRepeat[] {
  return r.points.flatMap((p) => p.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok'));
}

/** The report a sweep wrote, from the path on the last line of its stdout, checked as every reader checks it. */
export async function readLastReport(stdout: string): Promise<Report> {
  return parseReportText(await readFile(stdout.trim().split('\n').at(-1)!, 'utf8'), 'report.json');
}

/** The first repeat of point `id` in a report, which must be there and measured (a test's lookup by point id). */
export function okRepeatOf(report: Report, id: string): MeasuredRepeat {
  const p = report.points.find((x) => x.point.id === id);
  expect(p, `${id} in ${report.points.map((x) => x.point.id).join(', ')}`).toBeDefined();
  const r = p!.repeats[0];
  expect(r.status, JSON.stringify(r)).toBe('ok');
  return r as MeasuredRepeat;
}
