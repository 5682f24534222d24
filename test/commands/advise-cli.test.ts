/**
 * `npm run advise` refuses a target it cannot search for before it launches anything: one line
 * on stderr naming the flag, the value as given and what is allowed (PUSHLAB_BAD_FLAG, exit 2),
 * nothing on stdout, no stack. Each is the real entry point in a child process, one per core at a
 * time (twelve at once on two cores timed out under a loaded machine); no browser and no server
 * start (a refusal comes before either). A render module advise cannot draw with (one that does
 * not build, one changed since a resumed search measured it) is refused the same way, with no
 * run directory made.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseFlags } from '../../protocol/flags.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs('puppeteer/advise/main.ts'), ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Each refused target: the flag, the value as given, and words of what is allowed the line must hold. */
const REFUSED = {
  'rate 0': { args: ['--rate', '0', '--p99', '100ms'], says: ['--rate must be above 0', "got '0'", 'events per second from 1 to 800M'] },
  'negative rate': { args: ['--rate', '-300k', '--p99', '100ms'], says: ['--rate must be above 0', "got '-300k'", 'events per second from 1 to 800M'] },
  'rate above the server': {
    args: ['--rate', '900M', '--p99', '100ms'],
    says: ['--rate is above what the server can send (100000 rows every 1 ms on 8 connections)', "got '900M'"],
  },
  'p99 below 1 ms': { args: ['--rate', '300k', '--p99', '0.5ms'], says: ['--p99 must be at least 1 ms', "got '0.5ms'", 'a latency from 1 ms to 60 s'] },
  'p99 0': { args: ['--rate', '300k', '--p99', '0'], says: ['--p99 must be above 0', "got '0'"] },
  'no rate': { args: ['--p99', '100ms'], says: ['--rate is required', 'e.g. --rate 300k'] },
  'no p99': { args: ['--rate', '300k'], says: ['--p99 is required', 'e.g. --p99 100ms'] },
  'a margin past 50%': { args: ['--rate', '300k', '--p99', '100ms', '--margin', 'cpu=80%'], says: ['--margin cpu must be from 0 to 50%', "got 'cpu=80%'"] },
  'an unknown transport': {
    args: ['--rate', '300k', '--p99', '100ms', '--transports', 'sse,wss'],
    says: ["--transports takes a comma-separated list of ws, ws-h2, ws-stream, sse, sse-h1, fetch, grpc-web, poll; got 'wss'"],
  },
  '--headful beside --browser': {
    args: ['--rate', '300k', '--p99', '100ms', '--headful', '--browser', 'http://127.0.0.1:9222'],
    says: ['--headful shows a browser advise launches; --browser connects to a running one'],
  },
  'a target beside --resume': {
    args: ['--resume', 'advise-20261125-101500', '--rate', '300k'],
    says: ['--resume goes on with the recorded search', 'drop --rate'],
  },
  'an unknown device class': {
    args: ['--rate', '300k', '--p99', '100ms', '--device', 'tier-3'],
    says: ['--device must be off, mid-tier (BenchmarkIndex 1000), low-tier (264), or index=N', "got 'tier-3'"],
  },
  'an index below a phone': {
    args: ['--rate', '300k', '--p99', '100ms', '--device', 'index=10'],
    says: ['--device index=N takes a BenchmarkIndex of 20…100000; got 10'],
  },
  'main-thread throttling': {
    args: ['--rate', '300k', '--p99', '100ms', '--device', 'low-tier', '--throttle', 'main-thread'],
    says: ['--throttle main-thread: advise picks the candidate with the least renderer CPU per event', 'drop --throttle'],
  },
  '--throttle without a device': {
    args: ['--rate', '300k', '--p99', '100ms', '--throttle', 'browser'],
    says: ['--throttle browser says how a device class slows the browser; give --device'],
  },
  'a device beside --resume': {
    args: ['--resume', 'advise-20261125-101500', '--device', 'low-tier'],
    says: ['--resume goes on with the recorded search', 'drop --device'],
  },
  // A module takes the place of what render full draws: refused before it is even built.
  'a render module with --render chart': {
    args: ['--rate', '300k', '--p99', '100ms', '--render', 'chart', '--render-module', 'examples/react-table/rows-table.tsx'],
    says: ['--render-module draws in place of', 'needs --render full', 'got --render chart with --render-module examples/react-table/rows-table.tsx'],
  },
  'a render module with --render none': {
    args: ['--rate', '300k', '--p99', '100ms', '--render', 'none', '--render-module', 'x.tsx'],
    says: ['needs --render full', 'got --render none with --render-module x.tsx'],
  },
} as const;

const ran = {} as Record<keyof typeof REFUSED | 'help', Ran>;

