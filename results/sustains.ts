/**
 * Whether a point sustains its offered rate: the one rule `--find-max`'s confirmations, its
 * probes (one window is a judgement over one repeat), the advisor, the verdict words and the
 * lab's recording use. Pure, no Node or DOM. Read as a user's promise: "this rate, with p99
 * under my bound, and nothing lost" (issue 33). A point sustains the rate when, over its repeats:
 *
 * - the median repeat delivered ≥ 99% of what was offered (SUSTAINS_DELIVERED_RATIO): a rate
 *   figure varies with the window's edges, so its median over repeats is what is judged;
 * - the POOLED p99 is within the bound, with its uncertainty: every repeat's latency histogram
 *   pooled into one sample, and the upper limit of its p99 by a bootstrap over the repeats
 *   (results/tail.ts says why the windows, not the batches, are the units) must be at or below
 *   the bound. The median of window p99s let a point whose p99 broke the bound in one window of
 *   three pass 74% of the time; with 3 repeats or fewer this limit is the worst window's p99.
 *   With several tabs a repeat's latency and histogram are its worst tab's (the table shows that
 *   tab). Repeats without a histogram (multi-tab repeats of early version 4 reports) are judged
 *   on the worst window's p99. A version 2 or 3 repeat's latency is transit (`latencyBook`), not
 *   event age: it gives the rule no p99 and no histogram, and the words say "no event age measured". p99.9 and the
 *   maximum are reported beside it, in the figures and the words;
 * - nothing was lost, in any repeat: no batch shed (the server dropped data for a client whose
 *   send buffer ran over its bound), no batch missing from the sequence (gaps, which count the
 *   batches due while a connection was down: web/lab/counters.ts), no reconnect, no connection
 *   closed or stalled (silent past web/lab/counters.ts `stallAfterMs`) at any time in the window.
 *   One repeat is evidence enough: a loss is not window noise, and a product loses those rows;
 * - no repeat fell further behind through its window (FALLING_BEHIND): its mean latency rose
 *   from the window's first half to its second by more than BEHIND_RISE_MS (or a quarter of the
 *   first half's, when larger), or its backlog (now − the newest `sentAt` it had) rose by more
 *   than a tick plus BEHIND_RISE_MS or the window's p99 latency, whichever is larger (a backlog
 *   read at one moment moves with the latency of the batch it read). A page taking 99.5% of the rate passes the delivered test
 *   and falls 5 ms further behind every second, 18 s after an hour; the latency halves see it
 *   over a window (mean latencies are steady: a 100 ms GC pause moves a half's mean by ~2 ms),
 *   the backlog sees a page that has stopped receiving (whose latency cannot say so);
 * - every connection was open in every repeat: a connection that never opened (stalled behind
 *   the browser's per-host cap, verdict.ts stalledBehindCap) carried nothing;
 * - no repeat failed: a repeat is recorded failed only after its retries (a renderer that
 *   crashed, a window that timed out), which under load is a finding like a shed, not noise. In
 *   the medians a failed repeat ranks worst (delivered 0), so the figures shown beside the
 *   reason never look better than what was measured.
 *
 * Quantisation: a window of 40 batches (a 50 ms tick on one connection for 2 s) moves its
 * delivered ratio by 2.5% per batch, wider than the 1% the rule allows, and its "p99" is its
 * maximum. The figures keep the fewest batches a window held, and flag a failure that one batch
 * could have turned (`nearThreshold`): the advisor probes such a candidate once more before it
 * drops it (puppeteer/advise/search.ts).
 *
 * How this relates to the verdicts (verdict.ts): a repeat's verdict says WHERE a limit was, and
 * calls ≥ 97% delivered (KEPT_UP_RATIO) "ok", leaving room for batches in flight at the window's
 * edges when diagnosing which side limited a point. `sustains` is the stricter TARGET test a
 * product asks ("does this take my rate, under my latency bound, losing nothing?"), so a point
 * can be `ok` and not sustain its rate. Both stay: one diagnoses, one decides.
 */
