/**
 * Turns the views into DOM. Text from a report (ids, notes, errors, verdict lines) only ever
 * goes in through text nodes and attribute setters, never parsed as HTML, so a report cannot
 * inject markup (test/browser/viewer-hostile.test.ts checks that no file here uses it); and through `inert`
 * (inert.ts), so it cannot reorder itself or run layout for seconds.
 *
 * Each part of a report is drawn on its own (`guarded`): a part this build cannot read (an
 * edited report, a newer build's field) is replaced by a note naming it and why, and the rest
 * is shown. Every view is linear in the number of points, and what grows with them is bounded
 * on the page: the table is paged (TABLE_PAGE rows), lists show their first LIST_LIMIT items,
 * a scenario draws its first CHART_POINTS points and the report its first SCENARIO_LIMIT
 * scenarios, each saying so; the CSV buttons still give every row.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { formatRatioWithCi, VERDICT_WORDS, type Comparison } from '../../results/compare.js';
import { formatEps, formatMsShort, formatCount } from '../../results/format.js';
import { speedChangeText, speedChanges } from '../../results/machine-speed.js';
import type { Verdict } from '../../protocol/repeat-figures.js';
import type { KnobComparison, Report, PointResult } from '../../protocol/report.js';
import { cpuChart, efficiencyChart, epsChart, type ChartOptions } from './chart-configs.js';
import { inert } from './inert.js';
import { soakPlot } from './soak-plot.js';
import { judgeSoak, RETAINED_EVERY_SEC } from '../../results/soak.js';
import { transportColor, VERDICT_COLORS, VERDICT_MEANING } from './palette.js';
import {
  adviceView,
  browserRows,
  failures,
  latencyBoxes,
  latencyTitle,
  logAxis,
  logPosition,
  noteLines,
  REPEAT_TABLE_COLUMNS,
  runHeader,
  pointsAndRepeats,
  runSummary,
  scenarioViews,
  compareSortValues,
  pointsByScenario,
  scenarioIds,
  scenarioView,
  TABLE_COLUMNS,
  tableRow,
  type LatencyBox,
  type ScenarioView,
  type TableRow,
} from './views.js';
import { sortValue } from '../../results/columns.js';

// Only what the charts use, so the one-file report stays small.
Chart.register(LineController, BarController, LineElement, PointElement, BarElement, LinearScale, LogarithmicScale, CategoryScale, Legend, Tooltip);

/** Rows of the points table on one page. */
export const TABLE_PAGE = 200;
/** Items a list (failures, notes, candidates, launch args, browsers, knobs) shows before saying how many more. */
export const LIST_LIMIT = 200;
/**
 * Points a scenario's charts and latency plot draw: more is a blur of bars and labels, and
 * chart.js measures every category label (300 points took seconds a chart).
 */
export const CHART_POINTS = 100;
/** Scenario sections drawn, each with three charts. */
export const SCENARIO_LIMIT = 30;
/** Rows of a comparison of two runs. */
export const COMPARISON_ROWS = 1_000;

type Child = Node | string;

/** An element; its string children and title pass through `inert`. Children are appended one by one: never spread (see minOf). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; title?: string } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.title) node.title = inert(props.title);
  appendAll(node, children);
  return node;
}

/** Appends `children` without spreading them into one call's arguments (100,000 rows overflowed the stack). */
export function appendAll(parent: Node, children: Iterable<Child>): void {
  for (const c of children) parent.appendChild(typeof c === 'string' ? document.createTextNode(inert(c)) : c);
}

