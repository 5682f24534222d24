/**
 * Number and time formatting for every view of a report (terminal table, HTML viewer, CSV
 * headers). Pure and locale-fixed ('en-US', UTC) so a report reads the same on every machine
 * and the unit tests can compare exact strings. No DOM or Node imports: both sides use it.
 */

/** Shown wherever a value is missing (failed point, metric not measured). */
export const MISSING = '—';

import type { WireFigures } from '../protocol/repeat-figures.js';
import type { BrowserHost } from '../protocol/report.js';

const isNum = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Three significant digits, no trailing zeros, thousands separated: 0.412, 1.52, 15.2, 152, 1,520. */
export function formatSig3(v: number | null | undefined): string {
  return isNum(v) ? sig3(v) : MISSING;
}

function sig3(v: number): string {
  const r = Number(v.toPrecision(3));
  return Math.abs(r) >= 1000 ? integer.format(v) : r.toString();
}

/** `1.52 M`, `12.3 k`, `850`: a compact count with an SI prefix. */
export function formatCompact(v: number | null | undefined): string {
  if (!isNum(v)) return MISSING;
  // Round before choosing the prefix so 999,600 reads "1 M", not "1000 k".
  const abs = Math.abs(Number(v.toPrecision(3)));
  if (abs >= 1e9) return `${sig3(v / 1e9)} G`;
  if (abs >= 1e6) return `${sig3(v / 1e6)} M`;
  if (abs >= 1e3) return `${sig3(v / 1e3)} k`;
  return sig3(v);
}

/** A compact count for a table cell whose header carries the unit: `0` stays `0`. */
export function formatCompactCell(v: number | null | undefined): string {
  return isNum(v) && v === 0 ? '0' : formatCompact(v);
}

/** `1.52 M EPS`. */
export function formatEps(v: number | null | undefined): string {
  return isNum(v) ? `${formatCompact(v)} EPS` : MISSING;
}

/**
 * `95 %`, `7.5 %`. CPU figures are % of one core, so values above 100 are normal and kept.
 * Below 10 a decimal is shown because "0 %" and "4 %" are different stories for a tab.
 */
export function formatPercent(v: number | null | undefined): string {
  return isNum(v) ? `${formatPercentValue(v)} %` : MISSING;
}

/** The number of `formatPercent` alone, for a cell whose header says `%`. */
export function formatPercentValue(v: number | null | undefined): string {
  if (!isNum(v)) return MISSING;
  return Math.abs(v) >= 10 ? integer.format(v) : Number(v.toFixed(1)).toString();
}

/**
 * A ratio in [0, 1] as a percentage with one decimal, and never rounded up to 100 % unless it
 * really is: 0.9996 of the offered load means events were lost, which "100 %" would hide.
 */
export function formatRatio(r: number | null | undefined): string {
  return isNum(r) ? `${formatRatioValue(r)} %` : MISSING;
}

/** The number of `formatRatio` alone, for a cell whose header says `%`. */
export function formatRatioValue(r: number | null | undefined): string {
  if (!isNum(r)) return MISSING;
  const pct = r * 100;
  return String(pct < 100 && pct > 99.9 ? 99.9 : Number(pct.toFixed(1)));
}

/** `0.412 ms`, `12.3 ms`, `1,234 ms`. */
export function formatMs(v: number | null | undefined): string {
  return isNum(v) ? `${sig3(v)} ms` : MISSING;
}

/** `1,234`: exact counts (gaps, shed batches) keep every digit. */
export function formatCount(v: number | null | undefined): string {
  return isNum(v) ? integer.format(v) : MISSING;
}