import type { Sustains, SustainsFigures } from '../protocol/advice.js';
import type { Repeat } from '../protocol/repeat-figures.js';
import type { Point } from '../protocol/scenario.js';
import { median, medianInterval } from './stats.js';
import { pooledTail, TAIL_CONFIDENCE } from './tail.js';
import type { SparseHistogram } from '../protocol/histogram.js';
import { stalledBehindCap } from './verdict.js';
import { streamsOf } from '../protocol/wire.js';
import { inputDelayP99Ms, noneAnswered } from './input-delay.js';

/** Sustaining means the median repeat delivered at least this share of the offered events. */
export const SUSTAINS_DELIVERED_RATIO = 0.99;

/**
 * A window in which the page's mean latency (or backlog) rose by more than this, ms, fell
 * further behind (see the module comment). A page at 99.5% of the rate rises 5 ms a second:
 * 12.5 ms between the halves of a 5 s window.
 */
export const BEHIND_RISE_MS = 5;

/** The part of a repeat the falling-behind clause reads (protocol/repeat-figures.ts WindowTrend, and the tick). */
export interface SustainsTrend {
  backlogStartMs: number | null;
  backlogEndMs: number | null;
  firstHalfMeanMs: number | null;
  secondHalfMeanMs: number | null;
  /** The stream's tick, ms: a backlog read at a random moment moves by up to one. */
  intervalMs: number;
  /**
   * The window's latency p99, ms: the backlog read at a random moment also moves with the
   * latency of the batch it read (under load on this machine, 15 → 35 ms at a p99 of 177 ms,
   * with nothing growing). Absent: 0.
   */
  jitterMs?: number;
}

/** What one repeat contributes to the rule; `failed` for a repeat that measured nothing. */
export type SustainsRepeat =
  | {
      deliveredRatio: number;
      /** Batches the server shed in the window. */
      shed: number;
      /** Event age p99 over the window, ms; null when none was measured (a repeat whose latency is transit included). */
      p99Ms: number | null;
      /**
       * 'transit': the repeat's latency is transit (a version 2 or 3 run resumed), so it has no
       * event age: p99Ms and histogram are null, and the words say why. Absent: event age.
       */
      latencyBook?: 'transit';
      /** Connections asked for that were not open at the end of the window; 0 when all were. */
      notOpen: number;
      /** Connections asked for (every tab's). */
      streams: number;
      /** The per-host cap they stalled behind, when that is why (stalledBehindCap); null otherwise. */
      cap: number | null;
      // rule (issue 33): absent (undefined) for repeats that did not record it (version 3 reports).
      /** The window's latencies as a histogram (the same latency as p99Ms), pooled over repeats. */
      histogram?: SparseHistogram | null;
      /** Batches the page received in the window. */
      batches?: number;
      /** Batches the window was scheduled to hold (its length × the point's batches per second): how coarse it was, whatever arrived. */
      scheduledBatches?: number;
      /** Batches missing from the sequence (gaps) beyond those the server shed, and reconnects, in the window. */
      gaps?: number;
      reconnects?: number;
      /** Connection-ms closed and stalled in the window. */
      closedMs?: number;
      stalledMs?: number;
      trend?: SustainsTrend | null;
      // --- input (issue 33: the page still answers) ---
      /** Input delay p99 over the window, ms; absent or null when the repeat has no input figure (version 3 reports, input the browser refused): not failed for it. */
      inputDelayP99Ms?: number | null;
      // --- age (issue 33) ---
      /** Display age p99 over the window, ms (the newest event on screen at each draw); null when nothing drew. Absent: not read. */
      displayP99Ms?: number | null;
    }
  | { failed: string };

type Measured = Exclude<SustainsRepeat, { failed: string }>;

