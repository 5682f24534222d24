/**
 * The machine's drift through an advise search (issue 33), from two measurements the search
 * takes besides its candidates:
 * - the yardstick the sweep measures every round (the in-page decoding ceiling: the same messages
 *   decoded in a fresh tab, no network, the same work every time), read at the start, between
 *   the stages and at the end; a move of SPEED_CHANGE_RATIO or more between two readings is
 *   the sweep's "unsteady machine", said in the sweep's own sentence (machine-speed.ts);
 * - one anchor candidate probed a second time at the end of the screen: the same setup minutes
 *   apart, so second ÷ first is how far the machine moved over the screen, in the figures the
 *   screen compares candidates by (EPS, renderer CPU per event). docs/method.md says how a reader
 *   takes that factor out of probes taken before and after.
 *
 * Pure, no Node or DOM: the terminal, the answer's words and the viewer all read it.
 */
import type { AnchorDrift, AnchorProbe, MachineDrift, YardstickMoment, YardstickReading } from '../protocol/advice.js';
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

/** b ÷ a; null unless both are positive figures. */
const ratioOf = (a: number | null, b: number | null) => (a !== null && b !== null && a > 0 && b > 0 ? b / a : null);
const beyond = (ratio: number | null, bound: number) => ratio !== null && (ratio >= bound || ratio <= 1 / bound);

/** The drift over the screen from the anchor's two probes: second ÷ first, read against `noise`. */
export function anchorDriftOf(
  candidateId: string,
  chosen: string,
  first: Repeat,
  second: Repeat,
  noise: { eventsPerSec: number; cpuPerEvent: number } = ANCHOR_NOISE,
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
  };
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
  if (d.anchor) return d.anchor.beyondNoise ? `${anchorText(d.anchor)}: the machine drifted over the screen` : anchorText(d.anchor);
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
  return lines;
}
