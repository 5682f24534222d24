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
 * - `unclear`: anything else, a CI straddling the margin or no CI at all ("no clear difference").
 *
 * ±m means "B within m of A either way" on the log scale, B ÷ A from 1 ÷ (1 + m) to 1 + m, so
 * swapping A and B gives the same reading (the CIs are reciprocal, results/stats.ts). A margin
 * of 0 is the plain significance call: never `equivalent`, `different` when the CI excludes 1.
 * Pure, no Node or DOM.
 */
import type { EquivalenceKind, Margins } from '../protocol/report.js';
import { SUSTAINS_DELIVERED_RATIO } from './sustains.js';
import { paramError, type ParamError } from '../protocol/wire.js';


/** ±3% on EPS, ±5% on CPU per event: about the spread of repeats on an idle 2-core machine. */
export const DEFAULT_MARGINS: Margins = { eventsPerSec: 0.03, cpuPerEvent: 0.05 };

/** The largest margin `--margin` takes, as a share: past ±50% "equivalent" says nothing. */
export const MAX_MARGIN = 0.5;


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

/** `eps=3%,cpu=5%`: the form `--margin` takes and a report records. */
export function marginsText(m: Margins): string {
  return `eps=${Number((m.eventsPerSec * 100).toFixed(2))}%,cpu=${Number((m.cpuPerEvent * 100).toFixed(2))}%`;
}

const MARGIN_KEYS = { eps: 'eventsPerSec', cpu: 'cpuPerEvent' } as const satisfies Record<string, keyof Margins>;
const MARGIN_ALLOWED = `eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to ${MAX_MARGIN * 100}, e.g. eps=3%,cpu=5%`;

/**
 * Parses `--margin eps=3%,cpu=5%`: either key or both (the other keeps its default), each a
 * percentage from 0 to 50 with or without `%`. Refusals name the flag, the value and what is
 * allowed (ParamError, as the server's refusals are).
 */
export function parseMargins(text: string, defaults: Margins = DEFAULT_MARGINS, flag = '--margin'): { ok: true; value: Margins } | { ok: false; error: ParamError } {
  const refuse = (why: string) => ({ ok: false as const, error: paramError(flag, text, MARGIN_ALLOWED, (v, p) => `${p} ${why}; it takes ${MARGIN_ALLOWED}; got '${v}'`) });
  const out: Margins = { ...defaults };
  const seen = new Set<string>();
  const parts = text.split(',').map((p) => p.trim());
  if (!text.trim() || parts.some((p) => !p)) return refuse('needs key=value pairs separated by commas');
  for (const part of parts) {
    const m = /^([a-z]+)\s*=\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/i.exec(part);
    if (!m) return refuse(`cannot read '${part}'`);
    const key = m[1].toLowerCase();
    if (!Object.hasOwn(MARGIN_KEYS, key)) return refuse(`has no key '${m[1]}' (keys: ${Object.keys(MARGIN_KEYS).join(', ')})`);
    if (seen.has(key)) return refuse(`gives ${key} twice`);
    seen.add(key);
    const share = Number(m[2]) / 100;
    if (!(share >= 0 && share <= MAX_MARGIN)) return refuse(`${key} must be from 0 to ${MAX_MARGIN * 100}%`);
    out[MARGIN_KEYS[key as keyof typeof MARGIN_KEYS]] = share;
  }
  return { ok: true, value: out };
}
