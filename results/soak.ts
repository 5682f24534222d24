/**
 * A soak judged (protocol/soak.ts): did the setup hold over time? Four questions, each answered
 * from the raw samples with a stated bound, the way the seeds' long-run studies answer them
 * (bench/soak.ts, bench/drift.ts): the start of the run against its end.
 *
 * The first FILL_SEC are left out where the run is long enough: the page fills its table ring and
 * the charts' 60 s windows then, by design, so its heap and its work per event grow until they are full.
 *
 * - Heap growth: the least-squares slope of what the page retains, MB per hour, with its 95%
 *   interval. Single samples swing with the collector's sawtooth (5 to 31 MB every 20 s in a
 *   10-minute soak on 2026-11-28, whose fit over every sample read +50 MB/h, interval 17 to 83,
 *   too wide to judge). What a leak moves is what survives a collection: the driver forces one
 *   every RETAINED_EVERY_SEC and reads the heap left, and the fit takes those readings; a soak
 *   without enough of them (an earlier report, a browser that refused) takes the lowest sample
 *   of each stretch of about HEAP_FLOOR_SEC instead, which the sampling phase leaves a few MB
 *   above the true floor. The part is judged only once the interval is wholly on one side of the
 *   bound.
 * - Event-age and input-delay drift: the median of the interval p99s over the first END_SHARE of
 *   the intervals against the last END_SHARE (at least MIN_END_SAMPLES each). The median, because
 *   an interval's p99 of a few seconds is one GC pause away from double its neighbours'.
 * - Throughput drift: the same windows' median events/s.
 * - The forced reconnect: every connection back within RECOVERY_BOUND_SEC. What it lost is said,
 *   not judged: a stream that does not replay loses what fell due while it was down.
 *
 * Pure: the driver, the answer's words and the viewer all read the same judgement.
 */
import type { MeasuredRepeat } from '../protocol/repeat-figures.js';
import type { Soak, SoakSample } from '../protocol/soak.js';
import { inputDelayP99Ms } from './input-delay.js';
import { formatCount, formatEps, formatMs } from './format.js';
import { median, tQuantile975 } from './stats.js';

/**
 * Heap growth that holds, MB per hour: 25 MB/h is 200 MB over an eight-hour working day, about
 * what a tab can add and still be left open all day on a machine of this class. A leak of one
 * retained batch per second (a few kB) is well above it within the hour.
 */
export const HEAP_BOUND_MB_PER_HOUR = 25;
/** Seconds at the start the judgement leaves out (where enough is left): the table ring and the charts' 60 s windows fill then. */
export const FILL_SEC = 60;
/**
 * Seconds between the driver's forced collections, each followed by a reading of what the page
 * retains (SoakSample.heapRetainedMb): 18 readings over a 10-minute soak's judged 9 minutes, and
 * a pause of tens of ms every 30 s that the drift parts' medians of interval p99s do not see.
 */
export const RETAINED_EVERY_SEC = 30;
/** Samples the heap fit needs, and the floors it fits (one per stretch). */
export const MIN_HEAP_SAMPLES = 6;
/**
 * The longest stretch whose lowest heap sample is one floor of the fit, s: long enough to hold a
 * collection or two of a streaming page (tens of seconds apart here), short enough that a
 * 10-minute soak gives 9 floors. Shorter soaks take MIN_HEAP_SAMPLES stretches over their span.
 */
export const HEAP_FLOOR_SEC = 60;
/** The share of the intervals each end window takes, and the fewest intervals it may hold. */
export const END_SHARE = 0.1;
export const MIN_END_SAMPLES = 3;
/**
 * Latency drift that holds: the end window's mean p99 at most 25% above the start's, or at most
 * 5 ms above it where 25% is less (a p99 of a few ms moves by more than 25% with the scheduler).
 */
