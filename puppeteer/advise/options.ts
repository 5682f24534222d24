/**
 * `npm run advise`'s flags, declared once (they drive parsing, --help and the docs test), and
 * the checks a flag table cannot make: the target (protocol/target.ts's parsers), the budget,
 * the margins and what --resume allows. Every refusal is one PUSHLAB_BAD_FLAG line naming the
 * flag, the value and what is allowed.
 */
import { CHART_FIELD_FLAG } from '../../protocol/event-view.js';
import { ROWS_FLAG } from '../../protocol/rows-file.js';
import { PushlabError } from '../../protocol/errors.js';
import type { FlagSpec, Flags } from '../../protocol/flags.js';
import { type Margins, DEFAULT_MARGINS } from '../../protocol/margins.js';
import { isRunId, RUN_ID_ALLOWED } from '../../protocol/report.js';
import { ADVISE_TRANSPORTS, OBJECTIVES, parseP99, parseRate, type Objective, type Target } from '../../protocol/target.js';
import { RENDER_MODES, TRANSPORTS, type RenderMode, type Transport } from '../../protocol/wire.js';
import { isDeviceClass, type DeviceClass } from '../../protocol/device.js';
import { PACE_FLAG, PACES } from '../../protocol/pace.js';
import { CHROME_INTENSIVE_GRACE_SEC, parseGrace, TAB_STATES } from '../../protocol/tab-state.js';
import { DEFAULT_PREFER, SIMPLICITY_CRITERIA, type SimplicityCriterion } from '../../protocol/advice.js';
import { checkLinkFlag, linkFlag } from '../options.js';
import { checkDeviceFlag, checkMarginFlag, deviceFlag, marginFlag, parseDuration, parseSoakDuration, renderModuleFlag, throttleFlag } from '../options.js';

/** The whole command's default budget, s: ten minutes on the 2-core machine it was tuned on. */
export const DEFAULT_BUDGET_SEC = 600;

export const ADVISE_FLAGS = {
  rate: {
    type: 'string',
    default: '',
    help: 'events per second the page must take, over all its connections: a number with k or M (300k, 1.5M)',
    defaultText: 'required',
  },
  p99: {
    type: 'string',
    default: '',
    help: "latency bound on event age: the p99 pooled over a candidate's repeats, up to its 97.5% upper limit, must keep it: ms or s, a bare number is ms (100ms, 0.5s)",
    defaultText: 'required',
  },
  'input-delay': {
    type: 'string',
    default: '',
    help: 'bound on the input delay p99 (real clicks and key presses sent while the page streams, event to handler): ms or s, a bare number is ms (200ms, 0.5s)',
    defaultText: "200ms, the web's good INP",
  },
  'p99-display': {
    type: 'string',
    default: '',
    help: "bound on display age (the newest event on screen at each draw) the median repeat's p99 must keep: ms or s, as --p99; render full or chart only",
    defaultText: 'none',
  },
  objective: {
    type: 'string',
    default: 'renderer',
    choices: OBJECTIVES,
    help: "what is minimised among the candidates that sustain, per event: renderer (the tab's renderer CPU), chrome (all of Chrome's CPU), main-thread (the tab's main-thread time) or bytes (the page's message bytes); every cost is shown whichever decides",
  },
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: "what the page draws while it takes the rate (full: the product's page renders)" },
  transports: {
    type: 'list',
    default: [],
    choices: TRANSPORTS,
    help: 'transports to search, comma-separated',
    defaultText: 'every transport, WebSocketStream last',
  },
  'time-budget': {
    type: 'string',
    default: '',
    help: "the whole command's budget (build aside): no measurement starts that its estimate says would end past it; seconds, or 90s, 10m, 1h. With --resume: a new budget for the whole search, replayed time included",
    defaultText: '10m',
  },
  margin: marginFlag('practical margins the ranking reads paired differences against'),
  prefer: {
    type: 'list',
    default: [],
    choices: SIMPLICITY_CRITERIA,
    help: 'the order of simplicity that picks among finalists equivalent or indistinguishable on CPU per event and p99: the criteria named first decide first, the others follow in the default order (connections: fewer; parsing: the main thread before Workers; origins: one; encoding: JSON before binary)',
    defaultText: DEFAULT_PREFER.join(','),
  },
  device: deviceFlag('answer for this device class: every candidate runs as it', 'off (this machine at full speed)'),
  throttle: throttleFlag('how --device slows the browser; advise takes browser only', 'browser'),
  link: linkFlag('answer across this network link: every candidate streams across it', 'off (loopback)'),
  pace: { ...PACE_FLAG, help: `${PACE_FLAG.help}; every candidate runs at it`, choices: PACES },
  tab: {
    type: 'string',
    default: 'visible',
    choices: TAB_STATES,
    help: "answer for a lab tab in this state: every candidate runs in it (hidden: behind another tab, Chrome's background throttling on; hidden-long: hidden past intensive throttling's grace before each warm-up); a Chrome advise launches only (docs/tab-states.md)",
  },
  'hidden-long-grace': {
    type: 'string',
    default: '',
    help: `--tab hidden-long: seconds hidden before intensive wake-up throttling starts, given to Chrome as its own feature parameter (each candidate streams hidden this + 5 s before its warm-up)`,
    defaultText: `${CHROME_INTENSIVE_GRACE_SEC} (Chrome's own)`,
  },
  headful: { type: 'boolean', default: false, help: "show the browser window it launches (headless otherwise): its figures are then a headful Chrome's" },
  browser: {
    type: 'list',
    default: [],
    help: 'measure in a running browser instead of launching one: [label=]url, a CDP ws:// endpoint or a DevTools http://host:port (one: the search is sequential)',
    defaultText: 'launch one',
  },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
  rows: ROWS_FLAG,
  'chart-field': CHART_FIELD_FLAG,
  'render-module': renderModuleFlag(
    'answer for this page component: every candidate draws with it instead of the table and charts, parsing on the main thread (with --resume: the recorded one, checked unchanged)',
    "pushlab's table and charts",
  ),
  json: { type: 'boolean', default: false, help: 'print the report document on stdout instead of its path' },
  out: { type: 'string', default: 'reports', help: 'directory that receives advise-<run-id>/report.json' },
  resume: {
    type: 'string',
    default: '',
    help: 'go on with the search <out>/<run-id>/report.json: its measurements are replayed, then it measures what is left within the budget',
    defaultText: 'none',
  },
  seed: { type: 'string', default: '', help: "seed of the confirmation rounds' order (0…4294967295)", defaultText: 'from the clock; recorded in the report' },
  soak: {
    type: 'string',
    default: '',
    help: 'after the answer, stream the advised setup this long (its own time, not the budget) with one forced reconnect half-way, and say whether it held: 90s, 10m, 2h; 20s to 24h',
    defaultText: 'none',
  },
} as const satisfies Record<string, FlagSpec>;