export interface SustainsTarget {
  /** The latency bound: the pooled p99's upper limit must be at or below it, ms. */
  p99BoundMs: number;
  // --- input (issue 33: the page still answers) ---
  /** The input delay bound: the median input delay p99 of the repeats that have one must be at or below it, ms; absent: DEFAULT_INPUT_DELAY_BOUND_MS. */
  inputDelayBoundMs?: number;
  // --- age (issue 33) ---
  /** A bound on display age (`--p99-display`): the median repeat's display age p99 must be at or below it, ms. Absent: none. */
  displayBoundMs?: number;
}

/** The web's "good" Interaction to Next Paint, ms: input must not wait longer at p99 for the page to sustain. */
export const DEFAULT_INPUT_DELAY_BOUND_MS = 200;

/**
 * Windows hold at least this many batches before one can fail a point (an advisor's candidate, a find-max value): below it one batch
 * moves delivered by more than 0.5% (half the rule's 1% tolerance) and the window's "p99" is
 * close to its maximum. A 50 ms tick on one connection gives 40 batches in a 2 s probe.
 */
export const MIN_WINDOW_BATCHES = 200;

/** The longest a slow tick lengthens a window to, s: past it, worthAnotherProbe covers what is left. */
export const MAX_LENGTHENED_WINDOW_SEC = 10;

/**
 * A judged window (an advisor's probe, a find-max probe or confirmation) for a point that sends `batchesPerSec` in all: `baseSec`, lengthened
 * to hold MIN_WINDOW_BATCHES when its ticks are slow, up to MAX_LENGTHENED_WINDOW_SEC (a 50 ms
 * tick on one connection: 20 batches/s, a 10 s window instead of a 2 s probe of 40 batches).
 */
export function windowSecFor(batchesPerSec: number, baseSec: number): number {
  if (!(batchesPerSec > 0)) return baseSec;
  return Math.max(baseSec, Math.min(MAX_LENGTHENED_WINDOW_SEC, Math.ceil(MIN_WINDOW_BATCHES / batchesPerSec)));
}

/**
 * Whether a window the rule failed is too coarse to fail a point on alone: it held fewer than
 * MIN_WINDOW_BATCHES, or one batch could have turned its failure (`nearThreshold`). Such a
 * point is measured once more and judged over both windows (find-max's probes; the advisor's
 * worthAnotherProbe adds its own drop line).
 */
export function anotherWindowWorthIt(s: SustainsFigures): boolean {
  // A loss, an unanswered input, a stall: not window noise, a second window would not undo it.
  if ((s.otherFailures ?? 0) > 0) return false;
  if (s.nearThreshold === true) return true;
  if (s.failed > 0 || s.notOpen > 0 || s.shedBatches > 0) return false;
  return s.fewestBatches != null && s.fewestBatches < MIN_WINDOW_BATCHES;
}

/** Rounded down, so 98.96% reads "98.9% < 99%", never "99.0% < 99%". */
const percent = (ratio: number) => `${(Math.floor(ratio * 1000 + 1e-9) / 10).toFixed(1)}%`;
/** Whole ms, or one decimal where whole ms would hide which side of the bound it is on. */
const ms = (v: number, bound: number) => (Math.round(v) === bound && v !== bound ? v.toFixed(1) : String(Math.round(v)));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const duration = (v: number) => (v < 1 ? 'under 1 ms' : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`);

/** How a repeat fell further behind, in words; null when it did not (or did not record it). */
export function fellBehind(t: SustainsTrend | null | undefined): string | null {
  if (!t) return null;
  const why: string[] = [];
  if (t.firstHalfMeanMs !== null && t.secondHalfMeanMs !== null) {
    const rise = t.secondHalfMeanMs - t.firstHalfMeanMs;
    if (rise > Math.max(BEHIND_RISE_MS, 0.25 * t.firstHalfMeanMs))
      why.push(`mean latency ${Math.round(t.firstHalfMeanMs)} → ${Math.round(t.secondHalfMeanMs)} ms from the window's first half to its second`);
  }
  if (t.backlogStartMs !== null && t.backlogEndMs !== null && t.backlogEndMs - t.backlogStartMs > t.intervalMs + Math.max(BEHIND_RISE_MS, t.jitterMs ?? 0))
    why.push(`backlog ${Math.round(t.backlogStartMs)} → ${Math.round(t.backlogEndMs)} ms`);
  return why.length ? why.join(', ') : null;
}