/** An element holding `children`, for lists that grow with the report: no spread. */
function hAll<K extends keyof HTMLElementTagNameMap>(tag: K, props: { class?: string; title?: string }, children: Iterable<Child>): HTMLElementTagNameMap[K] {
  const node = h(tag, props);
  appendAll(node, children);
  return node;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The note that stands where a part could not be shown: which part, and why. */
export function unreadableNote(part: string, error: unknown): HTMLElement {
  const note = h('section', { class: 'unreadable' }, h('b', {}, `Could not show ${part}: `), message(error));
  note.setAttribute('role', 'note');
  return note;
}

/** A part drawn on its own: if it throws, its note stands in its place and the other parts are drawn. */
function guarded<T extends HTMLElement | null>(part: string, make: () => T): T | HTMLElement {
  try {
    return make();
  } catch (error) {
    return unreadableNote(part, error);
  }
}

/** The first `limit` of `items`, and the line that says how many there are when that is not all. */
function firstOf<T>(items: readonly T[], limit: number, what: string): { shown: readonly T[]; more: HTMLElement | null } {
  if (items.length <= limit) return { shown: items, more: null };
  return {
    shown: items.slice(0, limit),
    more: h(
      'p',
      { class: 'muted too-large' },
      `${formatCount(items.length)} ${what}; showing the first ${formatCount(limit)} (the CSV buttons give every one).`,
    ),
  };
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = inert(text);
  return node;
}

function verdictChip(v: Verdict, text: string = v): HTMLElement {
  return h('span', { class: `chip verdict-${v}`, title: VERDICT_MEANING[v] }, text);
}

function headerSection(report: Report): HTMLElement {
  const header = runHeader(report);
  const summary = runSummary(report);
  const fields = h('dl', { class: 'fields' });
  for (const f of header.fields) {
    const value = h('dd', f.warning ? { class: 'warning', title: f.warning } : {}, f.value);
    fields.append(h('div', {}, h('dt', {}, f.label), value));
  }
  const best = summary.best.map((b) => `${b.transport} ${formatEps(b.eventsPerSec.median)}`).join(', ');
  const line = h(
    'p',
    { class: 'summary' },
    pointsAndRepeats(report),
    summary.failedRepeats ? h('span', { class: 'failed-count' }, ` · ${summary.failedRepeats} of ${summary.repeats} repeats failed`) : '',
    // An advise run's answer is its headline; the best probe per transport would read as a rival one.
    best && !report.advice ? ` · best median: ${best}` : '',
  );
  const args = h('details', { class: 'launch-args' }, h('summary', {}, `Chrome launch args (${formatCount(header.launchArgs.length)})`));
  const launch = firstOf(header.launchArgs, LIST_LIMIT, 'launch args');
  args.append(
    hAll(
      'ul',
      {},
      launch.shown.map((a) => h('li', {}, h('code', {}, a))),
    ),
    ...(launch.more ? [launch.more] : []),
  );
  const section = h('section', { class: 'run-header' }, h('h2', {}, 'Run ', h('code', {}, header.runId)), line);
  if (report.interrupted)
    section.append(
      h('p', { class: 'warning-box' }, `Interrupted before it finished${report.resumeCommand ? `; finish it with ${report.resumeCommand}` : ''}.`),
    );
  for (const c of speedChanges(report.rounds)) section.append(h('p', { class: 'warning-box' }, `${speedChangeText(c).replace(/^u/, 'U')}.`));
  section.append(fields, args);
  return section;
}

/** `npm run advise`'s answer, first: the words it printed, then every candidate it tried (folded). */
function adviceSection(report: Report): HTMLElement | null {
  const v = adviceView(report);
  if (!v) return null;
  const section = h('section', { class: `advice advice-${v.state}` }, h('h2', {}, 'Advice'));
  if (v.caveat) section.append(h('p', { class: 'warning-box' }, v.caveat));
  section.append(h('p', { class: 'advice-headline' }, v.headline));
  const details = firstOf(v.details, LIST_LIMIT, 'lines');
  if (v.details.length)
    section.append(
      hAll(
        'ul',
        { class: 'advice-details' },
        details.shown.map((d) => h('li', {}, d)),
      ),
      ...(details.more ? [details.more] : []),
    );
  // Beside the answer it qualifies: the events and the page it holds for.
  section.append(h('p', { class: 'advice-conditions' }, v.conditions));
  if (v.costs) {
    // Side by side: one column per finalist, one row per cost, so a few finalists fit the page.
    const c = v.costs;
    const name = (r: (typeof c.rows)[number]) => [h('code', {}, r.id), r.outcome === 'winner' || r.outcome === 'not sustained' ? ` (${r.outcome})` : ''];
    const table = h(
      'table',
      { class: 'points advice-costs' },
      h('thead', {}, hAll('tr', {}, [h('th', {}, 'cost'), ...c.rows.map((r) => hAll('th', { class: `num outcome-${r.outcome.replace(' ', '-')}` }, name(r)))])),
      hAll(
        'tbody',
        {},
        c.labels.map((label, i) => hAll('tr', {}, [h('th', {}, label), ...c.rows.map((r) => h('td', { class: 'num' }, r.cells[i]))])),
      ),
    );
    section.append(
      h('h3', {}, "The finalists' costs (medians over their confirming repeats, range in brackets)"),
      h('div', { class: 'table-wrap' }, table),
      ...c.notes.map((n) => h('p', { class: 'muted' }, n)),
    );
  }
  if (v.set.length) {
    // The set beside the winner: which are equivalent and which the evidence cannot tell apart.
    const rows = v.set.map((m) =>
      h(
        'tr',
        { class: `set-${m.mark.replace(' ', '-')}` },
        h('td', {}, h('span', { class: `mark mark-${m.mark.replace(' ', '-')}` }, m.mark)),
        h('td', {}, h('code', {}, m.id), h('br', {}), m.words),
        h('td', {}, m.cpu || 'the answer'),
        h('td', {}, m.decided),
      ),
    );
    section.append(
      h('h3', {}, 'Equally good, and cannot tell apart'),
      h(
        'p',
        { class: 'muted' },
        'Equivalent: the paired CI of renderer CPU per event against the chosen one lies inside the margin, so the choice does not matter within it. Cannot tell: the CI straddles the margin, so the evidence does not tell them apart (more rounds could).',
      ),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'points advice-set' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'reading'),
              h('th', {}, 'candidate'),
              h('th', {}, 'renderer CPU per event against the chosen one'),
              h('th', {}, 'what put the chosen one first'),
            ),
          ),
          hAll('tbody', {}, rows),
        ),
      ),
    );
  }
  if (v.transports.length > 1) {
    // Why not the others: the question a team asks of an answer, one row per transport searched.
    const rows = v.transports.map((t) =>
      h(
        'tr',
        { class: `reached-${t.reached.replace(/ /g, '-')}` },
        h('td', {}, t.transport),
        h('td', {}, t.candidateId ? h('code', {}, t.candidateId) : '—'),
        h('td', {}, t.reached),
        h('td', {}, t.why),
      ),
    );
    section.append(
      h('h3', {}, 'Why not the other transports'),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'points advice-transports' },
          h('thead', {}, h('tr', {}, h('th', {}, 'transport'), h('th', {}, 'its furthest attempt'), h('th', {}, 'reached'), h('th', {}, 'why not chosen'))),
          hAll('tbody', {}, rows),
        ),
      ),
    );
  }
  if (v.machine) section.append(h('p', { class: 'muted' }, v.machine));
  if (v.tried.length) {
    const tried = firstOf(v.tried, LIST_LIMIT, 'candidates');
    const rows = tried.shown.map((t) =>
      h('tr', { class: `outcome-${t.outcome}` }, h('td', {}, h('code', {}, t.id)), h('td', {}, t.outcome), h('td', {}, t.why)),
    );
    const table = h(
      'table',
      { class: 'points advice-tried' },
      h('thead', {}, h('tr', {}, h('th', {}, 'candidate'), h('th', {}, 'outcome'), h('th', {}, 'why'))),
      hAll('tbody', {}, rows),
    );
    section.append(
      h(
        'details',
        {},
        h('summary', {}, `Every candidate measured (${formatCount(v.tried.length)}); their repeats are the points below`),
        h('div', { class: 'table-wrap' }, table),
        ...(tried.more ? [tried.more] : []),
      ),
    );
  }
  if (v.notMeasured.length) {
    const rows = v.notMeasured.map((n) =>
      h(
        'tr',
        {},
        h('td', {}, n.reason),
        h('td', { class: 'num' }, formatCount(n.count)),
        h('td', {}, n.meaning),
        hAll(
          'td',
          {},
          n.examples.flatMap((id, i) => [...(i ? [', '] : []), h('code', {}, id)]),
        ),
      ),
    );
    const total = v.notMeasured.reduce((sum, n) => sum + n.count, 0);
    section.append(
      h(
        'details',
        {},
        h('summary', {}, `Not measured (${formatCount(total)}), by why; report.json lists every one`),
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'points advice-not-measured' },
            h('thead', {}, h('tr', {}, h('th', {}, 'why'), h('th', {}, 'candidates'), h('th', {}, 'meaning'), h('th', {}, 'for example'))),
            hAll('tbody', {}, rows),
          ),
        ),
      ),
    );
  }
  return section;
}

