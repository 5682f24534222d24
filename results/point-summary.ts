/**
 * From a point's repeats to what the report says about it: the statistics of every figure,
 * the verdict most repeats reached (results/verdict.ts), the flags that say a point was not steady; and from pairs
 * of points that differ only in transport, the paired verdict ("sse faster than ws by 23%").
 * Pure: repeats in, summaries out. docs/method.md ("Statistics") describes the method.
 */
import type { FailedRepeat, MeasuredRepeat, Repeat, Verdict } from '../protocol/repeat-figures.js';
import type { BrowserHost, PairedComparison, PointResult, PointSummary, UnsteadyFlag } from '../protocol/report.js';
import type { Point } from '../protocol/scenario.js';
import { describe, describePresent, maxOf, median, pairedRatio, relativeHalfWidth } from './stats.js';
import { wireCell } from './format.js';
import { type Margins, DEFAULT_MARGINS } from '../protocol/margins.js';
import { bothKeptUp, judgeRatio, marginText, type Equivalence } from './equivalence.js';
import { SUSTAINS_DELIVERED_RATIO } from './sustains.js';
import { pairKey } from './rounds.js';
import { majorityVerdict } from './verdict.js';
import { inputDelayP99Ms } from './input-delay.js';

/** A repeat that delivered more than this share of the offered rate drained a backlog in its window. */
export const OVER_DELIVERY_RATIO = 1.03;
/** A repeat whose EPS is further than this share from the point's median is an outlier. */
export const OUTLIER_SHARE = 0.25;
/** `--auto` adds rounds while the EPS CI's half-width is above this share of the median. */
export const AUTO_TOLERANCE = 0.05;

const isMeasured = (r: Repeat): r is MeasuredRepeat => r.status === 'ok';
const isFailed = (r: Repeat): r is FailedRepeat => r.status === 'failed';

const statOf = describePresent;

/** Rounds in messages count from 1; `round` fields in report.json count from 0. */
function roundsText(rounds: readonly number[]): string {
  return `${rounds.length === 1 ? 'round' : 'rounds'} ${rounds.map((r) => r + 1).join(', ')}`;
}