/** The pooled tail, or the worst window's p99 where a repeat kept no histogram. */
function tailOf(measured: readonly Measured[], bound: number): { figures: NonNullable<SustainsFigures['tail']>; excess: number; perBatch: number } {
  const histograms = measured.map((r) => r.histogram);
  if (measured.length && histograms.every((h): h is SparseHistogram => !!h && h.count > 0)) {
    const t = pooledTail(histograms, bound);
    const batches = measured.reduce((a, r) => a + (r.batches ?? 0), 0);
    return {
      figures: { pooled: true, p99Ms: t.p99Ms, p99HighMs: t.p99HighMs, confidence: TAIL_CONFIDENCE, p999Ms: t.p999Ms, maxMs: t.maxMs },
      // With few repeats the limit is the worst window's p99, so one batch must turn both.
      excess: Math.max(t.excessOver, t.worstWindowExcessOver),
      // Latencies one batch records: one per event (event age), so a batch's rows.
      perBatch: batches > 0 ? t.count / batches : 1,
    };
  }
  const p99s = measured.map((r) => r.p99Ms);
  const worst = p99s.includes(null) || !p99s.length ? null : Math.max(...(p99s as number[]));
  return {
    figures: { pooled: false, p99Ms: worst, p99HighMs: worst, confidence: TAIL_CONFIDENCE, p999Ms: null, maxMs: null },
    excess: Number.POSITIVE_INFINITY,
    perBatch: 0,
  };
}