beforeAll(async () => {
  const queue: [keyof typeof ran, string[]][] = [
    ...Object.entries(REFUSED).map(([name, r]) => [name as keyof typeof REFUSED, [...r.args]] as [keyof typeof ran, string[]]),
    ['help', ['--help']],
  ];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) ran[next[0]] = await run(next[1]);
  };
  await Promise.all(Array.from({ length: availableParallelism() }, worker));
}, 300_000);

describe('npm run advise refuses a bad target', () => {
  it.each(Object.keys(REFUSED) as (keyof typeof REFUSED)[])('%s: exit 2, one line naming the flag, the value and what is allowed', (name) => {
    const r = ran[name];
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^pushlab advise: PUSHLAB_[A-Z_]+: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    for (const s of REFUSED[name].says) expect(lines[0]).toContain(s);
  });

  it('the refusals are PUSHLAB_BAD_FLAG', () => {
    for (const r of Object.values(REFUSED)) {
      let caught: unknown = null;
      try {
        // The unknown transport is refused by the flag table itself, the rest by checkAdviseFlags.
        checkAdviseFlags(parseFlags(ADVISE_FLAGS, r.args, 'npm run advise --'));
      } catch (err) {
        caught = err;
      }
      expect(caught, r.args.join(' ')).toBeInstanceOf(PushlabError);
      expect((caught as PushlabError).code).toBe('PUSHLAB_BAD_FLAG');
    }
  });

  it('--help lists every flag on stdout', () => {
    expect(ran.help.code).toBe(EXIT.ok);
    for (const name of Object.keys(ADVISE_FLAGS)) expect(ran.help.stdout).toContain(`--${name}`);
  });

  it('a good target is read as asked: rate, bound, render, transports, budget, margins', () => {
    const req = checkAdviseFlags(
      parseFlags(
        ADVISE_FLAGS,
        ['--rate', '1.5M', '--p99', '0.5s', '--render', 'none', '--transports', 'ws,sse,ws', '--time-budget', '90s', '--margin', 'cpu=4%'],
        '',
      ),
    );
    expect(req).toMatchObject({
      target: { eventsPerSec: 1_500_000, p99BoundMs: 500, render: 'none' },
      transports: ['ws', 'sse'],
      budgetSec: 90,
      margins: { eventsPerSec: 0.03, cpuPerEvent: 0.04 },
    });
  });

  it("--device is the target's class; off, or none, leaves the target at full speed", () => {
    const target = (...more: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '300k', '--p99', '100ms', ...more], '')).target;
    expect(target('--device', 'low-tier')).toMatchObject({ device: 'low-tier' });
    expect(target('--device', 'index=500', '--throttle', 'browser')).toMatchObject({ device: 'index=500' });
    expect(target('--device', 'low-tier')).not.toHaveProperty('throttle');
    expect(target('--device', 'off')).not.toHaveProperty('device');
    expect(target()).not.toHaveProperty('device');
  });
});

describe('npm run advise refuses a device class this machine cannot make, before it launches anything', () => {
  /** The command with these flags and a --out of its own; the run's output and whether --out stayed empty. */
  async function refused(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran & { line: string; empty: boolean }> {
    const out = mkdtempSync(path.join(tmpdir(), 'pushlab-advise-device-'));
    try {
      const r = await new Promise<Ran>((resolve) => {
        execFile(
          process.execPath,
          [...nodeArgs('puppeteer/advise/main.ts'), '--rate', '300k', '--p99', '100ms', '--device', 'low-tier', ...args, '--out', out],
          { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } },
          (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
        );
      });
      const lines = r.stderr
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('pushlab advise: PUSHLAB_'));
      expect(lines, r.stderr).toHaveLength(1);
      return { ...r, line: lines[0], empty: readdirSync(out).length === 0 };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }

  it('no cgroup cpu controller: one PUSHLAB_NO_DEVICE line saying why and what to do, and no run directory', async () => {
    // A mount with no cpu controller (as a machine without cgroups has), whoever runs the test.
    const r = await refused([], { PUSHLAB_CGROUP_ROOT: path.join(tmpdir(), 'pushlab-no-cgroup-here') });
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    // Not root says so first; as root, the missing controller.
    expect(r.line).toMatch(
      /^pushlab advise: PUSHLAB_NO_DEVICE: device low-tier slows the whole browser under a cgroup CPU quota, and (a CPU quota needs root|no cgroup cpu controller was found)/,
    );
    // Not to main-thread throttling, which advise refuses.
    expect(r.line).not.toContain('--throttle main-thread');
    expect(r.empty).toBe(true);
  }, 90_000);

  it('a browser elsewhere (--browser): its processes cannot be slowed from here', async () => {
    // Refused before the browser is asked anything: nothing listens on port 9.
    const r = await refused(['--browser', 'http://127.0.0.1:9']);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.line).toContain("PUSHLAB_NO_DEVICE: device low-tier with throttle browser slows a browser's processes on this machine");
    expect(r.line).toContain('drop --browser');
    expect(r.empty).toBe(true);
  }, 90_000);
});