/** `612 k`, `1.52 M`: EPS in messages. */
function epsText(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toPrecision(3)} M`;
  if (v >= 1e3) return `${Math.round(v / 1e3)} k`;
  return String(Math.round(v));
}

/** The statistics of every figure over the measured repeats (at least one). */
function summaryOf(measured: readonly MeasuredRepeat[]): PointSummary {
  const over = (f: (r: MeasuredRepeat) => number) => describe(measured.map(f));
  const overPresent = (f: (r: MeasuredRepeat) => number | null) => statOf(measured.map(f));
  return {
    n: measured.length,
    eventsPerSec: over((r) => r.eventsPerSec),
    deliveredRatio: over((r) => r.deliveredRatio),
    ceilingRatio: overPresent((r) => r.ceilingRatio),
    // Only where repeats carry it (reports before per-encoding ceilings do not): absent stays absent.
    ...(measured.some((r) => r.jsonCeilingRatio !== undefined) ? { jsonCeilingRatio: overPresent((r) => r.jsonCeilingRatio ?? null) } : {}),
    ...(measured.some((r) => r.bytesPerEvent !== undefined) ? { bytesPerEvent: overPresent((r) => r.bytesPerEvent ?? null) } : {}),
    latencyP50Ms: overPresent((r) => r.latency.p50Ms),
    latencyP99Ms: overPresent((r) => r.latency.p99Ms),
    cpu: {
      // Over the repeats that read each one (null in a repeat is unread, never 0).
      tabProcess: overPresent((r) => r.cpu.tabProcess),
      tabMainThread: overPresent((r) => r.cpu.tabMainThread),
      chromeTotal: overPresent((r) => r.cpu.chrome.total),
      browser: overPresent((r) => r.cpu.chrome.browser),
      network: overPresent((r) => r.cpu.chrome.network),
      gpu: overPresent((r) => r.cpu.chrome.gpu),
      server: over((r) => r.cpu.server),
      host: overPresent((r) => r.cpu.host),
    },
    efficiency: {
      eventsPerCpuSecRenderer: overPresent((r) => r.efficiency.eventsPerCpuSecRenderer),
      eventsPerCpuSecMainThread: overPresent((r) => r.efficiency.eventsPerCpuSecMainThread),
      eventsPerCpuSecChrome: overPresent((r) => r.efficiency.eventsPerCpuSecChrome),
      rendererCpuMsPerMillionEvents: overPresent((r) => r.efficiency.rendererCpuMsPerMillionEvents),
    },
    gaps: measured.reduce((a, r) => a + r.page.gaps, 0),
    shed: measured.reduce((a, r) => a + r.server.batchesShed, 0),
    wire: measured.at(-1)!.wire ?? null,
    // Only points of the tabs and compression factors have these; others keep their old shape.
    ...tabStats(measured),
    ...compressionStats(measured),
    ...inputStats(measured),
    ...ageStats(measured),
  };
}

/** Input delay p99 and long frames' blocking time per second, over the repeats that measured input (absent in version 3 reports). */
function inputStats(measured: readonly MeasuredRepeat[]): Pick<PointSummary, 'inputDelayP99Ms' | 'longFrameBlockingMsPerSec'> {
  const inputs = measured.flatMap((r) => (r.input ? [{ input: r.input, windowSec: r.windowSec }] : []));
  if (!inputs.length) return {};
  return {
    // The input still waiting at the window's end counts, as a lower bound (results/input-delay.ts).
    inputDelayP99Ms: statOf(inputs.map((x) => inputDelayP99Ms(x.input))),
    // Null where the browser has no long animation frames (Firefox): not 0.
    longFrameBlockingMsPerSec: statOf(inputs.map((x) => (x.input.longFrames ? x.input.longFrames.blockingMs / x.windowSec : null))),
  };
}

/** Transit and display age over the repeats that have them (issue 33); a version 3 report's repeats have neither. */
function ageStats(measured: readonly MeasuredRepeat[]): Pick<PointSummary, 'transitP99Ms' | 'displayAgeP50Ms' | 'displayAgeP99Ms'> {
  const transit = measured.map((r) => r.transit).filter((t) => t !== undefined);
  const display = measured.map((r) => r.displayAge).filter((d) => d !== undefined);
  return {
    ...(transit.length ? { transitP99Ms: statOf(transit.map((t) => t.p99Ms)) } : {}),
    ...(display.length ? { displayAgeP50Ms: statOf(display.map((d) => d?.p50Ms ?? null)), displayAgeP99Ms: statOf(display.map((d) => d?.p99Ms ?? null)) } : {}),
  };
}

/** The lowest and highest tab's EPS of each multi-tab repeat, over the repeats. */
function tabStats(measured: readonly MeasuredRepeat[]): Pick<PointSummary, 'tabEventsPerSecMin' | 'tabEventsPerSecMax'> {
  const spreads = measured.map((r) => r.perTabEventsPerSec).filter((s) => s !== undefined);
  if (!spreads.length) return {};
  return { tabEventsPerSecMin: describe(spreads.map((s) => s.min)), tabEventsPerSecMax: describe(spreads.map((s) => s.max)) };
}

/** MB/s on the wire and the compression ratio, over the compressed repeats. */
function compressionStats(measured: readonly MeasuredRepeat[]): Pick<PointSummary, 'wireMegabytesPerSec' | 'compressionRatio'> {
  const figures = measured.map((r) => r.compression).filter((c) => c !== undefined);
  if (!figures.length) return {};
  return { wireMegabytesPerSec: describe(figures.map((c) => c.wireMegabytesPerSec)), compressionRatio: statOf(figures.map((c) => c.ratio)) };
}

/** Why the point's figures should not be read as steady: one flag per kind, naming its rounds. */
function unsteadyFlags(repeats: readonly Repeat[], measured: readonly MeasuredRepeat[]): UnsteadyFlag[] {
  const flags: UnsteadyFlag[] = [];
  const over = measured.filter((r) => r.deliveredRatio > OVER_DELIVERY_RATIO);
  if (over.length) {
    const top = maxOf(over.map((r) => r.deliveredRatio));
    flags.push({
      kind: 'over-delivery',
      rounds: over.map((r) => r.round),
      message: `delivered above ${Math.round(OVER_DELIVERY_RATIO * 100)}% of offered in ${roundsText(over.map((r) => r.round))} (up to ${(top * 100).toFixed(1)}%): a backlog drained inside the window`,
    });
  }
  const behind = measured.filter((r) => r.startedBehind);
  if (behind.length) {
    flags.push({
      kind: 'backlog',
      rounds: behind.map((r) => r.round),
      message: `the window started before page and server had caught up in ${roundsText(behind.map((r) => r.round))}`,
    });
  }
  if (measured.length >= 2) {
    const mid = median(measured.map((r) => r.eventsPerSec));
    const outliers = measured.filter((r) => Math.abs(r.eventsPerSec - mid) > OUTLIER_SHARE * mid);
    if (outliers.length) {
      flags.push({
        kind: 'outlier',
        rounds: outliers.map((r) => r.round),
        message: `EPS more than ${OUTLIER_SHARE * 100}% from the median ${epsText(mid)} in ${outliers.map((r) => `round ${r.round + 1} (${epsText(r.eventsPerSec)})`).join(', ')}`,
      });
    }
  }
  // A version 2 or 3 run resumed since: its repeats kept transit (write → handler), the new ones
  // event age (birth → handler, the fill wait included). Their median mixes two measures.
  const transit = measured.filter((r) => r.latencyBook === 'transit');
  if (transit.length && transit.length < measured.length) {
    flags.push({
      kind: 'mixed-latency',
      rounds: transit.map((r) => r.round),
      message: `latency is transit in ${roundsText(transit.map((r) => r.round))} (measured before event age, from a version 2 or 3 report) and event age in the others: the latency median mixes the two, and transit leaves out the wait to fill a batch`,
    });
  }
  const failed = repeats.filter(isFailed);
  if (failed.length) {
    flags.push({
      kind: 'failed-repeats',
      rounds: failed.map((r) => r.round),
      message: `${failed.length} of ${repeats.length} repeats failed: ${failed.map((r) => `round ${r.round + 1}: ${r.cause ?? r.error}`).join('; ')}`,
    });
  }
  return flags;
}

/** Each distinct repeat note once, with the rounds it came up in. */
function mergedNotes(repeats: readonly Repeat[]): string[] {
  const rounds = new Map<string, number[]>();
  for (const r of repeats) {
    for (const note of r.notes) {
      const seen = rounds.get(note);
      if (!seen) rounds.set(note, [r.round]);
      else if (!seen.includes(r.round)) seen.push(r.round);
    }
  }
  return [...rounds].map(([note, rs]) => `${note} (${roundsText(rs)})`);
}

/**
 * The measured repeats one summary may pool: those from one kind of host (`BrowserHost.kind`).
 * Figures from an ARM laptop and an office desktop are two findings, not one noisy one. The
 * kind that measured the most repeats is kept (a tie: the kind measured first); the others
 * stay raw in `repeats` and are named in a `mixed-hosts` flag. Repeats without a browser
 * (older reports, one browser) all count as one kind.
 */
export function poolableRepeats(measured: readonly MeasuredRepeat[], hosts: readonly BrowserHost[] = []): { pooled: MeasuredRepeat[]; left: MeasuredRepeat[] } {
  const kindOfId = hostKinds(hosts);
  const kindOf = (r: MeasuredRepeat) => kindOfId(r.browserId);
  const counts = new Map<string, number>();
  for (const r of measured) counts.set(kindOf(r), (counts.get(kindOf(r)) ?? 0) + 1);
  if (counts.size <= 1) return { pooled: [...measured], left: [] };
  const most = maxOf(counts.values());
  // Map iteration follows insertion, i.e. the order measured: the first kind with `most` wins a tie.
  const kind = [...counts].find(([, n]) => n === most)![0];
  return { pooled: measured.filter((r) => kindOf(r) === kind), left: measured.filter((r) => kindOf(r) !== kind) };
}

/** A point's repeats → its summary, verdict, unsteady flags and notes; `hosts`: the report's browsers. */
export function summarisePoint(
  _point: Point,
  repeats: readonly Repeat[],
  hosts: readonly BrowserHost[] = [],
): { summary: PointSummary | null; verdict: Verdict; unsteady: UnsteadyFlag[]; notes: string[]; browsers?: string[] } {
  const { pooled, left } = poolableRepeats(repeats.filter(isMeasured), hosts);
  const unsteady = unsteadyFlags(repeats, pooled);
  if (left.length) {
    const ids = [...new Set(left.map((r) => r.browserId))].join(', ');
    unsteady.push({
      kind: 'mixed-hosts',
      rounds: left.map((r) => r.round),
      message: `${left.length} repeat(s) measured on another kind of host (${ids}) in ${roundsText(left.map((r) => r.round))} are kept raw but left out of the statistics: figures from different kinds of host are never pooled`,
    });
  }
  const browsers = [...new Set(pooled.map((r) => r.browserId).filter((b): b is string => b !== undefined))];
  return {
    summary: pooled.length ? summaryOf(pooled) : null,
    verdict: majorityVerdict(pooled),
    unsteady,
    notes: [...mergedNotes(repeats), ...wireDisagreement(pooled), ...cpuSourceNotes(pooled)],
    ...(browsers.length ? { browsers } : {}),
  };
}

/**
 * Where an engine's CPU came from, when it is not Chrome's CDP (CpuFigures.sources): the
 * figures it could not read, each with why, so a dash in a table is never read as 0; and that
 * its main-thread figure is CPU time, not Chrome's busy time.
 */
function cpuSourceNotes(measured: readonly MeasuredRepeat[]): string[] {
  const sources = measured.at(-1)?.cpu.sources;
  if (!sources) return [];
  const unread = [...new Set(measured.flatMap((r) => r.cpu.unavailable ?? []))];
  // Figures unread for one reason are named together (a remote Firefox: all of them, once).
  const byReason = new Map<string, string[]>();
  for (const k of unread) {
    const why = (sources[k] ?? "unavailable: this machine's /proc is not the browser's host's").replace(/^unavailable: /, '');
    const figures = byReason.get(why);
    if (figures) figures.push(k);
    else byReason.set(why, [k]);
  }
  const why = [...byReason].map(([reason, figures]) => `${figures.join(', ')} (${reason})`);
  const unreadText = why.length ? `unread, so null (never 0): ${why.join('; ')}` : '';
  // Firefox's figures come from /proc; a device class's (either engine) are scaled, which its repeats' notes say.
  const fromProc = sources.tabProcess?.startsWith('/proc: ') === true;
  const tab = unread.includes('tabProcess')
    ? 'no CPU figure of the browser could be read'
    : fromProc
      ? `CPU from /proc, not CDP: the tab is ${sources.tabProcess!.replace(/^\/proc: /, '')}; its main thread is CPU time, not busy time`
      : '';
  const text = [tab, unreadText].filter(Boolean).join('; ');
  return text ? [text] : [];
}

/** The summary shows one repeat's connections; say so when the repeats did not all see the same. */
function wireDisagreement(measured: readonly MeasuredRepeat[]): string[] {
  const seen = new Set(measured.map((r) => wireCell(r.wire)));
  return seen.size > 1 ? [`the repeats' connections differed: ${[...seen].join('; ')}`] : [];
}

