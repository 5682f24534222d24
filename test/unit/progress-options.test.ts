/** The progress display (a listener on the runner's events) and the sweep's flag checks. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { parseFlags } from '../../protocol/flags.js';
import { expandScenario } from '../../protocol/scenario.js';
import { checkSweepFlags, parseDuration, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { Progress, repeatCounts } from '../../puppeteer/sweep/progress.js';
import { type Runner, type RunnerEvents } from '../../puppeteer/sweep/runner.js';
import { emptyResult } from '../../puppeteer/report/recorder.js';
import { measured, report as reportOf } from '../helpers/v2-fixture.js';

const points = expandScenario({ id: 'p', batch: 20, concurrency: 4, repeats: 2 });

function setup(tty: boolean) {
  const runner = new EventEmitter<RunnerEvents>();
  const report = reportOf(points.map(emptyResult), {
    options: { repeats: 2, seed: 1, auto: false, maxRepeats: 10, timeBudgetSec: null, findMax: false, retries: 0, file: 'x.json' },
  });
  const out: string[] = [];
  const progress = new Progress(runner as unknown as Runner, report, { write: (t) => out.push(t), tty, columns: 200, remainingSec: () => 40 });
  const round = { index: 0, seed: 1, order: points.map((p) => p.id), startedAt: '', finishedAt: null, parseCeilings: [] };
  report.rounds.push(round);
  return { runner, report, out, progress, round };
}

describe('Progress', () => {
  it('on a terminal redraws one status line in place: point, phase, round, elapsed, ETA, last EPS', () => {
    const { runner, report, out, progress, round } = setup(true);
    runner.emit('round-start', round, 2);
    runner.emit('repeat-start', points[0], 0, 0, 2);
    runner.emit('phase', points[0], 'window', 2000, 5000);
    const status = out.at(-1)!;
    expect(status.startsWith('\r\x1b[2K')).toBe(true);
    expect(status).toContain('[1/4] · round 1/2 · p/ws-b20-c4-i1-full · window 2/5 s · elapsed 0 s · ETA 40 s');
    const repeat = measured(points[0], { round: 0, eps: 79_500 });
    report.points[0].repeats.push(repeat);
    // This repeat took twice its estimate: the ETA for the rest doubles.
    runner.emit('repeat-done', points[0], repeat, report.points[0], { tookSec: 10, estimateSec: 5, remainingSec: 30 });
    expect(out.join('')).toContain('p/ws-b20-c4-i1-full round 1: 79.5 k EPS of 80 k offered');
    runner.emit('repeat-start', points[1], 0, 1, 2);
    expect(out.at(-1)).toMatch(/\[2\/4\] · round 1\/2 · p\/sse-b20-c4-i1-full · loading the page · elapsed 0 s · ETA 1 min · last 79\.5k EPS$/);
    progress.close();
    expect(out.at(-1)).toBe('\r\x1b[2K');
  });

  it('in a log writes plain lines: one per repeat started and done, status at most every 5 s', () => {
    const { runner, out, progress, round } = setup(false);
    runner.emit('round-start', round, 2);
    runner.emit('repeat-start', points[0], 0, 0, 2);
    runner.emit('phase', points[0], 'warm-up', 0, 1000);
    runner.emit('phase', points[0], 'window', 1000, 5000);
    progress.close();
    expect(out.join('')).not.toContain('\r');
    expect(out.filter((l) => l.includes('· started'))).toEqual(['[1/4] · round 1/2 · p/ws-b20-c4-i1-full · started\n']);
    // The ceiling's status line came first; the phases within 5 s of it print nothing more.
    expect(out.filter((l) => l.includes('elapsed'))).toHaveLength(1);
  });

  it('counts planned repeats from the fixed rounds and any auto rounds started', () => {
    const { report } = setup(false);
    expect(repeatCounts(report)).toEqual({ done: 0, planned: 4 });
    report.rounds.push({ index: 2, seed: 1, order: [points[0].id], startedAt: '', finishedAt: null, parseCeilings: [] });
    expect(repeatCounts(report).planned).toBe(5);
  });
  it("counts a find-max search's own repeats and moves the ETA with them (it read [0/0] with a frozen ETA)", () => {
    const { runner, out, progress } = setup(true);
    const search = { scenario: 'knee', transport: 'ws' as const, vary: 'batch' as const, min: 10, max: 1000, p99BoundMs: 50, base: points[0] };
    runner.emit('search-start', search, 11);
    runner.emit('repeat-start', points[0], 2, 0, 1);
    expect(out.at(-1)).toMatch(/\[1\/11\] · find-max knee ws · p\/ws-b20-c4-i1-full · loading the page · elapsed 0 s · ETA 40 s$/);
    const repeat = measured(points[0], { round: 2, eps: 20_000 });
    runner.emit('search-repeat-done', search, points[0], repeat, { done: 1, planned: 11, tookSec: 5, estimateSec: 5, remainingSec: 50 });
    runner.emit('repeat-start', points[0], 2, 0, 1);
    expect(out.at(-1)).toMatch(/\[2\/11\] · find-max knee ws · .* · ETA 50 s · last 20\.0k EPS$/);
    // A failed confirmation grows the plan; the count follows.
    runner.emit('search-repeat-done', search, points[0], repeat, { done: 12, planned: 14, tookSec: 5, estimateSec: 5, remainingSec: 10 });
    runner.emit('repeat-start', points[0], 2, 0, 1);
    expect(out.at(-1)).toMatch(/\[13\/14\] · find-max knee ws · .* · ETA 10 s/);
    progress.close();
  });
});

describe('sweep flags', () => {
  const check = (...argv: string[]) => checkSweepFlags(parseFlags(SWEEP_FLAGS, argv, 'npm run sweep --'));
  const fails = (argv: string[], message: string) => {
    expect(() => check(...argv)).toThrow(PushlabError);
    expect(() => check(...argv)).toThrow(message);
  };

  it('reads durations in seconds, s, m or h', () => {
    expect(parseDuration('time-budget', '90')).toBe(90);
    expect(parseDuration('time-budget', '90s')).toBe(90);
    expect(parseDuration('time-budget', '10m')).toBe(600);
    expect(parseDuration('time-budget', '1.5h')).toBe(5400);
    expect(() => parseDuration('time-budget', '0')).toThrow(
      "--time-budget must be a duration above 0 and at most 168h (604800 s): seconds, or a number with s, m or h (90, 90s, 10m, 1.5h); got '0'",
    );
    expect(() => parseDuration('time-budget', '10 min')).toThrow(PushlabError);
  });

  it('leaves repeats and seed to the scenario and the clock unless given, and checks them', () => {
    const unset = {
      repeats: null,
      seed: null,
      timeBudgetSec: null,
      resume: null,
      margins: null,
      engine: null,
      device: null,
      throttle: null,
      pace: null,
      tab: null,
      link: null,
    };
    expect(check()).toEqual(unset);
    expect(check('--repeats', '5', '--seed', '0', '--time-budget', '2m')).toEqual({ ...unset, repeats: 5, seed: 0, timeBudgetSec: 120 });
    expect(check('--engine', 'firefox').engine).toBe('firefox');
    expect(check('--pace', 'recorded').pace).toBe('recorded');
    expect(check('--device', 'index=500', '--throttle', 'main-thread')).toMatchObject({ device: 'index=500', throttle: 'main-thread' });
    fails(['--device', 'index=19'], '--device index=N takes a BenchmarkIndex of 20…100000; got 19');
    fails(['--resume', '20261123-141500', '--device', 'low-tier'], '--resume finishes the recorded sweep with its own plan; drop --device');
    fails(['--repeats', '0'], "--repeats must be an integer from 1 to 50; got '0'");
    fails(['--seed', '-1'], "--seed must be an integer from 0 to 4294967295; got '-1'");
  });

  it('refuses combinations that cannot mean anything', () => {
    fails(['--max-repeats', '5'], '--max-repeats only applies with --auto');
    fails(['--auto', '--repeats', '12'], '--repeats 12 is above --max-repeats 10: --auto could never add a round');
    fails(['--resume', '20261123-141500', '--repeats', '2'], '--resume finishes the recorded sweep with its own plan; drop --repeats');
    fails(['--resume', '20261123-141500', '--engine', 'firefox'], '--resume finishes the recorded sweep with its own plan; drop --engine');
    fails(
      ['--resume', '../x'],
      "--resume takes a run id, one directory name directly under the reports directory: a letter or digit, then letters, digits, ., _ or -, at most 100 (no / or \\, not . or ..), e.g. 20261123-141500 (here --out); got '../x'",
    );
    expect(check('--resume', '20261123-141500', '--json').resume).toBe('20261123-141500');
  });
});