/** A soak (protocol/soak.ts): whether it held, part by part (results/soak.ts), and its figures over time. */
function soakSection(report: Report): HTMLElement | null {
  const soak = report.soak;
  if (!soak) return null;
  const j = judgeSoak(soak);
  const state = j.held === true ? 'held' : j.held === false ? 'not-held' : 'unjudged';
  const section = h('section', { class: `soak soak-${state}` }, h('h2', {}, 'Soak of ', soak.source));
  section.append(h('p', { class: 'soak-headline' }, j.headline));
  section.append(
    hAll(
      'ul',
      { class: 'soak-parts' },
      j.parts.map((p) => h('li', { class: `soak-part held-${String(p.held)}` }, p.text)),
    ),
  );
  section.append(
    h(
      'p',
      { class: 'muted' },
      `${soak.point.id}: a sample every ${soak.sampleSec} s, settled in ${soak.settleSec} s, started ${soak.startedAt}${soak.stopped ? `; ${soak.stopped}${soak.error ? `: ${soak.error}` : ''}` : ''}. Heap: Chrome's JSHeapUsedSize at each sample, garbage not yet collected included${soak.samples.some((x) => typeof x.heapRetainedMb === 'number') ? `; dashed, what the page retains after a full collection the driver forces every ${RETAINED_EVERY_SEC} s, which the heap's judgement reads` : ' (no collection forced)'}; age and input p99: per interval.`,
    ),
  );
  if (soak.samples.length) section.append(h('figure', { class: 'soak-figure' }, soakPlot(soak)));
  else section.append(h('p', { class: 'muted' }, 'No sample was taken.'));
  return section;
}

function failuresSection(report: Report): HTMLElement | null {
  const list = failures(report);
  if (!list.length) return null;
  const { shown, more } = firstOf(list, LIST_LIMIT, 'failed repeats');
  return h(
    'section',
    { class: 'failures' },
    h('h2', {}, `Failures (${formatCount(list.length)})`),
    hAll(
      'ul',
      {},
      shown.map((f) => h('li', {}, h('code', {}, f.pointId), ` round ${f.round}, ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: `, f.text)),
    ),
    ...(more ? [more] : []),
  );
}

/**
 * The browsers of a sweep that ran on several, or on a remote one: which machine each point's
 * figures come from, and what could not be read there (their CPU cells show —, never 0).
 */
