/**
 * Every view of a report against a recorded fixture (test/fixtures/report-v2.json, a real
 * sweep with 3 repeats; see test/fixtures/README.md): the terminal table
 * and both CSVs byte for byte (golden files, reviewed by hand, plus values recomputed here from
 * the raw repeats), the chart datasets, the table rows, the comparison, and the one check.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellText, COLUMNS, LEADING_COLUMNS, terminalColumnsFor } from '../../results/columns.js';
import { compareReports, compareScenarios, ratioOfMeans } from '../../results/compare.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { PushlabError } from '../../protocol/errors.js';
import { formatMsShort, formatPlusMinusPercent } from '../../results/format.js';
import { parseReport, parseReportText } from '../../protocol/report-check.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { describe as describeStat, median, relativeHalfWidth } from '../../results/stats.js';
import {
  ANSWER_COLUMNS,
  CI_GIVEN_UP,
  DEFAULT_TABLE_WIDTH,
  fitColumns,
  formatComparison,
  formatTable,
  MORE_COLUMNS,
  tableWidth,
  wrapLine,
  browserLines,
  pointLine,
  pointLines,
  verdictLines,
} from '../../results/views/terminal.js';
import { reportHtml, scriptSafeJson } from '../../puppeteer/report/html.js';
import { cpuChart, efficiencyChart, epsChart, type BarConfig, type LineConfig } from '../../web/report/chart-configs.js';
import { embeddedReport, runEntry, runNamesFromListing, viewRequest } from '../../web/report/load.js';
import { browserRows, latencyBoxes, logAxis, runHeader, scenarioViews, sortRows, TABLE_COLUMNS, tableRows } from '../../web/report/views.js';
import { pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { expandScenario, parseScenarioText, selectScenarios } from '../../protocol/scenario.js';
import * as v2 from '../helpers/v2-fixture.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures');
const fixtureText = readFileSync(path.join(FIXTURES, 'report-v2.json'), 'utf8');
const load = (): Report => parseReportText(fixtureText, 'report-v2.json');
const golden = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const measured = (r: Report['points'][number]): MeasuredRepeat[] => r.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok');

describe('the fixture', () => {
  it('is a real schema-v2 run with repeats, read as version 4', () => {
    expect(JSON.parse(fixtureText).schemaVersion).toBe(2);
    const r = load();
    expect(r.schemaVersion).toBe(4);
    expect(r.points.length).toBeGreaterThan(4);
    for (const p of r.points) expect(measured(p).length).toBe(3);
  });
});

describe('terminal table', () => {
  it('fitted to 120 columns (the sweep off a terminal) matches the reviewed golden file exactly', () => {
    expect(`${formatTable(load(), { width: DEFAULT_TABLE_WIDTH })}\n`).toBe(golden('report-v2.table.md'));
  });

  it('--wide is the table as the sweep printed it before it fitted: every terminal column, each with its CI', () => {
    expect(`${formatTable(load(), { wide: true })}\n`).toBe(golden('report-v2.table-wide.md'));
  });

  it('shows the median of the raw repeats and the CI half-width as a share of it', () => {
    const r = load();
    const p = r.points[1];
    const eps = COLUMNS.find((c) => c.id === 'eventsPerSec')!;
    const xs = measured(p).map((x) => x.eventsPerSec);
    const s = describeStat(xs);
    expect(median(xs)).toBe(p.summary!.eventsPerSec.median);
    const noise = (s.ciHigh! - s.ciLow!) / 2 / s.median;
    expect(cellText(eps, p)).toBe(`${eps.kind === 'stat' ? eps.format(s.median) : ''} ${formatPlusMinusPercent(noise)}`);
    expect(formatTable(r, { wide: true })).toContain(cellText(eps, p));
  });

  it('has one row per point and every terminal column', () => {
    const lines = formatTable(load(), { wide: true })
      .split('\n')
      .filter((l) => l.startsWith('| '));
    expect(lines).toHaveLength(1 + load().points.length);
    for (const c of terminalColumnsFor(load().points, load().hosts)) expect(lines[0]).toContain(c.label);
  });
});

describe('the terminal table fits a terminal', () => {
  /**
   * The recorded run's figures on the default sweep's points (scenarios.json's `default`): its
   * point ids are the longest of any sweep's table people see first, the cells are a real run's.
   */
  function defaultSweep(): Report {
    const file = parseScenarioText(readFileSync(path.join(ROOT, 'scenarios.json'), 'utf8'), 'scenarios.json');
    const points = selectScenarios(file).flatMap((s) => expandScenario(s, file.defaults));
    const r = load();
    expect(points).toHaveLength(r.points.length);
    const results = r.points.map((p, i) => ({ ...p, point: points[i] }));
    return { ...r, scenarios: [...new Set(points.map((p) => p.scenario))], points: results, comparisons: pairedComparisons(results) };
  }
  const header = (text: string) => text.split('\n').find((l) => l.startsWith('| '))!;

  it('the default sweep at 120 columns: every line fits, with point, EPS, delivered, tab CPU, p99 and verdict, and says where the rest are', () => {
    const report = defaultSweep();
    const text = formatTable(report, { width: DEFAULT_TABLE_WIDTH });
    const wide = formatTable(report, { wide: true });
    // The old table was 18 columns and far wider: this is what the fitting is for.
    expect(Math.max(...wide.split('\n').map((l) => l.length))).toBeGreaterThan(200);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
    const columns = header(text)
      .split('|')
      .map((c) => c.trim())
      .filter(Boolean);
    expect(columns).toEqual(expect.arrayContaining(['point', 'EPS', 'delivered %', 'tab main %', 'p99 ms', 'verdict']));
    expect(text).toMatch(/^\d+ more columns: report\.html, npm run report -- --wide 20261123-142436 \(or --csv\), the sweep's --json\.$/m);
    // Every point and every verdict line is there; the notes and flags in full are in --wide (and report.html).
    const words = (t: string) => t.replace(/\s+/g, ' ');
    for (const p of report.points) expect(text).toContain(`| ${p.point.id} `);
    for (const line of verdictLines(report)) expect(words(text)).toContain(words(line));
    for (const p of report.points) {
      for (const u of p.unsteady) expect(words(wide)).toContain(words(`unsteady: ${p.point.id}: ${u.message}`));
      if (p.notes.length) expect(words(wide)).toContain(words(`${p.point.id}: ${p.notes.join('; ')}`));
    }
  });

  it("gives up CIs before columns, EPS's last, and keeps the answer even where it cannot fit", () => {
    const report = defaultSweep();
    const ci = (width: number) =>
      fitColumns(report, width)
        .shown.filter((s) => s.column.kind === 'stat' && s.ci)
        .map((s) => s.column.id);
    expect(ci(120)).toEqual(['eventsPerSec', 'deliveredRatio', 'cpuTabMainThread', 'latencyP99Ms']);
    expect(ci(116)).toEqual(['eventsPerSec', 'deliveredRatio', 'cpuTabMainThread']);
    // tab main %'s CI is no wider than its label: giving it up would gain nothing.
    expect(ci(110)).toEqual(['eventsPerSec', 'cpuTabMainThread']);
    expect(ci(60)).toEqual(['cpuTabMainThread']);
    expect(fitColumns(report, 60).shown.map((s) => s.column.id)).toEqual([
      'pointId',
      'eventsPerSec',
      'deliveredRatio',
      'cpuTabMainThread',
      'latencyP99Ms',
      'verdict',
    ]);
    expect(formatTable(report, { width: 116 })).toMatch(/^Medians over the repeats; .* To fit, no CI on p99 ms\.$/m);
    // A wide terminal gets more columns, in the table's order, and nothing left to point to.
    const all = fitColumns(report, 1000);
    expect(all.left).toEqual([]);
    expect(all.shown.map((s) => s.column)).toEqual(terminalColumnsFor(report.points, report.hosts));
    expect(formatTable(report, { width: 1000 })).not.toMatch(/more columns?:/);
  });

  it('names only real columns, and ranks every terminal column', () => {
    const ids = new Set(COLUMNS.map((c) => c.id));
    for (const id of [...ANSWER_COLUMNS, ...CI_GIVEN_UP, ...MORE_COLUMNS]) expect(ids, id).toContain(id);
    const ranked = new Set([...ANSWER_COLUMNS, ...MORE_COLUMNS]);
    for (const c of COLUMNS.filter((c) => c.terminal || c.terminalWhen || c.id === 'host')) expect(ranked, c.id).toContain(c.id);
  });

  it("takes the terminal's width on a TTY, else 120", () => {
    expect(tableWidth({ isTTY: true, columns: 87 })).toBe(87);
    expect(tableWidth({ isTTY: false, columns: 87 })).toBe(120);
    expect(tableWidth({ isTTY: true, columns: undefined })).toBe(120);
  });

  it('wraps prose at spaces with a hanging indent, never inside a word', () => {
    const line = `${'word '.repeat(30)}${'x'.repeat(70)} end`;
    const lines = wrapLine(line, 50);
    expect(lines.map((l) => l.trim()).join(' ')).toBe(line);
    for (const l of lines.slice(1)) expect(l.startsWith('  ')).toBe(true);
    expect(lines.filter((l) => l.length > 50)).toEqual([`  ${'x'.repeat(70)}`]);
  });
});