export const LATENCY_DRIFT = { share: 0.25, floorMs: 5 } as const;
/** Throughput drift that holds: the end window's mean events/s at most 5% under the start's (bench/drift.ts's bound). */
export const EPS_DRIFT = 0.05;
/** Every connection back within this, s: the WebSocket backoff's first tries and EventSource's retry (about 3 s in Chrome) fit in it. */
export const RECOVERY_BOUND_SEC = 10;
/** How long the driver waits for the connections to come back before it records none did, s. */
export const RECOVERY_WAIT_SEC = 30;

/** Seconds between a soak's samples: 2 s for a soak of a minute or less (enough intervals to judge its ends), else 5 s. */
export function sampleSecFor(durationSec: number): number {
  return durationSec <= 60 ? 2 : 5;
}

/** One interval's figures, from the repeat summarised over it (results/summarise.ts) and the heap at its end. */
export function soakSampleOf(r: MeasuredRepeat, atSec: number, heapUsedBytes: number | null): SoakSample {
  return {
    atSec: Math.round(atSec * 1000) / 1000,
    windowSec: r.windowSec,
    heapUsedMb: heapUsedBytes === null ? null : Math.round(heapUsedBytes / 1e4) / 100,
    eventsPerSec: r.eventsPerSec,
    deliveredRatio: r.deliveredRatio,
    ageP99Ms: r.latency.p99Ms,
    inputDelayP99Ms: r.input ? inputDelayP99Ms(r.input) : null,
    inputsHandled: r.input?.handled ?? 0,
    gaps: r.page.gaps,
    shed: r.server.batchesShed,
    reconnects: r.page.reconnects,
    rendererCpuPercent: r.cpu.tabProcess,
  };
}

/** A least-squares slope per hour, with its 95% confidence interval (Student's t, n − 2 degrees of freedom). */
export interface Slope {
  perHour: number;
  ciLow: number;
  ciHigh: number;
}

/** Least-squares slope of ys over xs (seconds), per hour; null with fewer than three points or two distinct xs. */
export function slopePerHour(xsSec: readonly number[], ys: readonly number[]): Slope | null {
  const n = xsSec.length;
  if (n < 3 || ys.length !== n) return null;
  const mx = xsSec.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xsSec[i] - mx) * (ys[i] - my);
    den += (xsSec[i] - mx) ** 2;
  }
  if (!(den > 0)) return null;
  const b = num / den;
  let ssr = 0;
  for (let i = 0; i < n; i++) ssr += (ys[i] - my - b * (xsSec[i] - mx)) ** 2;
  const half = tQuantile975(n - 2) * Math.sqrt(ssr / (n - 2) / den) * 3600;
  return { perHour: b * 3600, ciLow: b * 3600 - half, ciHigh: b * 3600 + half };
}

/** Intervals in each end window for `count` intervals: END_SHARE of them, at least MIN_END_SAMPLES; 0 when the two ends would overlap. */
export function endWindowSize(count: number): number {
  const n = Math.max(MIN_END_SAMPLES, Math.round(count * END_SHARE));
  return 2 * n <= count ? n : 0;
}

/**
 * The intervals the judgement reads: those ending after FILL_SEC when at least two end windows'
 * worth are left there, else all of them (a short soak: its start includes the filling).
 */
export function judgedSamples(samples: readonly SoakSample[]): { samples: readonly SoakSample[]; afterFill: boolean } {
  const after = samples.filter((s) => s.atSec > FILL_SEC);
  return endWindowSize(after.length) ? { samples: after, afterFill: true } : { samples, afterFill: false };
}

/** Start against end: the median of a figure over the first and the last end windows of the intervals. */
export interface EndDrift {
  /** Intervals in each window (nulls left out: an interval with no event or no input has no p99). */
  startN: number;
  endN: number;
  start: number;
  end: number;
}

/** The two ends of `values` (null: not measured in that interval); null when either end has fewer than MIN_END_SAMPLES figures. */
export function endDrift(values: readonly (number | null)[]): EndDrift | null {
  const n = endWindowSize(values.length);
  if (!n) return null;
  const present = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));
  const first = present(values.slice(0, n));
  const last = present(values.slice(-n));
  if (first.length < MIN_END_SAMPLES || last.length < MIN_END_SAMPLES) return null;
  return { startN: first.length, endN: last.length, start: median(first), end: median(last) };
}

