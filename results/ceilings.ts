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

/**
 * The device a ceiling is measured as (protocol/device.ts): a point under a device class is read
 * against the ceilings of its class, measured in the slowed browser. Absent fields: full speed.
 */
export type CeilingDevice = Pick<Point, 'device' | 'throttle'>;

/** One ceiling to measure: an encoding at a batch size, as a device class (or at full speed). */
export interface CeilingNeed extends CeilingDevice {
  batch: number;
  encoding: Encoding;
}

const deviceKey = (d: CeilingDevice): string => `${d.device ?? ''}/${d.throttle ?? ''}`;
const key = (n: CeilingNeed): string => `${deviceKey(n)}/${n.encoding}/${n.batch}`;
const encodingOf = (c: ParseCeiling): Encoding => c.encoding ?? 'json';
const sameDevice = (c: CeilingDevice, d: CeilingDevice): boolean => deviceKey(c) === deviceKey(d);
/** A need's device fields, only those set (a ceiling at full speed stays as every report before device classes had it). */
export const deviceOf = (d: CeilingDevice): CeilingDevice => ({
  ...(d.device !== undefined ? { device: d.device } : {}),
  ...(d.throttle !== undefined ? { throttle: d.throttle } : {}),
});

/** The ceilings a round of these points needs: full speed first, then each device class; JSON first, each encoding by batch size. */
export function ceilingNeeds(points: readonly Pick<Point, 'batch' | 'encoding' | 'device' | 'throttle'>[]): CeilingNeed[] {
  const out = new Map<string, CeilingNeed>();
  for (const p of points) {
    for (const encoding of p.encoding ? (['json', p.encoding] as const) : (['json'] as const)) {
      const need = { batch: p.batch, encoding, ...deviceOf(p) };
      out.set(key(need), need);
    }
  }
  return [...out.values()].sort(
    (a, b) => deviceKey(a).localeCompare(deviceKey(b)) || ENCODINGS.indexOf(a.encoding) - ENCODINGS.indexOf(b.encoding) || a.batch - b.batch,
  );
}

/** The needs not yet in `have`. */
export function missingCeilings(needs: readonly CeilingNeed[], have: readonly ParseCeiling[]): CeilingNeed[] {
  return needs.filter((n) => ceilingOf(have, n.batch, n.encoding, n) === null);
}

/** A point's own ceiling: its encoding's at its batch size, as its device class, events/s; null when not measured. */
export function ceilingOf(ceilings: readonly ParseCeiling[], batch: number, encoding: Encoding = 'json', device: CeilingDevice = {}): number | null {
  return ceilings.find((c) => c.batch === batch && encodingOf(c) === encoding && sameDevice(c, device))?.eventsPerSec ?? null;
}

/** The best JSON.parse ceiling among these (a round's, over its batch sizes) as this device class; null when none. */
export function bestJsonCeiling(ceilings: readonly ParseCeiling[], device: CeilingDevice = {}): number | null {
  const json = ceilings.filter((c) => encodingOf(c) === 'json' && sameDevice(c, device)).map((c) => c.eventsPerSec);
  return json.length ? maxOf(json) : null;
}