describe('CSV', () => {
  it('one row per point matches the golden file exactly', () => {
    expect(pointsCsv(load())).toBe(golden('report-v2.points.csv'));
  });

  it('one row per repeat matches the golden file exactly', () => {
    expect(repeatsCsv(load())).toBe(golden('report-v2.repeats.csv'));
  });

  it('keeps full numbers: median, mean and CI of a Stat; the raw value of a repeat', () => {
    const r = load();
    const rows = pointsCsv(r)
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const head = rows[0];
    expect(rows).toHaveLength(1 + r.points.length);
    const s = r.points[0].summary!.eventsPerSec;
    expect(Number(rows[1][head.indexOf('eventsPerSecMedian')])).toBe(s.median);
    expect(Number(rows[1][head.indexOf('eventsPerSecMean')])).toBe(s.mean);
    expect(Number(rows[1][head.indexOf('eventsPerSecCiLow')])).toBe(s.ciLow);
    const reps = repeatsCsv(r)
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    expect(reps).toHaveLength(1 + r.points.reduce((n, p) => n + p.repeats.length, 0));
    const first = measured(r.points[0])[0];
    expect(Number(reps[1][reps[0].indexOf('eventsPerSec')])).toBe(first.eventsPerSec);
    expect(Number(reps[1][reps[0].indexOf('latencyP99Ms')])).toBe(first.latency.p99Ms);
  });

  it('quotes text with commas and quotes, and defuses a leading formula sign', () => {
    const r = load();
    r.points[0].notes = ['=HYPERLINK("x"), then more'];
    const line = pointsCsv(r).split('\r\n')[1];
    expect(line.endsWith(`"'=HYPERLINK(""x""), then more"`)).toBe(true);
  });
});

