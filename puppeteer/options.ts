/** The driver's command-line flags, declared once: they drive parsing, --help and the docs test (test/unit/readme.test.ts). */
import { CHART_FIELD_FLAG } from '../protocol/event-view.js';
import { ROWS_FLAG } from '../protocol/rows-file.js';
import { SOAK_DURATION_SEC } from '../protocol/soak.js';
import { PushlabError } from '../protocol/errors.js';
import { BENCHMARK_ACTION_FORMATS } from '../results/views/benchmark-action.js';
import { rangeFlag, type Flags, type FlagSpec } from '../protocol/flags.js';
import { inRange, LIMITS, rangeText, TIME_BUDGET_SEC } from '../protocol/limits.js';
import { DEFAULT_MARGINS, marginsText, parseMargins, type Margins } from '../protocol/margins.js';
import { ENGINES, type Engine } from '../protocol/engine.js';
import { PACE_FLAG, PACES, type Pace } from '../protocol/pace.js';
import { TAB_STATES, type TabState } from '../protocol/tab-state.js';
import { LINK_SETTING_TEXT, linkText, parseLink } from '../protocol/link.js';
import { DEVICE_SETTING_TEXT, parseDeviceSetting, THROTTLES, type DeviceSetting, type Throttle } from '../protocol/device.js';
import { isRunId, RUN_ID_ALLOWED } from '../protocol/report.js';
import { BUILTIN_DEFAULTS } from '../protocol/scenario-defaults.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { parseP99 } from '../protocol/target.js';

/** `--margin`, as the sweep, `report --compare` and advise take it: what reads a difference as one that matters. */
export function marginFlag(help: string, defaultText = marginsText(DEFAULT_MARGINS)) {
  return { type: 'string', default: '', help: `${help}: eps=<p>%,cpu=<p>% (either or both)`, defaultText } as const satisfies FlagSpec;
}

/** The margins `--margin <text>` gives, or null when it was not given; a bad value is one PUSHLAB_BAD_FLAG line. */
export function checkMarginFlag(text: string): Margins | null {
  if (text === '') return null;
  const m = parseMargins(text);
  if (!m.ok) throw badFlag(m.error.message);
  return m.value;
}

/** `--device`, as the sweep, advise and the lab take it. */
export function deviceFlag(help: string, defaultText: string) {
  return {
    type: 'string',
    default: '',
    help: `${help}: ${DEVICE_SETTING_TEXT}; the browser is slowed until Lighthouse's BenchmarkIndex reads the class's, once per run (docs/devices.md)`,
    defaultText,
  } as const satisfies FlagSpec;
}

/** `--throttle`: how a device class slows the browser. */
export function throttleFlag(help: string, defaultText: string) {
  return {
    type: 'string',
    default: '',
    choices: THROTTLES,
    help: `${help}: browser (every process under one cgroup CPU quota; needs root) or main-thread (CDP's CPU throttling of the tab's main thread only, as DevTools does; CPU-time figures are then not valid)`,
    defaultText,
  } as const satisfies FlagSpec;
}

/** `--device <text>`, checked: null when not given; a bad value is one PUSHLAB_BAD_FLAG line. */
export function checkDeviceFlag(text: string): DeviceSetting | null {
  if (text === '') return null;
  const d = parseDeviceSetting(text);
  if (!d.ok) throw badFlag(`--device ${d.error}`);
  return d.value;
}

/** `--link`, as the sweep, advise and the lab take it. */
export function linkFlag(help: string, defaultText: string) {
  return {
    type: 'string',
    default: '',
    help: `${help}: ${LINK_SETTING_TEXT}; the server and the browser run in two network namespaces (root), docs/network.md`,
    defaultText,
  } as const satisfies FlagSpec;
}

/** `--link <text>`, checked: null when not given; its canonical text, or 'off'; a bad value is one PUSHLAB_BAD_FLAG line. */
export function checkLinkFlag(text: string): string | null {
  if (text === '') return null;
  const l = parseLink(text);
  if (!l.ok) throw badFlag(`--link ${l.error}`);
  return l.value === null ? 'off' : linkText(l.value);
}

/** `--render-module FILE`, as the sweep (and later advise and the lab) take it: built and checked by puppeteer/render-module.ts. */
export function renderModuleFlag(help: string, defaultText: string) {
  return {
    type: 'string',
    default: '',
    help: `${help}: an ES module (.js, .mjs, .jsx, .ts, .tsx) exporting mount(host, page), bundled with Vite before the run (docs/your-stream.md)`,
    defaultText,
  } as const satisfies FlagSpec;
}

