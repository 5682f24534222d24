/**
 * Two commands at once (issue 31, class 3). Two runs started in the same second were one run:
 * run ids had one-second resolution and the run's directory was made with `recursive: true`
 * at the first save, so both wrote the same report.json and the first answer was lost. And
 * every `npm run …` rebuilt `dist/` with Vite emptying it first: a server serving the page, or
 * one starting then ("the page is not built"), lost it for the seconds the build took.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { isRunId, type Report } from '../../protocol/report.js';
import { createRunDir, runIdFor, RUNS_PER_SECOND, writeAtomically } from '../../puppeteer/report/file.js';
import { listRuns } from '../../puppeteer/report/runs.js';
import { buildServer, type PushlabServer } from '../../server/app.js';
import { loadOrCreateCert } from '../../server/cert.js';
import { h2get } from '../helpers/h2-get.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const STARTED = new Date(2026, 10, 22, 1, 30, 0);
const BASE = runIdFor(STARTED);

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pushlab-concurrent-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** A command (or `npm …`) to its end: its exit code and output; killed after `timeoutMs`. */
function run(cmd: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // As from a shell: vitest sets NODE_ENV=test, which Vite would build with (a page unlike npm test's).
    const { NODE_ENV: _test, ...shell } = process.env;
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...shell, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('two runs in the same second', () => {
  it('get a directory each, made exclusively, with sortable ids; every report survives', async () => {
    const out = path.join(tmp, 'same-second');
    await mkdir(out);
    const runs = await Promise.all(Array.from({ length: 12 }, () => createRunDir(out, 'advise-', STARTED)));
    const ids = runs.map((r) => r.runId);
    expect(new Set(ids).size).toBe(12);
    for (const id of ids) expect(isRunId(id), id).toBe(true);
    // Sorted as plain strings, they are in the order they were taken: the first bare, then -02 … -12.
    expect([...ids].sort()).toEqual([`advise-${BASE}`, ...Array.from({ length: 11 }, (_, i) => `advise-${BASE}-${String(i + 2).padStart(2, '0')}`)]);
    expect(`advise-${BASE}-99` < `advise-${runIdFor(new Date(STARTED.getTime() + 1000))}`).toBe(true);
    await Promise.all(runs.map((r) => writeAtomically(r.file, `${JSON.stringify({ runId: r.runId })}\n`)));
    for (const r of runs) expect(JSON.parse(await readFile(r.file, 'utf8'))).toEqual({ runId: r.runId });
    expect((await listRuns(out)).sort()).toEqual([...ids].sort());
  });

  it('never take a directory that exists, and stop at the bound with one coded line', async () => {
    const out = path.join(tmp, 'taken');
    await mkdir(path.join(out, BASE), { recursive: true });
    await writeFile(path.join(out, BASE, 'report.json'), 'left by an earlier run\n');
    const second = await createRunDir(out, '', STARTED);
    expect(second.runId).toBe(`${BASE}-02`);
    expect(await readFile(path.join(out, BASE, 'report.json'), 'utf8')).toBe('left by an earlier run\n');
    for (let n = 3; n <= RUNS_PER_SECOND; n++) await createRunDir(out, '', STARTED);
    const refused = await createRunDir(out, '', STARTED).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PushlabError);
    expect((refused as PushlabError).code).toBe('PUSHLAB_BAD_OUTPUT');
    expect((refused as PushlabError).message).toBe(
      `cannot make a run directory in ${out}: ${BASE} and its 98 suffixes (-02 … -99) are all taken; start the run again in a second`,
    );
  });

  it('two real sweeps started in the same second into one --out: two directories, both reports whole', async () => {
    const out = path.join(tmp, 'sweeps');
    await mkdir(out);
    const scenarios = path.join(tmp, 'tiny.json');
    // One point (the assertions read the first) and the shortest repeat: each report needs one, and no figure is read.
    await writeFile(scenarios, JSON.stringify({ scenarios: [{ id: 'tiny', transport: 'sse', batch: 5, concurrency: 1, warmupSec: 0, measureSec: 0.5 }] }));
    // Both processes read the same clock second: `new Date()` (the run's start) is pinned,
    // Date.now() and timers are not. Without it the two could straddle a second and pass by luck.
    const pin = path.join(tmp, 'pin-date.mjs');
    await writeFile(
      pin,
      'const Real = Date; const at = Real.parse(process.env.PUSHLAB_TEST_NOW);\n' +
        'globalThis.Date = class extends Real { constructor(...a) { if (a.length === 0) super(at); else super(...a); } };\n',
    );
    const sweep = (seed: number) =>
      run(
        process.execPath,
        [
          '--import',
          pin,
          ...nodeArgs('puppeteer/sweep/main.ts'),
          '--file',
          scenarios,
          '--repeats',
          '1',
          '--retries',
          '0',
          '--seed',
          String(seed),
          '--out',
          out,
        ],
        150_000,
        {
          PUSHLAB_TEST_NOW: STARTED.toISOString(),
        },
      );
    const [a, b] = await Promise.all([sweep(101), sweep(202)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const files = [a.stdout.trim().split('\n').at(-1)!, b.stdout.trim().split('\n').at(-1)!];
    expect(files[0]).not.toBe(files[1]);
    expect((await readdir(out)).sort()).toEqual([BASE, `${BASE}-02`]);
    const reports = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as Report));
    expect(reports.map((r) => r.options.seed)).toEqual([101, 202]);
    for (const [i, r] of reports.entries()) {
      expect(path.basename(path.dirname(files[i]))).toBe(r.runId);
      expect(r.points[0].repeats).toHaveLength(1);
      expect(existsSync(path.join(path.dirname(files[i]), 'report.html'))).toBe(true);
    }
  }, 180_000);
});