describe('chart datasets', () => {
  const views = () => scenarioViews(load());

  it("leaves out the main thread's events per CPU-second where parsing ran in Workers (it dwarfed every other bar)", () => {
    const r = load();
    const worker = r.points.find((p) => p.point.transport === 'ws')!;
    worker.point = { ...worker.point, parse: 'worker', workers: 2 };
    const view = scenarioViews(r).find((v) => v.scenario === worker.point.scenario)!;
    const at = (metric: string) =>
      view.efficiency
        .filter((s) => s.metric === metric)
        .flatMap((s) => s.values)
        .find((v) => v.pointId === worker.point.id)!;
    expect(at('main thread').y).toBeNull();
    expect(at('tab renderer process').y).toBe(worker.summary!.efficiency.eventsPerCpuSecRenderer!.mean);
  });

  it('EPS against the varied factor: one line per transport, the mean of the repeats, whiskers at the CI', () => {
    const r = load();
    const view = views().find((v) => v.kind === 'line')!;
    const config = epsChart(view, { reference: false, logX: false }) as LineConfig;
    expect(config.data.datasets.map((d) => d.label)).toEqual(['ws', 'sse']);
    for (const d of config.data.datasets) {
      const points = r.points.filter((p) => p.point.scenario === view.scenario && p.point.transport === d.label).sort((a, b) => a.point.batch - b.point.batch);
      expect(d.data).toEqual(points.map((p) => ({ x: p.point.batch, y: p.summary!.eventsPerSec.mean })));
    }
    const ws = view.eps[0].values;
    expect(ws.map((v) => [v.ciLow, v.ciHigh])).toEqual(
      r.points
        .filter((p) => p.point.scenario === view.scenario && p.point.transport === 'ws')
        .sort((a, b) => a.point.batch - b.point.batch)
        .map((p) => [p.summary!.eventsPerSec.ciLow, p.summary!.eventsPerSec.ciHigh]),
    );
    expect(config.options?.scales?.y?.title).toMatchObject({ text: 'events/s received by the tab' });
  });

  it('the reference overlay is added only when asked, and only against its factor', () => {
    const view = views().find((v) => v.kind === 'line')!;
    const without = epsChart(view, { reference: false, logX: false }) as LineConfig;
    const withRef = epsChart(view, { reference: true, logX: false }) as LineConfig;
    expect(withRef.data.datasets.length - without.data.datasets.length).toBe(view.reference.filter((f) => f.eventsPerSec !== null).length);
    expect(view.reference.every((f) => f.factor === 'batch')).toBe(true);
  });

  it('events per CPU-second names its CPU: the tab renderer process solid, its main thread dashed', () => {
    const r = load();
    const view = views().find((v) => v.kind === 'line')!;
    const config = efficiencyChart(view, { reference: false, logX: false }) as LineConfig;
    expect(config.data.datasets.map((d) => [d.label, d.borderDash])).toEqual([
      ['ws · tab renderer process', []],
      ['ws · main thread', [6, 4]],
      ['sse · tab renderer process', []],
      ['sse · main thread', [6, 4]],
    ]);
    const p = r.points.find((x) => x.point.id === view.efficiency[0].values[0].pointId)!;
    expect(config.data.datasets[0].data[0].y).toBe(p.summary!.efficiency.eventsPerCpuSecRenderer!.mean);
  });

  it('a scenario that varies only the transport draws bars, outlined in verdict colours', () => {
    const r = load();
    const view = views().find((v) => v.scenario === 'smoke')!;
    expect(view.kind).toBe('bar');
    const config = epsChart(view, { reference: false, logX: false }) as BarConfig;
    expect(config.data.labels).toEqual([['ws'], ['sse']]);
    expect(config.data.datasets[0].data).toEqual(r.points.filter((p) => p.point.scenario === 'smoke').map((p) => p.summary!.eventsPerSec.mean));
    expect(config.data.datasets[0].borderColor).toHaveLength(2);
  });

  it('per-process CPU is stacked per point from the means of the repeats', () => {
    const r = load();
    const view = views().find((v) => v.scenario === 'smoke')!;
    const config = cpuChart(view);
    expect(config.data.datasets.map((d) => d.label)).toEqual([
      'tab renderer (all threads)',
      'network service',
      'browser process',
      'GPU process',
      'pushlab server',
    ]);
    expect(config.data.datasets.every((d) => d.stack === 'cpu')).toBe(true);
    const ws = r.points.find((p) => p.point.id === 'smoke/ws-b20-c4-i1-full')!.summary!.cpu;
    expect(config.data.datasets.map((d) => d.data[0])).toEqual([ws.tabProcess!.mean, ws.network!.mean, ws.browser!.mean, ws.gpu!.mean, ws.server.mean]);
  });

  it('puts the run’s paired WS/SSE verdicts, in words, on their scenario', () => {
    const r = load();
    const smoke = views().find((v) => v.scenario === 'smoke')!;
    expect(smoke.verdicts.map((v) => v.comparison.text)).toEqual(r.comparisons.filter((c) => c.a.startsWith('smoke/')).map((c) => c.text));
    const batch = views().find((v) => v.kind === 'line')!;
    expect(batch.verdicts[0].about).toMatch(/^batch \d+$/);
  });
});