export const SWEEP_FLAGS = {
  scenario: { type: 'list', default: [], help: 'scenario ids to run, comma-separated', defaultText: "the file's `default` list" },
  file: { type: 'string', default: 'scenarios.json', help: 'scenario file' },
  out: { type: 'string', default: 'reports', help: 'directory that receives <run-id>/report.json' },
  headful: { type: 'boolean', default: false, help: 'show the browser window (headless otherwise)' },
  engine: {
    type: 'string',
    default: '',
    choices: ENGINES,
    help: "run every selected scenario in this browser engine (firefox: a Firefox launched over WebDriver BiDi, its CPU read from /proc), whatever the scenarios' own `engine`",
    defaultText: "each scenario's `engine`, else chrome",
  },
  device: deviceFlag("run every selected scenario as this device class, whatever the scenarios' own `device`", "each scenario's `device`, else off"),
  throttle: throttleFlag(
    "how every selected scenario's device class slows the browser, whatever the scenarios' own `throttle`",
    "each scenario's `throttle`, else browser",
  ),
  link: linkFlag("run every selected scenario across this network link, whatever the scenarios' own `link`", "each scenario's `link`, else off"),
  pace: {
    type: 'string',
    default: '',
    choices: PACES,
    help: `run every selected scenario at this pace, whatever the scenarios' own \`pace\`: ${PACE_FLAG.help}`,
    defaultText: "each scenario's `pace`, else steady",
  },
  tab: {
    type: 'string',
    default: '',
    choices: TAB_STATES,
    help: "run every selected scenario with its lab tab in this state, whatever the scenarios' own `tab`: visible, hidden (behind another tab, Chrome's background throttling on) or hidden-long (hidden past intensive throttling's grace, the scenario's hiddenLongGraceSec, default 300 s); Chrome launched here only (docs/tab-states.md)",
    defaultText: "each scenario's `tab`, else visible",
  },
  browser: {
    type: 'list',
    default: [],
    help: "connect to running browsers instead of launching one: [label=]url items, each a CDP ws:// endpoint (browserless, a Selenium Grid session's se:cdp) or a DevTools http://host:port; several shard the sweep",
    defaultText: 'launch one',
  },
  grid: {
    type: 'string',
    default: '',
    help: 'a Selenium Grid 4 (http://host:4444): the sweep opens --grid-sessions Chrome sessions there, shards over them, and ends them',
    defaultText: 'none',
  },
  'grid-sessions': { type: 'integer', default: 1, min: 1, max: 16, help: 'with --grid: how many Chrome sessions to open and shard over' },
  'grid-binary': {
    type: 'string',
    default: '',
    help: "with --grid: the Chrome binary on the Grid's nodes (goog:chromeOptions.binary; Debian's chromedriver needs /usr/bin/chromium)",
    defaultText: "the node's own",
  },
  'spread-repeats': {
    type: 'boolean',
    default: false,
    help: "with several --browser: a point's repeats go to a different browser each round (else each point stays on one)",
  },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
  'render-module': renderModuleFlag(
    "draw every selected scenario's points with this page component, whatever the scenarios' own `renderModule`",
    "each scenario's `renderModule`, else pushlab's table and charts",
  ),
  rows: ROWS_FLAG,
  'chart-field': CHART_FIELD_FLAG,
  retries: { type: 'integer', default: 1, min: 0, max: 5, help: 'extra attempts for a failed repeat' },
  list: { type: 'boolean', default: false, help: 'print the points the sweep would run and its estimated time, and exit' },
  repeats: {
    type: 'string',
    default: '',
    help: `times every point is measured, one round each (${LIMITS.repeats.min}…${LIMITS.repeats.max})`,
    defaultText: "the scenario's `repeats`, else 3",
  },
  seed: { type: 'string', default: '', help: "seed of the rounds' order (0…4294967295)", defaultText: 'from the clock; recorded in the report' },
  auto: { type: 'boolean', default: false, help: 'after the fixed rounds, add rounds for points whose EPS 95% CI is wider than ±5% of the median' },
  'max-repeats': { type: 'integer', default: 10, min: 2, max: LIMITS.repeats.max, help: 'most repeats a point gets with --auto' },
  'time-budget': {
    type: 'string',
    default: '',
    help: 'no --auto round starts that would end past this much time: seconds, or 90s, 10m, 1h',
    defaultText: 'none',
  },
  'find-max': {
    type: 'boolean',
    default: false,
    help: "search every selected scenario for each transport's highest sustainable batch (scenarios with a findMax field always search)",
  },
  'input-delay': {
    type: 'string',
    default: '',
    help: "a find-max search's bound on the input delay p99 (real clicks and key presses sent while the page streams, event to handler): ms or s, a bare number is ms (200ms, 0.5s)",
    defaultText: "200ms, the web's good INP",
  },
  json: { type: 'boolean', default: false, help: 'print the report document on stdout instead of its path' },
  wide: {
    type: 'boolean',
    default: false,
    help: 'print the summary table with every column and CI (else it fits the terminal, or 120 columns off a terminal)',
  },
  resume: { type: 'string', default: '', help: 'finish the sweep <out>/<run-id>/report.json: measure only the repeats it lacks', defaultText: 'none' },
  margin: marginFlag(
    'practical margins the paired verdicts and knob comparisons read differences against',
    `the file's defaults.margin, else ${marginsText(DEFAULT_MARGINS)}`,
  ),
} as const satisfies Record<string, FlagSpec>;