describe('two commands in one checkout', () => {
  const dist = path.join(ROOT, 'dist');
  let app: PushlabServer;
  let origin: string;
  let session: http2.ClientHttp2Session | null = null;
  /**
   * One session until the server ends it (GOAWAY after 1,000 streams, server/defaults.ts), then
   * a new one; a request refused by that GOAWAY is asked again once on the new session.
   */
  const get = async (p: string, again = true): Promise<{ status: number; body: string }> => {
    if (!session || session.closed || session.destroyed) {
      const s = (session = http2.connect(origin, { rejectUnauthorized: false }));
      s.on('goaway', () => s.close());
      s.on('error', () => undefined);
    }
    try {
      return await h2get(session, p);
    } catch (err) {
      if (!again) throw err;
      session.destroy();
      return get(p, false);
    }
  };

  beforeAll(async () => {
    app = await buildServer({ tls: await loadOrCreateCert(path.join(tmp, 'cert')), webRoot: path.join(dist, 'web') });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    origin = `https://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }, 60_000);
  afterAll(async () => {
    session?.close();
    await app?.close();
  });

  /**
   * Requests the page, every script and style it names, and the report page, and reads the
   * one-file viewer from disk, over and over until `until` settles (at most 2,000 rounds):
   * every answer that was not a whole file, by what was asked.
   */
  async function pollWhile(until: Promise<unknown>): Promise<{ rounds: number; bad: string[] }> {
    let settled = false;
    void until.finally(() => (settled = true));
    const bad: string[] = [];
    let rounds = 0;
    while (!settled && rounds < 2000) {
      rounds++;
      const page = await get('/');
      if (page.status !== 200 || !page.body.includes('</html>')) {
        bad.push(`/: ${page.status}`);
        continue;
      }
      const assets = [...page.body.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => `/${m[1]}`);
      if (!assets.length) bad.push('/: names no assets');
      for (const p of [...assets, '/report.html']) {
        const r = await get(p);
        if (r.status !== 200 || r.body.length === 0) bad.push(`${p}: ${r.status}`);
      }
      // What a server starting now checks (server/app.ts), and what report.html is made from.
      if (!existsSync(path.join(dist, 'web', 'index.html'))) bad.push('dist/web/index.html missing');
      try {
        if (!readFileSync(path.join(dist, 'report', 'report.html'), 'utf8').includes('</html>')) bad.push('dist/report/report.html cut short');
      } catch {
        bad.push('dist/report/report.html missing');
      }
    }
    return { rounds, bad };
  }

  const build = () => run('npm', ['run', 'build', '--', '--force'], 180_000);

  function expectComplete(): void {
    const index = readFileSync(path.join(dist, 'web', 'index.html'), 'utf8');
    for (const m of index.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)) expect(statSync(path.join(dist, 'web', m[1])).size).toBeGreaterThan(0);
    expect(readFileSync(path.join(dist, 'report', 'report.html'), 'utf8')).toContain('</html>');
    // The compiled entries the commands run.
    expect(statSync(path.join(dist, 'node', 'puppeteer', 'sweep', 'main.js')).size).toBeGreaterThan(0);
  }

  // One case for "a build while a server serves" and "two builds at once": each of the two builds
  // swaps dist/ under the polling server, so a build alone is the same swap; a third build took 7 s.
  it('two builds at once while a server serves dist/: every request during them gets the whole file, both succeed, dist/ is complete', async () => {
    const both = Promise.all([build(), build()]);
    const { rounds, bad } = await pollWhile(both);
    const [a, b] = await both;
    expect(bad.slice(0, 10), `${bad.length} bad answers in ${rounds} rounds`).toEqual([]);
    expect(rounds).toBeGreaterThan(0);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expectComplete();
    // A server starting now finds the page.
    const again = await buildServer({ tls: await loadOrCreateCert(path.join(tmp, 'cert')), webRoot: path.join(dist, 'web') });
    await again.close();
  }, 200_000);

  it('a build removes an old build no one holds, and never one a running command holds', async () => {
    // Two builds named as if made an hour ago (past the grace time): one held by this process
    // (as `npm run sweep` holds the build it runs from), one by a process that has ended.
    // Their builder's pid is past Linux's largest (2^22): no process builds them any more.
    const old = Date.now() - 3_600_000;
    const gone = 2 ** 22 + 1;
    const held = path.join(dist, 'builds', `${old}-${gone}-aaaaaaaa`);
    const orphan = path.join(dist, 'builds', `${old}-${gone}-bbbbbbbb`);
    for (const [dir, pid] of [
      [held, process.pid],
      [orphan, gone],
    ] as const) {
      await mkdir(path.join(dir, 'holders'), { recursive: true });
      await writeFile(path.join(dir, 'holders', String(pid)), '');
    }
    const first = await run('npm', ['run', 'build'], 180_000);
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(held), 'the held build').toBe(true);
    expect(existsSync(orphan), 'the build whose holder ended').toBe(false);
    // Let go: the next build removes it.
    await rm(path.join(held, 'holders', String(process.pid)));
    const second = await run('npm', ['run', 'build'], 180_000);
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(held)).toBe(false);
    expectComplete();
  }, 400_000);
});
