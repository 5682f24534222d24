/**
 * Which in-page decoding ceilings a round measures, and which one a point is read against.
 * A round measures the JSON.parse ceiling at every batch size it runs (the bar every encoding
 * is read against: the best of them) and, for each other encoding its points use, that
 * encoding's ceiling at their batch sizes. Pure: no I/O.
 */
import type { ParseCeiling } from '../protocol/page-api.js';
import type { Point } from '../protocol/scenario.js';
import { ENCODINGS, type Encoding } from '../protocol/wire.js';
import { maxOf } from './stats.js';

/** One ceiling to measure: an encoding at a batch size. */
export interface CeilingNeed {
  batch: number;
  encoding: Encoding;
}

const key = (n: CeilingNeed): string => `${n.encoding}/${n.batch}`;
const encodingOf = (c: ParseCeiling): Encoding => c.encoding ?? 'json';

/** The ceilings a round of these points needs, JSON first, each encoding by batch size. */
export function ceilingNeeds(points: readonly Pick<Point, 'batch' | 'encoding'>[]): CeilingNeed[] {
  const out = new Map<string, CeilingNeed>();
  for (const p of points) {
    for (const encoding of p.encoding ? (['json', p.encoding] as const) : (['json'] as const))
      out.set(key({ batch: p.batch, encoding }), { batch: p.batch, encoding });
  }
  return [...out.values()].sort((a, b) => ENCODINGS.indexOf(a.encoding) - ENCODINGS.indexOf(b.encoding) || a.batch - b.batch);
}

/** The needs not yet in `have`. */
export function missingCeilings(needs: readonly CeilingNeed[], have: readonly ParseCeiling[]): CeilingNeed[] {
  return needs.filter((n) => ceilingOf(have, n.batch, n.encoding) === null);
}

/** A point's own ceiling: its encoding's at its batch size, events/s; null when not measured. */
export function ceilingOf(ceilings: readonly ParseCeiling[], batch: number, encoding: Encoding = 'json'): number | null {
  return ceilings.find((c) => c.batch === batch && encodingOf(c) === encoding)?.eventsPerSec ?? null;
}

/** The best JSON.parse ceiling among these (a round's, over its batch sizes); null when none. */
export function bestJsonCeiling(ceilings: readonly ParseCeiling[]): number | null {
  const json = ceilings.filter((c) => encodingOf(c) === 'json').map((c) => c.eventsPerSec);
  return json.length ? maxOf(json) : null;
}