/** `--auto`: the EPS CI is wider than ±tolerance of the median, or there is none yet. */
export function needsMoreRepeats(r: PointResult, tolerance = AUTO_TOLERANCE): boolean {
  if (!r.summary || r.summary.n < 2) return true;
  const width = relativeHalfWidth(r.summary.eventsPerSec);
  return width === null || width > tolerance;
}

// ----------------------------------------------------------------------------------------------
// Paired comparisons

export type Metric = PairedComparison['metric'];

/** Each metric's value in one repeat, which way is better, and its practical margin (results/equivalence.ts). */
export const METRICS: Record<Metric, { of: (r: MeasuredRepeat) => number | null; higherIsBetter: boolean; margin: (m: Margins) => number }> = {
  eventsPerSec: { of: (r) => r.eventsPerSec, higherIsBetter: true, margin: (m) => m.eventsPerSec },
  rendererCpuMsPerMillionEvents: { of: (r) => r.efficiency.rendererCpuMsPerMillionEvents, higherIsBetter: false, margin: (m) => m.cpuPerEvent },
};

/** `23`, `4.2`: a share as a percentage number, one decimal below 10. */
function pct(share: number): string {
  const p = share * 100;
  return Math.abs(p) < 10 ? p.toFixed(1) : p.toFixed(0);
}