describe('npm run advise refuses a render module it cannot draw with, before it launches anything', () => {
  const FIXTURES = 'test/fixtures/render-modules';
  /** A recorded advise run (the fixture) saved mid-search under a --out of its own, its target changed by `target`. */
  function recordedSearch(out: string, target: Record<string, unknown>): { runId: string; file: string; text: string } {
    const report = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/advise-report.json'), 'utf8')) as {
      runId: string;
      finishedAt: string | null;
      interrupted: boolean;
      advice: { target: Record<string, unknown> };
    };
    report.finishedAt = null;
    report.interrupted = true;
    report.advice.target = { ...report.advice.target, ...target };
    const file = path.join(out, report.runId, 'report.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const text = `${JSON.stringify(report, null, 2)}\n`;
    writeFileSync(file, text);
    return { runId: report.runId, file, text };
  }

  /**
   * The command with a --out of its own (`setup` may put a recorded search there, `after` reads it
   * once the command ended): its one coded line; --out must hold afterwards what it held before.
   */
  async function refused(args: string[], setup: (out: string) => void = () => {}, after: () => void = () => {}): Promise<Ran & { line: string }> {
    const out = mkdtempSync(path.join(tmpdir(), 'pushlab-advise-module-'));
    try {
      setup(out);
      const before = readdirSync(out, { recursive: true }).map(String).sort();
      const r = await run([...args, '--out', out]);
      const lines = r.stderr
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('pushlab advise: PUSHLAB_'));
      expect(lines, r.stderr).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // Nothing made under --out: no run directory, no file beside the recorded one.
      expect(readdirSync(out, { recursive: true }).map(String).sort()).toEqual(before);
      after();
      return { ...r, line: lines[0] };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }

  it('a module that does not build: its PUSHLAB_BAD_RENDER_MODULE line, exit 2, no run directory, no browser', async () => {
    const r = await refused(['--rate', '300k', '--p99', '100ms', '--render-module', `${FIXTURES}/broken.js`]);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    expect(r.line).toMatch(/^pushlab advise: PUSHLAB_BAD_RENDER_MODULE: --render-module test\/fixtures\/render-modules\/broken\.js: does not build: /);
    // Refused before the search's header, and before any server or browser.
    expect(r.stderr).not.toContain('candidates, budget');
    expect(r.stderr).not.toMatch(/server http|Chrome \d/);
  }, 90_000);

  it('a resumed search whose module changed since: PUSHLAB_BAD_RENDER_MODULE with both versions, the report left as it was', async () => {
    let saved = { file: '', text: '' };
    const r = await refused(
      ['--resume', 'advise-20261127-123110'],
      (out) => {
        saved = recordedSearch(out, { render: 'full', renderModule: { path: `${FIXTURES}/counting.js`, sha256: '0'.repeat(64) } });
      },
      // The refusal writes nothing to the report it refused to go on with.
      () => expect(readFileSync(saved.file, 'utf8')).toBe(saved.text),
    );
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.line).toMatch(
      /^pushlab advise: PUSHLAB_BAD_RENDER_MODULE: test\/fixtures\/render-modules\/counting\.js \(the render module the search advise-20261127-123110 drew with\): its text changed since the search advise-20261127-123110 measured with it \(sha256 000000000000… then, [0-9a-f]{12}… now\)/,
    );
  }, 90_000);

  it('--render-module named again on resume is checked the same way', async () => {
    const r = await refused(['--resume', 'advise-20261127-123110', '--render-module', `${FIXTURES}/counting.js`], (out) => {
      recordedSearch(out, { render: 'full', renderModule: { path: 'elsewhere/counting.js', sha256: '0'.repeat(64) } });
    });
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.line).toContain('PUSHLAB_BAD_RENDER_MODULE: --render-module test/fixtures/render-modules/counting.js: its text changed since');
  }, 90_000);

  it("a module for a search that drew with pushlab's views: PUSHLAB_BAD_FLAG", async () => {
    const r = await refused(['--resume', 'advise-20261127-123110', '--render-module', `${FIXTURES}/counting.js`], (out) => {
      recordedSearch(out, {});
    });
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.line).toContain(
      "PUSHLAB_BAD_FLAG: --render-module test/fixtures/render-modules/counting.js: the search advise-20261127-123110 drew with pushlab's table and charts, and a resumed run keeps its page",
    );
  }, 90_000);
});
