/**
 * `npm run advise` end to end, in headless Chromium with the real server: a small target
 * (20 k events/s under 200 ms over sse and ws, drawing nothing) gets an answer within its time
 * budget: `advice` in report.json with every repeat it judged kept as the report's points, the
 * same answer in words last on stderr, the report's path on stdout, exit 0. Then Ctrl-C in the
 * middle of a search: a valid report marked interrupted, with the answer so far and the command
 * that goes on, exit 130, nothing left running; that command replays what was measured and
 * finishes the search.
 *
 * Figures measured here are beside whatever else the machine runs: this checks the command,
 * not the numbers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../protocol/errors.js';
import { parseReportText } from '../protocol/report-check.js';
import { parseScenarioText } from '../protocol/scenario.js';
import { ROOT } from '../cli/root.js';
import type { Repeat } from '../protocol/repeat-figures.js';
import type { Report } from '../protocol/report.js';
import { adviceText, machineWordsOf } from '../results/advice-words.js';
import { VIEWER_TEMPLATE } from '../puppeteer/report/html.js';
import { shellWord } from '../protocol/shell.js';
import { descendants, startCommand, waitGone, type SweepRun } from './sweep-process.js';

const ENTRY = 'puppeteer/advise/main.ts';
const TARGET = ['--rate', '20k', '--p99', '200ms', '--transports', 'sse,ws', '--render', 'none', '--seed', '5'];

async function finish(run: SweepRun, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const { code } = await run.exit;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

function readReport(file: string): Report {
  return parseReportText(readFileSync(file, 'utf8'), file);
}

/** Every repeat the answer judged by is one of the report's points' repeats, as measured. */
function expectRepeatsInPoints(report: Report): void {
  const all = report.points.flatMap((p) => p.repeats.map((r) => JSON.stringify(r)));
  const judged: Repeat[] = [...report.advice!.tried.flatMap((t) => t.repeats.map((x) => x.repeat)), ...(report.advice!.headroom?.repeats.map((x) => x.repeat) ?? [])];
  expect(judged.length).toBeGreaterThan(0);
  for (const r of judged) expect(all).toContain(JSON.stringify(r));
}

/**
 * `--out` is a directory whose name a shell would act on: the commands advise prints for
 * pasting (its check, its resume command) must hand it over as one argument and run nothing.
 */
const HOSTILE_OUT = "o; touch x 'q' \"d\" $(touch y) `touch z`\nline";
let base: string;
let out: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pushlab-advise-'));
  out = path.join(base, HOSTILE_OUT);
});
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

/** The arguments a printed `npm run <script> -- …` line passes, run through bash (in `base`) with a printer of argv for npm. */
function pastedArgs(line: string, script: string): string[] {
  const prefix = `npm run ${script} -- `;
  expect(line.startsWith(prefix), line).toBe(true);
  const argv = execFileSync('bash', ['-c', `printf '%s\\0' ${line.slice(prefix.length)}`], { cwd: base, encoding: 'utf8' }).split('\0').slice(0, -1);
  // Nothing the name spells was run: no x, y or z beside it.
  expect(readdirSync(base).filter((f) => f.length === 1)).toEqual([]);
  return argv;
}

/** The report path, the one line on stdout (the path itself may hold a line break). */
const reportPathOf = (stdout: string) => stdout.replace(/\n$/, '');

