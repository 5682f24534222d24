/**
 * Input a command can know is unusable before it starts anything: an output location it
 * cannot write, a --server that is not there, no Chrome, a scenario file or report with a JSON
 * syntax error, a scenario file that expands past the point limit. Each is run as the real
 * command, a child process; each must end with exit 2 and one line naming what is wrong, and
 * must not have started a server or Chrome on the way (every process under the command is
 * watched while it runs). Also: `--list` piped into a reader that stops early, and into one
 * that reads everything.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { MAX_SWEEP_POINTS } from '../../protocol/limits.js';
import { ROOT, serversAndChromes, watchDescendants, type Seen } from '../helpers/sweep-process.js';
import { nodeCommand } from '../helpers/node-command.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every process the command had under it while it ran. */
  seen: Seen;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-fail-early-'));
const aFile = path.join(dir, 'a-file');
const readOnly = path.join(dir, 'read-only');
// Root writes into a mode-0555 directory anyway; without CAP_DAC_OVERRIDE it cannot.
const asRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('sh', ['-c', 'command -v setpriv'], { stdio: 'ignore' }).status === 0;
const canTestReadOnly = !asRoot || hasSetpriv;

function run(script: string, args: string[], options: { env?: NodeJS.ProcessEnv; dropRoot?: boolean; nobody?: boolean } = {}): Promise<Ran> {
  const node = [...nodeCommand(script), ...args];
  const argv =
    options.dropRoot && asRoot
      ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...node]
      : options.nobody && asRoot
        ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node]
        : node;
  const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return watchDescendants(child.pid!, exit).then(async (seen) => {
    clearTimeout(timer);
    return { code: await exit, stdout, stderr, seen };
  });
}

