/**
 * Comparison of two runs (or two scenarios of one run), point by point: for each metric the
 * ratio B ÷ A of the means over repeats, a 95% CI of that ratio, and a verdict.
 *
 * The two sides were measured in different runs, so their repeats are NOT paired (the
 * per-round pairing of report.comparisons only holds inside one run). The interval is the
 * delta method on the log scale: log(mean B ÷ mean A) ± t × √(sdA²/(nA·meanA²) +
 * sdB²/(nB·meanB²)), with Welch–Satterthwaite degrees of freedom, transformed back, so it is
 * asymmetric and B ÷ A and A ÷ B give reciprocal intervals. Both sides need 2 repeats or more.
 * Each metric is read against its practical margin (results/equivalence.ts): `better` or
 * `worse` only when the whole interval lies beyond it, `equivalent` when it lies inside it, EPS
 * `kept-up` where both runs delivered what was offered, else `same` (no clear difference). So
 * `--compare` exits 1 only on a regression beyond the margin. Latency p99 has no margin yet: it
 * is `worse` when its interval excludes 1.
 */
import { COLUMNS, type StatColumn } from './columns.js';
import { type Margins, DEFAULT_MARGINS } from '../protocol/margins.js';
import { bothKeptUp, judgeRatio } from './equivalence.js';
import { formatFactor, formatSig3, MISSING } from './format.js';
import type { Stat } from '../protocol/repeat-figures.js';
import type { PointResult, Report } from '../protocol/report.js';
import { tQuantile975 } from './stats.js';

export type Direction = 'higher' | 'lower';

export interface ComparedMetric {
  column: StatColumn;
  /** Which way is better. */
  better: Direction;
  /** Its practical margin as a share; 0 (none) where no margin is stated. */
  margin(m: Margins): number;
}

function statColumn(id: string): StatColumn {
  const c = COLUMNS.find((x): x is StatColumn => x.id === id && x.kind === 'stat');
  if (!c) throw new Error(`results/columns.ts has no stat column '${id}'`);
  return c;
}

/** EPS higher is better; renderer CPU per million events and latency p99 lower is better. */
export const COMPARED_METRICS: readonly ComparedMetric[] = [
  { column: statColumn('eventsPerSec'), better: 'higher', margin: (m) => m.eventsPerSec },
  { column: statColumn('rendererCpuMsPerMillionEvents'), better: 'lower', margin: (m) => m.cpuPerEvent },
  { column: statColumn('latencyP99Ms'), better: 'lower', margin: () => 0 },
];

/**
 * `better`/`worse`: the CI lies beyond the margin in that direction. `equivalent`: inside it.
 * `kept-up` (EPS): both runs delivered ≥ 99% of offered, so EPS is the offered rate on both.
 * `same`: no clear difference (the CI straddles the margin). `no-ci`: a side has fewer than 2
 * repeats. `missing`: a side has no figure.
 */
export type MetricVerdict = 'better' | 'worse' | 'equivalent' | 'kept-up' | 'same' | 'no-ci' | 'missing';

export interface MetricComparison {
  metric: ComparedMetric;
  a: Stat | null;
  b: Stat | null;
  /** mean B ÷ mean A; null when a side is missing or not positive. */
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  /** The practical margin it was read against, as a share (0: none, the plain significance call). */
  margin: number;
  verdict: MetricVerdict;
}

/**
 * A point's verdict over its metrics: `mixed` when one got better and another worse;
 * `equivalent` when every metric with a margin is equivalent (or EPS kept up) and the others
 * (p99) show no difference; `same` otherwise when any has no clear difference.
 */
export type PointVerdict = 'better' | 'worse' | 'mixed' | 'equivalent' | 'same' | 'no-ci' | 'missing';

export interface PointComparison {
  /** The id both sides share: the point id, or without its scenario when comparing scenarios. */
  key: string;
  a: PointResult;
  b: PointResult;
  metrics: MetricComparison[];
  verdict: PointVerdict;
}

export interface Comparison {
  /** What A and B are, for headings: run ids, or `run · scenario`. */
  labelA: string;
  labelB: string;
  points: PointComparison[];
  /** Keys present on one side only. */
  onlyA: string[];
  onlyB: string[];
  /** Points with at least one metric worse beyond its margin. */
  regressions: number;
  /** Points with at least one metric better beyond its margin and none worse. */
  improvements: number;
  /** The margins the metrics were read against. */
  margins: Margins;
  /** Two scenarios of one run (measured interleaved, in the same rounds) rather than two runs. */
  sameRun: boolean;
}

/** The ratio of two means and its CI, unpaired (see the module comment). */
export function ratioOfMeans(a: Stat, b: Stat): { ratio: number; ciLow: number | null; ciHigh: number | null } | null {
  if (!(a.mean > 0) || !(b.mean > 0)) return null;
  const ratio = b.mean / a.mean;
  if (a.n < 2 || b.n < 2) return { ratio, ciLow: null, ciHigh: null };
  const va = (a.sd * a.sd) / (a.n * a.mean * a.mean);
  const vb = (b.sd * b.sd) / (b.n * b.mean * b.mean);
  const v = va + vb;
  // Identical repeats on both sides: no spread, so the interval is the ratio itself.
  if (v === 0) return { ratio, ciLow: ratio, ciHigh: ratio };
  const df = (v * v) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const half = tQuantile975(Math.max(1, df)) * Math.sqrt(v);
  return { ratio, ciLow: ratio * Math.exp(-half), ciHigh: ratio * Math.exp(half) };
}

