/**
 * Differences that matter: a ratio B ÷ A with its 95% CI, read against a practical margin. A
 * CI that excludes 1 is a significant difference, but "sse faster than ws by 0.1% (CI 0.0–0.1%)"
 * where both delivered everything offered is window rounding, and a reader takes it as a
 * finding. So every comparison (paired transport verdicts, knob comparisons, `--compare`
 * between runs, the advisor's ranking) says one of:
 *
 * - `both-kept-up` (EPS only): both sides delivered what was offered (the sustains rule's 99%,
 *   results/sustains.ts), so EPS is not a race: it is the offered rate on both;
 * - `equivalent`: the whole CI lies inside ±margin;
 * - `different`: the whole CI lies beyond the margin, on one side (`better` names which);
 * - `unclear`: anything else, a CI straddling the margin or no CI at all ("no clear difference"):
 *   the evidence cannot tell, which is not `equivalent` (it does not say the difference is small).
 *
 * ±m means "B within m of A either way" on the log scale, B ÷ A from 1 ÷ (1 + m) to 1 + m, so
 * swapping A and B gives the same reading (the CIs are reciprocal, results/stats.ts). A margin
 * of 0 is the plain significance call: never `equivalent`, `different` when the CI excludes 1.
 * Pure, no Node or DOM.
 */
import type { EquivalenceKind } from '../protocol/margins.js';
import { SUSTAINS_DELIVERED_RATIO } from './sustains.js';

export interface Equivalence {
  kind: EquivalenceKind;
  /** For `different`: the better side; else 'none'. */
  better: 'a' | 'b' | 'none';
  /** The margin it was read against, as a share. */
  margin: number;
}

/** Whether both sides delivered what was offered: their median delivered ratios at or above the sustains rule's. */
export function bothKeptUp(aDeliveredRatio: number, bDeliveredRatio: number): boolean {
  return aDeliveredRatio >= SUSTAINS_DELIVERED_RATIO && bDeliveredRatio >= SUSTAINS_DELIVERED_RATIO;
}

/**
 * Reads B ÷ A and its CI against ±margin; `higherIsBetter` says which side a ratio above 1
 * favours. `keptUp`: both sides delivered what was offered (EPS comparisons only).
 */
export function judgeRatio(
  r: { ratio: number; ciLow: number | null; ciHigh: number | null },
  margin: number,
  higherIsBetter: boolean,
  keptUp = false,
): Equivalence {
  if (!(margin >= 0)) throw new RangeError(`margin must be ≥ 0, got ${String(margin)}`);
  if (keptUp) return { kind: 'both-kept-up', better: 'none', margin };
  const { ciLow, ciHigh } = r;
  if (ciLow === null || ciHigh === null) return { kind: 'unclear', better: 'none', margin };
  const up = 1 + margin;
  const down = 1 / up;
  if (margin > 0 && ciLow >= down && ciHigh <= up) return { kind: 'equivalent', better: 'none', margin };
  if (ciLow > up) return { kind: 'different', better: higherIsBetter ? 'b' : 'a', margin };
  if (ciHigh < down) return { kind: 'different', better: higherIsBetter ? 'a' : 'b', margin };
  return { kind: 'unclear', better: 'none', margin };
}

/** `±3%`, `±2.5%`. */
export function marginText(margin: number): string {
  return `±${Number((margin * 100).toFixed(2))}%`;
}

/**
 * How the advisor reads a cost ratio B ÷ A (lower is better) against ±margin, for choosing among
 * finalists: `equivalent` (the CI inside ±margin: the choice does not matter within it), `dearer`
 * (B costs more on the evidence: the whole CI above 1 and not inside the margin, so a CI of 2–22%
 * at ±5% is dearer, not a tie), `cheaper` (the whole CI below 1, not inside the margin), else
 * `cannot-tell` (a CI straddling 1 and a margin's edge, or none: the evidence cannot tell them apart).
 */
export type CostReading = 'equivalent' | 'dearer' | 'cheaper' | 'cannot-tell';

export function costReading(r: { ratio: number; ciLow: number | null; ciHigh: number | null }, margin: number): CostReading {
  if (judgeRatio(r, margin, false).kind === 'equivalent') return 'equivalent';
  if (r.ciLow !== null && r.ciLow > 1) return 'dearer';
  if (r.ciHigh !== null && r.ciHigh < 1) return 'cheaper';
  return 'cannot-tell';
}