/** One line on stderr, `pushlab <command>: <CODE>: …`, with no stack trace; returns it. */
function oneLine(r: Ran, command: string): string {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^pushlab ${command}: PUSHLAB_[A-Z_]+: `));
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

/** Exit 2, one line, and neither a server nor Chrome ever ran under the command. */
function refusedBeforeLaunch(r: Ran, command: string): string {
  expect(r.code, r.stderr).toBe(EXIT.badInput);
  expect(serversAndChromes(r.seen), 'processes started before the refusal').toEqual([]);
  return oneLine(r, command);
}

const CASES = {
  outProc: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', '/proc/pushlab']],
  outIsFile: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', aFile]],
  outUnderFile: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', path.join(aFile, 'reports')]],
  outReadOnly: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', readOnly]],
  outUnderReadOnly: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', path.join(readOnly, 'a', 'b')]],
  labOut: ['puppeteer/lab/main.ts', ['--headless', '--out', '/proc/pushlab']],
  cpuProf: [
    'bench/server.ts',
    ['--cpu-prof', '/proc/pushlab', '--transport', 'sse', '--batch', '1', '--connections', '1', '--seconds', '1', '--stall-seconds', '0'],
  ],
  serverNotUrl: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', dir, '--server', 'localhost:8443']],
  serverNobody: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', dir, '--server', 'https://127.0.0.1:1/']],
  labServerNobody: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--server', 'https://127.0.0.1:1/']],
  labNoChrome: ['puppeteer/lab/main.ts', ['--headless', '--out', dir]],
  sweepNoChrome: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--out', dir]],
  scenarioSyntax: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'syntax.json'), '--out', dir]],
  resumeSyntax: ['puppeteer/sweep/main.ts', ['--resume', '20260101-000000', '--out', path.join(dir, 'runs')]],
  tooManyPoints: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'huge.json'), '--list']],
  deviceNoCgroup: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--device', 'low-tier', '--out', dir]],
  deviceNotRoot: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--device', 'mid-tier', '--out', path.join(dir, 'anyone')]],
  deviceRemote: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--device', 'index=500', '--browser', 'ws://127.0.0.1:1/devtools/browser/x', '--out', dir]],
  deviceBad: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--device', 'phone', '--out', dir]],
  labNoCgroup: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--device', 'low-tier']],
  labThrottleAlone: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--throttle', 'main-thread']],
  labFirefoxMainThread: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--engine', 'firefox', '--device', 'mid-tier', '--throttle', 'main-thread']],
  labFirefoxWsStream: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--engine', 'firefox', '--transport', 'ws-stream']],
  sweepFirefoxWsStream: ['puppeteer/sweep/main.ts', ['--scenario', 'matrix', '--engine', 'firefox', '--out', dir]],
  sweepPaceCarRows: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--pace', 'recorded', '--out', dir]],
  advisePaceCarRows: ['puppeteer/advise/main.ts', ['--rate', '100k', '--p99', '100ms', '--pace', 'recorded', '--out', dir]],
  labPaceCarRows: ['puppeteer/lab/main.ts', ['--headless', '--pace', 'recorded', '--out', dir]],
  sweepGrpcJsonRows: ['puppeteer/sweep/main.ts', ['--file', path.join(dir, 'grpc.json'), '--rows', path.join(dir, 'events.ndjson'), '--out', dir]],
  linkNotRoot: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--link', '50ms', '--out', path.join(dir, 'anyone')]],
  linkRemote: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--link', '50ms', '--browser', 'ws://127.0.0.1:1/devtools/browser/x', '--out', dir]],
  linkBad: ['puppeteer/sweep/main.ts', ['--scenario', 'smoke', '--link', '50ms±40ms', '--out', dir]],
  adviseLinkRemote: [
    'puppeteer/advise/main.ts',
    ['--rate', '100k', '--p99', '100ms', '--link', '50ms', '--browser', 'ws://127.0.0.1:1/devtools/browser/x', '--out', dir],
  ],
  labLinkFirefox: ['puppeteer/lab/main.ts', ['--headless', '--out', dir, '--engine', 'firefox', '--link', '50ms']],
} as const;
const NO_CHROME = new Set(['labNoChrome', 'sweepNoChrome']);
/** A cgroup mount with no cpu controller, as a machine without cgroups has (puppeteer/device/cgroup.ts). */
const NO_CGROUP = new Set(['labNoCgroup', 'deviceNoCgroup']);
const ran = {} as Record<keyof typeof CASES, Ran>;

/** A scenario whose batch × concurrency × 2 transports is exactly `points`. */
const wide = (id: string, batches: number, conns: number) => ({
  id,
  batch: Array.from({ length: batches }, (_, i) => i + 1),
  concurrency: Array.from({ length: conns }, (_, i) => i + 1),
  transport: ['ws', 'sse'],
});

beforeAll(async () => {
  writeFileSync(aFile, 'not a directory\n');
  // Where the command run as nobody may write its run directory (mkdtemp's is root's alone).
  chmodSync(dir, 0o755);
  mkdirSync(path.join(dir, 'anyone'), { mode: 0o777 });
  chmodSync(path.join(dir, 'anyone'), 0o777);
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  writeFileSync(path.join(dir, 'syntax.json'), '{\n  "scenarios": [\n    { "id": "a", "batch": 1 "concurrency": 2 }\n  ]\n}\n');
  mkdirSync(path.join(dir, 'runs', '20260101-000000'), { recursive: true });
  writeFileSync(path.join(dir, 'runs', '20260101-000000', 'report.json'), '{\n  "schemaVersion": 2,\n  "runId": "20260101-000000",\n}\n');
  // 2 scenarios: 2 × 50 × 20 = 2,000 and 2 × 10 × 10 = 200 points: 2,200 in all.
  writeFileSync(path.join(dir, 'huge.json'), JSON.stringify({ scenarios: [wide('wide', 50, 20), wide('small', 10, 10)] }));
  writeFileSync(path.join(dir, 'limit.json'), JSON.stringify({ scenarios: [wide('wide', 50, 20)] }));
  writeFileSync(path.join(dir, 'grpc.json'), JSON.stringify({ scenarios: [{ id: 'g', transport: ['ws', 'grpc-web'], batch: 400, concurrency: 1 }] }));
  writeFileSync(path.join(dir, 'events.ndjson'), '{"a":1}\n{"a":2}\n');
  // A few at a time: each is a Node process compiling TypeScript on a shared 2-core host.
  const names = Object.keys(CASES) as (keyof typeof CASES)[];
  const next = async (): Promise<void> => {
    const name = names.shift();
    if (!name) return;
    const [script, args] = CASES[name];
    const env = {
      ...(NO_CHROME.has(name) ? { CHROME_PATH: '/nonexistent' } : {}),
      ...(NO_CGROUP.has(name) ? { PUSHLAB_CGROUP_ROOT: path.join(dir, 'no-cgroup') } : {}),
    };
    ran[name] = await run(script, [...args], { env, dropRoot: name.includes('ReadOnly'), nobody: name === 'deviceNotRoot' || name === 'linkNotRoot' });
    return next();
  };
  await Promise.all([next(), next(), next(), next()]);
}, 180_000);

afterAll(() => {
  chmodSync(readOnly, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe('unusable output locations: refused before anything is launched', () => {
  it("--out under /proc (where Node 20's recursive mkdir spins forever)", () => {
    expect(refusedBeforeLaunch(ran.outProc, 'sweep')).toBe(
      'pushlab sweep: PUSHLAB_BAD_OUTPUT: --out /proc/pushlab: cannot create it: this file system does not allow creating it (ENOENT)',
    );
    expect(existsSync('/proc/pushlab')).toBe(false);
  });

  it('--out naming a file, or a path under one', () => {
    expect(refusedBeforeLaunch(ran.outIsFile, 'sweep')).toBe(`pushlab sweep: PUSHLAB_BAD_OUTPUT: --out ${aFile}: ${aFile} exists and is not a directory`);
    expect(refusedBeforeLaunch(ran.outUnderFile, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_OUTPUT: --out ${aFile}/reports: ${aFile} exists and is not a directory`,
    );
  });

  it.runIf(canTestReadOnly)('--out a read-only directory, or a path to be created under one (and nothing is left created)', () => {
    expect(refusedBeforeLaunch(ran.outReadOnly, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_OUTPUT: --out ${readOnly}: cannot write a file in it: permission denied (EACCES)`,
    );
    expect(refusedBeforeLaunch(ran.outUnderReadOnly, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_OUTPUT: --out ${readOnly}/a/b: cannot create ${readOnly}/a: permission denied (EACCES)`,
    );
    expect(existsSync(path.join(readOnly, 'a'))).toBe(false);
  });

  it('lab --out and bench:server --cpu-prof', () => {
    expect(refusedBeforeLaunch(ran.labOut, 'lab')).toBe(
      'pushlab lab: PUSHLAB_BAD_OUTPUT: --out /proc/pushlab: cannot create it: this file system does not allow creating it (ENOENT)',
    );
    expect(refusedBeforeLaunch(ran.cpuProf, 'bench:server')).toBe(
      'pushlab bench:server: PUSHLAB_BAD_OUTPUT: --cpu-prof /proc/pushlab: cannot create it: this file system does not allow creating it (ENOENT)',
    );
  });
});

