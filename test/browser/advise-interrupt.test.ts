/**
 * `npm run advise` end to end, in headless Chromium with the real server: Ctrl-C in the middle
 * of a search leaves a valid report marked interrupted, with the answer so far and the command
 * that goes on, exit 130, nothing left running; that command replays what was measured and
 * finishes the search. Nothing here depends on the machine's speed (the answer to a small
 * target, which does, is test/browser/advise-e2e.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';
import { printedAnswer } from '../../results/advice-words.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { shellWord } from '../../protocol/shell.js';
import { getJson } from '../../puppeteer/measure/server-process.js';
import { streamsOpened } from '../helpers/fault-run.js';
import { descendants, startCommand, waitGone } from '../helpers/sweep-process.js';
import { ENTRY, expectRepeatsInPoints, finish, HOSTILE_OUT, pastedArgs, readReport, reportPathOf, TARGET } from '../helpers/advise-process.js';

/** `out` (HOSTILE_OUT, a name a shell would act on) in a scratch directory `base` of this file's own. */
let base: string;
let out: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pushlab-advise-'));
  out = path.join(base, HOSTILE_OUT);
});
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
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
    // Once the first probe was saved, in the middle of the next measurement: its page streaming.
    // The streams opened so far are read as the first probe's line lands, before the next
    // probe's page has loaded (a new tab and a page load), so one more means that page's.
    await run.waitForStderr(/\n {2}probe \S+: /, 90_000);
    const server = /^server (https:\/\/\S+?\/),/m.exec(run.stderr())![1];
    const opened = (await getJson<ServerStats>(`${server}stats`)).connectionsTotal;
    await run.waitForStderr(/\[1 measured\][^\n]* · started/, 30_000);
    await streamsOpened(run.stderr, opened + 1, 30_000, () => run.child.exitCode !== null);
    const children = descendants(run.child.pid!);
    run.child.kill('SIGINT');
    first = await finish(run, 60_000);
    leftovers = await waitGone(children, 10_000);
    file = reportPathOf(first.stdout);
    interrupted = readReport(file);
    // The command as printed, through bash: what a person pasting it runs.
    const command = pastedArgs(base, /To go on with the search:\n {2}(npm run advise -- .*)\n*$/.exec(first.stderr)?.[1] ?? '', 'advise');
    resumed = await finish(startCommand(ENTRY, command), 120_000);
    finished = readReport(file);
  }, 300_000);

  it('saves a valid report marked interrupted, with the answer so far and the command that goes on; exit 130; nothing left running', () => {
    expect(first.code, first.stderr).toBe(EXIT.interrupted);
    expect(leftovers).toEqual([]);
    expect(interrupted.interrupted).toBe(true);
    expect(interrupted.finishedAt).toBeNull();
    expect(interrupted.resumeCommand).toBe(`npm run advise -- --resume ${interrupted.runId} --out ${shellWord(out)}`);
    expect(pastedArgs(base, interrupted.resumeCommand!, 'advise')).toEqual(['--resume', interrupted.runId, '--out', out]);
    expect(first.stderr).toContain(`To go on with the search:\n  ${interrupted.resumeCommand}`);
    const a = interrupted.advice!;
    expect(a.stopped).toBe('interrupted');
    expect(a.tried.length).toBeGreaterThanOrEqual(1);
    expectRepeatsInPoints(interrupted);
    // The interrupted measurement left nothing: every round in the report has its repeats.
    expect(new Set(interrupted.points.flatMap((p) => p.repeats.map((r) => r.round))).size).toBe(interrupted.rounds.length);
  });

  it("--resume replays what was measured, then finishes the search: exit 0, an answer, the first session's repeats kept", () => {
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
    const words = printedAnswer(finished, finished.advice!).join('\n');
    expect(resumed.stderr.endsWith(`\n${words}\n`), resumed.stderr).toBe(true);
  });
});
