/**
 * `npm run advise -- --resume`: the search runs again from its start, and each measurement it
 * asks for that the report already holds is answered from the report instead of the browser.
 * The search decides from what it measured and from its clock only, so with the recorded
 * measurements, on the clock they took, it takes the same path up to where the last session
 * stopped, and goes on from there measuring for real.
 *
 * A measurement is found by what it measures: a probe by its point, a confirmation round by
 * its set of points (each round once, in the order recorded), so even a search that takes
 * another path (a new --time-budget) reuses every recorded window that it asks for again. A
 * confirmation round is reused whole or not at all: its repeats are paired with each other.
 *
 * A yardstick reading (search.ts) is found by its moment, each recorded one once, from the answer
 * the last session saved (`advice.drift.readings`); a report written before readings were taken
 * has none, and the resumed search measures its readings.
 */
import type { YardstickMoment, YardstickReading } from '../../protocol/advice.js';
import type { Repeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import type { YardstickTaken } from './search.js';

interface Recorded {
  /** The round's point ids, sorted: what it measured. */
  key: string;
  repeats: Map<string, Repeat>;
  /** How long it took, s (its round's start to its end). */
  sec: number;
  used: boolean;
}

const keyOf = (ids: readonly string[]) => JSON.stringify([...ids].sort());

export class Replay {
  private readonly recorded: Recorded[];
  /** The recorded yardstick readings not yet replayed. */
  private readonly readings: YardstickReading[];
  /** Time the replayed measurements took when they were measured, s: the search's clock counts it. */
  replayedSec = 0;

  /** From a report whose unfinished rounds were dropped (record.ts dropUnfinishedRounds). */
  constructor(report: Report) {
    this.recorded = report.rounds
      .filter((r) => r.finishedAt !== null)
      .map((round) => {
        const repeats = new Map<string, Repeat>();
        for (const p of report.points) {
          const r = p.repeats.find((x) => x.round === round.index);
          if (r && round.order.includes(p.point.id)) repeats.set(p.point.id, r);
        }
        const sec = Math.max(0, (Date.parse(round.finishedAt!) - Date.parse(round.startedAt)) / 1000);
        return { key: keyOf(round.order), repeats, sec: Number.isFinite(sec) ? sec : 0, used: false };
      })
      // A round whose repeats are not all there (a hand-edited report) is measured again.
      .filter((r) => r.repeats.size === JSON.parse(r.key).length);
    this.readings = [...(report.advice?.drift?.readings ?? [])];
  }

  /** The recorded repeats of these points, measured together in one round not yet replayed, in the order given; null when there is none. */
  take(ids: readonly string[]): { repeats: Repeat[]; sec: number } | null {
    const key = keyOf(ids);
    const hit = this.recorded.find((r) => !r.used && r.key === key);
    if (!hit) return null;
    hit.used = true;
    this.replayedSec += hit.sec;
    return { repeats: ids.map((id) => hit.repeats.get(id)!), sec: hit.sec };
  }

  /** The recorded yardstick reading at `at` not yet replayed, as the measurer takes one; null when there is none. */
  takeReading(at: YardstickMoment): YardstickTaken | null {
    const i = this.readings.findIndex((r) => r.at === at);
    if (i < 0) return null;
    const [r] = this.readings.splice(i, 1);
    this.replayedSec += r.tookSec;
    return { measuredAt: r.measuredAt, tookSec: r.tookSec, parseCeilings: r.parseCeilings, ...(r.error !== undefined ? { error: r.error } : {}) };
  }

  /** Recorded rounds the search has not asked for (yet). */
  get left(): number {
    return this.recorded.filter((r) => !r.used).length;
  }

  get size(): number {
    return this.recorded.length;
  }
}
