/**
 * What a team budgets for a candidate (issue 34), from the figures every repeat already records:
 * the renderer's, the main thread's and all of Chrome's CPU, the bytes the page received, the
 * server's CPU, event age, display age and input delay, each as a median with its range over the
 * repeats, with its unit; a figure a repeat did not measure is left out and the record says why,
 * never 0. And `--objective`: which of them the advisor minimises, read per repeat (for the paired
 * comparisons) and over repeats (for the ranking). Pure, no Node or DOM.
 */
import type { Advice, Candidate, CostFigure, Costs, TriedCandidate } from '../protocol/advice.js';
import type { MeasuredRepeat, Repeat } from '../protocol/repeat-figures.js';
import { inputDelayP99Ms } from './input-delay.js';
import { rateText, type Objective } from '../protocol/target.js';
import { judgeRatio } from './equivalence.js';
import { headroomShown } from './headroom.js';
import { median, pairedRatio } from './stats.js';

/** ms of CPU per million events from a % of one core at a rate: (cores × 1000 ms/s) ÷ (events/s) × 10⁶. */
const msPerMillion = (percent: number | null, eventsPerSec: number) =>
  percent !== null && percent > 0 && eventsPerSec > 0 ? ((percent / 100) * 1000 * 1e6) / eventsPerSec : null;

/** One repeat's value of a figure, or why it has none. */
type Read = number | { missing: string };

const num = (v: number | null | undefined, missing: string): Read => (typeof v === 'number' && Number.isFinite(v) ? v : { missing });

/** Why a repeat's Chrome CPU figure is null: the repeat says which figures it could not read. */
const cpuMissing = (r: MeasuredRepeat, figure: string) =>
  r.cpu.unavailable?.includes(figure as never) ? `${figure} CPU unavailable for this browser` : `${figure} CPU not read`;

/** The wire's bytes per decoded byte: the compressor's ratio where every stream of the point was compressed, else 1. */
function wireShare(r: MeasuredRepeat): number {
  const c = r.compression;
  return c && c.ratio !== null && c.streams > 0 && c.compressedStreams === c.streams ? c.ratio : 1;
}

/** MB/s on the wire: the server's count of bytes written to the point's streams where compressed, else the page's. */
const wireMegabytesPerSec = (r: MeasuredRepeat): number => (r.compression ? r.compression.wireMegabytesPerSec : r.megabytesPerSec);

