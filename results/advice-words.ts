/**
 * The advisor's answer in words: a pure function of the `Advice` (protocol/advice.ts), printed
 * last on stderr. Every figure in it is in the Advice; nothing here decides anything.
 */
import type {
  Advice,
  Candidate,
  CandidateFigures,
  CpuComparison,
  EquivalentCandidate,
  Headroom,
  Knob,
  NotMeasuredReason,
  SearchAccount,
  SimplicityCriterion,
  TriedCandidate,
} from '../protocol/advice.js';
import { NOT_MEASURED_REASONS } from '../protocol/advice.js';
import { LIMITS } from '../protocol/limits.js';
import type { PayloadDescription } from '../protocol/payload.js';
import type { Environment, Report } from '../protocol/report.js';
import { rateText, targetText, type Target } from '../protocol/target.js';
import { targetIndexOf, type DeviceCalibration } from '../protocol/device.js';
import { linkWords } from '../protocol/link.js';
import { ENCODING_LABELS, TRANSPORT_INFO, type Encoding, type RenderMode, type Transport } from '../protocol/wire.js';
import { costReading, judgeRatio, marginText } from './equivalence.js';
import { driftLines } from './machine-drift.js';
import { decidingP99Ms } from './sustains.js';
import { objectiveCost, P99_MARGIN } from './advice-figures.js';
import { headroomShown, messageLimitOf, type HeadroomShown } from './headroom.js';
import { costsTable, costText, OBJECTIVE_WORDS, rendererChoice } from './costs.js';
import { tabWords } from '../protocol/tab-state.js';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const parsingWords = (c: Candidate) => (c.parse === 'worker' ? `parsing in ${plural(c.workers, 'Worker')}` : 'parsing on the main thread');

/** `sse over HTTP/2, 300 rows every 1 ms per connection on 1 connection, parsing on the main thread`. */
export function candidateWords(c: Candidate): string {
  const http = TRANSPORT_INFO[c.transport].http === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
  const extra = [
    c.encoding !== 'json' ? ENCODING_LABELS[c.encoding] : '',
    c.origins > 1 ? `spread over ${c.origins} origins` : '',
    c.compression ? `${c.compression} compression` : '',
    c.pollMs !== undefined ? `polling every ${c.pollMs} ms` : '',
  ].filter(Boolean);
  return [
    `${c.transport} over ${http}, ${plural(c.batch, 'row')} every ${c.intervalMs} ms per connection on ${plural(c.concurrency, 'connection')}`,
    parsingWords(c),
    ...extra,
  ].join(', ');
}

/** One setting changed from `from` to `to`, in words: `parsing in 2 Workers instead of on the main thread`. */
export function changeWords(knob: Knob, from: Candidate, to: Candidate): string {
  switch (knob) {
    case 'tick':
      return `${plural(to.batch, 'row')} every ${to.intervalMs} ms instead of ${from.batch} every ${from.intervalMs} ms`;
    case 'connections':
      return `${plural(to.concurrency, 'connection')} instead of ${from.concurrency}`;
    case 'parsing':
      return `${parsingWords(to)} instead of ${parsingWords(from).replace(/^parsing /, '')}`;
    case 'origins':
      return `${plural(to.origins, 'origin')} instead of ${from.origins}`;
    case 'encoding':
      return `${ENCODING_LABELS[to.encoding]} instead of ${ENCODING_LABELS[from.encoding]}`;
    case 'compression':
      return `${to.compression ?? 'no'} compression instead of ${from.compression ?? 'none'}`;
  }
}

/** Rounded down, so 98.96% never reads 99%; 100% and above read 100%. */
const deliveredText = (ratio: number) => (ratio >= 1 ? '100%' : `${Math.floor(ratio * 1000) / 10}%`);

/** `p99 12 ms (CI 9–16)`, or `(range 9–16 over 3 repeats)` below the 95% an interval of a median needs. */
function p99Text(f: CandidateFigures): string {
  const p = f.sustains.figures.p99Ms;
  const t = f.sustains.figures.tail;
  if (t?.pooled && t.p99Ms !== null && t.p99HighMs !== null) {
    const n = f.sustains.figures.repeats;
    const high = n > 1 ? ` (up to ${Math.round(t.p99HighMs)} at ${t.confidence * 100}% over ${n} repeats)` : '';
    const rest = [t.p999Ms !== null ? `p99.9 ${Math.round(t.p999Ms)} ms` : '', t.maxMs !== null ? `max ${Math.round(t.maxMs)} ms` : ''].filter(Boolean);
    return `p99 ${Math.round(t.p99Ms)} ms${high}${rest.length ? `, ${rest.join(', ')}` : ''}`;
  }
  if (!p) return 'no latency measured';
  const n = f.sustains.figures.repeats;
  const span = p.high === null ? '' : `${Math.round(p.low)}–${Math.round(p.high)}`;
  const interval = n < 2 || !span ? '' : p.confidence >= 0.95 ? ` (CI ${span})` : ` (range ${span} over ${n} repeats)`;
  return `p99 ${Math.round(p.median)} ms${interval}`;
}

/** `, input delay p99 5 ms`: how soon the page answered input while it streamed; nothing when no repeat measured it. */
function inputText(f: CandidateFigures): string {
  const d = f.sustains.figures.inputDelayP99Ms;
  return typeof d === 'number' ? `, input delay p99 ${d < 10 ? d.toFixed(1) : Math.round(d)} ms` : '';
}