const rounds = (n: number) => `${n} round${n === 1 ? '' : 's'}`;

/**
 * The sentence for one comparison, read against its margin: who is better by how much (the CI
 * wholly beyond the margin), equivalent within it, both kept up (EPS), or no clear difference.
 */
function comparisonText(
  metric: Metric,
  names: { a: string; b: string },
  r: { ratio: number; ciLow: number | null; ciHigh: number | null; n: number },
  e: Equivalence,
  shortRounds = '',
): string {
  const { a, b } = names;
  const quotient = `${b} ÷ ${a} ${r.ratio.toFixed(2)}`;
  const what = metric === 'eventsPerSec' ? 'EPS' : 'renderer CPU per event';
  if (e.kind === 'both-kept-up')
    return shortRounds
      ? `EPS: both kept up in the median round (each delivered ≥ 99% of offered), not a race (${quotient}, ${rounds(r.n)}; below 99% in ${shortRounds})`
      : `EPS: both kept up (each delivered ≥ 99% of offered), not a race (${quotient}, ${rounds(r.n)})`;
  if (r.ciLow === null || r.ciHigh === null) return `${what}: ${quotient} in 1 round (a CI needs ≥ 2 rounds)`;
  const lo = r.ciLow;
  const hi = r.ciHigh;
  const ci = `CI ${lo.toFixed(2)}–${hi.toFixed(2)}`;
  if (e.kind === 'equivalent') return `${what} equivalent within ${marginText(e.margin)} (${quotient}, ${ci}, ${rounds(r.n)})`;
  if (e.kind === 'unclear')
    return `no clear ${metric === 'eventsPerSec' ? 'EPS difference' : 'difference in renderer CPU per event'} (${quotient}, ${ci}, ${rounds(r.n)}; margin ${marginText(e.margin)})`;
  if (metric === 'eventsPerSec') {
    // B ÷ A above 1 means B faster; otherwise A is faster by the reciprocal.
    return e.better === 'b'
      ? `${b} faster than ${a} by ${pct(r.ratio - 1)}% (CI ${pct(lo - 1)}–${pct(hi - 1)}%), ${rounds(r.n)}`
      : `${a} faster than ${b} by ${pct(1 / r.ratio - 1)}% (CI ${pct(1 / hi - 1)}–${pct(1 / lo - 1)}%), ${rounds(r.n)}`;
  }
  return e.better === 'b'
    ? `${b} uses ${pct(1 - r.ratio)}% less renderer CPU per event than ${a} (CI ${pct(1 - hi)}–${pct(1 - lo)}%), ${rounds(r.n)}`
    : `${a} uses ${pct(1 - 1 / r.ratio)}% less renderer CPU per event than ${b} (CI ${pct(1 - 1 / lo)}–${pct(1 - 1 / hi)}%), ${rounds(r.n)}`;
}