/** Whether a latency figure held from start to end (LATENCY_DRIFT). */
export function latencyHeld(d: EndDrift): boolean {
  return d.end - d.start <= Math.max(LATENCY_DRIFT.share * d.start, LATENCY_DRIFT.floorMs);
}

/** Whether throughput held from start to end (EPS_DRIFT). */
export function epsHeld(d: EndDrift): boolean {
  return d.end >= d.start * (1 - EPS_DRIFT);
}

export interface HeapGrowth {
  mbPerHour: number;
  /** The slope's 95% interval, MB/h. */
  ciLow: number;
  ciHigh: number;
  /** The samples with a heap figure, the span they cover, s, and the floors fitted over it (one per `floorSec`). */
  samples: number;
  fromSec: number;
  toSec: number;
  floors: number;
  floorSec: number;
  /** Heap in use at the first and last samples with a heap figure, MB. */
  firstMb: number;
  lastMb: number;
  /**
   * What was fitted: `retained`, the heap after each forced collection (RETAINED_EVERY_SEC), where
   * the soak has MIN_HEAP_SAMPLES of them; else `floors`, the lowest heap of each stretch.
   */
  basis: 'retained' | 'floors';
  /** The fitted line passes through the fitted points' mean: time s, heap MB (for drawing it). */
  meanSec: number;
  meanMb: number;
}

/**
 * The lowest sample of each of `stretches` equal stretches of the samples' span (a stretch with
 * none is skipped; the last sample falls in the last stretch, never alone in one of its own): the
 * heap after the collector, where a leak shows and the sawtooth does not.
 */
export function heapFloors(fitted: readonly { atSec: number; heapUsedMb: number }[], stretches: number): { atSec: number; heapUsedMb: number }[] {
  const t0 = fitted[0]?.atSec ?? 0;
  const span = (fitted.at(-1)?.atSec ?? t0) - t0;
  const byStretch = new Map<number, { atSec: number; heapUsedMb: number }>();
  for (const s of fitted) {
    const k = span > 0 ? Math.min(stretches - 1, Math.floor(((s.atSec - t0) / span) * stretches)) : 0;
    const low = byStretch.get(k);
    if (!low || s.heapUsedMb < low.heapUsedMb) byStretch.set(k, s);
  }
  return [...byStretch.values()].sort((a, b) => a.atSec - b.atSec);
}

/** The heap's trend over `samples` (judgedSamples'); null with fewer than MIN_HEAP_SAMPLES heap figures. */
export function heapGrowth(samples: readonly SoakSample[]): HeapGrowth | null {
  const fitted = samples.filter((s): s is SoakSample & { heapUsedMb: number } => s.heapUsedMb !== null);
  if (fitted.length < MIN_HEAP_SAMPLES) return null;
  const span = fitted.at(-1)!.atSec - fitted[0].atSec;
  const retained = samples.flatMap((s) => (typeof s.heapRetainedMb === 'number' ? [{ atSec: s.atSec, heapUsedMb: s.heapRetainedMb }] : []));
  // Stretches of about HEAP_FLOOR_SEC; a short soak's span in MIN_HEAP_SAMPLES stretches.
  const stretches = Math.max(MIN_HEAP_SAMPLES, Math.floor(span / HEAP_FLOOR_SEC));
  const basis = retained.length >= MIN_HEAP_SAMPLES ? 'retained' : 'floors';
  const floorSec = basis === 'retained' ? RETAINED_EVERY_SEC : span / stretches;
  const floors = basis === 'retained' ? retained : heapFloors(fitted, stretches);
  const slope = slopePerHour(
    floors.map((s) => s.atSec),
    floors.map((s) => s.heapUsedMb),
  );
  if (slope === null) return null;
  return {
    mbPerHour: slope.perHour,
    ciLow: slope.ciLow,
    ciHigh: slope.ciHigh,
    samples: fitted.length,
    fromSec: fitted[0].atSec,
    toSec: fitted.at(-1)!.atSec,
    floors: floors.length,
    floorSec,
    basis,
    firstMb: fitted[0].heapUsedMb,
    lastMb: fitted.at(-1)!.heapUsedMb,
    meanSec: floors.reduce((a, s) => a + s.atSec, 0) / floors.length,
    meanMb: floors.reduce((a, s) => a + s.heapUsedMb, 0) / floors.length,
  };
}

