/**
 * Runs `npm run advise`'s entry point for the end-to-end tests (test/browser/advise-e2e.test.ts, the
 * answer to a small target; test/browser/advise-interrupt.test.ts, Ctrl-C and --resume) and reads what
 * it printed and saved. Not a test file itself.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseReportText } from '../../protocol/report-check.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import type { SweepRun } from './sweep-process.js';

export const ENTRY = 'puppeteer/advise/main.ts';
export const TARGET = ['--rate', '20k', '--p99', '200ms', '--transports', 'sse,ws', '--render', 'none', '--seed', '5'];

export async function finish(run: SweepRun, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const { code } = await run.exit;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

export function readReport(file: string): Report {
  return parseReportText(readFileSync(file, 'utf8'), file);
}

/** Every repeat the answer judged by is one of the report's points' repeats, as measured. */
export function expectRepeatsInPoints(report: Report): void {
  const all = report.points.flatMap((p) => p.repeats.map((r) => JSON.stringify(r)));
  const judged: Repeat[] = [
    ...report.advice!.tried.flatMap((t) => t.repeats.map((x) => x.repeat)),
    ...(report.advice!.headroom?.repeats.map((x) => x.repeat) ?? []),
    ...(report.advice!.runnerUp?.headroom?.repeats.map((x) => x.repeat) ?? []),
  ];
  expect(judged.length).toBeGreaterThan(0);
  for (const r of judged) expect(all).toContain(JSON.stringify(r));
}

/**
 * `--out` is a directory whose name a shell would act on: the commands advise prints for
 * pasting (its check, its resume command) must hand it over as one argument and run nothing.
 */
export const HOSTILE_OUT = 'o; touch x \'q\' "d" $(touch y) `touch z`\nline';
/** The arguments a printed `npm run <script> -- …` line passes, run through bash (in `base`, which holds HOSTILE_OUT) with a printer of argv for npm. */
export function pastedArgs(base: string, line: string, script: string): string[] {
  const prefix = `npm run ${script} -- `;
  expect(line.startsWith(prefix), line).toBe(true);
  const argv = execFileSync('bash', ['-c', `printf '%s\\0' ${line.slice(prefix.length)}`], { cwd: base, encoding: 'utf8' })
    .split('\0')
    .slice(0, -1);
  // Nothing the name spells was run: no x, y or z beside it.
  expect(readdirSync(base).filter((f) => f.length === 1)).toEqual([]);
  return argv;
}

/** The report path, the one line on stdout (the path itself may hold a line break). */
export const reportPathOf = (stdout: string) => stdout.replace(/\n$/, '');