/** Every figure of the record, read from one measured repeat. */
const READERS: { [K in Exclude<keyof Costs, 'chromeProcesses'>]: { unit: string; read: (r: MeasuredRepeat) => Read } } & {
  chromeProcesses: { [P in keyof Costs['chromeProcesses']]: { unit: string; read: (r: MeasuredRepeat) => Read } };
} = {
  rendererCpuMsPerMillionEvents: {
    unit: 'ms per million events',
    read: (r) =>
      num(
        r.efficiency.rendererCpuMsPerMillionEvents,
        r.cpu.tabProcess === null ? cpuMissing(r, 'tabProcess') : 'no events, or no valid renderer CPU (main-thread throttling)',
      ),
  },
  mainThreadPercent: { unit: '% of one core', read: (r) => num(r.cpu.tabMainThread, cpuMissing(r, 'tabMainThread')) },
  mainThreadMsPerMillionEvents: {
    unit: 'ms per million events',
    read: (r) => num(r.efficiency.eventsPerCpuSecMainThread ? 1e9 / r.efficiency.eventsPerCpuSecMainThread : null, 'no events, or main-thread time not read'),
  },
  chromePercent: { unit: '% of one core', read: (r) => num(r.cpu.chrome.total, cpuMissing(r, 'total')) },
  chromeCpuMsPerMillionEvents: {
    unit: 'ms per million events',
    read: (r) => num(r.efficiency.eventsPerCpuSecChrome ? 1e9 / r.efficiency.eventsPerCpuSecChrome : null, 'no events, or Chrome CPU not read'),
  },
  chromeProcesses: {
    renderers: { unit: '% of one core', read: (r) => num(r.cpu.chrome.renderers, cpuMissing(r, 'renderers')) },
    network: { unit: '% of one core', read: (r) => num(r.cpu.chrome.network, cpuMissing(r, 'network')) },
    browser: { unit: '% of one core', read: (r) => num(r.cpu.chrome.browser, cpuMissing(r, 'browser')) },
    gpu: { unit: '% of one core', read: (r) => num(r.cpu.chrome.gpu, cpuMissing(r, 'gpu')) },
  },
  // On the wire: a compressed point's bytes are the page's decoded bytes times what the server's
  // compressor made of them (the page sees only decoded bytes), so `--objective bytes` can see
  // what compression saves. Where only some streams were compressed, none is claimed.
  bytesPerEvent: {
    unit: 'bytes',
    read: (r) =>
      num(
        r.bytesPerEvent === undefined || r.bytesPerEvent === null ? r.bytesPerEvent : r.bytesPerEvent * wireShare(r),
        r.bytesPerEvent === undefined ? 'not kept in reports written before bytes per event' : 'no events in the window',
      ),
  },
  megabytesPerSec: { unit: 'MB/s', read: (r) => num(wireMegabytesPerSec(r), 'not measured') },
  // 3600 s of MB/s, in GB: a user streaming for an hour at the rate this repeat took.
  gigabytesPerUserHour: {
    unit: 'GB per user-hour',
    read: (r) => num(Number.isFinite(wireMegabytesPerSec(r)) ? (wireMegabytesPerSec(r) * 3600) / 1000 : null, 'not measured'),
  },
  serverCpuPercentPer100kEventsPerSec: {
    unit: '% of one core per 100 k events/s',
    read: (r) => num(r.server.eventsPerSec > 0 ? r.cpu.server / (r.server.eventsPerSec / 1e5) : null, 'the server sent nothing in the window'),
  },
  eventAgeP99Ms: {
    unit: 'ms',
    read: (r) =>
      r.latencyBook === 'transit' ? { missing: 'a version 3 repeat: its latency is transit, not event age' } : num(r.latency.p99Ms, 'no batch in the window'),
  },
  displayAgeP99Ms: {
    unit: 'ms',
    read: (r) =>
      r.displayAge === undefined
        ? { missing: 'not kept (a version 3 repeat, or a page without it)' }
        : r.displayAge === null
          ? { missing: 'render mode none draws nothing' }
          : num(r.displayAge.p99Ms, 'nothing drew in the window'),
  },
  inputDelayP99Ms: {
    unit: 'ms',
    read: (r) =>
      !r.input
        ? { missing: 'no input probe (a version 3 repeat, or a page without it)' }
        : num(inputDelayP99Ms(r.input), r.input.unavailable ? `the browser refused input: ${r.input.unavailable}` : 'no input answered or sent'),
  },
};

/** A figure over the measured repeats: median and range of those that have it, and why the others do not. */
function over(measured: readonly MeasuredRepeat[], reader: { unit: string; read: (r: MeasuredRepeat) => Read }): CostFigure {
  const reads = measured.map(reader.read);
  const values = reads.filter((v): v is number => typeof v === 'number');
  const missing = [...new Set(reads.flatMap((v) => (typeof v === 'number' ? [] : [v.missing])))];
  const out: CostFigure = {
    unit: reader.unit,
    median: values.length ? median(values) : null,
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
    n: values.length,
    of: measured.length,
  };
  if (!measured.length) out.unmeasured = 'no repeat measured';
  else if (missing.length) out.unmeasured = `${measured.length - values.length} of ${measured.length} repeats: ${missing.join('; ')}`;
  return out;
}

/** What a team budgets for a candidate over these repeats (failed ones measured nothing and are left out). */
export function costsOf(repeats: readonly Repeat[]): Costs {
  const measured = repeats.filter((r): r is MeasuredRepeat => r.status === 'ok');
  const { chromeProcesses, ...flat } = READERS;
  const out = Object.fromEntries(Object.entries(flat).map(([k, reader]) => [k, over(measured, reader)])) as Omit<Costs, 'chromeProcesses'>;
  return {
    ...out,
    chromeProcesses: {
      renderers: over(measured, chromeProcesses.renderers),
      network: over(measured, chromeProcesses.network),
      browser: over(measured, chromeProcesses.browser),
      gpu: over(measured, chromeProcesses.gpu),
    },
  };
}

// ---- the objective (`--objective`)