describe("--pace recorded with the lab's car rows, and a --rows file where a point's transport cannot carry it: one line, before anything starts", () => {
  it.each([
    ['sweepPaceCarRows', 'sweep', 'smoke/'],
    ['advisePaceCarRows', 'advise', '--pace: '],
    ['labPaceCarRows', 'lab', '--pace: '],
  ] as const)('%s', (name, command, who) => {
    const line = refusedBeforeLaunch(ran[name], command);
    expect(line).toContain(`PUSHLAB_BAD_FLAG: ${who}`);
    expect(line).toContain(
      "pace recorded replays a --rows file's recorded times (a HAR's message times, or a 't' field), and the lab's car rows have none; give --rows FILE, or pace steady",
    );
  });

  it('grpc-web in JSON with a --rows file', () => {
    expect(refusedBeforeLaunch(ran.sweepGrpcJsonRows, 'sweep')).toMatch(
      /^pushlab sweep: PUSHLAB_BAD_SCENARIO: g\/grpc-web-b400-c1-i1-full with --rows .*events\.ndjson: grpc-web carries a --rows file's events only with encoding=arrow: its default rows are the car row's protobuf message; give its scenario that encoding, or leave grpc-web out$/,
    );
  });
});

describe('--server that is not a pushlab server: one line, before Chrome', () => {
  it('not a URL', () => {
    expect(refusedBeforeLaunch(ran.serverNotUrl, 'sweep')).toBe(
      "pushlab sweep: PUSHLAB_BAD_SERVER: --server must be an https:// URL (the pushlab server serves TLS only); got 'localhost:8443'",
    );
  });

  it('nothing listening, in sweep and lab', () => {
    const line = 'no answer from https://127.0.0.1:1/stats (nothing is listening there)';
    expect(refusedBeforeLaunch(ran.serverNobody, 'sweep')).toBe(`pushlab sweep: PUSHLAB_BAD_SERVER: --server https://127.0.0.1:1/: ${line}`);
    expect(refusedBeforeLaunch(ran.labServerNobody, 'lab')).toBe(`pushlab lab: PUSHLAB_BAD_SERVER: --server https://127.0.0.1:1/: ${line}`);
  });
});

