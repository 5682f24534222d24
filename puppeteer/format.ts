/** The terminal view of a report: a pure function of report.json. */
import type { PointResult, Report } from '../protocol/report.js';

const eps = (n: number | undefined) => (n === undefined ? '–' : n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n)));
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${Math.round(n)}%`);
const ms = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(0));

export const TABLE_COLUMNS: { title: string; cell: (r: PointResult) => string }[] = [
  { title: 'point', cell: (r) => r.point.id },
  { title: 'offered EPS', cell: (r) => eps(r.point.offeredEventsPerSec) },
  { title: 'EPS', cell: (r) => eps(r.eventsPerSec) },
  { title: 'delivered', cell: (r) => pct(r.deliveredRatio === undefined ? undefined : r.deliveredRatio * 100) },
  { title: 'of ceiling', cell: (r) => pct(r.ceilingRatio === undefined ? undefined : r.ceilingRatio * 100) },
  { title: 'MB/s', cell: (r) => (r.megabytesPerSec === undefined ? '–' : r.megabytesPerSec.toFixed(1)) },
  { title: 'tab main', cell: (r) => pct(r.cpu?.tabMainThread) },
  { title: 'tab proc', cell: (r) => pct(r.cpu?.tabProcess) },
  { title: 'workers', cell: (r) => (r.cpu?.tabThreads?.workers.length ? r.cpu.tabThreads.workers.map(pct).join('/') : '–') },
  { title: 'browser', cell: (r) => pct(r.cpu?.chrome.browser) },
  { title: 'network', cell: (r) => pct(r.cpu?.chrome.network) },
  { title: 'server', cell: (r) => pct(r.cpu?.server) },
  { title: 'host', cell: (r) => pct(r.cpu?.host) },
  { title: 'p50 ms', cell: (r) => ms(r.latency?.p50Ms) },
  { title: 'p99 ms', cell: (r) => ms(r.latency?.p99Ms) },
  { title: 'max ms', cell: (r) => ms(r.latency?.maxMs) },
  { title: 'gaps', cell: (r) => (r.page ? String(r.page.gaps) : '–') },
  { title: 'shed', cell: (r) => (r.server ? String(r.server.batchesShed) : '–') },
  { title: 'verdict', cell: (r) => r.verdict },
];

/** A Markdown table (readable in a terminal, pasteable into notes). */
export function formatTable(report: Report): string {
  const rows = report.points.map((r) => TABLE_COLUMNS.map((c) => c.cell(r)));
  const head = TABLE_COLUMNS.map((c) => c.title);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  const failures = report.points.filter((r) => r.status === 'failed').map((r) => `failed: ${r.point.id}: ${r.error}`);
  const notes = report.points.filter((r) => r.notes.length).map((r) => `${r.point.id}: ${r.notes.join('; ')}`);
  return [line(head), rule, ...rows.map(line), '', ...failures, ...notes].join('\n').trimEnd();
}

/** One line for progress output. */
export function formatPointLine(r: PointResult): string {
  if (r.status === 'failed') return `${r.point.id}: FAILED after ${r.attempts} attempt(s): ${r.error}`;
  return `${r.point.id}: ${eps(r.eventsPerSec)} EPS of ${eps(r.point.offeredEventsPerSec)} offered, tab main ${pct(r.cpu?.tabMainThread)}, server ${pct(r.cpu?.server)}, p99 ${ms(r.latency?.p99Ms)} ms, gaps ${r.page?.gaps}, ${r.verdict}`;
}