describe('latency axis', () => {
  it('keeps labels few and short, however many decades the data span', () => {
    for (const [lo, hi] of [
      [0.05, 2000],
      [0.3, 40],
      [0.001, 60_000],
    ]) {
      const axis = logAxis([lo, hi]);
      expect(axis.ticks.length).toBeLessThanOrEqual(8);
      for (const t of axis.ticks) expect(formatMsShort(t).length).toBeLessThanOrEqual(6);
    }
    expect(logAxis([0.3, 40]).ticks).toEqual([0.1, 0.3, 1, 3, 10, 30, 100]);
    expect(formatMsShort(5000)).toBe('5 s');
    expect(formatMsShort(20)).toBe('20 ms');
    expect(formatMsShort(0.5)).toBe('500 µs');
  });

  it('combines a point’s repeats: medians of the quantiles, extremes of the whiskers', () => {
    const r = load();
    const box = latencyBoxes(r)[0];
    const reps = measured(r.points[0]);
    expect(box.p99Ms).toBe(median(reps.map((x) => x.latency.p99Ms!)));
    expect(box.maxMs).toBe(Math.max(...reps.map((x) => x.latency.maxMs!)));
    expect(box.repeats).toBe(3);
  });
});

describe("the terminal's notes: one line a point, after the verdicts", () => {
  /**
   * A sweep of many saturated points, as the default sweep on a busy machine gives: every point
   * client-bound in every round, the window started behind, the same per-round notes on each.
   */
  function saturated(): Report {
    const points = ['headline-batch', 'headline-concurrency', 'headline-interval'].flatMap((scenario) =>
      (['ws', 'sse'] as const).flatMap((t) => [50, 100, 400, 1000].map((b) => v2.point(t, b, 10, scenario))),
    );
    const results = points.map((p) => {
      const repeats = [0, 1, 2].map((round) =>
        v2.measured(p, {
          round,
          eps: 300_000 + round * 10_000,
          verdict: 'client-bound',
          startedBehind: true,
          notes: [
            'tab main thread 98% busy: the page could not take more',
            'host CPU 196% of 200%: the machine was saturated',
            `${round + 1}000 batches missing at the page; the server shed ${round + 2}000 in the window`,
          ],
        }),
      );
      return { ...v2.result(p, repeats), ...summarisePoint(p, repeats) };
    });
    return v2.report(results, { comparisons: pairedComparisons(results) });
  }

  it('gives each saturated point one line, with its verdict, rounds, flags and note count; the verdicts come first', () => {
    const report = saturated();
    expect(report.points.length).toBeGreaterThanOrEqual(20);
    const text = formatTable(report, { width: DEFAULT_TABLE_WIDTH });
    const lines = text.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(DEFAULT_TABLE_WIDTH);
    // One line a point below the table, none wrapped (a wrapped line starts with two spaces).
    const heading = lines.findIndex((l) => l.startsWith('Per point, what limited it'));
    expect(heading).toBeGreaterThan(0);
    const notes = lines.slice(heading + 1);
    expect(notes).toEqual(report.points.map((p) => `${p.point.id}: client-bound in rounds 1–3; unsteady: backlog 1–3; 5 notes`));
    // The paired verdicts are all there, right after the table, before any note.
    const verdicts = verdictLines(report);
    expect(verdicts.length).toBeGreaterThan(5);
    const transports = lines.indexOf('Transports compared, paired by round (95% CI):');
    expect(transports).toBeGreaterThan(lines.findIndex((l) => l.includes('more columns:')));
    expect(transports).toBeLessThan(heading);
    const words = (t: string) => t.replace(/\s+/g, ' ');
    for (const v of verdicts) expect(words(text)).toContain(words(v));
    // Each note once per round was the old summary's bulk: none of it is printed.
    expect(text).not.toContain('the machine was saturated');
    expect(text).not.toMatch(/^unsteady: /m);
    // --wide keeps every flag and note in full.
    const wide = formatTable(report, { wide: true });
    for (const p of report.points) {
      expect(wide).toContain(`unsteady: ${p.point.id}: the window started before page and server had caught up in rounds 1, 2, 3`);
      expect(wide).toContain(`${p.point.id}: ${p.notes.join('; ')}`);
    }
  });

  it('says nothing of a steady point that was ok in every round; names the rounds of each other verdict and flag', () => {
    const p = v2.point('ws', 20);
    const steady = [0, 1, 2].map((round) => v2.measured(p, { round, eps: 200_000 }));
    expect(pointLine({ ...v2.result(p, steady), ...summarisePoint(p, steady) })).toBeNull();
    const mixed = [
      v2.measured(p, { round: 0, eps: 200_000, verdict: 'host-bound', notes: ['host CPU 199% of 200%: the machine was saturated'] }),
      v2.measured(p, { round: 1, eps: 200_000, startedBehind: true }),
      v2.failed(2),
      v2.measured(p, { round: 3, eps: 200_000, startedBehind: true }),
    ];
    const line = pointLine({ ...v2.result(p, mixed), ...summarisePoint(p, mixed) });
    expect(line).toBe('test1-batch/ws-b20-c10-i1-full: ok in rounds 2,4 (host-bound in 1, failed in 3); unsteady: backlog 2,4; 1 note');
    expect(pointLines({ points: [{ ...v2.result(p, steady), ...summarisePoint(p, steady) }] })).toEqual([]);
  });
});