/** Judges a point's repeats against the target; see the module comment for the rule. */
export function sustains(repeats: readonly SustainsRepeat[], target: SustainsTarget): Sustains {
  if (!repeats.length) throw new RangeError('sustains() needs at least one repeat');
  const bound = target.p99BoundMs;
  const measured = repeats.filter((r): r is Measured => !('failed' in r));
  const failed = repeats.filter((r): r is { failed: string } => 'failed' in r);
  const n = repeats.length;
  const one = n === 1;
  const inRepeats = (k: number) => (one ? '' : ` in ${k} of ${n} repeats`);
  // Failed repeats rank worst: delivered 0, latency beyond any bound.
  const delivered = median([...measured.map((r) => r.deliveredRatio), ...failed.map(() => 0)]);
  const p99s = [...measured.map((r) => r.p99Ms ?? Number.POSITIVE_INFINITY), ...failed.map(() => Number.POSITIVE_INFINITY)];
  const p99Median = median(p99s);
  const interval = medianInterval(p99s);
  const tail = tailOf(measured, bound);
  const shedding = measured.filter((r) => r.shed > 0);
  const stalled = measured.filter((r) => r.notOpen > 0);
  const worstStall = stalled.reduce<(typeof stalled)[number] | null>((a, r) => (a === null || r.notOpen > a.notOpen ? r : a), null);
  const sumOf = (k: 'gaps' | 'reconnects' | 'closedMs' | 'stalledMs') => measured.reduce((a, r) => a + (r[k] ?? 0), 0);
  // Over the repeats that recorded it (version 3 repeats did not): null only when none did, so
  // a resumed run's new repeat that was closed for a while is not hidden by its old ones.
  const known = (k: 'closedMs' | 'stalledMs') => measured.some((r) => r[k] !== undefined);
  const losing = measured.filter((r) => (r.gaps ?? 0) > 0 || (r.reconnects ?? 0) > 0 || (r.closedMs ?? 0) > 0 || (r.stalledMs ?? 0) > 0);
  const behind = measured.map((r) => fellBehind(r.trend)).filter((w): w is string => w !== null);
  // How coarse each window was: the batches it was scheduled to hold (a starved page's few
  // received batches say nothing about the window's length), else those received.
  const batchCounts = measured.map((r) => r.scheduledBatches ?? r.batches).filter((b): b is number => b !== undefined);
  const fewest = batchCounts.length ? Math.min(...batchCounts) : null;
  const figures: SustainsFigures = {
    repeats: n,
    failed: failed.length,
    deliveredRatio: delivered,
    shedRepeats: shedding.length,
    shedBatches: shedding.reduce((a, r) => a + r.shed, 0),
    p99Ms: Number.isFinite(p99Median)
      ? { median: p99Median, low: interval.low, high: Number.isFinite(interval.high) ? interval.high : null, confidence: interval.confidence }
      : null,
    stalledRepeats: stalled.length,
    notOpen: worstStall?.notOpen ?? 0,
    streams: measured[0]?.streams ?? null,
    cap: worstStall?.cap ?? null,
    tail: tail.figures,
    loss: {
      repeats: losing.length,
      gapBatches: sumOf('gaps'),
      reconnects: sumOf('reconnects'),
      closedMs: known('closedMs') ? Math.round(sumOf('closedMs')) : null,
      stalledMs: known('stalledMs') ? Math.round(sumOf('stalledMs')) : null,
    },
    behindRepeats: behind.length,
    fewestBatches: fewest,
    nearThreshold: false,
  };

  const failures: string[] = [];
  const med = one ? '' : 'median ';
  if (failed.length)
    failures.push(one ? `failed: ${failed[0].failed}` : `${failed.length} of ${n} repeats failed (${[...new Set(failed.map((f) => f.failed))].join('; ')})`);
  let coarse = 0;
  if (delivered < SUSTAINS_DELIVERED_RATIO && !(one && failed.length)) {
    coarse++;
    failures.push(`${med}delivered ${percent(delivered)} < ${Math.round(SUSTAINS_DELIVERED_RATIO * 100)}%`);
    // One batch more in the median window would have crossed it: the window is too coarse to say.
    const median = measured.find((r) => r.deliveredRatio === delivered);
    if (median?.batches && delivered + delivered / median.batches >= SUSTAINS_DELIVERED_RATIO) figures.nearThreshold = true;
  }
  if (shedding.length) failures.push(`shed ${plural(figures.shedBatches, 'batch', 'batches')}${inRepeats(shedding.length)}`);
  const loss = figures.loss!;
  if (losing.length) {
    const what = [
      loss.gapBatches ? `${plural(loss.gapBatches, 'batch', 'batches')} missing (gaps)` : '',
      loss.reconnects ? plural(loss.reconnects, 'reconnect') : '',
      sumOf('closedMs') > 0 ? `connections closed for ${duration(sumOf('closedMs'))}` : '',
      sumOf('stalledMs') > 0 ? `connections stalled for ${duration(sumOf('stalledMs'))}` : '',
    ].filter(Boolean);
    failures.push(`lost: ${what.join(', ')}${inRepeats(losing.length)}`);
  }
  const t = tail.figures;
  const tailWords = () => {
    const rest = [t.p999Ms !== null ? `p99.9 ${ms(t.p999Ms, bound)} ms` : '', t.maxMs !== null ? `max ${ms(t.maxMs, bound)} ms` : ''].filter(Boolean);
    return rest.length ? `, ${rest.join(', ')}` : '';
  };
  const p99Words = () => {
    if (!t.pooled) return one ? `p99 ${ms(t.p99Ms!, bound)} ms` : `worst window's p99 ${ms(t.p99Ms!, bound)} ms`;
    if (one) return `p99 ${ms(t.p99Ms!, bound)} ms`;
    return `pooled p99 ${ms(t.p99Ms!, bound)} ms (up to ${ms(t.p99HighMs!, bound)} ms at ${t.confidence * 100}% over ${n} repeats)`;
  };
  if (t.p99Ms === null || t.p99HighMs === null) {
    // A repeat whose latency is transit (a version 2 or 3 run resumed) has no event age to judge.
    const transit = measured.filter((r) => r.latencyBook === 'transit').length;
    const none = measured.filter((r) => r.p99Ms === null && r.latencyBook !== 'transit').length;
    const why = [
      transit ? `no event age measured${inRepeats(transit)} (their latency is transit, from a version 2 or 3 run resumed)` : '',
      none ? `no latency measured${inRepeats(none)}` : '',
    ].filter(Boolean);
    if (!(one && failed.length)) failures.push(why.length ? why.join('; ') : 'no latency measured');
  } else if (t.p99HighMs > bound) {
    coarse++;
    failures.push(`${p99Words()} > ${bound} ms${tailWords()}`);
    // One batch's latencies fewer over the bound and the p99 would have held.
    if (t.pooled && tail.excess <= tail.perBatch) figures.nearThreshold = true;
  }
  if (target.displayBoundMs !== undefined) {
    // Display age (issue 33): how stale the screen is; a repeat that drew nothing has none to keep.
    const shown = measured.flatMap((r) => (typeof r.displayP99Ms === 'number' ? [r.displayP99Ms] : []));
    const display = shown.length ? median(shown) : null;
    if (display === null) failures.push('no display age measured (nothing drew)');
    else if (display > target.displayBoundMs) failures.push(`${med}display age p99 ${ms(display, target.displayBoundMs)} ms > ${target.displayBoundMs} ms`);
  }
  if (worstStall) {
    const why = worstStall.cap !== null ? ` (stalled behind the browser's ${worstStall.cap} per host)` : '';
    failures.push(`${worstStall.notOpen} of ${worstStall.streams} connections never opened${why}${inRepeats(stalled.length)}`);
  }
  if (behind.length) failures.push(`fell further behind${inRepeats(behind.length)}: ${behind[0]}`);
  // Input (issue 33): over the repeats that carry the figure; one without it (an old report, a
  // browser that refused input) is not failed for it, and the words say so.
  const inputBound = target.inputDelayBoundMs ?? DEFAULT_INPUT_DELAY_BOUND_MS;
  const delays = measured.map((r) => r.inputDelayP99Ms).filter((d): d is number => typeof d === 'number');
  const inputDelay = delays.length ? median(delays) : null;
  const inputMed = delays.length > 1 ? 'median ' : '';
  const without = n - failed.length - delays.length;
  const inputWords =
    inputDelay === null
      ? 'input delay not measured'
      : `${inputMed}input delay p99 ${Number.isFinite(inputDelay) ? `${ms(inputDelay, inputBound)} ms` : 'unbounded (input sent, none answered in the window)'}${without ? ` (${without} of ${n - failed.length} repeats without it, not failed for it)` : ''}`;
  figures.inputDelayP99Ms = inputDelay !== null && Number.isFinite(inputDelay) ? inputDelay : null;
  if (inputDelay !== null && inputDelay > inputBound) failures.push(`${inputWords} > ${inputBound} ms: the page did not answer input in time`);
  // Every clause but the delivered share's and the p99's (which one batch can turn) counts here.
  figures.otherFailures = failures.length - coarse;
  if (failures.length) return { sustains: false, reasons: failures, figures };
  return {
    sustains: true,
    reasons: [
      `${med}delivered ${percent(delivered)}, nothing lost, ${p99Words()} ≤ ${bound} ms${tailWords()}`,
      inputDelay === null ? `${inputWords} (not failed for it)` : `${inputWords} ≤ ${inputBound} ms`,
    ],
    figures,
  };
}