function browsersSection(report: Report): HTMLElement | null {
  const all = browserRows(report);
  if (!all.length) return null;
  const { shown: rows, more } = firstOf(all, LIST_LIMIT, 'browsers');
  const heads = [
    'browser',
    'endpoint',
    'host',
    'version',
    'cores',
    'CPU',
    'per-thread and host CPU',
    'server on its host',
    'clock vs server',
    'competed with',
    'JSON.parse ceiling',
    'points',
  ];
  const body = rows.map((b) => {
    const tr = h(
      'tr',
      { title: b.lost ? `lost ${b.lost}` : '' },
      h('td', {}, h('code', {}, b.id)),
      h('td', {}, h('code', {}, b.where)),
      h('td', {}, b.host, ...(b.gridNode ? [h('br'), h('span', { class: 'muted' }, b.gridNode)] : [])),
      h('td', {}, b.version),
      h('td', { class: 'num' }, b.cores),
      h('td', {}, b.cpu),
      h('td', {}, b.procfs),
      h('td', {}, b.serverSharesHost),
      h(
        'td',
        {
          title:
            "The browser's clock minus the server's, ± half the smallest round trip: taken off its latency figures, except on the server's own machine (one clock)",
        },
        b.clock,
      ),
      h(
        'td',
        b.competesWith ? { class: 'warning', title: 'Browsers on one host compete for its CPU: their figures are lower than either would measure alone' } : {},
        b.competesWith || 'none',
      ),
      h('td', {}, b.ceiling),
      h('td', { class: 'num' }, String(b.points)),
    );
    return tr;
  });
  const lost = rows.filter((b) => b.lost);
  return h(
    'section',
    { class: 'browsers' },
    h('h2', {}, `Browsers (${formatCount(all.length)})`),
    h(
      'p',
      { class: 'muted' },
      "Each point's repeats ran on the browser in its host column; repeats from different kinds of host are never pooled in one figure.",
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'points browser-table' },
        h('thead', {}, h('tr', {}, ...heads.map((t, i) => h('th', { class: i === 4 || i === 10 ? 'num' : '' }, t)))),
        hAll('tbody', {}, body),
      ),
    ),
    ...(more ? [more] : []),
    ...lost.map((b) => h('p', { class: 'warning-box' }, `Browser ${b.id} was lost mid-sweep (${b.lost}); its remaining points went to the others.`)),
  );
}

/** What each knob bought: pairs of points one setting apart, a row each, B ÷ A with its CI. */
function knobsSection(report: Report): HTMLElement | null {
  const knobs = report.knobs ?? [];
  if (!knobs.length) return null;
  const byPair = new Map<string, KnobComparison[]>();
  for (const c of knobs) byPair.set(`${c.a}\n${c.b}`, [...(byPair.get(`${c.a}\n${c.b}`) ?? []), c]);
  // Green where the CI says B is better, red where it says worse, plain where the noise hides it.
  const cell = (c: KnobComparison | undefined) => {
    if (!c) return h('td', { class: 'num' }, '—');
    const ci = c.ciLow === null || c.ciHigh === null ? '1 round' : `CI ${c.ciLow.toFixed(2)}–${c.ciHigh.toFixed(2)}`;
    return h('td', { class: `num cmp-${c.better === 'b' ? 'better' : c.better === 'a' ? 'worse' : 'same'}`, title: c.text }, `${c.ratio.toFixed(2)} (${ci})`);
  };
  const pairs = firstOf([...byPair.values()], LIST_LIMIT, 'pairs of points');
  const rows = pairs.shown.map((pair) => {
    const [first] = pair;
    return h(
      'tr',
      { title: `${first.a} → ${first.b}, paired by round (${first.rounds.length} rounds)` },
      h('td', {}, first.knob),
      h('td', {}, `${first.from} → ${first.to}`),
      h('td', {}, first.context),
      cell(pair.find((c) => c.metric === 'eventsPerSec')),
      cell(pair.find((c) => c.metric === 'rendererCpuMsPerMillionEvents')),
    );
  });
  const head = h(
    'tr',
    {},
    ...['knob', 'change', 'both points', 'EPS, after ÷ before', 'renderer CPU per event, after ÷ before'].map((t, i) =>
      h('th', { class: i > 2 ? 'num' : '' }, t),
    ),
  );
  return h(
    'section',
    { class: 'knobs' },
    h('h2', {}, 'What each knob bought'),
    h(
      'p',
      { class: 'muted' },
      'Points of this run with the same transport, connections and offered load that differ in one setting only, paired by round: geometric mean of the per-round ratios with its 95% CI. Green: the change helped beyond the noise; red: it hurt.',
    ),
    h('div', { class: 'table-wrap' }, h('table', { class: 'points knob-table' }, h('thead', {}, head), hAll('tbody', {}, rows))),
    ...(pairs.more ? [pairs.more] : []),
  );
}

function notesSection(report: Report): HTMLElement | null {
  const lines = noteLines(report);
  if (!lines.length) return null;
  const { shown, more } = firstOf(lines, LIST_LIMIT, 'notes');
  return h(
    'section',
    { class: 'notes' },
    h('h2', {}, 'Notes'),
    hAll(
      'ul',
      {},
      shown.map((n) => h('li', {}, h('code', {}, n.pointId), ': ', n.text)),
    ),
    ...(more ? [more] : []),
  );
}

