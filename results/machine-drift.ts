/**
 * The machine's drift through an advise search (issue 33), from two measurements the search
 * takes besides its candidates:
 * - the yardstick the sweep measures every round (the in-page decoding ceiling: the same messages
 *   decoded in a fresh tab, no network, the same work every time), read at the start, between
 *   the stages and at the end; a move of SPEED_CHANGE_RATIO or more between two readings is
 *   the sweep's "unsteady machine", said in the sweep's own sentence (machine-speed.ts);
 * - one anchor candidate probed again through the screen (issue 34) and a last time as it ends:
 *   the same setup minutes apart, so last ÷ first is how far the machine moved over the screen,
 *   in the figures the screen compares candidates by (EPS, renderer CPU per event), and the
 *   readings between give the drift curve (driftCurveOf) every probe's cost is corrected by
 *   before the screen compares it (docs/method.md, "The machine's drift").
 *
 * Pure, no Node or DOM: the terminal, the answer's words and the viewer all read it.
 */
import type { AnchorDrift, AnchorProbe, AnchorReading, MachineDrift, YardstickMoment, YardstickReading } from '../protocol/advice.js';
import type { Repeat } from '../protocol/repeat-figures.js';
import { ENCODING_INFO } from '../protocol/encodings.js';
import { formatCompactCell } from './format.js';
import { speedChanges, speedChangeText, type CeilingTimes } from './machine-speed.js';
import { SUSTAINS_DELIVERED_RATIO } from './sustains.js';

/** When each reading was taken, as the unsteady-machine sentence says it. */
const MOMENT_WORDS: Record<YardstickMoment, string> = {
  start: 'at the start',
  'screen-confirm': 'after the screen',
  'confirm-headroom': 'after the confirmation',
  end: 'at the end',
};

/** The sentence's times for these readings: `at the start`, `after the screen`, … */
export function readingTimes(readings: readonly YardstickReading[]): CeilingTimes {
  return {
    when: (index) => {
      const r = readings.find((x) => x.index === index);
      return r ? MOMENT_WORDS[r.at] : `in reading ${index + 1}`;
    },
    each: 'every reading',
  };
}

/** The sweep's `unsteady machine: …` sentence for each change, in the readings' times. */
export function yardstickTexts(readings: readonly YardstickReading[]): string[] {
  const times = readingTimes(readings);
  // The sweep's own test of its rounds' ceilings: a failed reading holds no ceiling, so it counts for nothing.
  return speedChanges(readings).map((c) => speedChangeText(c, times));
}

/** `yardstick at the start: JSON.parse ceiling at batch 1000: 2.13 M events/s`, or its failure. */
export function readingLine(r: YardstickReading): string {
  const when = `yardstick ${MOMENT_WORDS[r.at]}`;
  if (r.error !== undefined) return `${when}: FAILED (${r.error}); the search goes on without it`;
  const ceilings = r.parseCeilings.map(
    (c) => `${ENCODING_INFO[c.encoding ?? 'json'].decoder} ceiling at batch ${c.batch}: ${formatCompactCell(c.eventsPerSec)} events/s`,
  );
  return `${when}: ${ceilings.join(', ') || 'no ceiling measured'}`;
}

/**
 * How far a re-probe of one setup moves within seconds, as a factor either way: a drift ratio
 * beyond it is the machine, not the window. Measured: six back-to-back pairs of repeats of one
 * setup, 7 s apart (three setups; advise-20261127-171228, confirmation rounds 50–59, 5 s windows,
 * this 2-core VM): renderer CPU per event second ÷ first 0.86–1.32 (median change 11%), EPS of
 * setups that kept up 0.995–1.003. A probe's 2 s window is noisier than those 5 s ones, so the
 * bounds sit above the largest seen: 1.35 for CPU per event, and for EPS the rule's ±3% margin.
 */
export const ANCHOR_NOISE = { eventsPerSec: 1.03, cpuPerEvent: 1.35 } as const;

/** A probe that measured EPS and renderer CPU per event: one an anchor can be read from. */
export function measuredBoth(r: Repeat): boolean {
  return r.status === 'ok' && r.eventsPerSec > 0 && (r.efficiency.rendererCpuMsPerMillionEvents ?? 0) > 0;
}

