/**
 * `npm run bench:views`: what `npm run report`'s text views cost on a large run. A find-max or a
 * big matrix leaves tens of thousands of points, and before the layout was made linear `--wide`
 * on 20,000 points had not finished after 16 minutes. Each view is laid out as the command lays
 * it out (puppeteer/report/views.ts `renderView`, reading the report from disk), in this
 * process, timed as CPU (user + system, process.cpuUsage) and wall; the command adds its
 * start-up, about 1 s of CPU. Views alternate within a repeat. The goals are the bounds the
 * view tests once held, whole command included: 20,000 points within 30 s of CPU, 100,000
 * within 90 s.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { ROOT } from '../cli/root.js';
import type { FlagSpec } from '../protocol/flags.js';
import { median } from '../results/stats.js';
import { renderView, type ViewRequest } from '../puppeteer/report/views.js';
import { bigReport } from './big-report.js';

const VIEWS = ['wide', 'csv', 'csv-repeats'] as const;

const FLAGS = {
  points: { type: 'list', default: ['20000', '100000'], integers: { min: 1, max: 1_000_000 }, help: 'points in each report' },
  views: { type: 'list', default: ['wide', 'csv'], choices: VIEWS, help: 'views to time' },
  repeats: { type: 'integer', default: 3, min: 1, max: 20, help: 'timed runs per view and size' },
} as const satisfies Record<string, FlagSpec>;

/** CPU seconds the views may take at a size, whole command included (the bounds the tests held). */
const GOAL_CPU_SEC = (points: number) => (points <= 20_000 ? 30 : points <= 100_000 ? 90 : null);

reportErrorsAs('bench:views');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-views-'));
// A stop exits at once; the temporary reports go with process.exit's 'exit' handler below.
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
exitOnStopRequest('bench:views');
const flags = commandLineFlags(FLAGS, 'bench:views');
const example = readFileSync(path.join(ROOT, 'reports/example/report.json'), 'utf8');

try {
  console.log(`  points  view          CPU s (median, range of ${flags.repeats})   wall s   output    goal`);
  for (const points of flags.points.map(Number)) {
    const reportsDir = path.join(dir, `p${points}`);
    mkdirSync(path.join(reportsDir, 'big'), { recursive: true });
    writeFileSync(path.join(reportsDir, 'big', 'report.json'), bigReport(points, example));
    const runs = new Map<string, { cpu: number; wall: number; bytes: number }[]>();
    for (let r = 0; r < flags.repeats; r++) {
      for (const view of flags.views as (typeof VIEWS)[number][]) {
        const req: ViewRequest = { mode: view, positionals: ['big'], reportsDir, scenarios: [], format: '', margins: null };
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const result = await renderView(req);
        const wall = (performance.now() - t0) / 1000;
        const used = process.cpuUsage(cpu0);
        if (result.exit !== 0) throw new Error(`--${view} on ${points} points exited ${result.exit}: ${result.stderr.join(' ')}`);
        runs.set(view, [...(runs.get(view) ?? []), { cpu: (used.user + used.system) / 1e6, wall, bytes: result.stdout.length }]);
      }
    }
    for (const [view, rs] of runs) {
      const cpu = rs.map((x) => x.cpu);
      const goal = GOAL_CPU_SEC(points);
      const verdict = goal === null ? '–' : median(cpu) + 1 < goal ? `ok (< ${goal} s)` : `OVER ${goal} s`;
      console.log(
        `${String(points).padStart(8)}  --${view.padEnd(12)} ${median(cpu).toFixed(2).padStart(6)} (${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)})` +
          `${' '.repeat(14)}${median(rs.map((x) => x.wall))
            .toFixed(2)
            .padStart(6)}   ${(rs[0].bytes / 1e6).toFixed(1).padStart(5)} MB  ${verdict}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
