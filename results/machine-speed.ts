/**
 * Whether the machine kept one speed through a run. Every round measures the in-page decoding
 * ceiling: the same messages decoded in a fresh tab, no network, the same work every round. When
 * that yardstick moves between rounds at one batch size and encoding, the tab's machine ran at
 * different speeds in different rounds (other load on a shared host, CPU throttling, or the
 * previous point's work not yet finished). On 2026-11-27 this VM's default sweep saw its batch-20
 * ceiling fall from 2.13 M to 1.03 M events/s between round 1 and round 3, while a run two days
 * earlier held 3.95–4.25 M through every round. Verdicts paired by round compare within a round
 * and still hold; a median over rounds mixes a faster machine with a slower one, and the run
 * should say so rather than leave the reader to find it in the header's ranges.
 *
 * Pure, no Node or DOM: the terminal and the viewer both read it.
 */
import type { Encoding } from '../protocol/wire.js';
import type { ParseCeiling } from '../protocol/page-api.js';
import type { Round } from '../protocol/report.js';
import { formatCompactCell } from './format.js';
import { ENCODING_INFO } from '../protocol/encodings.js';

/** A ceiling this many times another of the same batch size and encoding, rounds apart, is a changed machine. */
export const SPEED_CHANGE_RATIO = 1.25;

export interface SpeedChange {
  /** Whose ceilings: `null` the run's own browser, else a sharded browser's id, or `Firefox`. */
  source: string | null;
  encoding: Encoding;
  batch: number;
  fast: { round: number; eventsPerSec: number };
  slow: { round: number; eventsPerSec: number };
  /** fast ÷ slow. */
  ratio: number;
}

/** Whose ceilings: `null` the run's own browser (Chrome's), else a sharded browser's id, or an engine's (`firefox`). */
export type CeilingSource = { browser: string } | { engine: 'firefox' } | null;

/**
 * What the ceilings are read from: a sweep's round, or anything shaped like one for its ceilings
 * (the advisor's yardstick readings, protocol/advice.ts YardstickReading).
 */
export type CeilingRound = Pick<Round, 'index' | 'parseCeilings' | 'hostCeilings' | 'engineCeilings'>;

/**
 * One round's ceilings of one source, at full speed: the machine's yardstick. A device class's
 * (protocol/device.ts) are the slowed browser's, read against by its points, and not this machine's speed.
 */
export function ceilingsOf(round: CeilingRound, source: CeilingSource): readonly ParseCeiling[] {
  const all =
    source === null
      ? round.parseCeilings
      : 'engine' in source
        ? (round.engineCeilings?.find((c) => c.engine === source.engine)?.parseCeilings ?? [])
        : (round.hostCeilings?.find((c) => c.browser === source.browser)?.parseCeilings ?? []);
  return all.filter((c) => c.device === undefined);
}

/** A source's ceilings over the rounds, one series per encoding and batch size, in round order. */
export function ceilingSeries(
  rounds: readonly CeilingRound[],
  source: CeilingSource,
): { encoding: Encoding; batch: number; xs: { round: number; eventsPerSec: number }[] }[] {
  const series = new Map<string, { encoding: Encoding; batch: number; xs: { round: number; eventsPerSec: number }[] }>();
  for (const round of rounds) {
    for (const c of ceilingsOf(round, source)) {
      const encoding = c.encoding ?? 'json';
      const key = `${encoding}/${c.batch}`;
      const s = series.get(key) ?? { encoding, batch: c.batch, xs: [] };
      s.xs.push({ round: round.index, eventsPerSec: c.eventsPerSec });
      series.set(key, s);
    }
  }
  return [...series.values()];
}

/** Every source the rounds have ceilings of: the run's browser, each sharded browser, each other engine. */
function sources(rounds: readonly CeilingRound[]): CeilingSource[] {
  const browsers = new Set(rounds.flatMap((r) => (r.hostCeilings ?? []).map((h) => h.browser)));
  const engines = new Set(rounds.flatMap((r) => (r.engineCeilings ?? []).map((e) => e.engine)));
  return [null, ...[...browsers].map((browser) => ({ browser })), ...[...engines].filter((e) => e === 'firefox').map((engine) => ({ engine }))];
}

/**
 * The largest move of one ceiling between rounds, per source, where the fastest round's is at
 * least SPEED_CHANGE_RATIO times the slowest's; empty when every yardstick held.
 */
export function speedChanges(rounds: readonly CeilingRound[]): SpeedChange[] {
  const out: SpeedChange[] = [];
  for (const source of sources(rounds)) {
    const series = ceilingSeries(rounds, source);
    let worst: SpeedChange | null = null;
    for (const { encoding, batch, xs: all } of series) {
      const xs = all.filter((x) => x.eventsPerSec > 0);
      if (xs.length < 2) continue;
      const fast = xs.reduce((a, b) => (b.eventsPerSec > a.eventsPerSec ? b : a));
      const slow = xs.reduce((a, b) => (b.eventsPerSec < a.eventsPerSec ? b : a));
      const ratio = fast.eventsPerSec / slow.eventsPerSec;
      if (ratio >= SPEED_CHANGE_RATIO && (!worst || ratio > worst.ratio))
        worst = { source: source === null ? null : 'engine' in source ? 'Firefox' : source.browser, encoding, batch, fast, slow, ratio };
    }
    if (worst) out.push(worst);
  }
  return out;
}

/** How a sentence names when a ceiling was measured: a sweep's rounds, or the advisor's readings. */
export interface CeilingTimes {
  /** `in round 3`, from the index the ceilings carry (Round.index, YardstickReading.index). */
  when(index: number): string;
  /** How often the same work was done: `every round`. */
  each: string;
}

/** A sweep's: one reading per round. */
export const ROUND_TIMES: CeilingTimes = { when: (index) => `in round ${index + 1}`, each: 'every round' };

/** One sentence per change (`unsteady machine: …`), for the terminal's notes, the viewer's header and the advisor's answer. */
export function speedChangeText(c: SpeedChange, times: CeilingTimes = ROUND_TIMES): string {
  const where = c.source === null ? '' : ` (${c.source === 'Firefox' ? 'in Firefox' : `browser ${c.source}`})`;
  const eps = (x: number) => `${formatCompactCell(x)} events/s`;
  return (
    `unsteady machine${where}: the in-page ${ENCODING_INFO[c.encoding].decoder} ceiling at batch ${c.batch} (no network, the same work ${times.each}) ` +
    `was ${eps(c.fast.eventsPerSec)} ${times.when(c.fast.round)} and ${eps(c.slow.eventsPerSec)} ${times.when(c.slow.round)} (${Math.round((1 - 1 / c.ratio) * 100)}% lower): it did not keep one speed; ` +
    `verdicts paired by round still hold, but medians over rounds mix a faster machine with a slower one: rerun on a quiet machine before quoting them`
  );
}