/** `tab renderer 38% of a core (CI 35–41)`: the mean over the repeats with its CI. */
function rendererText(f: CandidateFigures): string {
  const r = f.rendererPercent;
  if (!r) return 'tab renderer CPU not measured';
  const ci = r.ciLow !== null && r.ciHigh !== null ? ` (CI ${Math.round(r.ciLow)}–${Math.round(r.ciHigh)})` : '';
  return `tab renderer ${Math.round(r.mean)}% of a core${ci}`;
}

/** `71% delivered, p99 140 ms`: how far a candidate got. */
export function reachText(f: CandidateFigures): string {
  const s = f.sustains.figures;
  const p99 = decidingP99Ms(s);
  // The rule's figure is the pooled p99's upper limit (results/tail.ts), not a p99 as measured.
  const upTo = s.tail ? 'up to ' : '';
  return `${deliveredText(s.deliveredRatio)} delivered${p99 !== null ? `, p99 ${upTo}${Math.round(p99)} ms` : ''}`;
}

/** A share of B ÷ A as words: `6% more`, `8% less`. */
const moreOrLess = (ratio: number) => (ratio >= 1 ? `${Math.round((ratio - 1) * 100)}% more` : `${Math.round((1 - ratio) * 100)}% less`);

/** A paired ratio's CI as words: `1–11%`, `8–12% less`, `8% less to 27% more`; null without a CI. */
function spanText(c: { ciLow: number | null; ciHigh: number | null }): string | null {
  if (c.ciLow === null || c.ciHigh === null) return null;
  return c.ciLow >= 1
    ? `${Math.round((c.ciLow - 1) * 100)}–${Math.round((c.ciHigh - 1) * 100)}%`
    : c.ciHigh <= 1
      ? `${Math.round((1 - c.ciHigh) * 100)}–${Math.round((1 - c.ciLow) * 100)}% less`
      : `${moreOrLess(c.ciLow)} to ${moreOrLess(c.ciHigh)}`;
}

/** `6% more, CI 1–11%`: a paired ratio and its CI, with no reading. */
export function ratioWords(c: { ratio: number; ciLow: number | null; ciHigh: number | null; rounds?: number }): string {
  const span = spanText(c);
  return `${moreOrLess(c.ratio)}, ${span === null ? `no CI${c.rounds === 1 ? ' from one round' : ''}` : `CI ${span}`}`;
}

/**
 * A CPU comparison against the winner, by its reading (results/equivalence.ts costReading):
 * `6% more renderer CPU per event (CI 1–11%)` (dearer: the CI wholly above 1, not inside the
 * margin), `renderer CPU per event equivalent within ±5% (CI …)` (the CI inside the margin), or
 * `cannot tell renderer CPU per event apart at ±5% (9% more, CI 9% less to 29% more: the CI
 * straddles the margin)`; `comma` gives `…, CI 1–11%` for use inside parentheses.
 */
export function cpuWords(c: CpuComparison, style: 'paren' | 'comma' = 'paren'): string {
  const span = spanText(c);
  const ci = span === null ? '' : style === 'paren' ? ` (CI ${span})` : `, CI ${span}`;
  const margin = `±${Math.round(c.margin * 100)}%`;
  const reading = costReading(c, c.margin);
  const figure = OBJECTIVE_WORDS[c.objective ?? 'renderer'].figure;
  if (reading === 'equivalent') return `${figure} equivalent within ${margin}${ci}`;
  if (reading === 'cannot-tell') return `cannot tell ${figure} apart at ${margin} (${ratioWords(c)}${span === null ? '' : ': the CI straddles the margin'})`;
  return `${moreOrLess(c.ratio)} ${figure}${ci}`;
}

/** Each criterion of the order of simplicity, as the words say it (protocol/advice.ts SIMPLICITY_CRITERIA). */
export const SIMPLICITY_WORDS: Record<SimplicityCriterion, string> = {
  connections: 'fewer connections',
  parsing: 'the main thread before Workers',
  origins: 'one origin before several',
  encoding: 'JSON before a binary encoding',
  compression: 'no compression before a compressed stream',
};

/** A candidate's setting on one criterion: `2 connections`, `the main thread`, `Arrow IPC`. */
function settingOn(criterion: SimplicityCriterion, c: Candidate): string {
  switch (criterion) {
    case 'connections':
      return plural(c.concurrency, 'connection');
    case 'parsing':
      return c.parse === 'worker' ? plural(c.workers, 'Worker') : 'the main thread';
    case 'origins':
      return plural(c.origins, 'origin');
    case 'encoding':
      return ENCODING_LABELS[c.encoding];
    case 'compression':
      return c.compression ? `${c.compression} compression` : 'no compression';
  }
}

/** The order the search chose by among finalists the evidence cannot order, in words. */
export function chosenByWords(prefer: readonly SimplicityCriterion[]): string {
  return `the order of simplicity (${prefer.map((k) => SIMPLICITY_WORDS[k]).join(', ')}; --prefer), then headroom, then the transports' order and the shorter tick`;
}

/**
 * What put the winner ahead of a finalist the evidence could not order against it: `the winner is
 * simpler: fewer connections (1 connection against 2 connections)`; `as simple; the winner's
 * headroom decided (…)`; `as simple on every criterion: the order of last resort decided (ws
 * before sse in the transports' order)`. `headrooms`: both rates, when both were measured.
 */