describe('points table', () => {
  it('one row per point, a cell per column, details with the raw repeats', () => {
    const r = load();
    const rows = tableRows(r);
    expect(rows).toHaveLength(r.points.length);
    for (const row of rows) expect(row.cells).toHaveLength(TABLE_COLUMNS.length);
    expect(rows[0].details.repeats).toHaveLength(3);
  });

  it("leads with the figures: the point, EPS, delivered, tab main CPU, p99, input p99 and verdict, then the point's configuration", () => {
    expect(TABLE_COLUMNS.slice(0, LEADING_COLUMNS.length).map((c) => c.label)).toEqual([
      'point',
      'EPS',
      'delivered %',
      'tab main %',
      'p99 ms',
      'input p99 ms',
      'verdict',
    ]);
    expect(TABLE_COLUMNS[LEADING_COLUMNS.length].id).toBe('scenario');
    // Every column once; the CSV keeps the catalogue's order (its golden files pin it).
    expect([...TABLE_COLUMNS].sort((a, b) => a.id.localeCompare(b.id))).toEqual([...COLUMNS].sort((a, b) => a.id.localeCompare(b.id)));
    expect(COLUMNS[1].id).toBe('scenario');
  });

  it('sorts by any column, numbers as numbers, missing values last', () => {
    const rows = tableRows(load());
    const eps = TABLE_COLUMNS.findIndex((c) => c.id === 'eventsPerSec');
    const desc = sortRows(rows, eps, 'desc').map((x) => x.cells[eps].sort as number);
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const id = TABLE_COLUMNS.findIndex((c) => c.id === 'pointId');
    expect(sortRows(rows, id, 'asc')[0].pointId).toBe([...rows.map((x) => x.pointId)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0]);
  });
});

