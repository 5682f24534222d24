/**
 * What each knob bought: points of one run with the same transport, connections and offered
 * load that differ in exactly one knob (how rows are parsed, how large the messages are, how
 * many origins, the encoding, DevTools, the render mode, the display, compression, the browser
 * engine) are compared like transports, on EPS
 * and renderer CPU per event, paired by round. A `fastest` run then says in words, with CIs,
 * that two Workers bought 5% here and a second origin 12% there, instead of leaving the reader
 * to subtract medians of different rounds.
 */
import type { BrowserHost, KnobComparison, PointResult } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { type Margins, DEFAULT_MARGINS } from '../protocol/margins.js';
import { FACTOR_NAMES, FACTORS, type KnobInfo } from '../protocol/factors.js';
import { compare, hostKinds, hostMachines, METRICS, type Metric } from './point-summary.js';

interface Knob {
  name: string;
  /** The knob's setting; points differing only here are compared. */
  value(p: Point): string;
  /** How the sentence names a setting: the factor's words (protocol/factors.ts). */
  label(p: Point): string;
  /** The baseline (A) is the lower rank: main thread before Workers, 1 origin before 2. */
  rank(p: Point): number;
  /** The setting a scenario gets when it does not set this knob (not said in a pair's context). */
  usual?: string;
}

/** Each knob once, from the factor registry (a factor's `knob`), in the knobs' order. */
export const KNOBS: readonly Knob[] = FACTOR_NAMES.flatMap((name) => {
  const { knob, words } = FACTORS[name] as { knob: KnobInfo | null; words(p: Point): string };
  return knob === null ? [] : [{ ...knob, label: knob.words ?? words }];
}).sort((a, b) => a.order - b.order);

/** What must be equal for two points to be compared at all: the load and the way it travels. */
const sameLoad = (a: Point, b: Point) =>
  a.transport === b.transport &&
  a.concurrency === b.concurrency &&
  (a.tabs ?? 1) === (b.tabs ?? 1) &&
  a.offeredEventsPerSec === b.offeredEventsPerSec &&
  a.pollMs === b.pollMs;

/** The one knob A and B differ in, or null when they differ in none or in several. */
export function knobBetween(a: Point, b: Point): Knob | null {
  if (!sameLoad(a, b)) return null;
  const differing = KNOBS.filter((k) => k.value(a) !== k.value(b));
  return differing.length === 1 ? differing[0] : null;
}

/**
 * A knob with more settings than this at one load and every other knob alike is compared
 * setting by setting against its baseline (the lowest rank) only, as transports are against a
 * scenario's first: every pair of n settings is n(n − 1)/2 lines, past reading at 10, and
 * quadratic in a large run (20,000 points held 25 million pairs).
 */
export const KNOB_ALL_PAIRS_MAX = 8;

/** What must be equal for two points to be compared, as text: sameLoad's fields. */
const loadKey = (p: Point) => `${p.transport}|${p.concurrency}|${p.tabs ?? 1}|${p.offeredEventsPerSec}|${p.pollMs}`;

/**
 * Every pair of points differing in one knob, baseline first, on each metric, read against the
 * practical margins; `hosts` (a sharded sweep's browsers): only rounds where both were measured
 * on the same kind of host are paired. Pairs are found through a key per knob (the load and
 * every other knob's setting), so the work is linear in the points and the pairs, in the order
 * of the points (A's index, then B's).
 */
export function knobComparisons(points: readonly PointResult[], hosts?: readonly BrowserHost[], margins: Margins = DEFAULT_MARGINS): KnobComparison[] {
  const kindOf = hostKinds(hosts);
  // Two engines are two browser builds, so two host kinds: their rounds pair by machine instead
  // (each point's own repeats are still pooled within one kind, so one engine's never with the other's).
  const machineOf = hostMachines(hosts);
  const pairs: [number, number, Knob][] = [];
  for (const knob of KNOBS) {
    const groups = new Map<string, number[]>();
    points.forEach((r, i) => {
      const key = [loadKey(r.point), ...KNOBS.map((k) => (k === knob ? '' : k.value(r.point)))].join('\n');
      const group = groups.get(key);
      if (group) group.push(i);
      else groups.set(key, [i]);
    });
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      if (group.length <= KNOB_ALL_PAIRS_MAX) {
        for (let x = 0; x < group.length; x++) {
          for (let y = x + 1; y < group.length; y++) {
            if (knobBetween(points[group[x]].point, points[group[y]].point) === knob) pairs.push([group[x], group[y], knob]);
          }
        }
        continue;
      }
      const base = group.reduce((a, i) => (knob.rank(points[i].point) < knob.rank(points[a].point) ? i : a), group[0]);
      for (const i of group) {
        if (i !== base && knobBetween(points[base].point, points[i].point) === knob) pairs.push(base < i ? [base, i, knob] : [i, base, knob]);
      }
    }
  }
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: KnobComparison[] = [];
  for (const [i, j, knob] of pairs) {
    const [a, b] = knob.rank(points[i].point) <= knob.rank(points[j].point) ? [points[i], points[j]] : [points[j], points[i]];
    const names = { a: knob.label(a.point), b: knob.label(b.point) };
    for (const metric of Object.keys(METRICS) as Metric[]) {
      const c = compare(a, b, metric, names, knob.name === 'engine' ? machineOf : kindOf, margins);
      if (c) out.push({ ...c, knob: knob.name, from: names.a, to: names.b, context: context(a.point, knob) });
    }
  }
  return out;
}

/** `sse 400 × 10 every 1 ms, 2 Workers, render none`: what A and B share, with every unusual setting. */
function context(a: Point, knob: Knob): string {
  const size = knob.name === 'message size' ? `${a.transport} × ${a.concurrency}` : `${a.transport} ${a.batch} × ${a.concurrency} every ${a.intervalMs} ms`;
  const unusual = KNOBS.filter((k) => k !== knob && k.usual !== undefined && k.value(a) !== k.usual).map((k) => k.label(a));
  return [size, ...unusual].join(', ');
}