export function lostOnWords(
  lostOn: 'simplicity' | 'headroom' | 'order',
  criterion: SimplicityCriterion | undefined,
  winner: Candidate,
  other: Candidate,
  transports: readonly Transport[],
  headrooms?: { winner: HeadroomShown | null; other: HeadroomShown | null },
): string {
  if (lostOn === 'simplicity' && criterion)
    return `the winner is simpler: ${SIMPLICITY_WORDS[criterion]} (${settingOn(criterion, winner)} against ${settingOn(criterion, other)})`;
  // A search that something other than the setup ended (the budget, the message limit) is a lower bound: `≥`.
  const shown = (h: HeadroomShown | null) => (h ? `${h.atLeast ? '≥ ' : ''}${rateText(h.eventsPerSec)}` : 'none');
  const rates = headrooms ? ` (headroom ${shown(headrooms.winner)} against ${shown(headrooms.other)})` : '';
  if (lostOn === 'headroom') return `as simple; the winner clearly sustains more${rates}`;
  const last =
    winner.transport !== other.transport
      ? `${winner.transport} before ${other.transport} in the transports' order (${transports.join(', ')})`
      : winner.intervalMs !== other.intervalMs
        ? `the shorter tick, ${winner.intervalMs} ms against ${other.intervalMs} ms`
        : 'the candidate id';
  return `as simple on every criterion${headrooms ? `, and headroom did not tell them apart${rates}` : ''}: the order of last resort decided (${last})`;
}

/**
 * What decided against a confirmed finalist (TriedCandidate.lostOn), as a clause to follow its
 * CPU words: `; the winner is simpler: fewer connections (…)`, `; the winner's clearly lower p99
 * decided (p99 up to 5 ms against up to 12 ms)`, or in reports written before the answer became a
 * set, `; the winner's lower median decided (…)`. Empty when it was dearer (the CPU words say it).
 */
export function decidedWords(t: Pick<TriedCandidate, 'lostOn' | 'criterion' | 'confirmed' | 'candidate' | 'slowerThan'>, a: Advice): string {
  const mine = t.confirmed;
  const winner = a.winner;
  if (!mine || !winner || !t.lostOn || t.lostOn === 'cpu') return '';
  if (t.lostOn === 'simplicity' || t.lostOn === 'headroom' || t.lostOn === 'order') {
    const other = a.runnerUp?.candidate.id === t.candidate.id ? a.runnerUp.headroom : undefined;
    const both = a.headroom && other ? { winner: headroomShown(a.headroom), other: headroomShown(other) } : undefined;
    return `; ${lostOnWords(t.lostOn, t.criterion, winner.candidate, t.candidate, a.transports, both)}`;
  }
  if (t.lostOn === 'p99') {
    // The finalist whose paired p99 was clearly lower: the winner, or (recorded since issue 34) another.
    const faster = t.slowerThan ? a.tried.find((x) => x.candidate.id === t.slowerThan)?.confirmed : undefined;
    const [by, byWords] = faster && t.slowerThan !== winner.candidate.id ? [faster, `${t.slowerThan}'s`] : [winner.figures, "the winner's"];
    const [w, o] = [decidingP99Ms(by.sustains.figures) ?? undefined, decidingP99Ms(mine.sustains.figures) ?? undefined];
    // Both are the rule's figure, the pooled p99's upper limit where the repeats kept histograms.
    const upTo = (f: CandidateFigures['sustains']['figures']) => (f.tail ? 'up to ' : '');
    return `; ${byWords} clearly lower p99 decided${w !== undefined && o !== undefined ? ` (p99 ${upTo(by.sustains.figures)}${Math.round(w)} ms against ${upTo(mine.sustains.figures)}${Math.round(o)} ms)` : ''}`;
  }
  const [w, o] = [objectiveCost(winner.figures), objectiveCost(mine)];
  const unit = OBJECTIVE_WORDS[winner.figures.objective?.name ?? 'renderer'].unit;
  return `; the winner's lower median decided${w !== null && o !== null ? ` (${costText(w)} against ${costText(o)} ${unit})` : ''}`;
}

/**
 * A headroom in words, after `Headroom: `: where the setup stops sustaining at the same tick and
 * connections, or, when something else capped the search (the server's largest message, the
 * search's range, the budget), that cap and the rate reached; `none shown` when the setup,
 * measured again at its own batch, did not sustain. `targetRate`: what the answer was asked.
 */
export function headroomWords(h: Headroom, c: Candidate, targetRate: number): string {
  const shown = headroomShown(h);
  const at = (batch: number) => `${plural(batch, 'row')} every ${c.intervalMs} ms`;
  if (!shown) {
    // The search starts at the setup's own batch: when that did not sustain there, no rate above
    // the target was shown to hold, and saying "keeps up to" would contradict what was measured.
    const fp = h.firstPast;
    return `none shown: measured again in the headroom search, the same setup (${at(fp?.batch ?? c.batch)}) did not sustain${fp ? ` (${fp.reason})` : ''}; the confirmation above still holds, with no margin measured above ${rateText(targetRate)}.`;
  }
  const { limit } = shown;
  const got = `${rateText(shown.eventsPerSec)} with the same tick and connections (${at(shown.batch)})`;
  const past = h.firstPast ? `; ${rateText(h.firstPast.eventsPerSec)} (${at(h.firstPast.batch)}) did not sustain (${h.firstPast.reason})` : '';
  switch (limit) {
    case 'setup':
      return `keeps up to ${got}${past}: there the setup stops sustaining.`;
    case 'message-limit':
      return `sustained ${got}, the most rows per message the server sends (${messageLimitOf(h).toLocaleString('en-US')}): a cap of the lab, not of the setup, whose own limit lies above it, not measured.`;
    case 'search-range':
      return `sustained ${got}, the largest message the search tried: its own limit lies above it, not measured.`;
    default: {
      const why = limit === 'budget' ? 'the time budget' : limit === 'confirmations' ? 'its confirmations running out' : 'the interruption';
      if (h.probes + h.confirmations === 0 || (shown.batch === c.batch && !h.firstPast && h.confirmations === 0))
        return `not measured above its own rate (${at(shown.batch)}, confirmed above): ${why} left no room for the search.`;
      return `sustained ${got} when ${why} stopped the search${past}; ${h.firstPast ? 'the setup stops sustaining between the two, not narrowed further' : 'where the setup stops sustaining was not reached'}.`;
    }
  }
}