function detailsRow(row: TableRow, span: number): HTMLTableRowElement {
  const box = h('div', { class: 'details' });
  if (row.details.tab) box.append(h('p', {}, h('b', {}, 'Hidden tab: '), row.details.tab));
  if (row.details.notes.length) box.append(h('p', {}, h('b', {}, 'Notes: '), row.details.notes.join('; ')));
  if (row.details.unsteady.length) box.append(h('p', { class: 'unsteady' }, h('b', {}, 'Unsteady: '), row.details.unsteady.join('; ')));
  const head = h(
    'tr',
    {},
    h('th', {}, 'round'),
    h('th', {}, 'verdict'),
    ...REPEAT_TABLE_COLUMNS.map((c) => h('th', { class: 'num', title: c.title }, c.label)),
    h('th', {}, 'notes'),
  );
  const body = h('tbody');
  const repeats = firstOf(row.details.repeats, LIST_LIMIT, 'repeats');
  if (repeats.more) box.append(repeats.more);
  for (const rep of repeats.shown) {
    const cells =
      rep.status === 'ok'
        ? rep.cells.map((t) => h('td', { class: 'num' }, t))
        : [Object.assign(h('td', { class: 'error' }, rep.cells[0] ?? ''), { colSpan: REPEAT_TABLE_COLUMNS.length })];
    // Rounds counted from 1, as the notes and verdict lines count them (the JSON field is 0-based).
    body.append(
      h(
        'tr',
        {},
        h('td', { class: 'num' }, String(rep.round + 1)),
        h('td', {}, verdictChip(rep.verdict)),
        ...cells,
        h('td', { class: 'repeat-notes', title: rep.notes }, rep.notes),
      ),
    );
  }
  box.append(h('table', { class: 'repeats' }, h('thead', {}, head), body));
  const td = h('td', {}, box);
  td.colSpan = span;
  return h('tr', { class: 'details-row' }, td);
}

/** A point's row, or, if this build cannot read the point, a row that says which point and why. */
function pointRow(r: PointResult, index: number): TableRow | Error {
  try {
    return tableRow(r);
  } catch (error) {
    const id = typeof r?.point?.id === 'string' ? r.point.id : `#${index + 1}`;
    return new Error(`point ${id}: ${message(error)}`);
  }
}

/** A column's sort value for every point, in one pass: sorting 100,000 rows needs no row made. */
function sortKeys(report: Report, column: number): TableCell['sort'][] {
  const c = TABLE_COLUMNS[column];
  return report.points.map((r) => {
    try {
      return sortValue(c, r);
    } catch {
      return null;
    }
  });
}

type TableCell = TableRow['cells'][number];

function tableSection(report: Report): HTMLElement {
  const columns = TABLE_COLUMNS;
  const count = report.points.length;
  // Rows are made for the page shown only: 100,000 points × every column froze the page.
  let order: number[] = report.points.map((_, i) => i);
  let page = 0;
  const pages = Math.max(1, Math.ceil(count / TABLE_PAGE));
  const open = new Set<number>();
  let sortBy: { index: number; direction: 'asc' | 'desc' } | null = null;
  const groupRow = h('tr', { class: 'groups' }, h('th'));
  for (let i = 0; i < columns.length;) {
    let span = 1;
    while (i + span < columns.length && columns[i + span].group === columns[i].group) span++;
    const th = h('th', {}, columns[i].group);
    th.colSpan = span;
    groupRow.append(th);
    i += span;
  }
  const labelRow = h('tr', {}, h('th', { class: 'toggle-col', title: 'Show a point’s notes and raw repeats' }));
  const body = h('tbody');
  const pager = h('p', { class: 'pager' });
  const pagerText = h('span');
  const button = (cls: string, text: string, to: () => number) => {
    const b = h('button', { class: cls }, text);
    b.type = 'button';
    b.addEventListener('click', () => {
      page = Math.min(pages - 1, Math.max(0, to()));
      draw();
    });
    return b;
  };
  const first = button('first', '⏮ first', () => 0);
  const prev = button('prev', '◀ previous', () => page - 1);
  const next = button('next', 'next ▶', () => page + 1);
  const last = button('last', 'last ⏭', () => pages - 1);
  pager.append(first, prev, pagerText, next, last);
  pager.hidden = count <= TABLE_PAGE;
  const draw = (): void => {
    body.replaceChildren();
    const from = page * TABLE_PAGE;
    const to = Math.min(count, from + TABLE_PAGE);
    pagerText.textContent = ` rows ${formatCount(from + 1)}–${formatCount(to)} of ${formatCount(count)} `;
    for (const b of [first, prev]) b.disabled = page === 0;
    for (const b of [next, last]) b.disabled = page >= pages - 1;
    for (let k = from; k < to; k++) {
      const index = order[k];
      const row = pointRow(report.points[index], index);
      if (row instanceof Error) {
        const td = h('td', { class: 'error' }, `Could not show ${row.message}`);
        td.colSpan = columns.length + 1;
        body.append(h('tr', { class: 'point-row failed unreadable-row' }, td));
        continue;
      }
      // The terminal names a point's notes by their count and sends the reader here: the tooltip counts them too.
      const notes = row.details.notes.length;
      const title = `Details: ${notes} note${notes === 1 ? '' : 's'}, ${row.details.unsteady.length ? 'unsteady flags, ' : ''}raw repeats`;
      const toggle = h('button', { class: 'toggle', title }, open.has(index) ? '▾' : '▸');
      toggle.type = 'button';
      toggle.setAttribute('aria-expanded', String(open.has(index)));
      toggle.addEventListener('click', () => {
        if (open.has(index)) open.delete(index);
        else open.add(index);
        draw();
      });
      const tr = h('tr', { class: row.measured ? 'point-row' : 'point-row failed' }, h('td', { class: 'toggle-col' }, toggle));
      tr.dataset.pointId = inert(row.pointId, 200);
      columns.forEach((c, i) => {
        const cell = row.cells[i];
        const numeric = c.kind !== 'text';
        const classes = [`col-${c.id}`, numeric ? 'num' : '', c.id === 'verdict' ? `verdict verdict-${row.verdict}` : ''].filter(Boolean).join(' ');
        // Long ids are cut with an ellipsis; the tooltip keeps the whole text. The ± part of a
        // Stat (its noise) is set in grey so the median reads first.
        const plusMinus = c.kind === 'stat' ? cell.text.indexOf(' ±') : -1;
        const content: Child[] = plusMinus < 0 ? [cell.text] : [cell.text.slice(0, plusMinus), h('span', { class: 'noise' }, cell.text.slice(plusMinus))];
        tr.append(h('td', { class: classes, title: cell.title ?? cell.text }, ...content));
      });
      body.append(tr);
      if (open.has(index)) body.append(guarded(`the details of point ${row.pointId}`, () => detailsRow(row, columns.length + 1)));
    }
  };
  columns.forEach((c, i) => {
    const th = h(
      'th',
      { class: `col-${c.id}${c.kind !== 'text' ? ' num' : ''} sortable`, title: `${c.title}${c.unit ? ` (${c.unit})` : ''}. Click to sort.` },
      c.label,
    );
    th.addEventListener('click', () => {
      sortBy =
        sortBy?.index === i
          ? { index: i, direction: sortBy.direction === 'asc' ? 'desc' : 'asc' }
          : { index: i, direction: c.kind === 'text' ? 'asc' : 'desc' };
      const d = sortBy.direction;
      const keys = sortKeys(report, i);
      // A stable sort of indices by one column's keys: n log n, whatever the page.
      order = report.points.map((_, k) => k).sort((a, b) => compareSortValues(keys[a], keys[b], d));
      page = 0;
      for (const other of labelRow.querySelectorAll('th')) other.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', d === 'asc' ? 'ascending' : 'descending');
      draw();
    });
    labelRow.append(th);
  });
  draw();
  const table = h('table', { class: 'points' }, h('thead', {}, groupRow, labelRow), body);
  const legend = h(
    'p',
    { class: 'muted legend-line' },
    'Figures are medians over the repeats; ±x % is half the 95% CI of the mean as a share of the median. Hover a cell for mean, CI, n and range. Click a header to sort, ▸ for details.',
  );
  return h('section', { class: 'table-section' }, h('h2', {}, `Points (${formatCount(count)})`), legend, pager, h('div', { class: 'table-wrap' }, table));
}