/** The record's figure each objective minimises. */
const OBJECTIVE_FIGURE: Record<Objective, 'rendererCpuMsPerMillionEvents' | 'chromeCpuMsPerMillionEvents' | 'mainThreadMsPerMillionEvents' | 'bytesPerEvent'> =
  {
    renderer: 'rendererCpuMsPerMillionEvents',
    chrome: 'chromeCpuMsPerMillionEvents',
    'main-thread': 'mainThreadMsPerMillionEvents',
    bytes: 'bytesPerEvent',
  };

/** An objective in words, per event, as comparisons and the answer name it. */
export const OBJECTIVE_WORDS: Record<Objective, { figure: string; unit: string; help: string }> = {
  renderer: { figure: 'renderer CPU per event', unit: 'ms of renderer CPU per million events', help: "the tab's renderer process, all threads" },
  chrome: {
    figure: "all of Chrome's CPU per event",
    unit: "ms of Chrome's CPU per million events",
    help: 'every Chrome process: renderers, network service, browser, GPU',
  },
  'main-thread': { figure: 'main-thread time per event', unit: 'ms of main-thread time per million events', help: "the tab's main thread busy time" },
  bytes: { figure: 'bytes per event', unit: 'bytes per event', help: "the page's message bytes, on the wire: after compression where the point compresses" },
};

/** One repeat's cost under an objective (the paired comparisons read it round by round); null where unmeasured. */
export function repeatCost(r: MeasuredRepeat, objective: Objective): number | null {
  const v = READERS[OBJECTIVE_FIGURE[objective]].read(r);
  return typeof v === 'number' ? v : null;
}

/** The objective's figure of a costs record. */
export const objectiveFigure = (c: Costs, objective: Objective): CostFigure => c[OBJECTIVE_FIGURE[objective]];

/**
 * With an objective other than the renderer's: the confirmed finalist that sustained with the
 * lowest median renderer CPU per event, when it is not the winner, with its renderer CPU against
 * the winner's paired by round (read against the CPU margin) and its cost in the objective. Null
 * when the objective is the renderer's, there is no winner, or the renderer's choice is the winner.
 */
export function rendererChoice(a: Advice): { candidate: Candidate; reason: string } | null {
  const objective = a.target.objective ?? 'renderer';
  if (objective === 'renderer' || !a.winner) return null;
  const renderer = (t: TriedCandidate) => t.confirmed?.costs?.rendererCpuMsPerMillionEvents.median ?? Number.POSITIVE_INFINITY;
  const sustaining = a.tried.filter((t) => t.confirmed?.sustains.sustains && Number.isFinite(renderer(t)));
  const best = [...sustaining].sort((x, y) => renderer(x) - renderer(y))[0];
  const winner = a.tried.find((t) => t.candidate.id === a.winner!.candidate.id);
  if (!best || !winner || best.candidate.id === winner.candidate.id) return null;
  // Renderer CPU per event of each, round by round, over the rounds both were confirmed in.
  const byRound = (t: TriedCandidate) =>
    new Map(
      t.repeats.flatMap((x) => {
        const v = x.purpose === 'confirm' && x.round !== null && x.repeat.status === 'ok' ? repeatCost(x.repeat, 'renderer') : null;
        return v !== null && v > 0 ? [[x.round!, v] as const] : [];
      }),
    );
  const [w, b] = [byRound(winner), byRound(best)];
  const rounds = [...w.keys()].filter((k) => b.has(k));
  const words = OBJECTIVE_WORDS[objective];
  const fmt = (x: number | null) => (x === null ? 'not measured' : costText(x));
  const own = (t: TriedCandidate) => objectiveFigure(t.confirmed!.costs!, objective).median;
  let paired = '';
  if (rounds.length) {
    const r = pairedRatio(
      rounds.map((k) => w.get(k)!),
      rounds.map((k) => b.get(k)!),
    );
    const e = judgeRatio(r, a.margins.cpuPerEvent, false);
    const pct = (x: number) => `${Math.round(Math.abs(1 - x) * 100)}%`;
    const ci = r.ciLow !== null && r.ciHigh !== null ? `, CI ${r.ciLow.toFixed(2)}–${r.ciHigh.toFixed(2)}` : '';
    paired =
      e.kind === 'different'
        ? `: ${pct(r.ratio)} ${r.ratio < 1 ? 'less' : 'more'} renderer CPU per event than the winner (÷ ${r.ratio.toFixed(2)}${ci}, ${rounds.length} paired rounds)`
        : `: no clear difference in renderer CPU per event from the winner at ±${Math.round(a.margins.cpuPerEvent * 100)}% (÷ ${r.ratio.toFixed(2)}${ci}, ${rounds.length} paired rounds), its lower median would decide`;
  }
  return {
    candidate: best.candidate,
    reason:
      `${fmt(renderer(best))} against ${fmt(renderer(winner))} ms of renderer CPU per million events${paired}; ` +
      `but ${fmt(own(best))} against the winner's ${fmt(own(winner))} ${words.unit}`,
  };
}