/** One member of the answer's set in words: `ws over HTTP/1.1, … (3% more, CI 2% less to 8% more; the winner is simpler: …)`. */
function setMemberWords(e: EquivalentCandidate, a: Advice): string {
  const cpu = e.cpuVsWinner ? ratioWords(e.cpuVsWinner) : 'no round shared with the winner';
  return `${candidateWords(e.candidate)} (${cpu}${decidedWords({ ...e, confirmed: e.figures }, a)})`;
}

/** What the machine line says; absent fields are left out. */
export interface MachineWords {
  cores: number | null;
  cpuModel: string | null;
  /** `Chromium 156 headless`. */
  browser: string | null;
}

/**
 * The machine line's words from a report's environment: `Chromium 156 headless` from the
 * browser's product (`HeadlessChrome/156.0…`) and the path it was launched from.
 */
export function machineWordsOf(env: Pick<Environment, 'cores' | 'cpuModel' | 'chromeVersion' | 'chromePath' | 'headless'>): MachineWords {
  const m = /(Headless)?Chrome\/(\d+)/.exec(env.chromeVersion);
  const name = /chromium/i.test(env.chromePath) ? 'Chromium' : 'Chrome';
  const browser = m ? `${name} ${m[2]}${m[1] || env.headless ? ' headless' : ''}` : env.chromeVersion || null;
  const cpuModel = env.cpuModel.replace(/\s+/g, ' ').trim();
  return { cores: env.cores, cpuModel: cpuModel && cpuModel !== 'unknown' ? cpuModel : null, browser };
}

/**
 * The run's events in a few words: `trades.ndjson (ndjson, 29 objects, depth 3, 97 bytes of JSON
 * each)`, or the car rows'; the bytes on the wire in `encoding` (JSON unless told).
 */
export function payloadWords(p: PayloadDescription, encoding: Encoding = 'json'): string {
  const bytes = `${Math.round(p.bytesPerEvent[encoding])} bytes of ${ENCODING_LABELS[encoding]} each`;
  const what = `${p.events.toLocaleString('en-US')} ${p.shape === 'array' ? 'arrays' : 'objects'}, nesting depth ${p.nestingDepth}, ${bytes}`;
  return p.source === null ? `the lab's car rows (${what})` : `${p.source} (${p.format}, ${what})`;
}

/** pushlab's own page in each render mode, as the answer names it. */
const OWN_PAGE_WORDS: Record<RenderMode, string> = {
  full: "pushlab's table and charts",
  chart: "pushlab's charts only (render chart)",
  none: 'nothing drawn (render none)',
};

/** The page an answer was measured with: the team's render module (`--render-module`) and its version, else pushlab's own. */
export function pageWords(t: Pick<Target, 'render' | 'renderModule'>): string {
  const m = t.renderModule;
  return m ? `${m.path} (render module, sha256 ${m.sha256.slice(0, 12)}…)` : OWN_PAGE_WORDS[t.render];
}

/**
 * What the answer was measured under, the terminal's line and the viewer's alike: the events
 * (their bytes in the advised setup's encoding, JSON without a winner; the car rows when the
 * report does not describe them, as before `--rows`) and the page. The answer transfers to a
 * product only as far as its messages and page look like these.
 */
export function conditionsLine(a: Advice, payload?: PayloadDescription): string {
  const events = payload ? payloadWords(payload, a.winner?.candidate.encoding) : "the lab's car rows";
  return `Measured with: events ${events}; page ${pageWords(a.target)}. The answer holds for events and a page like these.`;
}

/**
 * Where the answer holds, for its "Use …" line: `on a low-tier device (BenchmarkIndex 264, this
 * machine slowed 6.7×)`, the slowdown read from the run's calibrations of that class (`report.devices`;
 * a range when a resumed run calibrated it again); `on this machine` without a class.
 */
export function deviceAnswerWords(t: Pick<Target, 'device' | 'throttle'>, calibrations: readonly DeviceCalibration[] = []): string {
  if (t.device === undefined) return 'on this machine';
  const throttle = t.throttle ?? 'browser';
  const slowdowns = calibrations.filter((c) => c.device === t.device && c.throttle === throttle).map((c) => c.slowdown);
  const lo = Math.min(...slowdowns);
  const hi = Math.max(...slowdowns);
  const times = (x: number) => `${Number(x.toFixed(1))}×`;
  const slowed = !slowdowns.length
    ? ['not yet calibrated']
    : [`this machine${throttle === 'main-thread' ? "'s main thread" : ''} slowed ${lo === hi ? times(lo) : `${times(lo)}–${times(hi)}`}`];
  const name = t.device === 'mid-tier' || t.device === 'low-tier' ? `a ${t.device} device` : 'a device';
  return `on ${name} (${[`BenchmarkIndex ${targetIndexOf(t.device)}`, ...(throttle === 'main-thread' ? ['main thread only'] : []), ...slowed].join(', ')})`;
}