/** Each round's first measured repeat of a point. */
function measuredByRound(p: PointResult): Map<number, MeasuredRepeat> {
  const byRound = new Map<number, MeasuredRepeat>();
  for (const r of p.repeats) if (isMeasured(r) && !byRound.has(r.round)) byRound.set(r.round, r);
  return byRound;
}

/** What kind of host a browser id is (`BrowserHost.kind`); an id the report does not describe is its own kind. */
export type HostKindOf = (browserId: string | undefined) => string;

/** The host-kind lookup for a report's browsers. */
export function hostKinds(hosts: readonly BrowserHost[] = []): HostKindOf {
  return (id) => (id === undefined ? '' : (hosts.find((h) => h.id === id)?.kind ?? id));
}

/**
 * The machine lookup for a report's browsers (`BrowserHost.host`): what two engines' points pair
 * on, since their browser builds make them two kinds. An id the report does not describe (a
 * sweep's single browser in older reports) is this machine, like every launched browser.
 */
export function hostMachines(hosts: readonly BrowserHost[] = []): HostKindOf {
  return (id) => (id === undefined ? 'localhost' : (hosts.find((h) => h.id === id)?.host ?? id));
}

/**
 * One metric of A and B, compared over the rounds where both measured a positive value on the
 * same kind of host (a pair measured on two kinds compares the hosts, not the settings), read
 * against the metric's practical margin (`margins`, results/equivalence.ts); the sentence names
 * them by `names` (their transports unless given).
 */
