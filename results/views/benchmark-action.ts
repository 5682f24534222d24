/**
 * A run as the JSON of github-action-benchmark's custom tools (benchmark-action/
 * github-action-benchmark, `tool: customBiggerIsBetter` or `customSmallerIsBetter`): an array
 * of `{ name, unit, value, range?, extra? }`, which the action charts commit after commit and
 * alerts on when a value moves the wrong way past its threshold.
 *
 * Two files, one per direction (`--format benchmark-action-bigger`, `benchmark-action-smaller`),
 * not one flag writing both: the action reads one tool, so one direction, per output file, and
 * `npm run report` prints what machines read on stdout, one document per command. So a workflow
 * runs the command twice and gives the action two steps, each with its own `name` (the action
 * keeps one series of charts per name). Which figures go in which file, and which way is better,
 * is `COMPARED_METRICS` (results/compare.ts), the same list `--compare` judges by: events/s
 * bigger; renderer CPU per event and p99 latency smaller.
 *
 * One entry per point and figure:
 * - `name`: `<point id> <column id>` (`smoke/ws-b20-c4-i1-full eventsPerSec`). A point id is
 *   stable (it spells the point's factors) and unique in a run; a column id is the stable key
 *   the CSV uses too. Renaming either starts a new series on the dashboard.
 * - `unit`: the column's unit (results/columns.ts): `events/s`, `ms of CPU per million events`, `ms`.
 * - `value`: the median over the point's measured repeats, as the terminal table shows it.
 * - `range`: `± h`, h half the width of the 95% CI of the mean (the `±` the table shows as a
 *   share), 3 significant digits, in the entry's unit; absent below 2 repeats. The action shows
 *   it beside the value, and reads `± number` back if it ever rescales a unit.
 * - `extra`: the tooltip, in lines: repeats and the CI's bounds, the point's verdict and
 *   unsteady flags, the run id (to find its report).
 *
 * A point with no measured repeat, or a figure it did not measure (no latency), has no entry:
 * `skipped` says which, for the command to tell on stderr. Left out, not given a value: the
 * action's `value` is a number it charts and alerts on, and any stand-in (0, the last value)
 * would draw a figure nobody measured. Pure: no Node, no DOM.
 */
import { COMPARED_METRICS, type ComparedMetric } from '../compare.js';
import { formatSig3 } from '../format.js';
import { printable } from '../printable.js';
import { PushlabError } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';

/** `bigger`: the file for `tool: customBiggerIsBetter`; `smaller`: for `customSmallerIsBetter`. */
export type BenchmarkDirection = 'bigger' | 'smaller';

/** The `--format` value of each file, and the action's `tool` it is for. */
export const BENCHMARK_ACTION_FORMATS = {
  'benchmark-action-bigger': { direction: 'bigger', tool: 'customBiggerIsBetter' },
  'benchmark-action-smaller': { direction: 'smaller', tool: 'customSmallerIsBetter' },
} as const satisfies Record<string, { direction: BenchmarkDirection; tool: string }>;

export type BenchmarkActionFormat = keyof typeof BENCHMARK_ACTION_FORMATS;

/** One entry of the action's custom JSON (its `BenchmarkResult`). */
export interface BenchmarkEntry {
  name: string;
  unit: string;
  value: number;
  range?: string;
  extra?: string;
}

export interface BenchmarkActionView {
  entries: BenchmarkEntry[];
  /** `<point id> <column id>: why` for each figure with no entry. */
  skipped: string[];
}

const metricsOf = (direction: BenchmarkDirection): readonly ComparedMetric[] =>
  COMPARED_METRICS.filter((m) => (m.better === 'higher') === (direction === 'bigger'));

/** Three significant digits, plain (no separators), so the action can read `± h` back as a number. */
const plain = (v: number): string => String(Number(v.toPrecision(3)));

/** The entries of one direction, in the report's point order, each point's figures in COMPARED_METRICS order. */
export function benchmarkActionView(report: Report, direction: BenchmarkDirection): BenchmarkActionView {
  const entries: BenchmarkEntry[] = [];
  const skipped: string[] = [];
  const seen = new Map<string, number>();
  report.points.forEach((r, i) => {
    // A series is found by its name alone: two points of one id would be drawn as one.
    const first = seen.get(r.point.id);
    if (first !== undefined) {
      throw new PushlabError(
        'PUSHLAB_BAD_REPORT',
        `run ${printable(report.runId)}: points[${i}].point.id '${printable(r.point.id)}' is also points[${first}]'s; a benchmark needs one name per point`,
      );
    }
    seen.set(r.point.id, i);
    for (const m of metricsOf(direction)) {
      const name = printable(`${r.point.id} ${m.column.id}`);
      const s = r.summary ? m.column.stat(r.summary) : null;
      // The action's schema wants a number: a figure that is not one has no entry, rather than
      // a made-up 0 a chart would draw or a "NaN" string the action refuses (parseReport
      // refuses a report holding such a figure, so this is the second line only).
      if (!s || !Number.isFinite(s.median)) {
        skipped.push(`${name}: ${!r.summary ? `no measured repeat (${printable(r.verdict)})` : s ? 'not a finite number' : 'not measured'}`);
        continue;
      }
      const unit = m.column.unit;
      const ci = s.ciLow !== null && s.ciHigh !== null ? { low: s.ciLow, high: s.ciHigh } : null;
      const flags = r.unsteady.map((f) => f.kind);
      const extra = [
        ci ? `median of ${s.n} repeats; 95% CI of the mean ${formatSig3(ci.low)} to ${formatSig3(ci.high)} ${unit}` : `${s.n} repeat: no CI`,
        `verdict ${printable(r.verdict)}${flags.length ? `; unsteady: ${printable(flags.join(', '))}` : ''}`,
        `run ${printable(report.runId)}`,
      ].join('\n');
      entries.push({ name, unit, value: s.median, ...(ci ? { range: `± ${plain((ci.high - ci.low) / 2)}` } : {}), extra });
    }
  });
  return { entries, skipped };
}

/**
 * The file for `format`: the entries as indented JSON. A run with no entry is refused (the
 * action fails on an empty file, and a CI job should say why here, not there).
 */
export function benchmarkActionJson(report: Report, format: BenchmarkActionFormat): { text: string; skipped: string[] } {
  const { direction, tool } = BENCHMARK_ACTION_FORMATS[format];
  const view = benchmarkActionView(report, direction);
  if (!view.entries.length) {
    throw new PushlabError(
      'PUSHLAB_BAD_REPORT',
      `run ${printable(report.runId)} has no measured figure for ${tool} (${view.skipped.length ? view.skipped.join('; ') : 'no points'}); nothing to chart`,
    );
  }
  return { text: `${JSON.stringify(view.entries, null, 2)}\n`, skipped: view.skipped };
}