describe('comparison', () => {
  it('EPS scaled by 0.8 is a regression at every point of a steady run; an unchanged copy is none', () => {
    // Three repeats within ±1.5% of each other, as an idle machine gives below saturation.
    const points = (['ws', 'sse'] as const).flatMap((t) =>
      [50, 100, 200].map((b) => {
        const p = v2.point(t, b);
        const repeats = [0.985, 1, 1.015].map((f, round) => v2.measured(p, { round, eps: p.offeredEventsPerSec * f }));
        return { ...v2.result(p, repeats), ...summarisePoint(p, repeats) };
      }),
    );
    const steady = v2.report(points) as unknown as Report;
    const worse = compareReports(steady, v2.scaledReport(steady, 0.8));
    expect(worse.points).toHaveLength(6);
    for (const p of worse.points) {
      expect(p.metrics[0].ratio).toBeCloseTo(0.8, 10);
      expect(p.metrics[0].verdict, p.key).toBe('worse');
      expect(p.verdict).toBe('worse');
    }
    expect(worse.regressions).toBe(6);
    expect(formatComparison(worse)).toContain('6 regressed');
    const same = compareReports(steady, structuredClone(steady));
    expect(same.regressions + same.improvements).toBe(0);
    // Identical steady runs: EPS both kept up, CPU per event inside ±5%, p99 no difference.
    expect(same.points.every((p) => p.verdict === 'equivalent')).toBe(true);
  });

  it('on the recorded (noisy) run: 0.8 is flagged wherever the noise allows, never as better; an unchanged copy flags nothing', () => {
    const r = load();
    const worse = compareReports(r, v2.scaledReport(r, 0.8));
    for (const p of worse.points) {
      const eps = p.metrics[0];
      expect(eps.ratio).toBeCloseTo(0.8, 10);
      expect(['worse', 'same']).toContain(eps.verdict);
      // Repeats within ±5% (CI half-width of the log ratio well under |log 0.8|) must show it.
      if (relativeHalfWidth(p.a.summary!.eventsPerSec)! < 0.05) expect(eps.verdict, p.key).toBe('worse');
    }
    expect(worse.improvements).toBe(0);
    expect(worse.regressions).toBeGreaterThan(0);
    const same = compareReports(r, structuredClone(r));
    expect(same.regressions + same.improvements).toBe(0);
  });

  it('the ratio CI is the delta method on logs with Welch df: reciprocal when the sides swap', () => {
    const a = describeStat([100, 110, 90]);
    const b = describeStat([80, 85, 75]);
    const ab = ratioOfMeans(a, b)!;
    const ba = ratioOfMeans(b, a)!;
    expect(ab.ratio).toBeCloseTo(0.8, 12);
    expect(ab.ciLow! * ba.ciHigh!).toBeCloseTo(1, 12);
    expect(ab.ciHigh! * ba.ciLow!).toBeCloseTo(1, 12);
    expect(ratioOfMeans(describeStat([1]), describeStat([2]))).toEqual({ ratio: 2, ciLow: null, ciHigh: null });
  });

  it('two scenarios of one run are matched by point id without the scenario', () => {
    const r = load();
    const copy = structuredClone(r);
    for (const p of copy.points.filter((x) => x.point.scenario === 'smoke')) {
      const q = structuredClone(p);
      q.point.scenario = 'smoke-again';
      q.point.id = q.point.id.replace('smoke/', 'smoke-again/');
      copy.points.push(q);
    }
    const cmp = compareScenarios(copy, 'smoke', 'smoke-again');
    expect(cmp.points.map((p) => p.key)).toEqual(['ws-b20-c4-i1-full', 'sse-b20-c4-i1-full']);
    expect(cmp.regressions).toBe(0);
    expect(cmp.sameRun).toBe(true);
  });

  it("two one-point scenarios compare their points whatever differs (advise's confirm file)", () => {
    const r = load();
    const copy = structuredClone(r);
    const [ws, sse] = ['ws', 'sse'].map((t) => structuredClone(copy.points.find((p) => p.point.scenario === 'smoke' && p.point.transport === t)!));
    ws.point.scenario = 'advised';
    ws.point.id = ws.point.id.replace('smoke/', 'advised/');
    sse.point.scenario = 'runner-up';
    sse.point.id = sse.point.id.replace('smoke/', 'runner-up/');
    copy.points.push(ws, sse);
    const cmp = compareScenarios(copy, 'runner-up', 'advised', { eventsPerSec: 0.1, cpuPerEvent: 0.2 });
    expect(cmp.points.map((p) => p.key)).toEqual(['ws-b20-c4-i1-full ÷ sse-b20-c4-i1-full']);
    expect(cmp.points[0].a.point.id).toBe('runner-up/sse-b20-c4-i1-full');
    expect(cmp.points[0].metrics.map((m) => m.margin)).toEqual([0.1, 0.2, 0]);
    expect(formatComparison(cmp)).toContain('unpaired, so cautious: the two scenarios ran in the same rounds');
  });
});