/** A report repeat of `point` as the rule reads it. */
export function sustainsRepeat(point: Pick<Point, 'transport' | 'concurrency' | 'tabs'> & Partial<Pick<Point, 'intervalMs'>>, r: Repeat): SustainsRepeat {
  if (r.status === 'failed') return { failed: r.error };
  const streams = streamsOf(point);
  // Older reports and the bare page carry no wire figures: their connections count as open.
  const notOpen = r.wire?.stalled ?? 0;
  return {
    deliveredRatio: r.deliveredRatio,
    shed: r.server.batchesShed,
    // Event age in reports since issue 33: the latency that decides. A version 2 or 3 repeat's
    // (marked transit on read) is not event age, so it gives none (protocol/report.ts).
    p99Ms: r.latencyBook === 'transit' ? null : r.latency.p99Ms,
    ...(r.latencyBook === 'transit' ? { latencyBook: 'transit' as const } : {}),
    // The same latency as p99Ms, as a histogram: whichever latency feeds p99Ms must feed this too.
    histogram: r.latencyBook === 'transit' ? null : sameLatency(r),
    notOpen,
    streams,
    cap: stalledBehindCap(point.transport, streams, streams - notOpen)?.cap ?? null,
    batches: r.page.batches,
    ...(point.intervalMs ? { scheduledBatches: Math.round((r.windowSec * streams * 1000) / point.intervalMs) } : {}),
    // A batch the server shed is a gap at the page too: the shed clause names those.
    gaps: Math.max(0, r.page.gaps - r.server.batchesShed),
    reconnects: r.page.reconnects,
    ...(r.page.closedMs !== undefined ? { closedMs: r.page.closedMs } : {}),
    ...(r.page.stalledMs !== undefined ? { stalledMs: r.page.stalledMs } : {}),
    trend: r.trend ? { ...r.trend, intervalMs: point.intervalMs ?? 0, jitterMs: r.latency.p99Ms ?? 0 } : null,
    inputDelayP99Ms: inputDelayP99(r),
    displayP99Ms: r.displayAge === undefined ? undefined : (r.displayAge?.p99Ms ?? null),
  };
}