/** The answer in a few words, for a list of runs: `answer for 100 k events/s: ws, 5000 rows every 50 ms ×1` (` on low-tier` with a class). */
export function adviceHeadline(a: Advice): string {
  const rate = `${rateText(a.target.eventsPerSec)}${a.target.device !== undefined ? ` on ${a.target.device}` : ''}${a.target.tab !== undefined ? `, ${a.target.tab} tab` : ''}${a.target.link !== undefined ? ` across ${a.target.link}` : ''}`;
  if (a.winner) {
    const w = a.winner.candidate;
    return `answer for ${rate}: ${w.transport}, ${w.batch} rows every ${w.intervalMs} ms ×${w.concurrency}`;
  }
  if (a.stopped) return `no answer for ${rate} (${a.stopped === 'budget' ? 'the time budget ran out' : 'interrupted'})`;
  return `nothing sustained ${rate}`;
}

/**
 * What decided, in words: `Chosen for the lowest bytes per event (95 bytes per event, median over
 * 3 repeats); with --objective renderer it would be …, because …`. The other costs are in the table.
 */
function objectiveLine(a: Advice): string {
  const name = a.target.objective ?? 'renderer';
  const words = OBJECTIVE_WORDS[name];
  const mine = a.winner ? objectiveCost(a.winner.figures) : null;
  const head = `Chosen for the lowest ${words.figure} (--objective ${name}: ${words.help}${mine === null ? '' : `; ${costText(mine)} ${words.unit}`})`;
  if (name === 'renderer') return `${head}; every other cost is in the finalists' costs.`;
  const other = rendererChoice(a);
  if (!other) return `${head}; --objective renderer chooses the same from these repeats.`;
  return `${head}; --objective renderer would choose ${candidateWords(other.candidate)} instead: ${other.reason}.`;
}

/**
 * Why a transport's best attempt lost, when it was not a sustaining finalist: not sustained (with
 * how far it got), sustained in one probe window and never confirmed (at what cost against the
 * winner), else the search's own reason.
 */
function bestAttemptWhy(a: Advice, r: Advice['rejected'][number], t: TriedCandidate | undefined): string {
  const f = t?.confirmed ?? t?.probe ?? null;
  const winnerCost = a.winner ? objectiveCost(a.winner.figures) : null;
  const own = f ? objectiveCost(f) : null;
  const objective = OBJECTIVE_WORDS[a.target.objective ?? 'renderer'];
  if (f && !f.sustains.sustains) return `not sustained${t?.confirmed ? ' over its repeats' : ' in its probe'}: ${reachText(f)}${f.limit ? `; ${f.limit}` : ''}`;
  if (f && !t?.confirmed && own !== null && winnerCost !== null)
    return `sustained in its probe at ${moreOrLess(own / winnerCost)} ${objective.figure} in that one window; not confirmed`;
  return r.reason;
}

/**
 * Why a confirmed, sustaining finalist lost: dearer (against the winner, or, where its CI is
 * dearer only against another finalist, against that one: the search's own words name which),
 * else its CPU against the winner and what decided.
 */
function finalistLostWords(t: TriedCandidate, vsWinner: CpuComparison, a: Advice): string {
  const dearerThanWinner = costReading(vsWinner, vsWinner.margin) === 'dearer';
  if (t.lostOn === 'cpu' && !dearerThanWinner && t.dearerThan) return `dearer: ${cpuWords(t.dearerThan)} than ${t.dearerThan.against}`;
  const dearer = t.lostOn === 'cpu' || (t.lostOn === undefined && dearerThanWinner);
  return `${dearer ? 'dearer: ' : ''}${cpuWords(vsWinner, 'comma')}${decidedWords(t, a)}`;
}

/** Finalists rejected as dearer per event whose paired p99 against the winner's is clearly lower, past P99_MARGIN (its CI wholly below 1 ÷ 1.1). */
export function lowerP99AtACost(a: Advice): TriedCandidate[] {
  return a.tried.filter(
    (t) =>
      t.lostOn === 'cpu' && t.confirmed?.sustains.sustains && t.cpuVsWinner && t.p99VsWinner && judgeRatio(t.p99VsWinner, P99_MARGIN, false).better === 'b',
  );
}

/** `p99 up to 57 ms against the winner's up to 108 ms (÷ 0.53, CI 0.50–0.56, 3 paired rounds); dearer: 12% more … than …`. */
export function tradeOffWords(t: TriedCandidate, a: Advice): string {
  const p = t.p99VsWinner!;
  const [mine, theirs] = [t.confirmed!.sustains.figures, a.winner!.figures.sustains.figures];
  const ms = (f: CandidateFigures['sustains']['figures']) => `${f.tail ? 'up to ' : ''}${Math.round(decidingP99Ms(f) ?? Number.NaN)} ms`;
  const ci = p.ciLow !== null && p.ciHigh !== null ? `, CI ${p.ciLow.toFixed(2)}–${p.ciHigh.toFixed(2)}` : '';
  return `p99 ${ms(mine)} against the winner's ${ms(theirs)} (÷ ${p.ratio.toFixed(2)}${ci}, ${plural(p.rounds, 'paired round')}); ${finalistLostWords(t, t.cpuVsWinner!, a)}`;
}