// Latency plot geometry, in SVG user units; the SVG scales to its container's width.
const BOX = { width: 1180, label: 220, right: 190, row: 24, top: 14, bottom: 40 } as const;

/**
 * A box plot per point on a log axis: whisker min–max, box p25–p75, a bar at the median, and
 * ticks at p95 and p99, where the long tail shows first. Labels are short (`500 µs`, `20 ms`,
 * `5 s`) and few (logAxis), so they never run into each other.
 */
function latencyPlot(boxes: LatencyBox[]): SVGSVGElement {
  const plotW = BOX.width - BOX.label - BOX.right;
  const height = BOX.top + boxes.length * BOX.row + BOX.bottom;
  const axis = logAxis(boxes.flatMap((b) => [b.minMs, b.maxMs]));
  const X = (v: number) => BOX.label + logPosition(v, axis) * plotW;
  const svg = s('svg', { viewBox: `0 0 ${BOX.width} ${height}`, class: 'latency-plot', role: 'img' });
  svg.append(s('title', {}, 'Latency per point, log scale'));
  const axisY = BOX.top + boxes.length * BOX.row;
  for (const t of axis.ticks) {
    const x = X(t);
    svg.append(s('line', { x1: x, x2: x, y1: BOX.top - 4, y2: axisY, class: 'grid' }));
    svg.append(s('text', { x, y: axisY + 16, class: 'tick' }, formatMsShort(t)));
  }
  svg.append(s('text', { x: BOX.label + plotW / 2, y: axisY + 34, class: 'axis-title' }, 'latency: event age (log scale)'));
  boxes.forEach((b, i) => {
    const y = BOX.top + i * BOX.row + BOX.row / 2;
    const color = transportColor(b.transport);
    const g = s('g', { class: 'box' });
    g.append(s('title', {}, latencyTitle(b)));
    g.append(s('text', { x: BOX.label - 10, y: y + 4, class: 'label' }, b.label));
    g.append(s('line', { x1: X(b.minMs), x2: X(b.maxMs), y1: y, y2: y, class: 'whisker' }));
    for (const v of [b.minMs, b.maxMs]) g.append(s('line', { x1: X(v), x2: X(v), y1: y - 5, y2: y + 5, class: 'whisker' }));
    const x25 = X(b.p25Ms);
    g.append(
      s('rect', {
        x: x25,
        y: y - 7,
        width: Math.max(1, X(b.p75Ms) - x25),
        height: 14,
        fill: color,
        'fill-opacity': 0.25,
        stroke: VERDICT_COLORS[b.verdict],
        'stroke-width': 2,
      }),
    );
    g.append(s('line', { x1: X(b.p50Ms), x2: X(b.p50Ms), y1: y - 8, y2: y + 8, stroke: color, class: 'median' }));
    g.append(s('line', { x1: X(b.p95Ms), x2: X(b.p95Ms), y1: y - 4, y2: y + 4, class: 'p95' }));
    g.append(s('line', { x1: X(b.p99Ms), x2: X(b.p99Ms), y1: y - 7, y2: y + 7, class: 'p99' }));
    g.append(s('text', { x: BOX.width - BOX.right + 12, y: y + 4, class: 'values' }, `p50 ${formatMsShort(b.p50Ms)} · p99 ${formatMsShort(b.p99Ms)}`));
    svg.append(g);
  });
  return svg;
}