describe('a device class this machine cannot make: PUSHLAB_NO_DEVICE before anything is launched', () => {
  it('no cgroup cpu controller (PUSHLAB_CGROUP_ROOT names a mount that is not there)', () => {
    const line = refusedBeforeLaunch(ran.deviceNoCgroup, 'sweep');
    expect(line).toMatch(
      /^pushlab sweep: PUSHLAB_NO_DEVICE: device low-tier slows the whole browser under a cgroup CPU quota, and no cgroup cpu controller was found \(looked for .*no-cgroup\): .*--throttle main-thread/,
    );
    expect(readdirSync(dir).filter((f) => /^\d{8}-\d{6}/.test(f))).toEqual([]);
  });

  it.runIf(asRoot && hasSetpriv)('not root', () => {
    expect(refusedBeforeLaunch(ran.deviceNotRoot, 'sweep')).toMatch(
      /PUSHLAB_NO_DEVICE: device mid-tier .*a CPU quota needs root \(this process runs as uid 65534\)/,
    );
    expect(readdirSync(path.join(dir, 'anyone'))).toEqual([]);
  });

  it("remote browsers, whose processes are not this machine's", () => {
    expect(refusedBeforeLaunch(ran.deviceRemote, 'sweep')).toMatch(
      /PUSHLAB_NO_DEVICE: device index=500 with throttle browser .* elsewhere \(--browser, --grid\): use --throttle main-thread/,
    );
  });

  it('a device the flag does not take, naming the value and what is allowed', () => {
    expect(refusedBeforeLaunch(ran.deviceBad, 'sweep')).toBe(
      "pushlab sweep: PUSHLAB_BAD_FLAG: --device must be off, mid-tier (BenchmarkIndex 1000), low-tier (264), or index=N (a BenchmarkIndex of 20…100000); got 'phone'",
    );
  });
});

