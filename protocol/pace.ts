/**
 * `--pace recorded`: batches fall due when a `--rows` file's events were recorded, not on a
 * steady tick. Bursts are what break a p99, and a steady tick hides them.
 *
 * The recording: event i (the file's order) was recorded at t_i, non-decreasing. The cycle
 * repeats it: its period is the span t_last − t_0 plus the mean gap between its distinct
 * instants, so the seam looks like the rest of the recording. Global event g (counting from a stream's first) is then recorded at
 * T(g) = ⌊g / E⌋ · period + (t_{g mod E} − t_0), E events a cycle.
 *
 * Scaled to the offered rate: a stream offers `batch` events every `intervalMs` on average,
 * so time is scaled by s = (E / period) ÷ (batch / intervalMs), the recording's mean rate over
 * the stream's. A batch falls due when its newest event is born, as on the steady tick
 * (protocol/age.ts): batch `seq` holds events seq·batch … seq·batch + batch − 1, and is due
 * s · T(seq·batch + batch − 1) after the stream's origin, less batch 0's, so batch 0 is due at
 * the origin as on the steady tick. Events recorded in one instant fall due together: a burst
 * of batches in one tick.
 *
 * Pure: the server paces by it (server/hub.ts), the docs and tests check the arithmetic here.
 */
import { PushlabError } from './errors.js';
import type { FlagSpec } from './flags.js';
import { TIME_FIELD } from './rows-file.js';

export const PACES = ['steady', 'recorded'] as const;
export type Pace = (typeof PACES)[number];

/** When a stream's batches fall due, ms after its origin (batch 0 at 0). */
export interface Schedule {
  /** When batch `seq` is due. Non-decreasing in seq. */
  dueMs(seq: number): number;
  /** Batches due by `elapsedMs` after the origin: every seq with dueMs(seq) ≤ elapsedMs. */
  dueBy(elapsedMs: number): number;
}

/** Batches due by `elapsedMs` after the first one (which is due at 0). */
export function batchesDue(elapsedMs: number, intervalMs: number): number {
  if (elapsedMs < 0) return 0;
  return Math.floor(elapsedMs / intervalMs + 1e-9) + 1;
}

/** When the next batch after `generated` ones is due, ms after t0. */
export function nextDueMs(generated: number, intervalMs: number): number {
  return generated * intervalMs;
}

/** The steady tick: batch seq due at seq × interval. */
export function steadySchedule(intervalMs: number): Schedule {
  return { dueMs: (seq) => nextDueMs(seq, intervalMs), dueBy: (elapsedMs) => batchesDue(elapsedMs, intervalMs) };
}

/** A file's recorded times, as a cycle: offsets from its first event, and the cycle's length. */
export interface Recording {
  /** t_i − t_0, ms, non-decreasing. */
  offsetsMs: Float64Array;
  /** The span plus the mean gap between distinct instants, ms (> 0). */
  periodMs: number;
}

/** What a file's times make of a recording: the recording, or why there is none (words for a refusal). */
export type RecordingOrWhy = { recording: Recording } | { why: string };

/**
 * The recording of events recorded at `times` (epoch ms, null where an event has none),
 * `placeOf` naming an event for the refusal. None when an event has no time, times go
 * backwards, or they all fall in one instant.
 */
export function recordingOf(times: readonly (number | null)[], placeOf: (i: number) => string): RecordingOrWhy {
  if (times.length < 2) return { why: `it has ${times.length} event${times.length === 1 ? '' : 's'}; a recorded pace needs 2 or more with times` };
  const offsets = new Float64Array(times.length);
  const first = times[0];
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (t === null) {
      return {
        why: `${placeOf(i)} has no time: a HAR message's time, or a '${TIME_FIELD}' field on an object event (ms since the epoch, or an ISO 8601 date) on every event`,
      };
    }
    if (i > 0 && t < times[i - 1]!)
      return { why: `${placeOf(i)} was recorded ${times[i - 1]! - t} ms before ${placeOf(i - 1)}, which comes before it: times must not go backwards` };
    offsets[i] = t - first!;
  }
  const span = offsets[offsets.length - 1];
  if (!(span > 0)) return { why: `all ${times.length} events were recorded at the same instant: no pace to replay` };
  // The seam's gap: the mean gap between distinct instants, so a bursty recording's last burst
  // and the next cycle's first stay apart as its bursts are (the mean gap between events would
  // put them ~0 apart when most events share an instant with another).
  let instants = 1;
  for (let i = 1; i < offsets.length; i++) if (offsets[i] > offsets[i - 1]) instants++;
  return { recording: { offsetsMs: offsets, periodMs: span + span / (instants - 1) } };
}

/** The recording's events per second, as recorded. */
export function recordedEventsPerSec(r: Recording): number {
  return (r.offsetsMs.length * 1000) / r.periodMs;
}

/** Batches of `batch` events at a mean of one every `intervalMs`, due when the recording's events were born (see the top). */
export function recordedSchedule(r: Recording, batch: number, intervalMs: number): Schedule {
  const e = r.offsetsMs.length;
  const scale = (e * intervalMs) / (r.periodMs * batch);
  const born = (g: number) => scale * (Math.floor(g / e) * r.periodMs + r.offsetsMs[g % e]);
  const origin = born(batch - 1);
  const dueMs = (seq: number) => born(seq * batch + batch - 1) - origin;
  return {
    dueMs,
    dueBy(elapsedMs) {
      if (elapsedMs < 0) return 0;
      // dueMs is non-decreasing: the first seq due after elapsedMs, by doubling then halving.
      let hi = Math.max(1, Math.ceil(elapsedMs / intervalMs));
      while (dueMs(hi) <= elapsedMs) hi *= 2;
      let lo = 0;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (dueMs(mid) <= elapsedMs) lo = mid;
        else hi = mid;
      }
      return hi;
    },
  };
}

/** `--pace` on the sweep, advise and the lab. */
export const PACE_FLAG = {
  type: 'string',
  default: 'steady',
  defaultText: 'steady (a batch every interval)',
  help: `when batches fall due: steady (one every interval) or recorded (when a --rows file's events were recorded: a HAR's message times, or a '${TIME_FIELD}' field, scaled to the offered rate): docs/your-stream.md`,
} as const satisfies FlagSpec;

/** A `--pace` value, checked: PUSHLAB_BAD_FLAG names it and what is allowed. */
export function parsePace(flag: string, text: string): Pace {
  if ((PACES as readonly string[]).includes(text)) return text as Pace;
  throw new PushlabError('PUSHLAB_BAD_FLAG', `${flag} must be one of ${PACES.join(', ')}; got '${text}'`);
}
