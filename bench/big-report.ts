/**
 * A report of `n` points built from a real one (reports/example/report.json by default): each
 * point with its own id and batch, one in ten measured (its summary and first repeat), the rest
 * one failed repeat each, every round ordering them all. What a long find-max or a big matrix
 * leaves behind, for `bench:views` and the views' tests.
 */
type Json = Record<string, unknown>;

export function bigReport(n: number, exampleText: string): string {
  const r = JSON.parse(exampleText) as Json & { points: Json[]; rounds: Json[] };
  const base = r.points as (Json & { point: Json; repeats: (Json & { startedAt: unknown })[] })[];
  const points: Json[] = [];
  for (let i = 0; i < n; i++) {
    const p = structuredClone(base[i % base.length]);
    const batch = 1 + (i % 9000);
    p.point = { ...p.point, batch, id: `${String(p.point.scenario)}/${String(p.point.transport)}-b${batch}-n${i}` };
    if (i % 10 === 0) p.repeats = p.repeats.slice(0, 1);
    else
      Object.assign(p, {
        summary: null,
        verdict: 'failed',
        unsteady: [],
        repeats: [{ status: 'failed', verdict: 'failed', round: 0, startedAt: p.repeats[0].startedAt, attempts: 2, notes: [], error: 'timeout' }],
      });
    points.push(p);
  }
  const order = points.map((p) => (p.point as Json).id);
  return JSON.stringify({ ...r, points, rounds: r.rounds.map((x) => ({ ...x, order })) });
}