/**
 * A repeat's input delay p99 as the rule reads it (results/input-delay.ts): null without the
 * figure (version 3 reports, the bare page, input the browser refused); unbounded when inputs
 * were sent and the page answered none in the window (a page stuck the whole window must not
 * pass as "not measured"); else the p99 with the input still waiting at the window's end
 * counted as a lower bound.
 */
function inputDelayP99(r: Extract<Repeat, { status: 'ok' }>): number | null {
  if (!r.input) return null;
  return noneAnswered(r.input) ? Number.POSITIVE_INFINITY : inputDelayP99Ms(r.input);
}

/**
 * A repeat's histogram when it holds the latency its p99Ms is; else null, and the rule judges
 * the worst window's p99 as for a version 3 report. Several tabs: `latency` is the worst tab's,
 * and version 4 reports written before the histogram was the worst tab's too pooled every tab's,
 * where a starved tab's tail drowned in the others' (its count is then the tabs' sum, not the
 * worst tab's).
 */
function sameLatency(r: Extract<Repeat, { status: 'ok' }>): SparseHistogram | null {
  const h = r.latencyHistogram;
  if (!h) return null;
  if (r.tabs && r.tabs.length > 1 && h.count !== r.latency.count) return null;
  return h;
}

/** `sustains` over a point's report repeats. */
export function pointSustains(
  point: Pick<Point, 'transport' | 'concurrency' | 'tabs'> & Partial<Pick<Point, 'intervalMs'>>,
  repeats: readonly Repeat[],
  target: SustainsTarget,
): Sustains {
  return sustains(
    repeats.map((r) => sustainsRepeat(point, r)),
    target,
  );
}

/**
 * The p99 the rule judged a point by, ms: its pooled p99's upper limit (results/tail.ts), or, in
 * figures from version 3 reports, the median window's p99; null when none was measured.
 */
export const decidingP99Ms = (f: SustainsFigures): number | null => (f.tail ? f.tail.p99HighMs : (f.p99Ms?.median ?? null));

/** The reasons as one line, `; `-separated. */
export const reasonText = (s: Pick<Sustains, 'reasons'>): string => s.reasons.join('; ');