function chartBox(title: string, subtitle: string): { figure: HTMLElement; canvas: HTMLCanvasElement } {
  const canvas = h('canvas');
  const figure = h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, h('b', {}, title), h('span', { class: 'sub' }, subtitle)),
    h('div', { class: 'canvas-box' }, canvas),
  );
  return { figure, canvas };
}

function verdictLegend(): HTMLElement {
  return h(
    'p',
    { class: 'verdict-legend' },
    'Ring colour = verdict: ',
    ...(Object.keys(VERDICT_COLORS) as Verdict[]).map((v) => verdictChip(v, VERDICT_MEANING[v])),
  );
}

interface ScenarioSection {
  element: HTMLElement;
  draw(options: ChartOptions): Chart[];
}

function scenarioSection(view: ScenarioView, boxes: LatencyBox[], drawnOf: number): ScenarioSection {
  const against = view.kind === 'line' ? ` against ${view.xFactor === 'intervalMs' ? 'interval' : view.xFactor}` : ' per point';
  const whisk = 'mean of the repeats; whiskers: 95% CI of the mean';
  const eps = chartBox(`Throughput: events/s received by the tab${against}`, whisk);
  const eff = chartBox(
    `Efficiency: events per CPU-second${against}`,
    `CPU of the tab's renderer process, all threads (solid), and of its main thread alone (dashed; not drawn for points parsed in Workers, where it does almost nothing); ${whisk}`,
  );
  const cpu = chartBox(
    'Where the CPU went: % of one core by process',
    "tab renderer process (all threads), Chrome's network service, browser and GPU processes, the pushlab server; means of the repeats, stacked",
  );
  const info = h('p', { class: 'fixed' }, view.fixed ? `Fixed: ${view.fixed}` : 'Nothing fixed');
  if (view.failed) info.append(h('span', { class: 'failed-count' }, ` · ${view.failed} of ${view.pointIds.length} points never measured`));
  const pairs = firstOf(view.verdicts, LIST_LIMIT, 'paired verdicts');
  const verdicts = view.verdicts.length
    ? hAll(
        'ul',
        { class: 'paired' },
        pairs.shown.map(({ about, comparison: c }) =>
          h(
            'li',
            { class: c.better === 'none' ? 'same' : 'decided', title: `${c.a} vs ${c.b}, paired by round (${c.rounds.length} rounds)` },
            about ? h('span', { class: 'about' }, `${about}: `) : '',
            c.text,
          ),
        ),
      )
    : h('p', { class: 'muted' }, 'No paired WS/SSE verdicts for this scenario.');
  const latency = boxes.length
    ? h(
        'figure',
        { class: 'latency' },
        h(
          'figcaption',
          {},
          h('b', {}, 'Latency: event age, birth → handler (transit, send → receive, in reports before version 4), log scale'),
          h(
            'span',
            { class: 'sub' },
            'box p25–p75, bar p50, ticks p95 and p99, whiskers min–max; each the median over the repeats (whiskers: the extremes of any repeat); box outline = verdict',
          ),
        ),
        latencyPlot(boxes),
      )
    : h('p', { class: 'muted' }, 'No latency recorded for this scenario.');
  const element = h(
    'section',
    { class: 'scenario' },
    h('h2', {}, 'Scenario ', h('code', {}, view.scenario)),
    // More points than a chart can show apart: the first CHART_POINTS are drawn, and it says so.
    ...(drawnOf > view.pointIds.length
      ? [
          h(
            'p',
            { class: 'warning-box too-large' },
            `Too many to draw: ${formatCount(drawnOf)} points; showing the first ${formatCount(view.pointIds.length)} in the charts and the latency plot (the table lists every one).`,
          ),
        ]
      : []),
    verdicts,
    ...(pairs.more ? [pairs.more] : []),
    info,
    h('div', { class: 'charts' }, eps.figure, eff.figure, cpu.figure),
    verdictLegend(),
    latency,
  );
  element.id = inert(`scenario-${view.scenario}`, 200);
  type Config = ChartConfiguration<'line', { x: number; y: number }[]> | ChartConfiguration<'bar', (number | null)[], string[]>;
  // Each chart on its own: one this build cannot draw is replaced by a note, and the others drawn.
  const make = (box: { figure: HTMLElement; canvas: HTMLCanvasElement }, what: string, config: () => Config): Chart[] => {
    try {
      return [new Chart(box.canvas, config() as ChartConfiguration)];
    } catch (error) {
      box.figure.replaceChildren(unreadableNote(`the ${what} chart of scenario ${view.scenario}`, error));
      return [];
    }
  };
  const draw = (options: ChartOptions): Chart[] => [
    ...make(eps, 'throughput', () => epsChart(view, options)),
    ...make(eff, 'efficiency', () => efficiencyChart(view, options)),
    ...make(cpu, 'CPU', () => cpuChart(view)),
  ];
  return { element, draw };
}

