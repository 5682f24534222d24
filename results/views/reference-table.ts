/**
 * A `timeplus` run beside the reference experiment's published figures, as markdown: EPS
 * against batch size at 10 connections (Test I), against concurrency at batch 50 (Test II),
 * the realistic loads of Test III, the tab's CPU where each transport peaked, where each one
 * saturates, and the WS ÷ SSE ratios with their confidence intervals. Pure: report in, text out.
 */
import { MISSING } from '../format.js';
import { printable } from '../printable.js';
import { REFERENCE_FIGURES, REFERENCE_FINDINGS } from '../reference.js';
import type { Stat } from '../../protocol/repeat-figures.js';
import type { PairedComparison, PointResult, Report, SaturationResult } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import type { Transport } from '../../protocol/wire.js';
import { pairedComparisons } from '../point-summary.js';
import { pairKey } from '../rounds.js';
import { SUSTAINS_DELIVERED_RATIO } from '../sustains.js';

/** Columns in transport order: WS first, as the reference names them. */
const TRANSPORTS = ['ws', 'sse'] as const satisfies readonly Transport[];
const NAME: Record<(typeof TRANSPORTS)[number], string> = { ws: 'WS', sse: 'SSE' };

type Factor = 'batch' | 'concurrency';

/** `1.52 M`, `412 k`: a count with an SI prefix, three significant digits. */
function compact(v: number, scale = prefixFor(v)): string {
  return `${Number((v / scale.div).toPrecision(3))}${scale.suffix}`;
}
function prefixFor(v: number): { div: number; suffix: string } {
  if (Math.abs(v) >= 1e6) return { div: 1e6, suffix: ' M' };
  if (Math.abs(v) >= 1e3) return { div: 1e3, suffix: ' k' };
  return { div: 1, suffix: '' };
}

/** `1.52 M (CI 1.41–1.63 M)`: the median, and the 95% CI of the mean in the same unit. */
function epsCell(s: Stat | null | undefined): string {
  if (!s) return MISSING;
  const scale = prefixFor(s.median);
  const n = (v: number) => `${Number((v / scale.div).toPrecision(3))}`;
  return s.ciLow === null || s.ciHigh === null
    ? `${compact(s.median, scale)} (n = 1)`
    : `${compact(s.median, scale)} (CI ${n(s.ciLow)}–${n(s.ciHigh)}${scale.suffix})`;
}

/** `97%`: CPU as % of one core, median over the repeats. */
const cpuCell = (s: Stat | null | undefined) => (s ? `${Math.round(s.median)}%` : MISSING);
/** `12 ms`: a latency, median over the repeats. */
const msCell = (s: Stat | null | undefined) => (s ? `${Number(s.median.toPrecision(2))} ms` : MISSING);

/** `0.87 (CI 0.80–0.95)`: WS ÷ SSE from a comparison stored either way round. */
function ratioCell(c: PairedComparison | undefined, wsIsA: boolean): string {
  if (!c) return MISSING;
  const flip = (v: number) => (wsIsA ? 1 / v : v);
  const ratio = flip(c.ratio).toFixed(2);
  if (c.ciLow === null || c.ciHigh === null) return `${ratio} (1 round)`;
  const [lo, hi] = [flip(c.ciLow), flip(c.ciHigh)].sort((x, y) => x - y);
  const mark = c.better === 'none' ? '' : ' ✱';
  return `${ratio} (CI ${lo.toFixed(2)}–${hi.toFixed(2)})${mark}`;
}

/** A Markdown table; each cell one printable line (results/printable.ts), since a cell can quote a report's text. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => printable(c)).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The points of one test: those matching `where`, from the one experiment (every field but
 * transport and the swept factor alike) that covers the most values of the factor, so a
 * point another scenario also measured (batch 50 × 10 is in Tests I and II) is not doubled.
 */