/**
 * A probe an anchor is best chosen from: it measured both figures and kept up with its rate
 * (delivered the rule's 99%). A page that keeps up does the same work both times (the offered
 * events), so its CPU per event compares like with like, and its EPS staying at the offered rate
 * says it still keeps up; a saturated page's figures also swing with its own backlog.
 */
export function keptUp(r: Repeat): boolean {
  return measuredBoth(r) && r.status === 'ok' && r.deliveredRatio >= SUSTAINS_DELIVERED_RATIO;
}

function probeOf(r: Repeat): AnchorProbe {
  return {
    startedAt: r.startedAt,
    eventsPerSec: r.status === 'ok' ? r.eventsPerSec : null,
    cpuMsPerMillionEvents: r.status === 'ok' ? r.efficiency.rendererCpuMsPerMillionEvents : null,
  };
}

/**
 * The drift curve's smoothing, in readings: each point of the curve is a local straight line
 * through the readings within about this many of their spacings either side (a Gaussian
 * kernel). One window's cost has a log sd of about 0.10 here (issue 34), so one reading alone
 * would swing the curve by 10%; over about three readings the swing falls to about 6%, while a
 * ramp still passes through unbent (a local line follows a slope) and a step is spread over
 * about three readings' time.
 */
export const DRIFT_BANDWIDTH_READINGS = 1.5;

/** One reading of the anchor's cost for the curve: when (s, the search's clock) and what it cost. */
export interface DriftPoint {
  atSec: number;
  cost: number;
}

/**
 * The machine's drift through the screen from the anchor's readings: the factor by which the
 * anchor's cost at `atSec` exceeds its cost at the first reading, smoothed (a local linear fit of
 * log cost against time, DRIFT_BANDWIDTH_READINGS) so that one noisy reading does not swing it,
 * and flat before the first reading and after the last. With fewer than two readings there is no
 * drift to see: 1 everywhere. Dividing a probe's cost by the factor at its time makes costs
 * measured minutes apart comparable, as far as the anchor's work stands for theirs.
 */
export function driftCurveOf(points: readonly DriftPoint[]): (atSec: number) => number {
  const pts = points.filter((p) => p.cost > 0 && Number.isFinite(p.cost) && Number.isFinite(p.atSec)).sort((a, b) => a.atSec - b.atSec);
  if (pts.length < 2) return () => 1;
  const [t0, tn] = [pts[0].atSec, pts[pts.length - 1].atSec];
  const h = (DRIFT_BANDWIDTH_READINGS * (tn - t0)) / (pts.length - 1);
  if (!(h > 0)) return () => 1;
  const level = (t: number) => {
    let [sw, sx, sy] = [0, 0, 0];
    const w = pts.map((p) => Math.exp(-0.5 * ((p.atSec - t) / h) ** 2));
    pts.forEach((p, i) => {
      sw += w[i];
      sx += w[i] * p.atSec;
      sy += w[i] * Math.log(p.cost);
    });
    const [mx, my] = [sx / sw, sy / sw];
    let [sxx, sxy] = [0, 0];
    pts.forEach((p, i) => {
      sxx += w[i] * (p.atSec - mx) ** 2;
      sxy += w[i] * (p.atSec - mx) * (Math.log(p.cost) - my);
    });
    // A slope only where the weighted readings spread in time; else their mean.
    const slope = sxx > 1e-9 * sw * h * h ? sxy / sxx : 0;
    return my + slope * (t - mx);
  };
  const base = level(t0);
  return (atSec) => Math.exp(level(Math.min(tn, Math.max(t0, atSec))) - base);
}

/** b ÷ a; null unless both are positive figures. */
const ratioOf = (a: number | null, b: number | null) => (a !== null && b !== null && a > 0 && b > 0 ? b / a : null);
const beyond = (ratio: number | null, bound: number) => ratio !== null && (ratio >= bound || ratio <= 1 / bound);

/**
 * The drift over the screen from the anchor's first probe and its last re-probe: second ÷ first,
 * read against `noise`; with every reading between when the screen took them (`readings`).
 */