export interface Rendered {
  /** Redraws every chart, e.g. after the overlay or log-axis toggle changed. */
  redraw(options: ChartOptions): void;
  destroy(): void;
}

/**
 * Draws `report` into `container`, each part on its own. `refused`, when set, is why the report
 * check refused the file: the parts are drawn from what it holds, and a note at the top says so.
 */
export function renderReport(container: HTMLElement, report: Report, options: ChartOptions, refused: string | null = null): Rendered {
  const parts: (HTMLElement | null)[] = [];
  if (refused) {
    const note = h(
      'section',
      { class: 'unreadable refused' },
      h('b', {}, 'This report does not pass the check: '),
      refused,
      h('br'),
      'What could be read is shown below; each part that could not be read says so.',
    );
    note.setAttribute('role', 'note');
    parts.push(note);
  }
  parts.push(
    guarded('the advice (advice)', () => adviceSection(report)),
    guarded('the soak (soak)', () => soakSection(report)),
    guarded('the run header (runId, environment, options, rounds)', () => headerSection(report)),
    guarded('the browsers (hosts)', () => browsersSection(report)),
    guarded('the failures (points[].repeats)', () => failuresSection(report)),
    guarded('the points table (points)', () => tableSection(report)),
    guarded('what each knob bought (knobs)', () => knobsSection(report)),
  );
  const sections: ScenarioSection[] = [];
  try {
    const by = pointsByScenario(report);
    const ids = scenarioIds(report, by);
    const { shown, more } = firstOf(ids, SCENARIO_LIMIT, 'scenarios');
    for (const scenario of shown) {
      const results = by.get(scenario) ?? [];
      const drawn = results.length > CHART_POINTS ? results.slice(0, CHART_POINTS) : results;
      try {
        const section = scenarioSection(scenarioView(report, scenario, drawn), latencyBoxes(report, drawn), results.length);
        sections.push(section);
        parts.push(section.element);
      } catch (error) {
        parts.push(unreadableNote(`scenario ${scenario}`, error));
      }
    }
    if (more) parts.push(more);
  } catch (error) {
    parts.push(unreadableNote('the scenarios (points[].point.scenario)', error));
  }
  parts.push(guarded('the notes (points[].notes, points[].unsteady)', () => notesSection(report)));
  container.replaceChildren();
  appendAll(
    container,
    parts.filter((p): p is HTMLElement => p !== null),
  );
  // Charts measure their canvas, so they are created only once the sections are in the document.
  let charts = sections.flatMap((x) => x.draw(options));
  return {
    redraw(next) {
      for (const c of charts) c.destroy();
      charts = sections.flatMap((x) => x.draw(next));
    },
    destroy() {
      for (const c of charts) c.destroy();
      charts = [];
      container.replaceChildren();
    },
  };
}

/** The comparison of two runs (or scenarios): a table with every common point's ratios and verdicts. */
export function comparisonSection(cmp: Comparison): HTMLElement {
  const head = h(
    'tr',
    {},
    h('th', {}, 'point'),
    ...(cmp.points[0]?.metrics.map((m) =>
      h('th', { class: 'num', title: `${m.metric.column.title}; ${m.metric.better} is better` }, `${m.metric.column.label} B ÷ A`),
    ) ?? []),
    h('th', {}, 'verdict'),
  );
  const body = h('tbody');
  const rows = firstOf(cmp.points, COMPARISON_ROWS, 'common points');
  for (const p of rows.shown) {
    const tr = h('tr', { class: `cmp-${p.verdict}` }, h('td', { class: 'col-pointId', title: p.key }, p.key));
    for (const m of p.metrics) tr.append(h('td', { class: `num cmp-${m.verdict}`, title: VERDICT_WORDS[m.verdict] }, formatRatioWithCi(m)));
    tr.append(h('td', { class: `cmp-${p.verdict}` }, VERDICT_WORDS[p.verdict]));
    body.append(tr);
  }
  const summary = h(
    'p',
    { class: 'summary' },
    `B = ${cmp.labelB} against A = ${cmp.labelA}: ${cmp.points.length} common points; `,
    h('span', { class: cmp.regressions ? 'cmp-worse' : '' }, `${cmp.regressions} regressed`),
    ', ',
    h('span', { class: cmp.improvements ? 'cmp-better' : '' }, `${cmp.improvements} improved`),
    ' beyond the noise. Ratios are of means over repeats, with a 95% CI (unpaired: the runs differ).',
  );
  const section = h(
    'section',
    { class: 'comparison' },
    h('h2', {}, 'Comparison'),
    summary,
    h('div', { class: 'table-wrap' }, h('table', { class: 'points compare' }, h('thead', {}, head), body)),
  );
  if (rows.more) section.append(rows.more);
  // Named up to LIST_LIMIT, then counted: two large runs may share few points.
  const named = (ids: readonly string[]) =>
    `${ids.slice(0, LIST_LIMIT).join(', ')}${ids.length > LIST_LIMIT ? `, and ${formatCount(ids.length - LIST_LIMIT)} more` : ''}`;
  if (cmp.onlyA.length) section.append(h('p', { class: 'muted' }, `Only in A: ${named(cmp.onlyA)}`));
  if (cmp.onlyB.length) section.append(h('p', { class: 'muted' }, `Only in B: ${named(cmp.onlyB)}`));
  return section;
}