export function compareMetric(metric: ComparedMetric, a: PointResult, b: PointResult, margins: Margins = DEFAULT_MARGINS): MetricComparison {
  const sa = a.summary ? metric.column.stat(a.summary) : null;
  const sb = b.summary ? metric.column.stat(b.summary) : null;
  const r = sa && sb ? ratioOfMeans(sa, sb) : null;
  const margin = metric.margin(margins);
  if (!r) return { metric, a: sa, b: sb, ratio: null, ciLow: null, ciHigh: null, margin, verdict: 'missing' };
  const keptUp =
    metric.column.id === 'eventsPerSec' && !!a.summary && !!b.summary && bothKeptUp(a.summary.deliveredRatio.median, b.summary.deliveredRatio.median);
  const e = judgeRatio(r, margin, metric.better === 'higher', keptUp);
  let verdict: MetricVerdict;
  if (e.kind === 'both-kept-up') verdict = 'kept-up';
  else if (r.ciLow === null || r.ciHigh === null) verdict = 'no-ci';
  else if (e.kind === 'equivalent') verdict = 'equivalent';
  // B ÷ A: B is the "b" side of the judgement, better or worse than the baseline A.
  else if (e.kind === 'different') verdict = e.better === 'b' ? 'better' : 'worse';
  else verdict = 'same';
  return { metric, a: sa, b: sb, ...r, margin, verdict };
}

function pointVerdict(metrics: readonly MetricComparison[]): PointVerdict {
  const has = (v: MetricVerdict) => metrics.some((m) => m.verdict === v);
  if (has('worse')) return has('better') ? 'mixed' : 'worse';
  if (has('better')) return 'better';
  // A metric without a margin (p99) can never be equivalent: its no-difference does not block it.
  const withMargin = metrics.filter((m) => m.margin > 0);
  const settled = (m: MetricComparison) => m.verdict === 'equivalent' || m.verdict === 'kept-up' || (m.margin === 0 && m.verdict === 'same');
  if (withMargin.length && metrics.every(settled)) return 'equivalent';
  if (has('same') || has('equivalent') || has('kept-up')) return 'same';
  return has('no-ci') ? 'no-ci' : 'missing';
}

function comparePoints(
  labelA: string,
  labelB: string,
  a: Map<string, PointResult>,
  b: Map<string, PointResult>,
  margins: Margins,
  sameRun: boolean,
): Comparison {
  const points: PointComparison[] = [];
  for (const [key, pa] of a) {
    const pb = b.get(key);
    if (!pb) continue;
    const metrics = COMPARED_METRICS.map((m) => compareMetric(m, pa, pb, margins));
    points.push({ key, a: pa, b: pb, metrics, verdict: pointVerdict(metrics) });
  }
  return {
    labelA,
    labelB,
    points,
    onlyA: [...a.keys()].filter((k) => !b.has(k)),
    onlyB: [...b.keys()].filter((k) => !a.has(k)),
    regressions: points.filter((p) => p.verdict === 'worse' || p.verdict === 'mixed').length,
    improvements: points.filter((p) => p.verdict === 'better').length,
    margins,
    sameRun,
  };
}

/**
 * Run B against run A, point by point (matched by point id), against `margins`: those given,
 * else B's recorded ones, else A's, else the defaults.
 */
export function compareReports(a: Report, b: Report, margins?: Margins): Comparison {
  const byId = (r: Report) => new Map(r.points.map((p) => [p.point.id, p]));
  return comparePoints(a.runId, b.runId, byId(a), byId(b), margins ?? b.options.margins ?? a.options.margins ?? DEFAULT_MARGINS, false);
}

/** The point id without its `<scenario>/` prefix: what two scenarios of one run share. */
export function pointKeyInScenario(p: PointResult): string {
  const prefix = `${p.point.scenario}/`;
  return p.point.id.startsWith(prefix) ? p.point.id.slice(prefix.length) : p.point.id;
}

/**
 * Scenario B against scenario A of one run, matching points by id without the scenario. Two
 * one-point scenarios compare their points whatever differs between them (advise's confirm
 * file: the advised setup against the runner-up), keyed `B's point ÷ A's point`.
 */
export function compareScenarios(report: Report, scenarioA: string, scenarioB: string, margins?: Margins): Comparison {
  const pointsOf = (s: string) => report.points.filter((p) => p.point.scenario === s);
  const [a, b] = [pointsOf(scenarioA), pointsOf(scenarioB)];
  const single = a.length === 1 && b.length === 1 && pointKeyInScenario(a[0]) !== pointKeyInScenario(b[0]);
  const key = single ? () => `${pointKeyInScenario(b[0])} ÷ ${pointKeyInScenario(a[0])}` : pointKeyInScenario;
  const of = (ps: PointResult[]) => new Map(ps.map((p) => [key(p), p]));
  return comparePoints(
    `${report.runId} · ${scenarioA}`,
    `${report.runId} · ${scenarioB}`,
    of(a),
    of(b),
    margins ?? report.options.margins ?? DEFAULT_MARGINS,
    true,
  );
}

/** `0.80× (0.74–0.86)`, `1.02×` without a CI, `—` when missing. */
export function formatRatioWithCi(m: MetricComparison): string {
  if (m.ratio === null) return MISSING;
  if (m.ciLow === null || m.ciHigh === null) return formatFactor(m.ratio);
  return `${formatFactor(m.ratio)} (${formatSig3(m.ciLow)}–${formatSig3(m.ciHigh)})`;
}

/** Words for a verdict, as both the terminal and the viewer show it. */
export const VERDICT_WORDS: Record<MetricVerdict | PointVerdict, string> = {
  better: 'better',
  worse: 'WORSE',
  mixed: 'MIXED',
  equivalent: 'equivalent within the margins',
  'kept-up': 'both kept up',
  same: 'no clear difference',
  'no-ci': 'no CI (needs 2+ repeats)',
  missing: 'not measured',
};