/** One searched transport in the answer's "why not the others": its best attempt, how far it got, and why it was not chosen. */
export interface TransportStanding {
  transport: Transport;
  /** Its best attempt's id; null when none of its candidates was measured. */
  candidateId: string | null;
  /** How far it got: chosen, in the set beside the winner, runner-up, a finalist behind, measured in a probe only, or never measured. */
  reached: 'chosen' | 'in the set' | 'runner-up' | 'finalist' | 'probe' | 'not measured';
  /** Why it was not chosen, in words (`the answer` for the winner's transport). */
  why: string;
}

/**
 * Every searched transport, in the search's order, with its furthest attempt and why it lost:
 * what a team asks first of an answer ("why not WebSocket?"). Empty when nothing was chosen.
 */
export function transportStandings(a: Advice): TransportStanding[] {
  const w = a.winner;
  if (!w) return [];
  const tried = new Map(a.tried.map((t) => [t.candidate.id, t]));
  const set = a.equivalent ?? [];
  return a.transports.map((transport): TransportStanding => {
    if (w.candidate.transport === transport) return { transport, candidateId: w.candidate.id, reached: 'chosen', why: 'the answer' };
    const member = set.find((e) => e.candidate.transport === transport);
    if (member) {
      // cpuWords names the reading (equivalent, or cannot tell) with its CI.
      const cpu = member.cpuVsWinner ? cpuWords(member.cpuVsWinner, 'comma') : 'CPU not compared';
      return { transport, candidateId: member.candidate.id, reached: 'in the set', why: `${cpu}${decidedWords({ ...member, confirmed: member.figures }, a)}` };
    }
    const ru = a.runnerUp;
    if (ru?.candidate.transport === transport) {
      const t = tried.get(ru.candidate.id);
      return {
        transport,
        candidateId: ru.candidate.id,
        reached: 'runner-up',
        why: `${ru.cpuVsWinner ? cpuWords(ru.cpuVsWinner, 'comma') : 'CPU not compared'}${t ? decidedWords(t, a) : ''}`,
      };
    }
    const r = a.rejected.find((x) => x.transport === transport);
    if (!r) {
      const n = a.notTried.find((x) => x.candidate.transport === transport);
      return { transport, candidateId: null, reached: 'not measured', why: n ? n.why : 'not in the space searched' };
    }
    const t = tried.get(r.candidateId);
    if (t?.confirmed?.sustains.sustains && t.cpuVsWinner)
      return { transport, candidateId: r.candidateId, reached: 'finalist', why: finalistLostWords(t, t.cpuVsWinner, a) };
    return { transport, candidateId: r.candidateId, reached: t?.confirmed ? 'finalist' : 'probe', why: bestAttemptWhy(a, r, t) };
  });
}

/** The answer as advise prints it last on stderr, from its report: the machine, the class's calibration and the events it was measured on. */
export function printedAnswer(report: Pick<Report, 'environment' | 'devices' | 'payload'>, advice: Advice): string[] {
  return adviceText(advice, machineWordsOf(report.environment), report.devices, report.payload ? { payload: report.payload } : {});
}

/**
 * The answer, one line per fact, like the issue's example. `calibrations`: the run's
 * (`report.devices`), for the slowdown of the target's device class.
 */