/** The sweep's flags after the checks a flag table cannot express. */
export interface SweepFlags {
  /** Null: each scenario's own `repeats`. */
  repeats: number | null;
  /** Null: derive one from the clock. */
  seed: number | null;
  timeBudgetSec: number | null;
  resume: string | null;
  /** Null: the scenario file's `defaults.margin`, else the defaults. */
  margins: Margins | null;
  /** `--engine`; null: each scenario's own. */
  engine: Engine | null;
  /** `--device`; null: each scenario's own. */
  device: DeviceSetting | null;
  /** `--throttle`; null: each scenario's own. */
  throttle: Throttle | null;
  /** `--pace`; null: each scenario's own. */
  pace: Pace | null;
  /** `--tab`; null: each scenario's own. */
  tab: TabState | null;
  /** `--link`, canonical (or `off`); null: each scenario's own. */
  link: string | null;
  /** `--input-delay`: the find-max searches' input delay p99 bound, ms; absent: the rule's default. */
  inputDelayBoundMs?: number;
}

const MAX_SEED = 2 ** 32 - 1;

function badFlag(message: string): PushlabError {
  return new PushlabError('PUSHLAB_BAD_FLAG', message);
}

/** `90`, `90s`, `10m`, `1.5h` → seconds, above 0 and at most TIME_BUDGET_SEC.max (a week). */
export function parseDuration(flag: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(raw.trim());
  const sec = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] as 's' | 'm' | 'h' | undefined) ?? 's'] : Number.NaN;
  const max = TIME_BUDGET_SEC.max;
  if (!(sec > TIME_BUDGET_SEC.min && sec <= max)) {
    // The value as written, cut: a 400-digit number is refused, not echoed whole.
    const shown = raw.length > 64 ? `${raw.slice(0, 64)}… (${raw.length} characters)` : raw;
    throw badFlag(
      `--${flag} must be a duration above 0 and at most ${max / 3600}h (${max} s): seconds, or a number with s, m or h (90, 90s, 10m, 1.5h); got '${shown}'`,
    );
  }
  return sec;
}

/**
 * A soak's duration (`--soak` on advise, `--duration` on soak): `90s`, `10m`, `2h`, from
 * SOAK_DURATION_SEC.min (a start, a middle and an end to tell apart) to its max (a day).
 */
export function parseSoakDuration(flag: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(raw.trim());
  const sec = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] as 's' | 'm' | 'h' | undefined) ?? 's'] : Number.NaN;
  const { min, max } = SOAK_DURATION_SEC;
  if (!(sec >= min && sec <= max)) {
    const shown = raw.length > 64 ? `${raw.slice(0, 64)}… (${raw.length} characters)` : raw;
    throw badFlag(`--${flag} must be a duration from ${min}s to ${max / 3600}h: seconds, or a number with s, m or h (90s, 10m, 2h); got '${shown}'`);
  }
  return sec;
}