export function compare(
  a: PointResult,
  b: PointResult,
  metric: Metric,
  names = { a: a.point.transport as string, b: b.point.transport as string },
  kindOf: HostKindOf = hostKinds(),
  margins: Margins = DEFAULT_MARGINS,
): PairedComparison | null {
  const { of, higherIsBetter, margin } = METRICS[metric];
  const aRounds = measuredByRound(a);
  const bRounds = measuredByRound(b);
  const sameBrowser = (round: number) => bRounds.has(round) && kindOf(aRounds.get(round)!.browserId) === kindOf(bRounds.get(round)!.browserId);
  const pairs = [...aRounds.keys()]
    .sort((x, y) => x - y)
    .map((round) => ({ round, x: of(aRounds.get(round)!), y: sameBrowser(round) ? of(bRounds.get(round)!) : null }))
    .filter((p): p is { round: number; x: number; y: number } => p.x !== null && p.y !== null && p.x > 0 && p.y > 0);
  if (!pairs.length) return null;
  const r = pairedRatio(
    pairs.map((p) => p.x),
    pairs.map((p) => p.y),
  );
  // Over the paired rounds: where both sides delivered what was offered, EPS is not a race.
  const delivered = (rs: Map<number, MeasuredRepeat>) => median(pairs.map((p) => rs.get(p.round)!.deliveredRatio));
  const keptUp = metric === 'eventsPerSec' && bothKeptUp(delivered(aRounds), delivered(bRounds));
  const e = judgeRatio(r, margin(margins), higherIsBetter, keptUp);
  // Kept up is the median round's statement (the sustains rule's); a round that fell short is
  // said beside it, so a quotient well below 1 does not read as a contradiction.
  const short = (side: string, rs: Map<number, MeasuredRepeat>, round: number) => {
    const d = rs.get(round)!.deliveredRatio;
    return d < SUSTAINS_DELIVERED_RATIO ? [`${side} ${(d * 100).toFixed(1)}%`] : [];
  };
  const shortRounds = keptUp
    ? pairs
        .map((p) => ({ round: p.round, sides: [...short(names.a, aRounds, p.round), ...short(names.b, bRounds, p.round)] }))
        .filter((x) => x.sides.length)
        .map((x) => `round ${x.round + 1} (${x.sides.join(', ')})`)
        .join(', ')
    : '';
  return {
    a: a.point.id,
    b: b.point.id,
    metric,
    rounds: pairs.map((p) => p.round),
    ratios: r.ratios,
    ratio: r.ratio,
    ciLow: r.ciLow,
    ciHigh: r.ciHigh,
    better: e.better,
    equivalence: { kind: e.kind, margin: e.margin },
    text: comparisonText(metric, names, { ...r, n: pairs.length }, e, shortRounds),
  };
}

/**
 * Points that differ only in transport, each compared with the one listed first (A), on EPS
 * and on renderer CPU per million events, using only rounds where both were measured.
 */
export function pairedComparisons(points: readonly PointResult[], hosts?: readonly BrowserHost[], margins: Margins = DEFAULT_MARGINS): PairedComparison[] {
  const kindOf = hostKinds(hosts);
  const groups = new Map<string, PointResult[]>();
  for (const p of points) {
    const key = pairKey(p.point);
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  const out: PairedComparison[] = [];
  // Each transport against the group's first (the scenario's first transport): n − 1 lines for
  // n transports, where every pair would be n(n − 1)/2 (15 for the matrix's 6).
  for (const [first, ...others] of groups.values()) {
    for (const other of others) {
      for (const metric of Object.keys(METRICS) as Metric[]) {
        const c = compare(first, other, metric, undefined, kindOf, margins);
        if (c) out.push(c);
      }
    }
  }
  return out;
}
