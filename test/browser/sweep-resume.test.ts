/**
 * Ctrl-C and --resume, end to end: a small WS/SSE sweep stopped by SIGINT after its first repeat
 * saves a valid report marked interrupted with the command that finishes it, exits 130 and
 * leaves no server or Chrome process behind; that command then measures exactly the repeats
 * that were missing, so the finished report holds the same (point, round) repeats, in the
 * same rounds and orders, as an uninterrupted run with the same seed. The interrupted report is
 * resumed as version 2 (as an older build wrote it), and finished as version 3.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';
import { roundOrder } from '../../results/rounds.js';
import { streamsOpened } from '../helpers/fault-run.js';
import { cmdline, descendants, runSweep, startSweep, waitGone } from '../helpers/sweep-process.js';

const SEED = 11;

describe('SIGINT then --resume', () => {
  let out: string;
  let interrupted: Report;
  let finished: Report;
  let firstExit: { code: number | null; signal: NodeJS.Signals | null };
  let firstStderr: string;
  let firstStdout: string;
  let leftovers: number[];
  let children: number[];
  let resumed: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-resume-'));
    // A light load with short windows and no warm-up: this tests the bookkeeping, not the figures.
    const scenarios = path.join(out, 'scenarios.json');
    await writeFile(scenarios, JSON.stringify({ scenarios: [{ id: 'tiny', batch: 5, concurrency: 2, warmupSec: 0, measureSec: 1 }] }));
    const run = startSweep(['--file', scenarios, '--repeats', '2', '--seed', String(SEED), '--retries', '0', '--out', out]);
    // Stop in the middle of round 1's second repeat, once the first one was saved.
    await run.waitForStderr(/round 1: [\d.]+( [kM])? EPS/, 90_000);
    await run.waitForStderr(/\[2\/4\][^\n]* · started/, 60_000);
    // Its page loaded and streaming: the first repeat opened two streams, this one two more.
    await streamsOpened(run.stderr, 4, 30_000, () => run.child.exitCode !== null);
    children = descendants(run.child.pid!);
    run.child.kill('SIGINT');
    firstExit = await run.exit;
    firstStderr = run.stderr();
    firstStdout = run.stdout();
    leftovers = await waitGone(children, 5000);
    const file = firstStdout.trim().split('\n').at(-1)!;
    interrupted = JSON.parse(await readFile(file, 'utf8')) as Report;
    // Resumed as the version 2 report an older build would have left (no engine: Chrome
    // implied), so the resume reads it through the conversions and writes it back as version 4.
    const { engine: _engine, ...v2Environment } = interrupted.environment;
    await writeFile(file, `${JSON.stringify({ ...interrupted, schemaVersion: 2, environment: v2Environment }, null, 2)}\n`);
    const command = /npm run sweep -- (--resume \S+ --out \S+)/.exec(firstStderr)![1].split(' ');
    resumed = await runSweep(command, 120_000);
    finished = JSON.parse(await readFile(file, 'utf8')) as Report;
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('saves an interrupted report, prints the exact resume command and exits 130', () => {
    expect(firstExit.code, firstStderr).toBe(EXIT.interrupted);
    expect(interrupted.schemaVersion).toBe(4);
    expect(interrupted.interrupted).toBe(true);
    expect(interrupted.finishedAt).toBeNull();
    expect(interrupted.resumeCommand).toBe(`npm run sweep -- --resume ${interrupted.runId} --out ${out}`);
    expect(firstStderr).toContain(interrupted.resumeCommand!);
    // The repeat in progress was dropped, not recorded as failed.
    const all = interrupted.points.flatMap((p) => p.repeats);
    expect(all.map((r) => r.status)).toEqual(['ok']);
  });

  it('leaves no server or Chrome process behind', () => {
    expect(children.length, 'the sweep had a server and Chrome running').toBeGreaterThan(2);
    expect(leftovers.map((pid) => `${pid}: ${cmdline(pid)}`)).toEqual([]);
  });

  it('resumes a version 2 report and writes it back as version 3', () => {
    expect(interrupted.environment.engine).toBe('chrome');
    expect(resumed.code, resumed.stderr).toBe(EXIT.ok);
    expect(finished.schemaVersion).toBe(4);
    expect(finished.environment.engine).toBe('chrome');
  });

  it('finishes with the same repeats, rounds and orders as an uninterrupted run', () => {
    expect(resumed.code, resumed.stderr).toBe(EXIT.ok);
    expect(resumed.stderr).toMatch(/resuming/);
    expect(finished.interrupted).toBe(false);
    expect(finished.resumeCommand).toBeNull();
    expect(finished.finishedAt).not.toBeNull();
    const points = finished.points.map((p) => p.point);
    const expected = points.flatMap((p) => [0, 1].map((round) => `${p.id}@${round}`)).sort();
    const got = finished.points.flatMap((p) => p.repeats.map((r) => `${p.point.id}@${r.round}`)).sort();
    expect(got).toEqual(expected);
    expect(finished.rounds.map((r) => r.order)).toEqual([0, 1].map((round) => roundOrder(points, round, SEED).map((p) => p.id)));
    // The repeat measured before the interruption is kept as it was.
    const [kept] = interrupted.points.flatMap((p) => p.repeats.map((r) => ({ id: p.point.id, r })));
    const after = finished.points.find((p) => p.point.id === kept.id)!.repeats.find((r) => r.round === kept.r.round && r.startedAt === kept.r.startedAt);
    // Marked as a version 2 repeat's latency is (transit), which the conversion cannot know otherwise.
    expect(after).toEqual(kept.r.status === 'ok' ? { ...kept.r, latencyBook: 'transit' } : kept.r);
    for (const p of finished.points) expect(p.summary?.n).toBe(2);
  });
});