export type AdviseFlags = Flags<typeof ADVISE_FLAGS>;

/** What was asked, checked. With --resume, the target and transports come from the report (null here). */
export interface AdviseRequest {
  target: Target | null;
  transports: Transport[];
  /** Null with --resume and no --time-budget: the recorded one. */
  budgetSec: number | null;
  margins: Margins;
  /** The order of simplicity, every criterion once (`--prefer`, completed by the default order). */
  prefer: SimplicityCriterion[];
  seed: number | null;
  resume: string | null;
  /** `--soak`: seconds to soak the advised setup after the answer; null: no soak. */
  soakSec: number | null;
}

const MAX_SEED = 2 ** 32 - 1;
const badFlag = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);

/** Checks the flags; throws PUSHLAB_BAD_FLAG on the first that is wrong. */
export function checkAdviseFlags(flags: AdviseFlags): AdviseRequest {
  const resume = flags.resume === '' ? null : flags.resume;
  if (resume !== null) {
    // `..` or `a/b` would read a report outside --out.
    if (!isRunId(resume)) throw badFlag(`--resume takes a run id, ${RUN_ID_ALLOWED} (here --out); got '${resume}'`);
    // The search goes on with what it was asked: the report holds it.
    const asked = (
      [
        'rate',
        'p99',
        'p99-display',
        'input-delay',
        'objective',
        'render',
        'transports',
        'margin',
        'prefer',
        'seed',
        'device',
        'throttle',
        'pace',
        'tab',
        'hidden-long-grace',
        'link',
      ] as const
    ).filter((f) => JSON.stringify(flags[f]) !== JSON.stringify(ADVISE_FLAGS[f].default));
    if (asked.length)
      throw badFlag(
        `--resume goes on with the recorded search's target and settings; drop ${asked.map((f) => `--${f}`).join(', ')} (--time-budget may be given: a new budget for the whole search)`,
      );
  }
  const budgetSec = flags['time-budget'] === '' ? (resume === null ? DEFAULT_BUDGET_SEC : null) : parseDuration('time-budget', flags['time-budget']);
  let seed: number | null = null;
  if (flags.seed !== '') {
    if (!/^\d+$/.test(flags.seed) || Number(flags.seed) > MAX_SEED) throw badFlag(`--seed must be an integer from 0 to ${MAX_SEED}; got '${flags.seed}'`);
    seed = Number(flags.seed);
  }
  const margins = checkMarginFlag(flags.margin) ?? DEFAULT_MARGINS;
  const soakSec = flags.soak === '' ? null : parseSoakDuration('soak', flags.soak);
  const prefer = checkPrefer(flags.prefer as SimplicityCriterion[]);
  if (flags.headful && flags.browser.length)
    throw badFlag('--headful shows a browser advise launches; --browser connects to a running one: give one or the other');
  if (flags.browser.length > 1)
    throw badFlag(
      `--browser takes one browser for advise (a search measures one candidate after another); got ${flags.browser.length}: ${flags.browser.join(',')}`,
    );
  if (resume !== null) return { target: null, transports: [], budgetSec, margins, prefer, seed, resume, soakSec };
  const need = (flag: 'rate' | 'p99', example: string) => {
    if (flags[flag] === '') throw badFlag(`--${flag} is required: ${ADVISE_FLAGS[flag].help}; e.g. ${example}`);
  };
  need('rate', '--rate 300k');
  need('p99', '--p99 100ms');
  const rate = parseRate(flags.rate);
  if (!rate.ok) throw badFlag(rate.error.message);
  const p99 = parseP99(flags.p99);
  if (!p99.ok) throw badFlag(p99.error.message);
  const inputDelay = flags['input-delay'] === '' ? null : parseP99(flags['input-delay'], '--input-delay');
  if (inputDelay && !inputDelay.ok) throw badFlag(inputDelay.error.message);
  let display: number | null = null;
  if (flags['p99-display'] !== '') {
    const parsed = parseP99(flags['p99-display'], '--p99-display');
    if (!parsed.ok) throw badFlag(parsed.error.message);
    // Render mode none draws nothing: no frame, no display age to bound.
    if (flags.render === 'none')
      throw badFlag(
        `--p99-display bounds what the page draws, and --render none draws nothing; give --render full or chart with it, or drop it; got '${flags['p99-display']}' with --render none`,
      );
    display = parsed.value;
  }
  // A module takes the place of what render full draws (web/lab/config.ts refuses it otherwise).
  if (flags['render-module'] !== '' && flags.render !== 'full')
    throw badFlag(
      `--render-module draws in place of pushlab's table and charts, so it needs --render full; got --render ${flags.render} with --render-module ${flags['render-module']}: drop one`,
    );
  const device = checkDevice(flags);
  const tab = checkTab(flags);
  const link = checkLinkFlag(flags.link);
  const transports = flags.transports.length ? [...new Set(flags.transports as Transport[])] : [...ADVISE_TRANSPORTS];
  return {
    target: {
      eventsPerSec: rate.value,
      p99BoundMs: p99.value,
      render: flags.render as RenderMode,
      ...(inputDelay ? { inputDelayBoundMs: inputDelay.value } : {}),
      ...(display === null ? {} : { displayP99BoundMs: display }),
      ...(device === null ? {} : { device }),
      ...(link === null || link === 'off' ? {} : { link }),
      ...(flags.pace === 'recorded' ? { pace: 'recorded' as const } : {}),
      ...tab,
      // The default is left out, as every report before the objective reads.
      ...(flags.objective === 'renderer' ? {} : { objective: flags.objective as Objective }),
    },
    transports,
    budgetSec,
    margins,
    prefer,
    seed,
    resume: null,
    soakSec,
  };
}