describe('npm run advise: a small target', () => {
  let ran: { code: number | null; stdout: string; stderr: string };
  let report: Report;
  let file: string;

  beforeAll(async () => {
    ran = await finish(startCommand(ENTRY, [...TARGET, '--time-budget', '75s', '--out', out]), 150_000);
    file = reportPathOf(ran.stdout);
    report = readReport(file);
  }, 160_000);

  it('exits 0 with the report path on stdout, under <out>/advise-<run-id>/', () => {
    expect(ran.code, ran.stderr).toBe(EXIT.ok);
    expect(file).toBe(path.join(out, report.runId, 'report.json'));
    expect(report.runId).toMatch(/^advise-\d{8}-\d{6}$/);
    expect(report.finishedAt).not.toBeNull();
    expect(report.interrupted).toBe(false);
  });

  it('answers: a configuration that sustained over its confirming repeats, within the budget', () => {
    const a = report.advice!;
    expect(a.target).toEqual({ eventsPerSec: 20_000, p99BoundMs: 200, render: 'none' });
    expect(a.transports).toEqual(['sse', 'ws']);
    expect(a.winner, ran.stderr).not.toBeNull();
    expect(['sse', 'ws']).toContain(a.winner!.candidate.transport);
    expect(a.winner!.figures.sustains.sustains).toBe(true);
    expect(a.winner!.figures.sustains.figures.repeats).toBeGreaterThanOrEqual(3);
    // No measurement starts that its estimate says would end past the budget; estimates miss by seconds.
    expect(a.budgetSec).toBe(75);
    expect(a.elapsedSec).toBeLessThan(75 * 1.25);
    // Every candidate of the space is accounted for, tried or not.
    expect(a.tried.length).toBeGreaterThanOrEqual(2);
    for (const t of a.tried) expect(t.why).not.toBe('');
  });

  it('keeps every repeat it judged by as points, probes and confirmations apart, with rounds', () => {
    expectRepeatsInPoints(report);
    expect(report.scenarios).toEqual(['advise-probe', 'advise']);
    const confirm = report.points.filter((p) => p.point.scenario === 'advise');
    expect(confirm.length).toBeGreaterThan(0);
    for (const p of confirm) expect(p.summary).not.toBeNull();
    // Each measurement is a round of its own; a confirmation round holds every finalist once.
    for (const r of report.rounds) expect(r.finishedAt).not.toBeNull();
    expect(new Set(report.points.flatMap((p) => p.repeats.map((r) => r.round))).size).toBe(report.rounds.length);
    expect(report.options.margins).toEqual({ eventsPerSec: 0.03, cpuPerEvent: 0.05 });
    if (existsSync(VIEWER_TEMPLATE)) expect(existsSync(path.join(path.dirname(file), 'report.html'))).toBe(true);
  });

  it('prints the answer last on stderr, in the words report.json gives', () => {
    const words = adviceText(report.advice!, machineWordsOf(report.environment)).join('\n');
    expect(words).toMatch(/^Use (sse|ws) over HTTP\/(2|1\.1), /);
    expect(ran.stderr.endsWith(`\n${words}\n`), ran.stderr).toBe(true);
    // The progress: every measurement has its line, the search's judgement of each probe too.
    expect(ran.stderr).toMatch(/ {2}probe (sse|ws)-b\d+-c\d-i[\d.]+-none: [\d.]+k of 20\.0k EPS/);
    expect(ran.stderr).toMatch(/ {4}kept: sustained in its probe/);
    expect(ran.stderr).toMatch(/ETA ≤ /);
  });

  it('with a runner-up, writes confirm.json beside the report and says how to check the answer with it', () => {
    const confirm = path.join(path.dirname(file), 'confirm.json');
    if (!report.advice!.runnerUp) {
      expect(existsSync(confirm)).toBe(false);
      return;
    }
    const scenarios = parseScenarioText(readFileSync(confirm, 'utf8'), confirm);
    expect(scenarios.scenarios.map((s) => [s.id, s.transport, s.batch])).toEqual([
      ['runner-up', report.advice!.runnerUp.candidate.transport, report.advice!.runnerUp.candidate.batch],
      ['advised', report.advice!.winner!.candidate.transport, report.advice!.winner!.candidate.batch],
    ]);
    const check = /^ {2}(npm run sweep -- --file .*)$/m.exec(ran.stderr)?.[1] ?? '';
    expect(pastedArgs(check, 'sweep')).toEqual(['--file', confirm.startsWith(ROOT + path.sep) ? path.relative(ROOT, confirm) : confirm, '--repeats', '5']);
    expect(ran.stderr).toContain('--scenarios runner-up,advised');
  });
});