/** Checks the sweep's string-typed flags and the combinations the table cannot. */
export function checkSweepFlags(flags: Flags<typeof SWEEP_FLAGS>): SweepFlags {
  const integer = (name: string, raw: string, range: { min: number; max: number }) => {
    const r = { ...range, integer: true };
    if (!/^\d+$/.test(raw) || !inRange(Number(raw), r)) throw badFlag(`--${name} must be ${rangeText(r)}; got '${raw}'`);
    return Number(raw);
  };
  const out: SweepFlags = {
    repeats: flags.repeats === '' ? null : integer('repeats', flags.repeats, LIMITS.repeats),
    seed: flags.seed === '' ? null : integer('seed', flags.seed, { min: 0, max: MAX_SEED }),
    timeBudgetSec: flags['time-budget'] === '' ? null : parseDuration('time-budget', flags['time-budget']),
    resume: flags.resume === '' ? null : flags.resume,
    margins: checkMarginFlag(flags.margin),
    engine: flags.engine === '' ? null : (flags.engine as Engine),
    device: checkDeviceFlag(flags.device),
    throttle: flags.throttle === '' ? null : (flags.throttle as Throttle),
    pace: flags.pace === '' ? null : (flags.pace as Pace),
    tab: flags.tab === '' ? null : (flags.tab as TabState),
    link: checkLinkFlag(flags.link),
  };
  if (flags['input-delay'] !== '') {
    const bound = parseP99(flags['input-delay'], '--input-delay');
    if (!bound.ok) throw badFlag(bound.error.message);
    out.inputDelayBoundMs = bound.value;
  }
  if (out.resume !== null) {
    // `..` or `a/b` would read a report outside --out (`<out>/../report.json`).
    if (!isRunId(out.resume)) throw badFlag(`--resume takes a run id, ${RUN_ID_ALLOWED} (here --out); got '${out.resume}'`);
    // A resumed sweep finishes what was planned: it takes its plan from the report, not from flags.
    const planFlags = [
      'scenario',
      'file',
      'repeats',
      'seed',
      'auto',
      'max-repeats',
      'time-budget',
      'find-max',
      'list',
      'spread-repeats',
      'margin',
      'engine',
      'device',
      'throttle',
      'pace',
      'tab',
      'link',
      'input-delay',
    ] as const;
    const given = planFlags.filter((f) => JSON.stringify(flags[f]) !== JSON.stringify(SWEEP_FLAGS[f].default));
    if (given.length) throw badFlag(`--resume finishes the recorded sweep with its own plan; drop ${given.map((f) => `--${f}`).join(', ')}`);
  }
  if (flags['max-repeats'] !== SWEEP_FLAGS['max-repeats'].default && !flags.auto) throw badFlag('--max-repeats only applies with --auto');
  if (flags.headful && flags.browser.length)
    throw badFlag('--headful shows a browser this sweep launches; --browser connects to running ones: give one or the other');
  if (flags.grid && flags.browser.length)
    throw badFlag("--grid opens sessions on a Grid; --browser connects to browsers given by hand (a Grid session's se:cdp too): give one or the other");
  if (flags.grid && flags.headful)
    throw badFlag('--headful shows a browser this sweep launches; --grid asks a Grid for headless sessions: give one or the other');
  for (const f of ['grid-sessions', 'grid-binary'] as const) {
    if (!flags.grid && JSON.stringify(flags[f]) !== JSON.stringify(SWEEP_FLAGS[f].default)) throw badFlag(`--${f} only applies with --grid`);
  }
  const browsers = flags.grid ? flags['grid-sessions'] : flags.browser.length;
  if (flags['spread-repeats'] && browsers < 2)
    throw badFlag('--spread-repeats deals repeats over several browsers: give at least two with --browser (or --grid-sessions 2)');
  if (out.repeats !== null && flags.auto && out.repeats > flags['max-repeats']) {
    throw badFlag(`--repeats ${out.repeats} is above --max-repeats ${flags['max-repeats']}: --auto could never add a round`);
  }
  return out;
}