export function anchorDriftOf(
  candidateId: string,
  chosen: string,
  first: Repeat,
  second: Repeat,
  noise: { eventsPerSec: number; cpuPerEvent: number } = ANCHOR_NOISE,
  readings?: AnchorReading[],
): AnchorDrift {
  const [a, b] = [probeOf(first), probeOf(second)];
  const apart = (Date.parse(b.startedAt) - Date.parse(a.startedAt)) / 1000;
  const eventsPerSecRatio = ratioOf(a.eventsPerSec, b.eventsPerSec);
  const cpuPerEventRatio = ratioOf(a.cpuMsPerMillionEvents, b.cpuMsPerMillionEvents);
  return {
    candidateId,
    chosen,
    first: a,
    second: b,
    apartSec: Number.isFinite(apart) ? Math.max(0, apart) : 0,
    eventsPerSecRatio,
    cpuPerEventRatio,
    noise: { ...noise },
    beyondNoise: beyond(eventsPerSecRatio, noise.eventsPerSec) || beyond(cpuPerEventRatio, noise.cpuPerEvent),
    repeat: second,
    ...(readings ? { readings } : {}),
  };
}

/**
 * `4 readings of the anchor through the screen corrected each probe's cost by ×1.00 to ×1.62`;
 * null for an anchor with no readings kept (a report before issue 34).
 */
export function correctionText(a: AnchorDrift): string | null {
  if (!a.readings?.length) return null;
  const factors = a.readings.map((r) => r.factor);
  const [lo, hi] = [Math.min(...factors), Math.max(...factors)];
  return `${a.readings.length} readings of the anchor through the screen corrected each probe's cost by ${factor(lo)} to ${factor(hi)}`;
}

/** `4.2 min` or `40 s`. */
const apartText = (sec: number) => (sec >= 90 ? `${(sec / 60).toFixed(1)} min` : `${Math.round(sec)} s`);
const factor = (x: number | null) => (x === null ? 'not measured' : `×${x.toFixed(2)}`);

/**
 * `anchor sse-b300-c1-i10 probed again 4.2 min after its first probe: EPS ×1.00, renderer CPU per
 * event ×1.31 (second ÷ first), beyond the ×1.03 and ×1.35 a re-probe moves within seconds`.
 */
export function anchorText(a: AnchorDrift): string {
  const head = `anchor ${a.candidateId} (${a.chosen}) probed again ${apartText(a.apartSec)} after its first probe`;
  if (a.eventsPerSecRatio === null && a.cpuPerEventRatio === null)
    return `${head}: the second probe measured neither EPS nor renderer CPU per event, so the drift over the screen is not known`;
  const noise = `×${a.noise.eventsPerSec.toFixed(2)} and ×${a.noise.cpuPerEvent.toFixed(2)} either way`;
  return (
    `${head}: EPS ${factor(a.eventsPerSecRatio)}, renderer CPU per event ${factor(a.cpuPerEventRatio)} (second ÷ first), ` +
    (a.beyondNoise ? `beyond the ${noise} a re-probe moves within seconds` : `within the ${noise} a re-probe moves within seconds`)
  );
}

/** What the terminal prints once the anchor's re-probe is decided. */
export function anchorLine(d: MachineDrift): string {
  if (d.anchor) {
    const corrected = correctionText(d.anchor);
    const line = d.anchor.beyondNoise ? `${anchorText(d.anchor)}: the machine drifted over the screen` : anchorText(d.anchor);
    return corrected ? `${line}; ${corrected}` : line;
  }
  return `anchor not probed again: ${d.anchorSkipped ?? 'the screen did not end'}`;
}

/**
 * The answer's lines on the machine's drift: every unsteady-machine sentence, and the anchor's
 * drift when it is beyond the noise. Empty when the machine held (or nothing was measured).
 */
export function driftLines(d: MachineDrift | undefined): string[] {
  if (!d) return [];
  const lines = yardstickTexts(d.readings).map((t) => `${t}.`);
  if (d.anchor?.beyondNoise)
    lines.push(
      `Drift over the screen: ${anchorText(d.anchor)}: probes taken before and after are not comparable without that factor (docs/method.md, "The machine's drift").`,
    );
  const corrected = d.anchor && correctionText(d.anchor);
  if (corrected && d.anchor!.readings!.length > 1) lines.push(`Screen: ${corrected} (divided by the drift at its time) before comparing it.`);
  return lines;
}
