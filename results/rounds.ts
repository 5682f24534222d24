/**
 * The order a sweep measures its points in, round by round.
 *
 * The machine's speed drifts by ±20% between consecutive runs and by 2× between days, so a
 * fixed order would pin each point to one phase of that drift. Each round therefore shuffles
 * the points (seeded, so the order can be recorded and reproduced), and keeps points that
 * differ only in transport back to back: a paired comparison then sees the same machine state
 * on both sides. Within such a pair the transport that goes first rotates from round to round,
 * so neither one always runs on a browser that has just done the other's work.
 */
import { mixSeed, mulberry32, shuffled } from '../protocol/random.js';

/** Fields that do not make two points different experiments: the transport, and what follows from the rest. */
// pollMs belongs to the poll transport only, so it is part of what a point's transport is.
const NOT_IN_PAIR_KEY = new Set(['id', 'transport', 'pollMs', 'offeredEventsPerSec']);

/**
 * What a point is apart from its transport: every other field of the point (scenario, batch,
 * concurrency, interval, render, parse, workers, warm-up, window). Points with the same key
 * are compared with each other.
 */
export function pairKey(point: object): string {
  const fields = Object.entries(point)
    .filter(([k]) => !NOT_IN_PAIR_KEY.has(k))
    // Each transport compresses the one way it can (deflate on WebSockets, gzip on HTTP
    // streams): compressed ws and compressed sse are the same experiment.
    .map(([k, v]): [string, unknown] => (k === 'compression' ? [k, 'on'] : [k, v]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(fields);
}

/** The seed a round's order is drawn from (recorded in the report's `Round.seed`). */
export function roundSeed(seed: number, round: number): number {
  return mixSeed(seed, round);
}

/** Points grouped by pairKey, groups and members in the order first seen. */
export function pairGroups<P extends { id: string; transport: string }>(points: readonly P[]): P[][] {
  const groups = new Map<string, P[]>();
  for (const p of points) {
    const key = pairKey(p);
    const g = groups.get(key);
    if (g) g.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()];
}

const rotate = <T>(xs: readonly T[], by: number): T[] => xs.map((_, i) => xs[(i + by) % xs.length]);

/** The groups' order in a round: a seeded shuffle that never repeats the previous round's. */
function groupOrder(groupCount: number, round: number, seed: number): number[] {
  const indices = Array.from({ length: groupCount }, (_, i) => i);
  let previous: number[] | null = null;
  let order = indices;
  for (let r = 0; r <= round; r++) {
    order = shuffled(indices, mulberry32(roundSeed(seed, r)));
    if (previous && groupCount > 1 && order.every((g, i) => g === previous![i])) order = rotate(order, 1);
    previous = order;
  }
  return order;
}

/**
 * Round `round`'s order (0-based): every point exactly once; points that differ only in
 * transport adjacent; the groups in a seeded shuffle that differs from the previous round's;
 * within a group the members rotate by one each round (with two transports: they alternate).
 */
export function roundOrder<P extends { id: string; transport: string }>(points: readonly P[], round: number, seed: number): P[] {
  if (!Number.isInteger(round) || round < 0) throw new RangeError(`round must be an integer ≥ 0, got ${round}`);
  // Groups that differ only in engine go back to back too, the engine first rotating by round:
  // an engine pair then also sees one machine state. Without engines each group is its own.
  const byEngineFree = new Map<string, P[][]>();
  for (const g of pairGroups(points)) {
    const key = pairKey({ ...g[0], engine: undefined });
    const groups = byEngineFree.get(key);
    if (groups) groups.push(g);
    else byEngineFree.set(key, [g]);
  }
  const supers = [...byEngineFree.values()];
  return groupOrder(supers.length, round, seed).flatMap((s) => rotate(supers[s], round % supers[s].length).flatMap((g) => rotate(g, round % g.length)));
}