describe('the browsers of a sharded sweep', () => {
  /** The fixture as if dealt over two remote browsers on one machine, one of them lost. */
  function sharded(): Report {
    const r = load();
    const host = (id: string, other: string) => ({
      id,
      origin: 'remote' as const,
      endpoint: `http://${id}/`,
      host: 'localhost',
      version: 'Chrome/156.0.8078.79',
      userAgent: 'HeadlessChrome',
      headless: true,
      cores: 2,
      cpuModel: null,
      machineModel: null,
      architecture: 'x86-64',
      kind: 'x86-64 · 2 cores',
      procfs: false,
      serverSharesHost: true,
      sharesHostWith: [other],
    });
    r.hosts = [
      host('127.0.0.1:9222', '127.0.0.1:9223'),
      { ...host('127.0.0.1:9223', '127.0.0.1:9222'), lost: { at: '2026-11-24T15:55:00.000Z', error: 'Target closed' } },
    ];
    r.points.forEach((p, i) => p.repeats.forEach((rep) => (rep.browserId = r.hosts![i % 2].id)));
    for (const round of r.rounds) {
      round.hostCeilings = [
        { browser: '127.0.0.1:9222', parseCeilings: round.parseCeilings.slice(0, 1) },
        { browser: '127.0.0.1:9223', parseCeilings: round.parseCeilings.slice(1) },
      ];
      round.parseCeilings = [];
    }
    return r;
  }

  it("heads a run with JSON.parse's ceiling per batch size and another encoding's as one range", () => {
    const r = load();
    r.rounds = r.rounds.map((round, i) => ({
      ...round,
      parseCeilings: [
        { batch: 400, eventsPerSec: 4_000_000 + i * 100_000, messages: 64, bytesPerMessage: 53_000, durationMs: 1000 },
        { batch: 4000, eventsPerSec: 190_000_000 + i, messages: 64, bytesPerMessage: 200_000, durationMs: 1000, encoding: 'arrow' as const },
        { batch: 10000, eventsPerSec: 520_000_000, messages: 64, bytesPerMessage: 500_000, durationMs: 1000, encoding: 'arrow' as const },
      ],
    }));
    const value = runHeader(r).fields.find((f) => f.label === 'JSON.parse ceiling')!.value;
    expect(value).toMatch(/^batch 400: 4 M – 4\.\d+ M EPS · arrow 190 M – 520 M EPS$/);
  });

  it('lists each browser with its endpoint, what could not be read, whom it competed with, its own ceiling and its points', () => {
    const r = sharded();
    const rows = browserRows(r);
    expect(rows.map((b) => [b.id, b.where, b.procfs, b.serverSharesHost, b.competesWith, b.cpu, b.points])).toEqual([
      ['127.0.0.1:9222', 'http://127.0.0.1:9222/', 'no: shown as —', 'yes', '127.0.0.1:9223', 'none over CDP', 4],
      ['127.0.0.1:9223', 'http://127.0.0.1:9223/', 'no: shown as —', 'yes', '127.0.0.1:9222', 'none over CDP', 4],
    ]);
    expect(rows[0].ceiling).toMatch(/^batch \d+: /);
    expect(rows[0].ceiling).not.toBe(rows[1].ceiling);
    expect(rows[1].lost).toMatch(/Target closed$/);
    expect(runHeader(r).fields.find((f) => f.label === 'JSON.parse ceiling')!.value).toBe('per browser (Browsers, below)');
  });

  it("names the Grid node a session ran on (its machine, not the hub in se:cdp), and a clock on the server's machine as not applied", () => {
    const r = sharded();
    r.hosts![0] = {
      ...r.hosts![0],
      gridNode: { id: 'df0ae9af-adb8-476f-b542-bab79bd67259', uri: 'http://10.0.0.7:5555' },
      clock: { offsetMs: 1.928, uncertaintyMs: 3.3 },
    };
    r.hosts![1] = { ...r.hosts![1], serverSharesHost: false, clock: { offsetMs: -0.4, uncertaintyMs: 0.8 } };
    const [onGrid, apart] = browserRows(r);
    expect(onGrid.gridNode).toBe('Grid node http://10.0.0.7:5555, id df0ae9af');
    expect(onGrid.clock).toBe('+1.93 ms ±3.3 (not applied: one machine, one clock)');
    expect(apart.gridNode).toBe('');
    expect(apart.clock).toBe('-0.4 ms ±0.8');
    expect(browserLines(r)[0]).toContain('host localhost (Grid node http://10.0.0.7:5555, id df0ae9af) (');
  });

  it('has no browsers table for a sweep on its own launched Chrome', () => {
    expect(browserRows(load())).toEqual([]);
  });
});

