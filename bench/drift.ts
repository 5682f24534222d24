/**
 * Start-vs-end drift, as stability studies report it: the mean of a figure over the first 10% of
 * a run's samples against its mean over the last 10%. A steady run keeps both within 5%.
 */

export interface Drift {
  /** Samples in each end window. */
  n: number;
  /** Mean over the first window. */
  start: number;
  /** Mean over the last window. */
  end: number;
  /** (end − start) / start; NaN when start is 0. */
  change: number;
}

/** The share of the samples each end window takes, and the drift that passes. */
export const DRIFT_WINDOW_SHARE = 0.1;
export const DRIFT_BOUND = 0.05;

/** Null when there are fewer than 2 samples: the two ends would be one and the same. */
export function drift(values: readonly number[], share = DRIFT_WINDOW_SHARE): Drift | null {
  if (values.length < 2) return null;
  const n = Math.min(Math.floor(values.length / 2), Math.max(1, Math.round(values.length * share)));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const start = mean(values.slice(0, n));
  const end = mean(values.slice(-n));
  return { n, start, end, change: start === 0 ? Number.NaN : (end - start) / start };
}

/** `EPS: 199,812 → 199,790 (−0.0%; first vs last 2 of 20 samples); drift under 5%: pass` */
export function driftLine(name: string, d: Drift | null, format: (x: number) => string, samples: number): string {
  if (!d) return `${name}: too few samples for a drift (${samples}); drift under 5%: not judged`;
  const pct = `${d.change >= 0 ? '+' : '−'}${Math.abs(d.change * 100).toFixed(1)}%`;
  const pass = Number.isFinite(d.change) && Math.abs(d.change) < DRIFT_BOUND;
  return `${name}: ${format(d.start)} → ${format(d.end)} (${pct}; mean of the first vs the last ${d.n} of ${samples} samples); drift under ${DRIFT_BOUND * 100}%: ${pass ? 'pass' : 'fail'}`;
}
