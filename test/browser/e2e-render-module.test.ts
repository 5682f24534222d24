/**
 * End to end (issue 35, "Your page"): `npm run sweep`'s entry point with the real server and
 * headless Chromium, the example React table (examples/react-table/) drawing in place of
 * pushlab's table under load. Every figure a point has with pushlab's own views is there with
 * the module's: EPS, CPU per event, event age, display age (from the module's drawn() calls)
 * and input delay; and the report names the module and its SHA-256.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { ROOT, runSweep } from '../helpers/sweep-process.js';
import { runHeader } from '../../web/report/views.js';

const MODULE = 'examples/react-table/rows-table.tsx';
const SCENARIOS = {
  defaults: { render: 'full', warmupSec: 1, measureSec: 3, repeats: 1 },
  scenarios: [{ id: 'react-table', transport: 'sse', batch: 50, concurrency: 4, intervalMs: 5, renderModule: MODULE }],
};

describe('a team render module under load in headless Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-e2e-render-module-'));
    const file = path.join(dir, 'scenarios.json');
    await writeFile(file, JSON.stringify(SCENARIOS));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--file', file, '--seed', '1', '--json', '--out', path.join(dir, 'out')], 170_000));
    // The sweep's own words when it failed, not a JSON error about its empty stdout.
    if (code !== 0) throw new Error(`the sweep exited ${code}: ${stderr}`);
    report = JSON.parse(stdout) as Report;
  }, 180_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('measures the point with every figure present', () => {
    expect(code, stderr).toBe(0);
    const [p] = report.points;
    const r = p.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok');
    expect(r).toHaveLength(1);
    const m = r[0];
    expect(m.eventsPerSec).toBeGreaterThan(0);
    expect(m.page.gaps).toBe(0);
    expect(m.efficiency.eventsPerCpuSecRenderer).toBeGreaterThan(0);
    expect(m.latency.p99Ms).toBeGreaterThan(0);
    // The module called drawn(): display age has draws, each no younger than 0.
    expect(m.displayAge?.count).toBeGreaterThan(0);
    expect(m.displayAge?.p99Ms).toBeGreaterThan(0);
    expect(m.input?.handled).toBeGreaterThan(0);
    expect(m.input?.delayMs.p99Ms).not.toBeNull();
  });

  it('names the module and its SHA-256 in the point and the viewer header', () => {
    const sha256 = createHash('sha256')
      .update(readFileSync(path.join(ROOT, MODULE)))
      .digest('hex');
    expect(report.points[0].point.renderModule).toEqual({ path: MODULE, sha256 });
    const field = runHeader(report).fields.find((f) => f.label === 'Render module');
    expect(field?.value).toBe(`${MODULE} (sha256 ${sha256.slice(0, 12)}…)`);
  });
});