describe('npm run advise: Ctrl-C, then --resume', () => {
  let first: { code: number | null; stdout: string; stderr: string };
  let interrupted: Report;
  let leftovers: number[];
  let resumed: { code: number | null; stdout: string; stderr: string };
  let finished: Report;
  let file: string;

  beforeAll(async () => {
    const run = startCommand(ENTRY, [...TARGET, '--time-budget', '60s', '--out', out]);
    // Once the first probe was saved, in the middle of the next measurement.
    await run.waitForStderr(/\n {2}probe \S+: /, 90_000);
    await run.waitForStderr(/\[1 measured\][^\n]* · started/, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const children = descendants(run.child.pid!);
    run.child.kill('SIGINT');
    first = await finish(run, 60_000);
    leftovers = await waitGone(children, 10_000);
    file = reportPathOf(first.stdout);
    interrupted = readReport(file);
    // The command as printed, through bash: what a person pasting it runs.
    const command = pastedArgs(/To go on with the search:\n {2}(npm run advise -- .*)\n*$/.exec(first.stderr)?.[1] ?? '', 'advise');
    resumed = await finish(startCommand(ENTRY, command), 120_000);
    finished = readReport(file);
  }, 300_000);

  it('saves a valid report marked interrupted, with the answer so far and the command that goes on; exit 130; nothing left running', () => {
    expect(first.code, first.stderr).toBe(EXIT.interrupted);
    expect(leftovers).toEqual([]);
    expect(interrupted.interrupted).toBe(true);
    expect(interrupted.finishedAt).toBeNull();
    expect(interrupted.resumeCommand).toBe(`npm run advise -- --resume ${interrupted.runId} --out ${shellWord(out)}`);
    expect(pastedArgs(interrupted.resumeCommand!, 'advise')).toEqual(['--resume', interrupted.runId, '--out', out]);
    expect(first.stderr).toContain(`To go on with the search:\n  ${interrupted.resumeCommand}`);
    const a = interrupted.advice!;
    expect(a.stopped).toBe('interrupted');
    expect(a.tried.length).toBeGreaterThanOrEqual(1);
    expectRepeatsInPoints(interrupted);
    // The interrupted measurement left nothing: every round in the report has its repeats.
    expect(new Set(interrupted.points.flatMap((p) => p.repeats.map((r) => r.round))).size).toBe(interrupted.rounds.length);
  });

  it('--resume replays what was measured, then finishes the search: exit 0, an answer, the first session\'s repeats kept', () => {
    expect(resumed.code, resumed.stderr).toBe(EXIT.ok);
    const recorded = interrupted.rounds.filter((r) => r.finishedAt !== null).length;
    expect(resumed.stderr).toContain(`resuming ${interrupted.runId}`);
    expect(resumed.stderr).toMatch(new RegExp(`replayed ${recorded} of ${recorded} recorded measurements`));
    expect(finished.finishedAt).not.toBeNull();
    expect(finished.interrupted).toBe(false);
    expect(finished.advice!.stopped).not.toBe('interrupted');
    expectRepeatsInPoints(finished);
    // What the first session measured is in the answer as it was measured, not again.
    const before = interrupted.advice!.tried.filter((t) => t.probe).map((t) => JSON.stringify(t.repeats[0].repeat));
    const after = finished.advice!.tried.flatMap((t) => t.repeats.map((x) => JSON.stringify(x.repeat)));
    for (const r of before) expect(after).toContain(r);
    const words = adviceText(finished.advice!, machineWordsOf(finished.environment)).join('\n');
    expect(resumed.stderr.endsWith(`\n${words}\n`), resumed.stderr).toBe(true);
  });
});
