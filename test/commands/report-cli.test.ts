/**
 * `npm run report` as a user (or CI) runs it: exit codes and stdout of --compare, --csv, --wide and a
 * plain regenerate, the errors for unknown runs and other schema versions, and the --serve
 * server's three routes (and nothing else) on loopback. The commands' cases run at once
 * (describe.concurrent): each only reads the runs written before them, and a command is a
 * process's start-up, which two cores take two at a time.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareReports } from '../../results/compare.js';
import { pointsCsv } from '../../results/views/csv.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { summarisePoint } from '../../results/point-summary.js';
import { resolveReportFile, serveReports, splitArgs } from '../../puppeteer/report/runs.js';
import type { Soak } from '../../protocol/soak.js';
import { soakLines } from '../../results/soak.js';
import { samples, soakOf } from '../helpers/soak-fixture.js';
import * as v2 from '../helpers/v2-fixture.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'report-v2.json');
let reports: string;
let fixture: Report;
let slowerReport: Report;
let soak: Soak;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs('puppeteer/report/main.ts'), '--reports', reports, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  reports = await mkdtemp(path.join(os.tmpdir(), 'pushlab-reports-'));
  fixture = parseReportText(await readFile(FIXTURE, 'utf8'), FIXTURE);
  for (const name of ['base', 'same']) {
    await mkdir(path.join(reports, name));
    await copyFile(FIXTURE, path.join(reports, name, 'report.json'));
  }
  slowerReport = v2.scaledReport(fixture, 0.8);
  soak = soakOf(samples(2));
  // A steady run (repeats within ±0.1%, half the offered rate): 1% slower is significant there,
  // but inside the ±3% margin.
  const steadyPoints = (['ws', 'sse'] as const).map((t) => {
    const p = v2.point(t, 100);
    const repeats = [0.999, 1, 1.001].map((f, round) => v2.measured(p, { round, eps: p.offeredEventsPerSec * 0.5 * f }));
    return { ...v2.result(p, repeats), ...summarisePoint(p, repeats) };
  });
  const steady = v2.report(steadyPoints);
  for (const [name, r] of [
    ['slower', slowerReport],
    ['one-percent', v2.scaledReport(fixture, 0.99)],
    ['steady', steady],
    ['steady-99', v2.scaledReport(steady, 0.99)],
    ['soaked', { ...fixture, soak }],
  ] as const) {
    await mkdir(path.join(reports, name));
    await writeFile(path.join(reports, name, 'report.json'), JSON.stringify(r));
  }
  await mkdir(path.join(reports, 'old'));
  await writeFile(path.join(reports, 'old', 'report.json'), JSON.stringify({ ...fixture, schemaVersion: 1 }));
  // A file, not a run directory, so the listing of runs below stays as it is.
  await writeFile(path.join(reports, 'newer.json'), JSON.stringify({ ...fixture, schemaVersion: 5 }));
});

afterAll(async () => {
  if (reports) await rm(reports, { recursive: true, force: true });
});

describe.concurrent('npm run report', () => {
  it('--compare exits 1 on a regression and prints the table on stdout; 0 when nothing regressed', async () => {
    const worse = await run(['--compare', 'base', 'slower']);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toContain(`${compareReports(fixture, slowerReport).regressions} regressed`);
    expect(worse.stdout).toContain('WORSE');
    const same = await run(['--compare', 'base', 'same']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('0 regressed, 0 improved');
  }, 30_000);

  it('--compare exits 1 only on a regression beyond the margin: a copy 1% slower exits 0, 20% slower exits 1', async () => {
    const onePercent = await run(['--compare', 'base', 'one-percent']);
    expect(onePercent.code, onePercent.stderr).toBe(0);
    expect(onePercent.stdout).toContain('0 regressed, 0 improved');
    expect(onePercent.stdout).toContain('read against the margins eps=3%,cpu=5%');
    const twenty = await run(['--compare', 'base', 'slower']);
    expect(twenty.code).toBe(1);
    expect(twenty.stdout).toMatch(/[1-9]\d* regressed/);
    // Where the repeats are steady, 1% is beyond the noise (its CI excludes 1) but inside ±3%.
    const steady = compareReports(
      JSON.parse(await readFile(path.join(reports, 'steady', 'report.json'), 'utf8')) as Report,
      JSON.parse(await readFile(path.join(reports, 'steady-99', 'report.json'), 'utf8')) as Report,
    );
    expect(steady.points.every((p) => p.metrics[0].ciHigh! < 1 && p.metrics[0].verdict === 'equivalent')).toBe(true);
    const steady99 = await run(['--compare', 'steady', 'steady-99']);
    expect(steady99.code, steady99.stdout).toBe(0);
    expect(steady99.stdout).toContain('0 regressed, 0 improved, 2 equivalent, 0 with no clear difference');
  }, 40_000);

  it('--margin sets what --compare reads a regression against; a bad one, or one without --compare, is refused', async () => {
    // 20% slower is a regression at ±3% and inside ±25%.
    const wide = await run(['--compare', 'base', 'slower', '--margin', 'eps=25%,cpu=25%']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toContain('read against the margins eps=25%,cpu=25%');
    expect(wide.stdout).toContain('0 regressed');
    const bad = await run(['--compare', 'base', 'slower', '--margin', 'eps=70%']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--margin eps must be from 0 to 50%; it takes eps=<p>%,cpu=<p>%');
    const alone = await run(['--csv', 'base', '--margin', 'eps=5%']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--margin sets what --compare reads a regression against; give it with --compare');
  }, 40_000);

  it('--compare reads a version 2 run against a version 4 one, either way round', async () => {
    const version = async (run: string) =>
      (JSON.parse(await readFile(path.join(reports, run, 'report.json'), 'utf8')) as { schemaVersion: number }).schemaVersion;
    expect([await version('base'), await version('slower')]).toEqual([2, 4]);
    const worse = await run(['--compare', 'base', 'slower']);
    expect(worse.code, worse.stderr).toBe(1);
    expect(worse.stdout).toContain(`${compareReports(fixture, slowerReport).regressions} regressed`);
    const better = await run(['--compare', 'slower', 'base']);
    expect(better.code, better.stderr).toBe(0);
    expect(better.stdout).toMatch(/0 regressed, [1-9]\d* improved/);
  }, 30_000);

  it('refuses a version 5 report with PUSHLAB_BAD_REPORT naming the version and what it reads, exit 2', async () => {
    const newer = await run(['--csv', path.join(reports, 'newer.json')]);
    expect(newer.code).toBe(2);
    expect(newer.stdout).toBe('');
    expect(newer.stderr).toContain(
      `${path.join(reports, 'newer.json')}: this build reads schemaVersion 4, and 2, 3 converted to it on read; got 5, written by a newer pushlab`,
    );
  }, 20_000);

  it('--format benchmark-action-bigger|smaller prints the reviewed golden JSON on stdout; anything else is refused naming both', async () => {
    for (const direction of ['bigger', 'smaller']) {
      const r = await run(['--format', `benchmark-action-${direction}`, 'base']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(await readFile(path.join(ROOT, 'test', 'fixtures', `report-v2.benchmark-action-${direction}.golden.json`), 'utf8'));
      expect(r.stderr).toBe('');
    }
    const bare = await run(['--format', 'benchmark-action', 'base']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--format must be one of benchmark-action-bigger, benchmark-action-smaller; got 'benchmark-action'");
    const withCsv = await run(['--format', 'benchmark-action-bigger', '--csv', 'base']);
    expect(withCsv.code).toBe(2);
    expect(withCsv.stderr).toContain('--csv, --format cannot be combined');
  }, 40_000);

  it('--csv prints the points CSV on stdout', async () => {
    const r = await run(['--csv', 'base']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(pointsCsv(fixture));
  }, 20_000);

  it("--wide prints the sweep's table with every column, as it was before it fitted a terminal", async () => {
    const r = await run(['--wide', 'base']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(await readFile(path.join(ROOT, 'test', 'fixtures', 'report-v2.table-wide.md'), 'utf8'));
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeGreaterThan(200);
    const both = await run(['--wide', '--csv', 'base']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('cannot be combined');
  }, 20_000);

  it('a run id regenerates its report.html and prints the path', async () => {
    const r = await run(['base']);
    expect(r.code).toBe(0);
    const file = r.stdout.trim();
    expect(file).toBe(path.join(reports, 'base', 'report.html'));
    expect((await stat(file)).size).toBeGreaterThan(100_000);
    expect(r.stderr).toBe('');
  }, 20_000);

  it('a run with a soak: its judgement on stderr, in the lines the soak and advise commands print', async () => {
    const r = await run(['soaked']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(reports, 'soaked', 'report.html'));
    expect(r.stderr).toBe(`${soakLines(soak).join('\n')}\n`);
  }, 20_000);

  it('bad input exits 2 with a message naming what was wrong', async () => {
    const unknown = await run(['--csv', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run 'nope'.*runs in .*: base, old, one-percent, same, slower, soaked, steady, steady-99/);
    const old = await run(['--csv', 'old']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('this build reads schemaVersion 4, and 2, 3 converted to it on read; got 1');
    const twoModes = await run(['--csv', '--compare', 'base']);
    expect(twoModes.code).toBe(2);
    expect(twoModes.stderr).toContain('cannot be combined');
  }, 30_000);
});

describe('report runs', () => {
  it('splits positional runs from flags by the flag table', () => {
    expect(
      splitArgs({ port: { type: 'integer', default: 0, min: 0, max: 1, help: '' }, serve: { type: 'boolean', default: false, help: '' } }, [
        '--serve',
        'A',
        '--port',
        '8',
        'B',
      ]),
    ).toEqual({
      flags: ['--serve', '--port', '8'],
      positionals: ['A', 'B'],
    });
  });

  it('resolves a run id, a directory or a file', async () => {
    const file = path.join(reports, 'base', 'report.json');
    expect(await resolveReportFile('base', reports)).toBe(file);
    expect(await resolveReportFile(path.join(reports, 'base'), reports)).toBe(file);
    expect(await resolveReportFile(file, reports)).toBe(file);
    await expect(resolveReportFile('../etc', reports)).rejects.toThrow(/no run/);
  });

  it('--serve: the viewer, the listing and report.json on 127.0.0.1, nothing else', async () => {
    const server = await serveReports(reports, 0);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/report\.html$/);
      const base = server.url.replace('/report.html', '');
      const html = await fetch(server.url);
      expect(html.status).toBe(200);
      expect(await html.text()).toContain('<script type="application/json" id="report-data"></script>');
      expect(await (await fetch(`${base}/reports/`)).json()).toEqual(['base', 'old', 'one-percent', 'same', 'slower', 'soaked', 'steady', 'steady-99']);
      expect(((await (await fetch(`${base}/reports/base/report.json`)).json()) as Report).runId).toBe(fixture.runId);
      expect((await fetch(`${base}/reports/..%2F..%2Fetc/report.json`)).status).toBe(404);
      expect((await fetch(`${base}/reports/base/other.json`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