// ---- the finalists side by side

/** One finalist's costs, for the answer's table and the viewer. */
export interface FinalistCosts {
  candidate: Candidate;
  outcome: TriedCandidate['outcome'];
  sustained: boolean;
  costs: Costs;
}

/** Every confirmed finalist with its costs, the winner first, then the runner-up, then the rest as measured. */
export function finalistCosts(a: Advice): FinalistCosts[] {
  const order = (t: TriedCandidate) => (t.outcome === 'winner' ? 0 : t.outcome === 'runner-up' ? 1 : 2);
  return a.tried
    .filter((t) => t.confirmed?.costs !== undefined)
    .map((t, i) => ({ t, i }))
    .sort((x, y) => order(x.t) - order(y.t) || x.i - y.i)
    .map(({ t }) => ({ candidate: t.candidate, outcome: t.outcome, sustained: t.confirmed!.sustains.sustains, costs: t.confirmed!.costs! }));
}

/** A figure's column: its header with the unit, and its cell from a record. */
export interface CostColumn {
  /** Short, for the terminal's table. */
  header: string;
  /** In full with its unit, for the viewer's rows. */
  label: string;
  cell(c: Costs, range: boolean): string;
}

/** A cost as the answer writes it: whole from 100 (`1,440`), one decimal from 10 (`22.1`), two significant figures below. */
export const costText = (x: number) =>
  x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1).replace(/\.0$/, '') : String(Number(x.toPrecision(2)));

/**
 * `1,440 (1,380–1,527)`: the median and, with `range`, the range over the repeats; `—` when none
 * measured it, `*` when some did not.
 */
export function costCell(f: CostFigure, range = true): string {
  if (f.median === null) return '—';
  const [low, high] = [costText(f.min!), costText(f.max!)];
  // A range that reads as one figure at this precision says nothing.
  const spread = range && f.n > 1 && low !== high ? ` (${low}–${high})` : '';
  return `${costText(f.median)}${spread}${f.n < f.of ? '*' : ''}`;
}

/** The columns of the finalists' costs, in the issue's order. */
export const COST_COLUMNS: readonly CostColumn[] = [
  { header: 'renderer ms/M ev', label: 'tab renderer CPU, ms per million events', cell: (c, range) => costCell(c.rendererCpuMsPerMillionEvents, range) },
  { header: 'main thread %', label: 'main thread busy, % of one core', cell: (c, range) => costCell(c.mainThreadPercent, range) },
  { header: 'Chrome %', label: "all of Chrome's CPU, % of one core", cell: (c, range) => costCell(c.chromePercent, range) },
  { header: 'Chrome ms/M ev', label: "all of Chrome's CPU, ms per million events", cell: (c, range) => costCell(c.chromeCpuMsPerMillionEvents, range) },
  { header: 'B/event', label: 'bytes per event on the wire (after compression)', cell: (c, range) => costCell(c.bytesPerEvent, range) },
  { header: 'MB/s', label: 'MB/s received', cell: (c, range) => costCell(c.megabytesPerSec, range) },
  { header: 'GB/user-h', label: 'GB per user-hour', cell: (c, range) => costCell(c.gigabytesPerUserHour, range) },
  {
    header: 'server % /100k ev/s',
    label: 'server CPU, % of one core per 100 k events/s',
    cell: (c, range) => costCell(c.serverCpuPercentPer100kEventsPerSec, range),
  },
  { header: 'age p99 ms', label: 'event age p99, ms', cell: (c, range) => costCell(c.eventAgeP99Ms, range) },
  { header: 'display p99 ms', label: 'display age p99, ms', cell: (c, range) => costCell(c.displayAgeP99Ms, range) },
  { header: 'input p99 ms', label: 'input delay p99, ms', cell: (c, range) => costCell(c.inputDelayP99Ms, range) },
];