export function adviceText(
  a: Advice,
  machine?: MachineWords,
  calibrations?: readonly DeviceCalibration[],
  /**
   * `costs`: with the finalists' costs as a text table; `rejected`: with the line of what lost and
   * why. Both for the terminal: the viewer draws its own tables (costsGrid, transportStandings).
   * `conditions`: with the line of what it was measured under (conditionsLine), from `payload`;
   * the viewer shows that line on its own.
   */
  o: { costs?: boolean; rejected?: boolean; conditions?: boolean; payload?: PayloadDescription } = {},
): string[] {
  const lines: string[] = [];
  const objective = OBJECTIVE_WORDS[a.target.objective ?? 'renderer'];
  const target = targetText(a.target);
  const where = deviceAnswerWords(a.target, calibrations);
  const tried = new Map(a.tried.map((t) => [t.candidate.id, t]));
  if (a.winner) {
    const { candidate: w, figures: f } = a.winner;
    lines.push(
      `Use ${candidateWords(w)}${a.target.device !== undefined ? ` ${where}` : ''}${a.target.tab !== undefined ? ` in ${tabWords(a.target)}` : ''}${a.target.link !== undefined ? ` across ${linkWords(a.target.link)}` : ''}.`,
    );
    lines.push(
      `  Sustains ${rateText(a.target.eventsPerSec)}: ${p99Text(f)}, delivered ${deliveredText(f.sustains.figures.deliveredRatio)}${inputText(f)}; ${rendererText(f)}.`,
    );
    const h = a.headroom;
    if (!h) lines.push(`  Headroom: not measured${a.stopped ? ` (${a.stopped === 'budget' ? 'the time budget ran out' : 'interrupted'})` : ''}.`);
    else lines.push(`  Headroom: ${headroomWords(h, w, a.target.eventsPerSec)}`);
    // The answer as a set: equally good within the margins, kept apart from what the evidence cannot tell.
    const set = a.equivalent ?? [];
    const margin = marginText(a.margins.cpuPerEvent);
    const equal = set.filter((e) => e.reading === 'equivalent');
    const unsure = set.filter((e) => e.reading === 'cannot-tell');
    if (equal.length)
      lines.push(
        `  Equally good within the margins (${OBJECTIVE_WORDS[a.target.objective ?? 'renderer'].figure} against the winner, paired CI inside ${margin}): ${equal.map((e) => setMemberWords(e, a)).join('; ')}.`,
      );
    if (unsure.length)
      lines.push(
        `  Cannot tell apart (the paired CI straddles the ${margin} margin: neither shown equivalent nor shown dearer; more rounds could settle it): ${unsure.map((e) => setMemberWords(e, a)).join('; ')}.`,
      );
    if (set.length && a.prefer) lines.push(`  Chosen among them by ${chosenByWords(a.prefer)}; never by an unpaired median.`);
    if (a.runnerUp) {
      const t = tried.get(a.runnerUp.candidate.id);
      lines.push(
        `  Runner-up: ${candidateWords(a.runnerUp.candidate)}, ${a.runnerUp.cpuVsWinner ? cpuWords(a.runnerUp.cpuVsWinner) : 'CPU not compared'}${t ? decidedWords(t, a) : ''}.`,
      );
      const rh = a.runnerUp.headroom;
      if (rh) lines.push(`  Runner-up's headroom: ${headroomWords(rh, a.runnerUp.candidate, a.target.eventsPerSec)}`);
      else if (rh === null)
        lines.push(`  Runner-up's headroom: not measured${a.stopped ? ` (${a.stopped === 'budget' ? 'the time budget ran out' : 'interrupted'})` : ''}.`);
    }
    // A finalist dearer per event with a clearly lower paired p99 is a trade-off, not only a loser:
    // named on a line of its own (and not again under Rejected), so a team that would pay the CPU
    // for the latency sees the setup; two runs here split on exactly this (issue 34).
    const lowerP99 = lowerP99AtACost(a);
    for (const t of lowerP99) lines.push(`  Lower p99, at a cost: ${candidateWords(t.candidate)} (${tradeOffWords(t, a)}).`);
    // Every other finalist by name, with what put it behind; then one entry per other transport: its best attempt and why it lost.
    const inSet = new Set([...set.map((e) => e.candidate.id), ...lowerP99.map((t) => t.candidate.id)]);
    const shown = new Set([w.transport, a.runnerUp?.candidate.transport, ...set.map((e) => e.candidate.transport)]);
    const rejected: string[] = [];
    for (const r of a.rejected) {
      const t = tried.get(r.candidateId);
      if (!t?.confirmed?.sustains.sustains || !t.cpuVsWinner || inSet.has(r.candidateId)) continue;
      shown.add(r.transport);
      rejected.push(`${r.candidateId} (${finalistLostWords(t, t.cpuVsWinner, a)})`);
    }
    for (const r of a.rejected) {
      if (shown.has(r.transport)) continue;
      shown.add(r.transport);
      rejected.push(`${r.transport} (${bestAttemptWhy(a, r, tried.get(r.candidateId))})`);
    }
    if (rejected.length && o.rejected !== false) lines.push(`  Rejected: ${rejected.join('; ')}.`);
    lines.push(`  ${objectiveLine(a)}`);
    const table = o.costs === false ? [] : costsTable(a);
    if (table.length)
      lines.push("  The finalists' costs (medians over their confirming repeats; ranges in report.json and report.html):", ...table.map((l) => `    ${l}`));
  } else if (a.stopped && a.tried.some((t) => t.probe?.sustains.sustains && !t.confirmed)) {
    // Stopped before it could confirm what its probes found: no answer, but what looked promising.
    const cost = (t: Advice['tried'][number]) => (t.probe ? objectiveCost(t.probe) : null) ?? Number.POSITIVE_INFINITY;
    const promising = a.tried.filter((t) => t.probe?.sustains.sustains && !t.confirmed).sort((x, y) => cost(x) - cost(y));
    const why = a.stopped === 'interrupted' ? 'interrupted' : 'the time budget ran out';
    // Confirmations may have run and failed: then the stop came before the rest, not before any.
    const confirmed = a.tried.filter((t) => t.confirmed !== null).length;
    lines.push(
      confirmed
        ? `No confirmed answer for ${target}: ${plural(confirmed, 'confirmed candidate')} did not sustain it, and ${a.stopped === 'interrupted' ? 'the search was interrupted' : why} before the others were confirmed.`
        : `No confirmed answer for ${target}: ${why} before a confirmation.`,
    );
    lines.push(
      `  Sustained in one probe window, not confirmed (cheapest first): ${promising
        .slice(0, 3)
        .map((t) => candidateWords(t.candidate))
        .join('; ')}.`,
    );
  } else if (!a.tried.length) {
    lines.push(
      `No answer for ${target}: ${a.stopped === 'interrupted' ? 'interrupted before anything was measured' : `the time budget of ${Math.round(a.budgetSec)} s leaves no room for one probe and its confirmation`}.`,
    );
  } else {
    lines.push(`Nothing sustained ${targetText(a.target, false)} ${where}${a.stopped === 'interrupted' ? ' before the search was interrupted' : ''}.`);
    if (a.closest) {
      lines.push(`  Closest: ${candidateWords(a.closest.candidate)}: ${reachText(a.closest.figures)}; ${a.closest.limit}.`);
      if (a.closest.helps.length) lines.push(`  What the measurements say: ${a.closest.helps.join('; ')}.`);
    }
  }
  lines.push(...accountLines(a));
  // The machine did not keep one speed: said with the answer it qualifies, before the machine line.
  for (const line of driftLines(a.drift)) lines.push(`  ${line}`);
  // The events and page the answer was measured with: it transfers only as far as a product's look like these.
  if (o.conditions !== false) lines.push(conditionsLine(a, o.payload));
  if (machine) {
    const parts = [machine.cores !== null ? `${machine.cores} cores` : '', machine.cpuModel ?? ''].filter(Boolean).join(' ');
    lines.push(`Machine: ${[parts, machine.browser].filter(Boolean).join(', ')}; these figures hold for this machine and browser.`);
  }
  return lines;
}