describe('the one check and the file that travels', () => {
  it('refuses another schemaVersion, saying which ones this build reads', () => {
    const v1 = { ...JSON.parse(fixtureText), schemaVersion: 1 };
    expect(() => parseReport(v1, 'old.json')).toThrow('old.json: this build reads schemaVersion 4, and 2, 3 converted to it on read; got 1');
    expect(() => parseReport(v1, 'old.json')).toThrow(PushlabError);
    expect(() => parseReportText('{', 'x.json')).toThrow(
      'x.json: not valid JSON: line 1, column 2: expected a property name in double quotes, found the end of the text',
    );
    const broken = JSON.parse(fixtureText);
    broken.points[2].point.batch = 'many';
    expect(() => parseReport(broken, 'b.json')).toThrow('b.json: points[2].point.batch must be an integer from 1 to 100000, got "many"');
  });

  it('embeds the report so no string can close the script element', () => {
    const r = load();
    r.points[0].notes = ['</script><script>alert(1)</script> $& $1 \u2028'];
    const html = reportHtml('<html><body><script type="application/json" id="report-data"></script></body></html>', r);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const json = /id="report-data">(.*)<\/script>/s.exec(html)![1];
    expect(json).toBe(scriptSafeJson(r));
    expect(embeddedReport(json)!.points[0].notes[0]).toBe(r.points[0].notes[0]);
  });

  it('the served index: names from either listing shape, one entry per run with its headline', () => {
    expect(runNamesFromListing({ dirs: ['example', '20261122-010000', '20261123-010000'], files: [] })).toEqual([
      '20261123-010000',
      '20261122-010000',
      'example',
    ]);
    expect(runNamesFromListing(['README.md', 'a/'])).toEqual(['a']);
    const entry = runEntry('x', load());
    expect(entry.headline).toMatch(/^8 points × 3 repeats · best ws .* EPS · best sse .* EPS$/);
    expect(viewRequest('?run=B&compare=A&scenarios=a,b')).toEqual({ run: 'B', compare: 'A', scenarios: ['a', 'b'] });
    expect(() => viewRequest('?scenarios=a')).toThrow(/two scenario ids/);
  });
});