/** `15.6 GiB`: memory, binary units as the OS reports it. */
export function formatBytes(v: number | null | undefined): string {
  if (!isNum(v)) return MISSING;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = v;
  let i = 0;
  while (Math.abs(value) >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${sig3(value)} ${units[i]}`;
}

/** `2026-11-22 01:30:00 UTC`; an unparseable string is shown as it is rather than hidden. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return MISSING;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${new Date(t).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `1 h 02 min`, `3 min 12 s`, `45 s`. */
export function formatDuration(ms: number | null | undefined): string {
  if (!isNum(ms) || ms < 0) return MISSING;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/**
 * How wide a CI is relative to the value it is about: `±1.2 %`, `±12 %`, and `±>100 %` once
 * the noise exceeds the value itself (the exact figure stays in tooltips and CSV).
 */
export function formatPlusMinusPercent(fraction: number | null | undefined): string {
  if (!isNum(fraction)) return MISSING;
  const pct = Math.abs(fraction) * 100;
  if (pct > 100) return '±>100 %';
  return `±${pct >= 10 ? integer.format(pct) : Number(pct.toFixed(1)).toString()} %`;
}

/** A ratio B ÷ A as a multiplier: `0.82×`, `1.15×`, `12.4×`. */
export function formatFactor(v: number | null | undefined): string {
  return isNum(v) ? `${sig3(v)}×` : MISSING;
}

/**
 * A latency for an axis label: the shortest unit that keeps the number small, so labels on a
 * log axis spanning µs to seconds stay narrow: `500 µs`, `2 ms`, `20 ms`, `5 s`.
 */
export function formatMsShort(ms: number | null | undefined): string {
  if (!isNum(ms)) return MISSING;
  const abs = Math.abs(ms);
  if (abs === 0) return '0';
  if (abs < 1) return `${sig3(ms * 1000)} µs`;
  if (abs < 1000) return `${sig3(ms)} ms`;
  return `${sig3(ms / 1000)} s`;
}

/** A table cell's short form: `h2 ×10, 1 TCP`, `h1 ×6, 6 TCP, 2 stalled`. */
export function wireCell(w: WireFigures | null | undefined): string {
  if (!w) return MISSING;
  const parts = [w.http.h1 ? `h1 ×${w.http.h1}` : '', w.http.h2 ? `h2 ×${w.http.h2}` : ''].filter(Boolean);
  return `${parts.join(' + ') || 'none'}, ${w.tcpConnections} TCP${w.stalled ? `, ${w.stalled} stalled` : ''}`;
}

/** What the terminal and the viewer say of one browser of a sharded or remote sweep. */
export interface HostWords {
  /** `launched here`, or the endpoint connected to (the report keeps no credentials). */
  where: string;
  /** Whether the pushlab server ran on its machine: `yes`, `no`, or `cannot tell` (a labelled tunnel). */
  serverSharesHost: string;
  /** Other browsers of the sweep on its machine, which competed with it for CPU; empty if none. */
  competesWith: string;
  /** Whether per-thread and host CPU could be read (only for a Chrome on the driver's machine). */
  procfs: string;
  /** When and why it was lost mid-sweep; empty if it was not. */
  lost: string;
  /** Its clock against the server's (`+0.12 ms ±0.3`), taken off its latency; — when not measured. */
  clock: string;
  /** The Grid node that ran it (`Grid node http://10.0.0.7:5555, id 1b2c3d4e`), its machine; empty off a Grid. */
  gridNode: string;
}

export function hostWords(h: BrowserHost): HostWords {
  return {
    where: h.origin === 'launched' ? 'launched here' : (h.endpoint ?? MISSING),
    serverSharesHost: h.serverSharesHost === null ? 'cannot tell' : h.serverSharesHost ? 'yes' : 'no',
    competesWith: h.sharesHostWith.join(', '),
    procfs: h.procfs ? 'yes' : 'no: shown as —',
    lost: h.lost ? `${formatTimestamp(h.lost.at)}: ${h.lost.error}` : '',
    // On the server's machine the estimate is recorded but not taken off: one machine is one clock.
    clock: h.clock
      ? `${h.clock.offsetMs >= 0 ? '+' : ''}${formatSig3(h.clock.offsetMs)} ms ±${formatSig3(h.clock.uncertaintyMs)}${h.serverSharesHost === true ? ' (not applied: one machine, one clock)' : ''}`
      : MISSING,
    // The se:cdp URL in `where` names the hub; the node is where the browser really ran.
    gridNode: h.gridNode ? `Grid node ${h.gridNode.uri}, id ${h.gridNode.id.slice(0, 8)}` : '',
  };
}