/**
 * `--prefer`: the criteria named first decide first; the ones not named follow in the default
 * order, so every criterion is in the order once. Naming one twice is refused: which place would it take?
 */
function checkPrefer(named: readonly SimplicityCriterion[]): SimplicityCriterion[] {
  const twice = named.find((k, i) => named.indexOf(k) !== i);
  if (twice !== undefined)
    throw badFlag(
      `--prefer names each criterion at most once (${SIMPLICITY_CRITERIA.join(', ')}, in the order they decide); got '${named.join(',')}', with ${twice} twice`,
    );
  return [...named, ...DEFAULT_PREFER.filter((k) => !named.includes(k))];
}

/** `--tab` and `--hidden-long-grace`: the target's tab state (nothing for visible), its grace for hidden-long. */
function checkTab(flags: AdviseFlags): Pick<Target, 'tab' | 'hiddenLongGraceSec'> {
  const grace = flags['hidden-long-grace'];
  if (grace !== '' && flags.tab !== 'hidden-long')
    throw badFlag(`--hidden-long-grace ${grace} is the grace of --tab hidden-long; got it with --tab ${flags.tab}: drop it, or give --tab hidden-long`);
  if (flags.tab === 'hidden') return { tab: 'hidden' };
  if (flags.tab === 'hidden-long')
    return { tab: 'hidden-long', hiddenLongGraceSec: grace === '' ? CHROME_INTENSIVE_GRACE_SEC : parseGrace('--hidden-long-grace', grace) };
  return {};
}

/**
 * `--device` and `--throttle`: the class every candidate runs as, or null (off, or not given).
 * The search ranks candidates by renderer CPU per event, which CDP's main-thread throttling
 * makes invalid (its busy-wait counts as the renderer's CPU; results/summarise.ts nulls it), so
 * advise slows the whole browser only.
 */
function checkDevice(flags: AdviseFlags): DeviceClass | null {
  const setting = checkDeviceFlag(flags.device) ?? undefined;
  const device = isDeviceClass(setting) ? setting : null;
  if (flags.throttle === 'main-thread')
    throw badFlag(
      "--throttle main-thread: advise picks the candidate with the least renderer CPU per event, and under CDP's main-thread throttling the renderer's CPU counts the throttler's busy-wait, so no CPU figure is valid; drop --throttle (the whole browser is slowed, the default) or compare main-thread points in a sweep",
    );
  if (flags.throttle !== '' && device === null)
    throw badFlag(`--throttle ${flags.throttle} says how a device class slows the browser; give --device mid-tier, low-tier or index=N with it, or drop it`);
  return device;
}