export type SoakPartName = 'heap' | 'age' | 'input' | 'eps' | 'reconnect';

/** One question's answer: held, did not, or could not be judged (null), in words. */
export interface SoakPart {
  name: SoakPartName;
  held: boolean | null;
  text: string;
}

export interface SoakJudgement {
  /** False when any part did not hold or the soak failed; null when none failed but some could not be judged (or it was cut short); true otherwise. */
  held: boolean | null;
  parts: SoakPart[];
  /** One line: `held for 10 min`, `did not hold: …`. */
  headline: string;
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
const heldWord = (held: boolean | null, unknown: string) => (held === null ? unknown : held ? 'held' : 'did not hold');

/** Held when the slope's whole interval is at or under the bound, not when it is wholly over, else not judged. */
export function heapHeld(g: Pick<HeapGrowth, 'ciLow' | 'ciHigh'>): boolean | null {
  if (g.ciHigh <= HEAP_BOUND_MB_PER_HOUR) return true;
  if (g.ciLow > HEAP_BOUND_MB_PER_HOUR) return false;
  return null;
}

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
const minutes = (sec: number) => (sec < 120 ? `${Math.round(sec)} s` : `${(sec / 60).toFixed(1)} min`);

function latencyPart(name: 'age' | 'input', what: string, values: readonly (number | null)[], from: string): SoakPart {
  const d = endDrift(values);
  if (!d) return { name, held: null, text: `${what}: too few intervals with a p99 to compare start and end (needs ${MIN_END_SAMPLES} at each end)` };
  const held = latencyHeld(d);
  const change = d.start > 0 ? ` (${pct((d.end - d.start) / d.start)})` : '';
  return {
    name,
    held,
    text: `${what}: ${formatMs(d.start)} → ${formatMs(d.end)}${change}, median of the interval p99s, first ${d.startN} vs last ${d.endN} intervals${from}; holds within +${LATENCY_DRIFT.share * 100}% or +${LATENCY_DRIFT.floorMs} ms: ${held ? 'held' : 'did not hold'}`,
  };
}

/** The soak's judgement, part by part. */
export function judgeSoak(soak: Soak): SoakJudgement {
  const { samples, afterFill } = judgedSamples(soak.samples);
  const from = afterFill ? ` after the first ${FILL_SEC} s` : '';
  const parts: SoakPart[] = [];
  const heap = heapGrowth(samples);
  parts.push(
    heap
      ? {
          name: 'heap',
          held: heapHeld(heap),
          text: `heap: ${signed(heap.mbPerHour)} MB/h (95% CI ${signed(heap.ciLow)} to ${signed(heap.ciHigh)}; least-squares over ${heap.basis === 'retained' ? `the heap retained after a forced collection every ${minutes(heap.floorSec)}, ${heap.floors} readings` : `the lowest heap of each ${minutes(heap.floorSec)}, ${heap.floors} floors of ${heap.samples} samples`} from ${minutes(heap.fromSec)} to ${minutes(heap.toSec)}, ${heap.firstMb.toFixed(1)} → ${heap.lastMb.toFixed(1)} MB in use); holds at ≤ ${HEAP_BOUND_MB_PER_HOUR} MB/h: ${heldWord(heapHeld(heap), 'too short to tell: the interval straddles the bound')}`,
        }
      : {
          name: 'heap',
          held: null,
          text: `heap: not judged: needs ${MIN_HEAP_SAMPLES} samples with a heap figure${samples.some((s) => s.heapUsedMb !== null) ? '' : '; the browser gave none'}`,
        },
  );
  parts.push(
    latencyPart(
      'age',
      'event age p99',
      samples.map((s) => s.ageP99Ms),
      from,
    ),
  );
  parts.push(
    latencyPart(
      'input',
      'input delay p99',
      samples.map((s) => s.inputDelayP99Ms),
      from,
    ),
  );
  const eps = endDrift(samples.map((s) => s.eventsPerSec));
  parts.push(
    eps
      ? {
          name: 'eps',
          held: epsHeld(eps),
          text: `events/s: ${formatEps(eps.start)} → ${formatEps(eps.end)} (${pct(eps.start > 0 ? (eps.end - eps.start) / eps.start : 0)}), median, first ${eps.startN} vs last ${eps.endN} intervals${from}; holds at most ${EPS_DRIFT * 100}% lower: ${epsHeld(eps) ? 'held' : 'did not hold'}`,
        }
      : { name: 'eps', held: null, text: `events/s: too few intervals to compare start and end (needs ${MIN_END_SAMPLES} at each end)` },
  );
  parts.push(reconnectPart(soak));
  const failed = soak.stopped === 'failed';
  const anyFalse = failed || parts.some((p) => p.held === false);
  const anyNull = parts.some((p) => p.held === null) || soak.stopped === 'interrupted';
  const held = anyFalse ? false : anyNull ? null : true;
  const ran = soak.samples.length ? minutes(soak.samples.at(-1)!.atSec) : '0 s';
  const notHeld = parts.filter((p) => p.held === false).map((p) => p.name);
  const headline = failed
    ? `the soak failed after ${ran}: ${soak.error ?? 'no reason recorded'}`
    : held === true
      ? `held for ${ran}: heap, event age, input delay and throughput steady, and it came back from a reconnect`
      : held === false
        ? `did not hold over ${ran}: ${notHeld.join(', ')}`
        : `not judged whole over ${ran}${soak.stopped === 'interrupted' ? ' (interrupted)' : ''}: ${parts
            .filter((p) => p.held === null)
            .map((p) => p.name)
            .join(', ')} could not be judged`;
  return { held, parts, headline };
}

function reconnectPart(soak: Soak): SoakPart {
  const r = soak.reconnect;
  if (!r) return { name: 'reconnect', held: null, text: 'reconnect: not forced (the soak ended before half-way)' };
  const at = `at ${minutes(r.atSec)}`;
  const lost = `lost ${formatCount(r.lostEvents)} events (${formatCount(r.lostBatches)} batches by sequence number, ${formatCount(r.shedBatches)} of them shed by the server), connections closed for ${formatCount(Math.round(r.closedMs))} connection-ms`;
  if (r.recoverySec === null)
    return {
      name: 'reconnect',
      held: false,
      text: `reconnect ${at}: ${r.dropped} stream${r.dropped === 1 ? '' : 's'} dropped, ${r.reconnects} reconnected within ${RECOVERY_WAIT_SEC} s, not all; ${lost}`,
    };
  const held = r.recoverySec <= RECOVERY_BOUND_SEC;
  return {
    name: 'reconnect',
    held,
    text: `reconnect ${at}: ${r.dropped} stream${r.dropped === 1 ? '' : 's'} dropped, every connection back in ${r.recoverySec.toFixed(1)} s (holds within ${RECOVERY_BOUND_SEC} s: ${held ? 'held' : 'did not hold'}); ${lost}`,
  };
}

/** The judgement in lines, for the terminal and the answer. */
export function soakLines(soak: Soak): string[] {
  const j = judgeSoak(soak);
  return [
    `Soak of ${soak.source}, ${minutes(soak.durationSec)} asked, a sample every ${soak.sampleSec} s: ${j.headline}`,
    ...j.parts.map((p) => `  ${p.text}`),
  ];
}