/** `npm run soak`'s flags: one setup of a scenario file streamed for a long time (puppeteer/soak/). */
export const SOAK_FLAGS = {
  file: {
    type: 'string',
    default: '',
    help: "scenario file holding the setup: an advise run's confirm.json, or any whose scenario has one point",
    defaultText: 'required',
  },
  scenario: {
    type: 'string',
    default: '',
    help: 'the scenario to soak (it must have one point)',
    defaultText: "'advised' when the file has it, else the file's only scenario",
  },
  duration: { type: 'string', default: '10m', help: 'how long to stream: seconds, or a number with s, m or h (90s, 10m, 2h); 20s to 24h' },
  headful: { type: 'boolean', default: false, help: 'show the browser window (headless otherwise)' },
  json: { type: 'boolean', default: false, help: 'print the report document on stdout instead of its path' },
  out: { type: 'string', default: 'reports', help: 'directory that receives soak-<run-id>/report.json' },
} as const satisfies Record<string, FlagSpec>;

export const LAB_FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport the form starts with' },
  batch: rangeFlag(LIMITS.batch, 50, 'rows per batch'),
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  'interval-ms': rangeFlag(LIMITS.intervalMs, 1, 'ms between batches per connection'),
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'what the page draws' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse on the main thread or in Workers' },
  workers: rangeFlag(LIMITS.workers, 1, 'Workers for --parse worker'),
  pace: { type: 'string', default: 'steady', choices: PACES, help: PACE_FLAG.help },
  autostart: { type: 'boolean', default: false, help: 'start streaming as soon as the page loads' },
  headless: { type: 'boolean', default: false, help: 'run the browser headless (for machines without a display)' },
  engine: { type: 'string', default: 'chrome', choices: ENGINES, help: 'the browser to open the lab in: chrome, or firefox (live CPU readings from /proc)' },
  device: deviceFlag("run the lab's browser as this device class (calibrated once at start, kept while you stream; recorded points run as it)", 'off'),
  throttle: throttleFlag('how --device slows the browser', 'browser'),
  link: linkFlag('stream across this network link (made once at start; recorded points run across it)', 'off'),
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
  'render-module': renderModuleFlag('draw with this page component instead of the table and charts (recorded points too)', "pushlab's table and charts"),
  rows: ROWS_FLAG,
  'chart-field': CHART_FIELD_FLAG,
  out: { type: 'string', default: 'reports', help: '"Record this point" appends to <out>/lab-<run-id>/report.json' },
  'warmup-sec': rangeFlag(LIMITS.warmupSec, BUILTIN_DEFAULTS.warmupSec, "a recorded point's warm-up, s (a sweep point's)"),
  'measure-sec': rangeFlag(LIMITS.measureSec, BUILTIN_DEFAULTS.measureSec, "a recorded point's window, s (a sweep point's)"),
  repeats: rangeFlag(LIMITS.repeats, BUILTIN_DEFAULTS.repeats, "repeats of a recorded point, one round each (a sweep point's)"),
} as const satisfies Record<string, FlagSpec>;

/** `npm run report`: positional runs come besides these (see report/main.ts). */
export const REPORT_FLAGS = {
  serve: { type: 'boolean', default: false, help: 'serve the viewer on 127.0.0.1: every run under --reports, or run A, or run B compared against A' },
  port: { type: 'integer', default: 0, min: 0, max: 65535, help: 'port for --serve (0 picks a free one)' },
  compare: { type: 'boolean', default: false, help: 'compare run B against run A (or, with --scenarios, two scenarios of one run); exit 1 on a regression' },
  scenarios: { type: 'list', default: [], help: 'with --compare and one run: scenario A, scenario B', defaultText: 'none' },
  csv: { type: 'boolean', default: false, help: 'print the run as CSV, one row per point' },
  'csv-repeats': { type: 'boolean', default: false, help: 'print the run as CSV, one row per repeat' },
  reference: { type: 'boolean', default: false, help: "print the run beside the reference's published figures (markdown)" },
  format: {
    type: 'string',
    default: '',
    choices: Object.keys(BENCHMARK_ACTION_FORMATS),
    help: "print the run as github-action-benchmark's custom JSON: its bigger-is-better figures (events/s; the action's tool customBiggerIsBetter) or its smaller-is-better ones (renderer CPU per event, p99; customSmallerIsBetter), as the action reads one direction a file",
    defaultText: 'none',
  },
  wide: { type: 'boolean', default: false, help: "print the run's summary table with every column and CI, as the sweep does with --wide" },
  reports: { type: 'string', default: 'reports', help: 'directory holding <run-id>/report.json' },
  margin: marginFlag('with --compare: practical margins a regression must lie beyond', "run B's recorded margins, else run A's, else eps=3%,cpu=5%"),
} as const satisfies Record<string, FlagSpec>;