/** Why figures of the finalists are missing, one line per figure and finalist (the `*` and `—` cells). */
export function unmeasuredNotes(rows: readonly FinalistCosts[]): string[] {
  const names: [keyof Omit<Costs, 'chromeProcesses'>, string][] = [
    ['rendererCpuMsPerMillionEvents', 'renderer CPU'],
    ['mainThreadPercent', 'main thread'],
    ['chromePercent', "Chrome's CPU"],
    ['bytesPerEvent', 'bytes per event'],
    ['serverCpuPercentPer100kEventsPerSec', 'server CPU'],
    ['eventAgeP99Ms', 'event age'],
    ['displayAgeP99Ms', 'display age'],
    ['inputDelayP99Ms', 'input delay'],
  ];
  const out = new Map<string, string[]>();
  for (const r of rows)
    for (const [k, name] of names) {
      const why = r.costs[k].unmeasured;
      if (why === undefined) continue;
      const key = `${name}: ${why.replace(/^\d+ of \d+ repeats: /, '')}`;
      out.set(key, [...(out.get(key) ?? []), r.candidate.id]);
    }
  return [...out].map(([what, ids]) => `${what} (${ids.join(', ')})`);
}

/**
 * A finalist's headroom: the winner's and the runner-up's, as their searches found them (`≥` where
 * something other than the setup capped the search: advice-words says what); `—` for the others,
 * which no search measured, and `none` where the setup did not sustain again at its own batch.
 */
function headroomCell(a: Advice, r: FinalistCosts): string {
  const h = r.outcome === 'winner' ? a.headroom : a.runnerUp?.candidate.id === r.candidate.id ? a.runnerUp.headroom : null;
  if (!h) return '—';
  const shown = headroomShown(h);
  if (!shown) return 'none';
  return `${shown.atLeast ? '≥ ' : ''}${rateText(shown.eventsPerSec)}`;
}

/**
 * The finalists' costs as cells: one row per finalist (the winner first), the figures' medians
 * with their ranges over the repeats, and its headroom; `—` where no repeat measured a figure,
 * `*` where only some did, with notes that say why.
 */
export function costsGrid(
  a: Advice,
  range = true,
): { headers: string[]; labels: string[]; rows: { id: string; outcome: string; cells: string[] }[]; notes: string[] } | null {
  const rows = finalistCosts(a);
  if (!rows.length) return null;
  const notes = unmeasuredNotes(rows);
  if (rows.length > 1 || a.headroom)
    notes.push(
      "headroom: searched for the winner and the runner-up only (the same tick and connections, more rows per message; ≥ where something other than the setup ended the search: the answer's Headroom lines say what)",
    );
  return {
    headers: ['finalist', ...COST_COLUMNS.map((c) => c.header), 'headroom'],
    labels: [...COST_COLUMNS.map((c) => c.label), 'headroom (the same tick and connections)'],
    rows: rows.map((r) => ({
      id: r.candidate.id,
      outcome: r.outcome === 'winner' ? 'winner' : r.sustained ? r.outcome : 'not sustained',
      cells: [...COST_COLUMNS.map((c) => c.cell(r.costs, range)), headroomCell(a, r)],
    })),
    notes,
  };
}

/**
 * The finalists' costs as a text table for the terminal answer (costsGrid, medians only: the
 * ranges are in report.json and the viewer), the notes below it on one line.
 */
export function costsTable(a: Advice): string[] {
  const grid = costsGrid(a, false);
  if (!grid) return [];
  const { headers, notes } = grid;
  const body = grid.rows.map((r) => [`${r.id}${r.outcome === 'winner' ? ' (winner)' : r.outcome === 'not sustained' ? ' (not sustained)' : ''}`, ...r.cells]);
  const widths = headers.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...body.map(line),
    ...(notes.length ? [`— or *: ${notes.join('; ')}`] : []),
  ];
}
