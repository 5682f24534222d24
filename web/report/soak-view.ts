/**
 * A soak over time (protocol/soak.ts) as it is plotted (soak-plot.ts draws it): heap in use,
 * event-age p99, input-delay p99 and events/s, one panel each on one time axis, with the forced
 * reconnect marked across all four and the start and end windows the judgement compares
 * (results/soak.ts). The heap panel carries the fitted trend. Pure, no DOM: the unit tests read it.
 */
import type { Soak, SoakSample } from '../../protocol/soak.js';
import { formatCompact } from '../../results/format.js';
import { endWindowSize, heapGrowth, judgedSamples } from '../../results/soak.js';

export interface SoakPanel {
  title: string;
  unit: string;
  /** Minutes since the first sample, and the figure (null: a break in the line). */
  points: { x: number; y: number | null }[];
  /** Top of the y axis (the bottom is 0): the largest figure, rounded up to a 1-2-5 step. */
  yMax: number;
  /** A fitted straight line to draw dashed over the points (the heap's trend), in the panel's units. */
  trend: { x0: number; y0: number; x1: number; y1: number } | null;
}

export interface SoakPlotView {
  panels: SoakPanel[];
  /** The time axis, minutes. */
  xMax: number;
  /** The reconnect, minutes, with its words; null when none was forced. */
  reconnect: { x: number; label: string } | null;
  /** The start and end windows the drift is judged on, minutes; null when too few intervals. */
  windows: { start: [number, number]; end: [number, number] } | null;
}

/** 1, 2, 5, 10, 20, … at or above `v` (at least 1 of the unit). */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const minutesOf = (s: SoakSample) => s.atSec / 60;

/** The four panels of a soak, as plotted. */
export function soakPanels(soak: Soak): SoakPlotView {
  const xs = soak.samples;
  const panel = (title: string, unit: string, y: (s: SoakSample) => number | null): SoakPanel => {
    const points = xs.map((s) => ({ x: minutesOf(s), y: y(s) }));
    const present = points.flatMap((p) => (p.y === null ? [] : [p.y]));
    return { title, unit, points, yMax: niceCeil(present.reduce((a, b) => Math.max(a, b), 0)), trend: null };
  };
  const heap = panel('JS heap in use', 'MB', (s) => s.heapUsedMb);
  const judged = judgedSamples(xs);
  const growth = heapGrowth(judged.samples);
  if (growth) {
    // The fitted line, through the floors' mean at the slope found: it runs along the troughs.
    const at = (sec: number) => growth.meanMb + (growth.mbPerHour / 3600) * (sec - growth.meanSec);
    heap.trend = { x0: growth.fromSec / 60, y0: at(growth.fromSec), x1: growth.toSec / 60, y1: at(growth.toSec) };
  }
  const n = endWindowSize(judged.samples.length);
  const first = judged.samples[0];
  const windows =
    n && first
      ? {
          start: [(first.atSec - first.windowSec) / 60, minutesOf(judged.samples[n - 1])] as [number, number],
          end: [(judged.samples.at(-n)!.atSec - judged.samples.at(-n)!.windowSec) / 60, minutesOf(judged.samples.at(-1)!)] as [number, number],
        }
      : null;
  const r = soak.reconnect;
  return {
    panels: [
      heap,
      panel('event age p99', 'ms', (s) => s.ageP99Ms),
      panel('input delay p99', 'ms', (s) => s.inputDelayP99Ms),
      panel('events/s received', 'events/s', (s) => s.eventsPerSec),
    ],
    xMax: Math.max(soak.durationSec / 60, xs.length ? minutesOf(xs.at(-1)!) : 0),
    reconnect: r
      ? {
          x: r.atSec / 60,
          label: `reconnect: ${r.dropped} stream${r.dropped === 1 ? '' : 's'} dropped, ${r.recoverySec === null ? 'not all back' : `back in ${r.recoverySec.toFixed(1)} s`}, ${formatCompact(r.lostEvents)} events lost`,
        }
      : null,
    windows,
  };
}
