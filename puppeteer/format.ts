/** The terminal view of a report: a pure function of report.json. */
import type { PointResult, Repeat, Report, Stat } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { verdictLines } from './point-summary.js';

const eps = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${Math.round(n)}%`);
const ms = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(0));
const med = (s: Stat | null | undefined) => s?.median;
/** The CI's half-width as ± % of the mean, or '–' below two repeats. */
const ci = (s: Stat | null | undefined) => (s && s.ciLow !== null && s.ciHigh !== null && s.mean ? `±${(((s.ciHigh - s.ciLow) / 2 / s.mean) * 100).toFixed(1)}%` : '–');

/** Medians over a point's measured repeats; the EPS column carries its 95% CI. */
export const TABLE_COLUMNS: { title: string; cell: (r: PointResult) => string }[] = [
  { title: 'point', cell: (r) => r.point.id },
  { title: 'offered EPS', cell: (r) => eps(r.point.offeredEventsPerSec) },
  { title: 'n', cell: (r) => `${r.summary?.n ?? 0}/${r.repeats.length}` },
  { title: 'EPS', cell: (r) => eps(med(r.summary?.eventsPerSec)) },
  { title: 'CI', cell: (r) => ci(r.summary?.eventsPerSec) },
  { title: 'delivered', cell: (r) => pct(r.summary ? r.summary.deliveredRatio.median * 100 : null) },
  { title: 'of ceiling', cell: (r) => pct(r.summary?.ceilingRatio ? r.summary.ceilingRatio.median * 100 : null) },
  { title: 'tab main', cell: (r) => pct(med(r.summary?.cpu.tabMainThread)) },
  { title: 'tab proc', cell: (r) => pct(med(r.summary?.cpu.tabProcess)) },
  { title: 'ms CPU/M ev', cell: (r) => ms(med(r.summary?.efficiency.rendererCpuMsPerMillionEvents)) },
  { title: 'server', cell: (r) => pct(med(r.summary?.cpu.server)) },
  { title: 'host', cell: (r) => pct(med(r.summary?.cpu.host)) },
  { title: 'p50 ms', cell: (r) => ms(med(r.summary?.latencyP50Ms)) },
  { title: 'p99 ms', cell: (r) => ms(med(r.summary?.latencyP99Ms)) },
  { title: 'gaps', cell: (r) => (r.summary ? String(r.summary.gaps) : '–') },
  { title: 'shed', cell: (r) => (r.summary ? String(r.summary.shed) : '–') },
  { title: 'verdict', cell: (r) => (r.unsteady.length ? `${r.verdict} (unsteady)` : r.verdict) },
];

/** A Markdown table (readable in a terminal, pasteable into notes), then flags, notes and the paired verdicts. */
export function formatTable(report: Report): string {
  const rows = report.points.map((r) => TABLE_COLUMNS.map((c) => c.cell(r)));
  const head = TABLE_COLUMNS.map((c) => c.title);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  const unsteady = report.points.flatMap((r) => r.unsteady.map((u) => `unsteady: ${r.point.id}: ${u.message}`));
  const notes = report.points.filter((r) => r.notes.length).map((r) => `${r.point.id}: ${r.notes.join('; ')}`);
  const saturation = report.saturation.map(
    (s) =>
      `find-max ${s.scenario} ${s.transport} (${s.varied}): ${s.knee ? `sustainable up to ${s.varied} ${s.knee.value}, ${eps(s.knee.eventsPerSec.median)} EPS ${ci(s.knee.eventsPerSec)}` : 'nothing sustainable'}${s.firstPast ? `; ${s.varied} ${s.firstPast.value}: ${s.firstPast.reason}` : ''}`,
  );
  const verdicts = verdictLines(report);
  return [
    line(head),
    rule,
    ...rows.map(line),
    '',
    ...unsteady,
    ...notes,
    ...(saturation.length ? ['', ...saturation] : []),
    ...(verdicts.length ? ['', 'WS vs SSE, paired by round (95% CI):', ...verdicts] : []),
  ]
    .join('\n')
    .trimEnd();
}

/** One line for a finished repeat in the progress output. */
export function formatRepeatLine(point: Point, r: Repeat): string {
  const where = `${point.id} round ${r.round + 1}`;
  if (r.status === 'failed') return `${where}: FAILED after ${r.attempts} attempt(s): ${r.error}`;
  return `${where}: ${eps(r.eventsPerSec)} EPS of ${eps(point.offeredEventsPerSec)} offered, tab main ${pct(r.cpu.tabMainThread)}, server ${pct(r.cpu.server)}, p99 ${ms(r.latency.p99Ms)} ms, gaps ${r.page.gaps}, ${r.verdict}`;
}