/** `5 min 22 s`, `45 s`, `10 min`. */
function durationWords(sec: number): string {
  const s = Math.round(sec);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** Each reason for not measuring a candidate, as the account counts it. */
export const NOT_MEASURED_WORDS: Record<NotMeasuredReason, string> = {
  notReached: 'not reached',
  prunedDear: 'pruned as dear',
  prunedHopeless: 'pruned as hopeless',
  outOfBudget: 'out of budget',
  interrupted: 'cut off by the interruption',
};

/** What each reason means, said once under the counts (the viewer's table too). */
export const NOT_MEASURED_MEANING: Record<NotMeasuredReason, string> = {
  notReached: "the search moves one setting at a time from each transport's best, and no measured neighbour led there",
  prunedDear:
    "their transport's best cost far more than the cheapest that sustained, by the search's objective (each one's why says how much), so it was explored no further",
  prunedHopeless: "their transport's best came nowhere near the target while others sustained, so it was explored no further",
  outOfBudget: 'the moves the screen had next when the time budget ended it',
  interrupted: 'the search was interrupted before it reached them',
};

/** A stage as the account's words name it. */
const STAGE_WORDS: Record<NonNullable<SearchAccount['stoppedIn']>, string> = {
  screen: 'the screen',
  confirm: 'the confirmation',
  headroom: 'the headroom search',
};

/** The not-measured counts of an answer: its account's, or, in a report written before it, its list's by its words. */
export function notMeasuredOf(a: Advice): SearchAccount['notMeasured'] {
  if (a.search) return a.search.notMeasured;
  const out = Object.fromEntries(NOT_MEASURED_REASONS.map((k) => [k, { count: 0, examples: [] as string[] }])) as SearchAccount['notMeasured'];
  for (const n of a.notTried) {
    // Before issue 34 the words were all there was: 'not explored: …' was a pruned transport, dear or hopeless.
    const reason: NotMeasuredReason =
      n.reason ??
      (n.why.startsWith('interrupted')
        ? 'interrupted'
        : n.why.startsWith('the time budget')
          ? 'outOfBudget'
          : n.why.includes('came nowhere near')
            ? 'prunedHopeless'
            : n.why.startsWith('not explored')
              ? 'prunedDear'
              : 'notReached');
    out[reason].count++;
    if (out[reason].examples.length < 3) out[reason].examples.push(n.candidate.id);
  }
  return out;
}

/**
 * What the search did (issue 34): `  The search converged: it ended by itself at 9 min 1 s of its
 * 10 min budget, nothing left worth measuring (the screen converged at 5 min 29 s; 53 probes, 5
 * paired rounds).`, `  The budget stopped it: the screen at 37 s, keeping room to confirm
 * what it found; …`, then what it did not measure, by why: `  Not measured: 411 of 462
 * candidates: 291 not reached, 81 pruned as dear, …`. A report written before the account says
 * nothing of how its search ended (it did not record it), only the counts.
 */
export function accountLines(a: Advice): string[] {
  const lines: string[] = [];
  const s = a.search;
  if (s) {
    const at = `at ${durationWords(a.elapsedSec)} of its ${durationWords(a.budgetSec)} budget`;
    const m = s.measurements;
    const did = [
      plural(m.probes, 'probe'),
      m.confirmRounds ? plural(m.confirmRounds, 'paired round') : '',
      m.headroomRepeats ? `${plural(m.headroomRepeats, 'repeat')} of headroom` : '',
    ].filter(Boolean);
    const screen = s.screen ? `the screen ${s.screen.ended === 'converged' ? 'converged' : 'ended'} at ${durationWords(s.screen.endedSec)}` : '';
    if (s.ended === 'converged')
      lines.push(`  The search converged: it ended by itself ${at}, nothing left worth measuring (${[screen, did.join(', ')].filter(Boolean).join('; ')}).`);
    else if (s.ended === 'budget' && s.stoppedIn === 'screen' && s.screen)
      lines.push(
        `  The budget stopped it: it ended the screen at ${durationWords(s.screen.endedSec)}, keeping room to confirm what it found; the search ended ${at} (${did.join(', ')}).`,
      );
    else {
      const head = s.ended === 'budget' ? 'The budget stopped it' : 'The search was interrupted';
      lines.push(`  ${head}${s.stoppedIn ? ` in ${STAGE_WORDS[s.stoppedIn]}` : ''} ${at} (${[did.join(', '), screen].filter(Boolean).join('; ')}).`);
    }
  }
  if (a.notTried.length) {
    const counts = notMeasuredOf(a);
    const parts = NOT_MEASURED_REASONS.filter((k) => counts[k].count > 0).map((k) => `${counts[k].count} ${NOT_MEASURED_WORDS[k]}`);
    const total = a.notTried.length + a.tried.length;
    lines.push(`  Not measured: ${a.notTried.length} of ${plural(total, 'candidate')}: ${parts.join(', ')}; every one is listed in the report with why.`);
  }
  return lines;
}