describe('a link this machine cannot make: PUSHLAB_NO_NETNS before anything is launched', () => {
  it.runIf(asRoot && hasSetpriv)('not root', () => {
    expect(refusedBeforeLaunch(ran.linkNotRoot, 'sweep')).toMatch(
      /^pushlab sweep: PUSHLAB_NO_NETNS: link 50ms: the server and the browser run in two network namespaces, and network namespaces need root: .*cdp:/,
    );
    expect(readdirSync(path.join(dir, 'anyone'))).toEqual([]);
  });

  it.runIf(asRoot)("remote browsers, which are not in this machine's namespaces (sweep and advise)", () => {
    for (const [name, command] of [
      ['linkRemote', 'sweep'],
      ['adviseLinkRemote', 'advise'],
    ] as const)
      expect(refusedBeforeLaunch(ran[name], command)).toMatch(
        new RegExp(`^pushlab ${command}: PUSHLAB_NO_NETNS: link 50ms: the browser runs in a namespace on this machine, and this run's browsers are elsewhere`),
      );
  });

  it('a link the flag does not take, and Firefox, naming the value and what is allowed', () => {
    expect(refusedBeforeLaunch(ran.linkBad, 'sweep')).toBe(
      "pushlab sweep: PUSHLAB_BAD_FLAG: --link jitter must be at most half the rtt (25 ms for 50ms), so no delay goes below 0; got 40 (in '50ms±40ms')",
    );
    expect(refusedBeforeLaunch(ran.labLinkFirefox, 'lab')).toMatch(
      /^pushlab lab: PUSHLAB_BAD_FLAG: --link 50ms with --engine firefox: it must be 'off' \(a link runs a Chrome/,
    );
  });
});

describe('no Chrome: PUSHLAB_NO_CHROME, and no server started', () => {
  it.each(['labNoChrome', 'sweepNoChrome'] as const)('%s', (name) => {
    const command = name === 'labNoChrome' ? 'lab' : 'sweep';
    expect(refusedBeforeLaunch(ran[name], command)).toBe(
      `pushlab ${command}: PUSHLAB_NO_CHROME: CHROME_PATH is set to '/nonexistent', which is not an executable file (it does not exist). Install Chrome or Chromium (Debian/Ubuntu: \`apt-get install -y chromium\`), or point CHROME_PATH at a Chrome binary.`,
    );
  });
});

describe('JSON syntax errors: line and column', () => {
  it('in a scenario file', () => {
    expect(refusedBeforeLaunch(ran.scenarioSyntax, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_SCENARIO: ${dir}/syntax.json: not valid JSON: line 3, column 29: expected ',' or '}' after a property value, found "\\""`,
    );
  });

  it('in the report --resume reads', () => {
    expect(refusedBeforeLaunch(ran.resumeSyntax, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_REPORT: ${dir}/runs/20260101-000000/report.json: not valid JSON: line 4, column 1: a comma before '}' (JSON allows no trailing comma)`,
    );
  });
});

describe('a scenario file past the point limit', () => {
  it('is refused, saying how many points and the limit', () => {
    expect(MAX_SWEEP_POINTS).toBe(2000);
    expect(refusedBeforeLaunch(ran.tooManyPoints, 'sweep')).toBe(
      `pushlab sweep: PUSHLAB_BAD_SCENARIO: ${dir}/huge.json: the selected scenarios expand to 2,200 points (wide 2,000, small 200); a sweep runs at most 2,000: select fewer with --scenario, or shorten the arrays (each one multiplies the others)`,
    );
  });
});

describe('--list into a pipe', () => {
  /** `sweep --list` of the 2,000-point file (about 110 kB, more than a pipe holds), read by `reader`. */
  const list = (reader: string) =>
    spawnSync(
      'bash',
      ['-c', `${nodeCommand('puppeteer/sweep/main.ts').join(' ')} --list --file ${dir}/limit.json | ${reader}; echo "exit \${PIPESTATUS[0]}" >&2`],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );

  it('a reader that stops after 3 lines gets them, and the sweep exits 0 without an EPIPE', () => {
    const r = list('head -3');
    // The first three lines, whole; each repeat's estimate (puppeteer/sweep/estimate.ts) is its own test's.
    const lines = r.stdout.split('\n').slice(0, 3);
    expect(lines.map((l) => l.replace(/\t3 × ~[\d.]+ s$/, '\t3 × ~N s'))).toEqual([
      'wide/ws-b1-c1-i1-full\t1000 EPS offered\t3 × ~N s',
      'wide/ws-b2-c1-i1-full\t2000 EPS offered\t3 × ~N s',
      'wide/ws-b3-c1-i1-full\t3000 EPS offered\t3 × ~N s',
    ]);
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.stderr).toMatch(/^2000 points, 6000 repeats in 3 rounds: about .*\nexit 0\n$/);
  });

  it('a reader that reads everything gets every line', () => {
    const r = list('cat');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2000);
    expect(r.stderr).toMatch(/\nexit 0\n$/);
  });
});

describe('a device class the lab cannot make: refused before anything is launched (issue 36)', () => {
  it('no cgroup cpu controller', () => {
    expect(refusedBeforeLaunch(ran.labNoCgroup, 'lab')).toMatch(
      /^pushlab lab: PUSHLAB_NO_DEVICE: device low-tier slows the whole browser under a cgroup CPU quota, and (a CPU quota needs root|no cgroup cpu controller was found).*or use --throttle main-thread/,
    );
  });

  it('--throttle without --device, and main-thread throttling in Firefox', () => {
    expect(refusedBeforeLaunch(ran.labThrottleAlone, 'lab')).toBe(
      'pushlab lab: PUSHLAB_BAD_FLAG: --throttle main-thread says how a device class slows the browser; give --device mid-tier, low-tier or index=N with it, or drop it',
    );
    expect(refusedBeforeLaunch(ran.labFirefoxMainThread, 'lab')).toMatch(
      /^pushlab lab: PUSHLAB_BAD_FLAG: --throttle main-thread is Chrome's CDP CPU throttling, and --engine firefox has none/,
    );
  });

  it('ws-stream in Firefox, which has no WebSocketStream: the lab and the sweep refuse it naming transport and browser', () => {
    expect(refusedBeforeLaunch(ran.labFirefoxWsStream, 'lab')).toBe(
      'pushlab lab: PUSHLAB_BAD_FLAG: --transport ws-stream opens a WebSocketStream, which --engine firefox does not have: give another --transport, or --engine chrome',
    );
    expect(refusedBeforeLaunch(ran.sweepFirefoxWsStream, 'sweep')).toMatch(
      /^pushlab sweep: PUSHLAB_BAD_SCENARIO: --engine firefox: scenario 'matrix' runs in firefox, so transport must be one of ws, ws-h2, sse, .* \(ws-stream opens a WebSocketStream, which Firefox does not have\), got \[.*"ws-stream".*\]; put the Chrome-only values in a scenario of their own$/,
    );
  });
});