function sweepOf(points: readonly PointResult[], factor: Factor, where: (p: Point) => boolean): PointResult[] {
  const groups = new Map<string, PointResult[]>();
  for (const r of points.filter((r) => where(r.point))) {
    const key = pairKey({ ...r.point, [factor]: 0 });
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const distinct = (g: PointResult[]) => new Set(g.map((r) => r.point[factor])).size;
  return [...groups.values()].sort((x, y) => distinct(y) - distinct(x))[0] ?? [];
}

interface Lookup {
  comparisons: readonly PairedComparison[];
}

/** The comparison of the WS and SSE points at one value of the factor, and whether WS is its A side. */
function comparisonFor(lookup: Lookup, ws: PointResult | undefined, sse: PointResult | undefined, metric: PairedComparison['metric']) {
  if (!ws || !sse) return { c: undefined, wsIsA: true };
  const c = lookup.comparisons.find(
    (c) => c.metric === metric && ((c.a === ws.point.id && c.b === sse.point.id) || (c.a === sse.point.id && c.b === ws.point.id)),
  );
  return { c, wsIsA: c?.a === ws.point.id };
}

/** One row per value of the factor: each transport's EPS and tab CPU, and the WS ÷ SSE ratios. */
function sweepTable(sweep: readonly PointResult[], factor: Factor, lookup: Lookup): string {
  const values = [...new Set(sweep.map((r) => r.point[factor]))].sort((a, b) => a - b);
  const at = (t: Transport, v: number) => sweep.find((r) => r.point.transport === t && r.point[factor] === v);
  const rows = values.map((v) => {
    const ws = at('ws', v);
    const sse = at('sse', v);
    const offered = (ws ?? sse)!.point.offeredEventsPerSec;
    const eps = comparisonFor(lookup, ws, sse, 'eventsPerSec');
    const cpu = comparisonFor(lookup, ws, sse, 'rendererCpuMsPerMillionEvents');
    return [
      String(v),
      compact(offered),
      ...TRANSPORTS.map((t) => epsCell(at(t, v)?.summary?.eventsPerSec)),
      ...TRANSPORTS.map((t) => cpuCell(at(t, v)?.summary?.cpu.tabProcess)),
      ratioCell(eps.c, eps.wsIsA),
      ratioCell(cpu.c, cpu.wsIsA),
    ];
  });
  return table([factor, 'offered EPS', 'WS EPS', 'SSE EPS', 'WS tab CPU', 'SSE tab CPU', 'WS ÷ SSE EPS', 'WS ÷ SSE renderer CPU per event'], rows);
}

/** Where a transport stops keeping up along a factor: from `--find-max` when it ran, else the sweep's points. */
function saturationCell(sweep: readonly PointResult[], factor: Factor, transport: Transport, found: readonly SaturationResult[]): string {
  const search = found.find((s) => s.transport === transport && s.varied === factor);
  if (search) {
    if (!search.knee) return `none sustainable (from ${search.probes[0]?.value ?? '?'}: ${search.firstPast?.reason ?? 'not sustainable'}) [find-max]`;
    const past = search.firstPast ? `; ${search.firstPast.value} not (${search.firstPast.reason})` : '';
    return `${factor} ${search.knee.value}: ${epsCell(search.knee.eventsPerSec)}${past} [find-max]`;
  }
  const mine = sweep.filter((r) => r.point.transport === transport && r.summary).sort((a, b) => a.point[factor] - b.point[factor]);
  if (!mine.length) return MISSING;
  const sustained = mine.filter((r) => r.summary!.deliveredRatio.median >= SUSTAINS_DELIVERED_RATIO);
  const last = sustained.at(-1);
  const past = mine.find((r) => r.point[factor] > (last?.point[factor] ?? 0) && r.summary!.deliveredRatio.median < SUSTAINS_DELIVERED_RATIO);
  const pastText = past
    ? `; ${factor} ${past.point[factor]} delivered ${(past.summary!.deliveredRatio.median * 100).toFixed(1)}%`
    : '; kept up at every value swept';
  return last ? `${factor} ${last.point[factor]}: ${epsCell(last.summary!.eventsPerSec)}${pastText}` : `none kept up${pastText}`;
}

/** Each transport's peak EPS along a sweep, and the tab's CPU there. */
function peakRows(test: string, sweep: readonly PointResult[], factor: Factor): string[][] {
  return TRANSPORTS.flatMap((t) => {
    const peak = sweep.filter((r) => r.point.transport === t && r.summary).sort((a, b) => b.summary!.eventsPerSec.median - a.summary!.eventsPerSec.median)[0];
    const ref = REFERENCE_FIGURES.find((f) => f.transport === t && f.factor === factor && f.test === test);
    const refText = ref
      ? `≈ ${compact(ref.eventsPerSec)} at ${ref.x === null ? 'its max' : `${factor} ${ref.x}`}, tab ${ref.tabCpuPercent === null ? 'not given' : `${ref.tabCpuPercent}%`}`
      : MISSING;
    if (!peak) return [[test, NAME[t], MISSING, MISSING, MISSING, MISSING, refText]];
    const s = peak.summary!;
    return [[test, NAME[t], `${factor} ${peak.point[factor]}`, epsCell(s.eventsPerSec), cpuCell(s.cpu.tabProcess), cpuCell(s.cpu.tabMainThread), refText]];
  });
}

/** Test III: the fixed realistic loads (100,000 EPS every 50 ms), where the CPU per event is the story. */
function testIIITable(points: readonly PointResult[], lookup: Lookup): string | null {
  const loads = [
    { concurrency: 20, batch: 250 },
    { concurrency: 100, batch: 50 },
  ];
  const rows = loads.flatMap(({ concurrency, batch }) => {
    const sweep = sweepOf(points, 'batch', (p) => p.concurrency === concurrency && p.batch === batch && p.intervalMs === 50);
    if (!sweep.length) return [];
    const ws = sweep.find((r) => r.point.transport === 'ws');
    const sse = sweep.find((r) => r.point.transport === 'sse');
    const eps = comparisonFor(lookup, ws, sse, 'eventsPerSec');
    const cpu = comparisonFor(lookup, ws, sse, 'rendererCpuMsPerMillionEvents');
    return [
      [
        `${concurrency} × ${batch} every 50 ms`,
        epsCell(ws?.summary?.eventsPerSec),
        epsCell(sse?.summary?.eventsPerSec),
        cpuCell(ws?.summary?.cpu.tabProcess),
        cpuCell(sse?.summary?.cpu.tabProcess),
        msCell(ws?.summary?.latencyP99Ms),
        msCell(sse?.summary?.latencyP99Ms),
        ratioCell(eps.c, eps.wsIsA),
        ratioCell(cpu.c, cpu.wsIsA),
      ],
    ];
  });
  if (!rows.length) return null;
  return table(['load', 'WS EPS', 'SSE EPS', 'WS tab CPU', 'SSE tab CPU', 'WS p99', 'SSE p99', 'WS ÷ SSE EPS', 'WS ÷ SSE renderer CPU per event'], rows);
}

/**
 * The markdown reproduction table of a `timeplus` run: one section per reference test, each
 * with the published finding beside our medians and CIs, and a caption saying what may be
 * compared. Sections with no matching points are left out.
 */
export function referenceTable(report: Report): string {
  const lookup: Lookup = {
    comparisons: report.comparisons.length ? report.comparisons : pairedComparisons(report.points, report.hosts, report.options.margins),
  };
  const testI = sweepOf(report.points, 'batch', (p) => p.concurrency === 10 && p.intervalMs === 1);
  const testII = sweepOf(report.points, 'concurrency', (p) => p.batch === 50 && p.intervalMs === 1);
  const env = report.environment;
  const rounds = Math.max(0, ...report.points.map((r) => r.summary?.n ?? 0));
  const out: string[] = [
    `## The reference reproduced: run ${report.runId}`,
    '',
    `Timeplus (2022) measured on an Apple M1 Pro with Chrome 103; this run is Chromium ${env.chromeVersion} on ${env.cpuModel} (${env.cores} cores), ` +
      `up to ${rounds} repeat${rounds === 1 ? '' : 's'} per point. **Compare shapes and ratios, not absolute EPS**: the machines differ. ` +
      'EPS cells are the median with the 95% CI of the mean over the repeats; CPU is the tab renderer process, % of one core (median); ' +
      'ratios are WS ÷ SSE, the geometric mean of per-round ratios with its 95% CI; ✱ marks a CI that excludes 1.',
  ];
  if (testI.length) {
    out.push(
      '',
      '### Test I: EPS against batch size, 10 connections, 1 ms interval',
      '',
      sweepTable(testI, 'batch', lookup),
      '',
      `Reference: ${REFERENCE_FINDINGS.testI}.`,
    );
  }
  if (testII.length) {
    out.push(
      '',
      '### Test II: EPS against concurrency, batch 50, 1 ms interval',
      '',
      sweepTable(testII, 'concurrency', lookup),
      '',
      `Reference: ${REFERENCE_FINDINGS.testII}.`,
    );
  }
  const testIII = testIIITable(report.points, lookup);
  if (testIII)
    out.push('', '### Test III: realistic loads, 100,000 EPS offered', '', testIII, '', `Reference: ${REFERENCE_FINDINGS.testIII}; ${REFERENCE_FINDINGS.cpu}.`);
  if (testI.length || testII.length) {
    out.push(
      '',
      '### Tab CPU at each transport’s peak',
      '',
      table(
        ['test', 'transport', 'peak at', 'EPS', 'tab CPU', 'main thread', 'reference'],
        [...peakRows('Test I', testI, 'batch'), ...peakRows('Test II', testII, 'concurrency')],
      ),
      '',
      '### Where each transport saturates',
      '',
      table(
        ['transport', 'Test I (batch, 10 connections)', 'Test II (concurrency, batch 50)'],
        TRANSPORTS.map((t) => [NAME[t], saturationCell(testI, 'batch', t, report.saturation), saturationCell(testII, 'concurrency', t, report.saturation)]),
      ),
      '',
      `Saturation is the highest value that delivered ≥ ${SUSTAINS_DELIVERED_RATIO * 100}% of offered (median over repeats), ` +
        'or the confirmed knee of `--find-max` (≥ 99% delivered, nothing lost, pooled p99 within its bound) where that ran.',
    );
  }
  return out.join('\n') + '\n';
}
