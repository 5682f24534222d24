/**
 * The factor registry: every factor a point has, once, beside the transport registry
 * (wire.ts TRANSPORT_INFO). An entry carries what the rest of the code used to spell out in
 * its own list: the scenario file's schema and default, how a scenario's list becomes a
 * point's values (and to which transports it applies), the point id's tag, the words that
 * name a setting, the knob it is, its column, whether Firefox can have it, and what a recorded
 * point may hold for it. The scenario schema, the point expansion, point ids, find-max's
 * checks, knobs, the terminal's and the viewer's labels, the report columns and the report
 * reader's check of a point (report-shape.ts) derive from it.
 *
 * A new factor is a field of `FactorValues` and of `Point` and an entry here (the compiler
 * refuses an entry with a part missing, and a factor without an entry), plus the line that
 * applies it: in the page (PageConfig, applied: 'page') or in the driver (measure/repeat.ts).
 *
 * Pure: no Node, no DOM, no schema library (the viewer loads this file).
 */
import { type Range, LIMITS } from './limits.js';
import { PACES, type Pace } from './pace.js';
import { TAB_STATES, TAB_TAGS, tabWords, type HiddenState, type TabState } from './tab-state.js';
import type { RenderModuleRef } from './render-module.js';
import { ENGINES, type Engine } from './engine.js';
import {
  DEVICE_CLASS_PATTERN,
  DEVICE_SETTING_PATTERN,
  DEVICE_SETTING_TEXT,
  deviceTag,
  deviceWords,
  isDeviceClass,
  targetIndexOf,
  THROTTLES,
  type DeviceClass,
  type DeviceSetting,
  type Throttle,
} from './device.js';
import { canonicalLink, LINK_PATTERN, LINK_SETTING_PATTERN, LINK_SETTING_TEXT, linkOf, linkTag, linkWords, type LinkSetting } from './link.js';
import {
  carries,
  CLASSIC_TRANSPORTS,
  COMPRESSIONS,
  compressionOf,
  DEFAULT_POLL_MS,
  DEVTOOLS_MODES,
  DISPLAY_MODES,
  ENCODING_TAGS,
  ENCODINGS,
  opensIn,
  PARSE_MODES,
  RENDER_MODES,
  TRANSPORT_INFO,
  TRANSPORTS,
  transportsCarrying,
  type BinaryEncoding,
  type Compression,
  type DevtoolsMode,
  type DisplayMode,
  type Encoding,
  type ParseMode,
  type RenderMode,
  type StreamCompression,
  type Transport,
} from './wire.js';

/** Each factor's value as a scenario file gives it (one of a list): `json` and `off` included. */
export interface FactorValues {
  transport: Transport;
  batch: number;
  concurrency: number;
  intervalMs: number;
  render: RenderMode;
  parse: ParseMode;
  workers: number;
  pollMs: number;
  origins: number;
  encoding: Encoding;
  devtools: DevtoolsMode;
  tabs: number;
  display: DisplayMode;
  compression: Compression;
  engine: Engine;
  device: DeviceSetting;
  throttle: Throttle;
  pace: Pace;
  tab: TabState;
  link: LinkSetting;
}

export type FactorName = keyof FactorValues;

/** One measured configuration: a single value for every factor. */
export interface Point {
  /**
   * `<scenario>/<transport>-b<batch>-c<concurrency>-i<intervalMs>-<render>[-w<workers>][-p<pollMs>][-o<origins>][-mp][-dt][-t<tabs>][-hf][-deflate|-gzip][-ff][-<device>][-mt][-rec][-hid|-hidl][-l<rtt>ms[<jitter>j][<rate>mbit]]`:
   * stable (each factor's `tag`, in the registry's order).
   */
  id: string;
  scenario: string;
  transport: Transport;
  batch: number;
  concurrency: number;
  intervalMs: number;
  render: RenderMode;
  parse: ParseMode;
  /** Workers parsing (parse mode worker); 0 on the main thread. */
  workers: number;
  /** `poll` points only: ms between the starts of two requests. */
  pollMs?: number;
  /** Origins the connections are spread over, when more than 1 (main-origin transports only). */
  origins?: number;
  /** `msgpack` or `arrow` for binary batches (transports that carry it, its carriage, protocol/encodings.ts); absent for JSON. */
  encoding?: BinaryEncoding;
  /** `network` when the CDP Network domain was on during the point; absent when off. */
  devtools?: 'network';
  /** Tabs streaming the point at once in one browser, when more than 1: EPS and offered are their totals. */
  tabs?: number;
  /**
   * The browser the point runs in, when its scenario names one (`headful`: `-hf` in the id);
   * absent: the sweep's own browser. Its repeats then record the browser's build and mode.
   */
  display?: DisplayMode;
  /** `deflate` or `gzip` when the stream is compressed (the kind its transport carries); absent when off. */
  compression?: StreamCompression;
  /**
   * `firefox` when the point runs in Firefox (`-ff` in the id); absent (or `chrome`): Chrome,
   * as in every report before version 3. A sweep leaves it out for Chrome, so a Chrome point's
   * id stays what it was.
   */
  engine?: Engine;
  /**
   * The device class the point ran as (protocol/device.ts): the browser slowed until its
   * BenchmarkIndex read the class's; absent: this machine at full speed.
   */
  device?: DeviceClass;
  /** `main-thread` when only the renderer's main thread was slowed (CDP); absent: the whole browser (a cgroup quota), or no device. */
  throttle?: 'main-thread';
  /** `recorded` when batches fell due at a `--rows` file's recorded times (protocol/pace.ts); absent: a batch every interval. */
  pace?: 'recorded';
  /**
   * `hidden` when the lab tab was behind another tab of its browser from its connections' opening
   * to the window's end, `hidden-long` when it was so for longer than intensive throttling's grace
   * before the warm-up (protocol/tab-state.ts); absent: in the foreground. Chrome only.
   */
  tab?: HiddenState;
  /** `hidden-long` points only: the intensive-throttling grace its browser was given, s (Chrome's own: 300). Not a factor: its scenario's `hiddenLongGraceSec`. */
  hiddenLongGraceSec?: number;
  /**
   * The network link between the server and the tab (protocol/link.ts), as its canonical text
   * (`50ms±10ms,5mbit`, `cdp:80ms,20mbit`); absent: loopback.
   */
  link?: string;
  /**
   * The team's render module the page drew with instead of its table and charts (its scenario's
   * `renderModule`, or `--render-module`): the file and its SHA-256. Absent: pushlab's own views.
   * Not a factor: it is not in the id (the scenario names it), and no sweep crosses it.
   */
  renderModule?: RenderModuleRef;
  /** The longest warm-up, s: the window opens once both ends caught up, after at least 1 s. */
  warmupSec: number;
  measureSec: number;
  /** Times this point is measured (one repeat per round). */
  repeats: number;
  /** batch × concurrency × tabs × 1000 / intervalMs. */
  offeredEventsPerSec: number;
}

/** A point's factors and its scenario: what its id is made of. */
export type PointFactors = Pick<Point, 'scenario' | FactorName>;

/** The factors a point always has (the others it has only when not at their default). */
export type RequiredFactor = { [K in FactorName]-?: undefined extends Point[K] ? never : K }[FactorName];

/** A point's factors as scenario values: the required ones, and any others. */
export type FactorSettings = { [K in RequiredFactor]: FactorValues[K] } & { [K in Exclude<FactorName, RequiredFactor>]?: FactorValues[K] };

/** A knob: a factor the `knobs` comparisons pair points by (results/knobs.ts). */
export interface KnobInfo {
  /** Its name in the report's `knobs` and the terminal's lines. */
  name: string;
  /** Where it stands among the knobs, in the context a pair is described in (lowest first). */
  order: number;
  /** The knob's setting; points differing only here are compared. */
  value(p: Point): string;
  /** The baseline (A) is the lower rank: main thread before Workers, 1 origin before 2. */
  rank(p: Point): number;
  /** The setting a scenario gets when it does not set this knob (not said in a pair's context). */
  usual?: string;
  /** How a setting is named, when the knob is more than its factor (message size: batch and interval); else the factor's `words`. */
  words?(p: Point): string;
}

/** A factor's column in the points table and both CSVs (results/columns.ts). */
export type ColumnInfo = {
  /** Where it stands among the factor columns (lowest first; 4 is results/columns.ts's connections). */
  order: number;
  label: string;
  title: string;
  /** In the terminal table: never (the point id says it), or when some point of the report has it set. */
  terminal: 'never' | 'when set';
} & ({ kind: 'text'; text(p: Point): string } | { kind: 'number'; unit: string; value(p: Point): number; format: 'count' | 'ms' });

/**
 * What a point in report.json may hold for a factor, as the report reader checks it
 * (protocol/report-shape.ts): what `onPoint` keeps, and what older reports kept (`engine:
 * 'chrome'`, `origins: 1`). A number: a range of protocol/limits.ts; else the values allowed.
 */
export type Recorded<K extends FactorName> = {
  /** Absent at its default (`onPoint` leaves it out): exactly when `Point` has it optional. */
  optional: undefined extends Point[K] ? true : false;
} & (Exclude<Point[K], undefined> extends number ? { range: Range } : { values: readonly Exclude<Point[K], undefined>[] } | { pattern: string });

export interface FactorInfo<K extends FactorName> {
  /**
   * One value in the scenario file (a list of them is crossed with every other factor): an
   * enum (each listed once) or a range of protocol/limits.ts. scenario-schema.ts makes the
   * JSON Schema of it.
   */
  schema: ({ values: readonly FactorValues[K][] } | { range: Range } | { pattern: string }) & { description: string };
  /** What a scenario gets when neither it nor the file's `defaults` sets it; undefined: none. */
  default: FactorValues[K] | readonly FactorValues[K][] | undefined;
  /** Where it stands in the cross product: the lowest is outermost, so it varies slowest. */
  expansion: number;
  /**
   * The values it takes at one point of a scenario that lists `listed` (undefined: not set and
   * no default), given the outer factors `dependsOn` names: where the factor applies.
   */
  values(listed: readonly FactorValues[K][] | undefined, at: Partial<FactorValues>): readonly (FactorValues[K] | undefined)[];
  /** The outer factors `values` reads. */
  dependsOn: readonly FactorName[];
  /** The value a point keeps; undefined leaves the field out, so ids and older reports stay as they were. */
  onPoint(v: FactorValues[K] | undefined): Point[K];
  /** What a point read from a report may hold for it. */
  recorded: Recorded<K>;
  /** Its part of the point id ('' when it adds none): the tags in the registry's order. */
  tag(p: PointFactors): string;
  /** The one way a setting is said, by the terminal, the viewer and the knobs; '' when another factor's words say it. */
  words(p: Point): string;
  /** Firefox refuses the listed values when `refuses` says so: the value it must have instead, and why. */
  firefox: { refuses(listed: readonly FactorValues[K][]): boolean; mustBe: string } | null;
  /** In a find-max search: one value, or one search for each listed value (transports). */
  findMax: 'one value' | 'one search each';
  /** Applied by the page (copied into PageConfig) or by the driver alone. */
  applied: 'page' | 'driver';
  knob: KnobInfo | null;
  column: ColumnInfo | null;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const RENDER_RANK: Record<RenderMode, number> = { none: 0, chart: 1, full: 2 };

/** Every listed value (most factors apply to every point). */
const listedValues = <V>(listed: readonly V[] | undefined): readonly (V | undefined)[] => listed ?? [undefined];

/** Whether a transport connects to the main origin, which the `origins` factor replicates. */
const onMainOrigin = (t: Transport | undefined): boolean => t !== undefined && TRANSPORT_INFO[t].origin === 'main';

const parseWords = (p: Pick<Point, 'parse' | 'workers'>) => (p.parse === 'worker' ? plural(p.workers, 'Worker') : 'main thread');

/** The registry: in the order of the point id's tags and of a point's fields. */
export const FACTORS = {
  transport: {
    schema: { values: TRANSPORTS, description: `Transports to measure: ${TRANSPORTS.join(', ')}.` },
    default: CLASSIC_TRANSPORTS,
    expansion: 0,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, values: TRANSPORTS },
    tag: (p) => p.transport,
    words: (p) => `transport ${p.transport}`,
    // A transport whose API Firefox lacks (TransportInfo.onlyIn: ws-stream's WebSocketStream).
    firefox: {
      refuses: (listed) => listed.some((t) => !opensIn(t, 'firefox')),
      mustBe: `one of ${TRANSPORTS.filter((t) => opensIn(t, 'firefox')).join(', ')} (${TRANSPORTS.filter((t) => !opensIn(t, 'firefox'))
        .map((t) => `${t} opens a ${TRANSPORT_INFO[t].onlyIn!.api}, which Firefox does not have`)
        .join('; ')})`,
    },
    findMax: 'one search each',
    applied: 'page',
    knob: null,
    column: {
      order: 0,
      kind: 'text',
      label: 'transport',
      title: `${TRANSPORTS.join(', ')} (poll: p<ms> = its request interval)`,
      terminal: 'never',
      text: (p) => p.transport + (p.pollMs !== undefined ? ` p${p.pollMs}` : ''),
    },
  },
  batch: {
    schema: { range: LIMITS.batch, description: 'Rows per batch.' },
    default: undefined,
    expansion: 14,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, range: LIMITS.batch },
    tag: (p) => `-b${p.batch}`,
    words: (p) => `batch ${p.batch}`,
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    // Batch and interval move together at one offered rate (that is checked apart): fewer, larger messages.
    knob: {
      name: 'message size',
      order: 1,
      value: (p) => `${p.batch}/${p.intervalMs}`,
      rank: (p) => p.batch,
      words: (p) => `${p.batch} rows every ${p.intervalMs} ms`,
    },
    column: {
      order: 1,
      kind: 'number',
      label: 'batch',
      unit: 'events per message',
      title: 'Events per message',
      terminal: 'never',
      value: (p) => p.batch,
      format: 'count',
    },
  },
  concurrency: {
    schema: { range: LIMITS.concurrency, description: 'Connections the page opens at once.' },
    default: undefined,
    expansion: 13,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, range: LIMITS.concurrency },
    tag: (p) => `-c${p.concurrency}`,
    words: (p) => `concurrency ${p.concurrency}`,
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: null,
    column: {
      order: 2,
      kind: 'number',
      label: 'conc.',
      unit: 'connections',
      title: 'Connections the tab opened',
      terminal: 'never',
      value: (p) => p.concurrency,
      format: 'count',
    },
  },
  intervalMs: {
    schema: { range: LIMITS.intervalMs, description: 'Milliseconds between batches on one connection.' },
    default: 1,
    expansion: 12,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, range: LIMITS.intervalMs },
    tag: (p) => `-i${p.intervalMs}`,
    words: (p) => `interval ${p.intervalMs} ms`,
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    // Its knob is batch's message size.
    knob: null,
    column: {
      order: 3,
      kind: 'number',
      label: 'interval ms',
      unit: 'ms',
      title: 'Milliseconds between batches, per connection',
      terminal: 'never',
      value: (p) => p.intervalMs,
      format: 'ms',
    },
  },
  render: {
    schema: { values: RENDER_MODES, description: 'full: table and chart; chart: chart only; none: counting only.' },
    default: 'full',
    expansion: 11,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, values: RENDER_MODES },
    tag: (p) => `-${p.render}`,
    words: (p) => `render ${p.render}`,
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: { name: 'render', order: 5, value: (p) => p.render, rank: (p) => RENDER_RANK[p.render], usual: 'full' },
    column: {
      order: 5,
      kind: 'text',
      label: 'render',
      title: 'What the page drew: full (table + chart), chart, none',
      terminal: 'never',
      text: (p) => p.render,
    },
  },
  parse: {
    schema: { values: PARSE_MODES, description: "main: parse on the page's main thread; worker: in `workers` dedicated Workers." },
    default: 'main',
    expansion: 9,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v!,
    recorded: { optional: false, values: PARSE_MODES },
    // Said by workers' tag.
    tag: () => '',
    // Parsing in words: `main thread` or `2 Workers`.
    words: parseWords,
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: {
      name: 'parsing',
      order: 0,
      value: (p) => (p.parse === 'worker' ? `worker ${p.workers}` : 'main'),
      rank: (p) => (p.parse === 'worker' ? p.workers : 0),
      usual: 'main',
    },
    column: {
      order: 6,
      kind: 'text',
      label: 'parse',
      title: 'Where the page parsed: main thread, or w<k> = k dedicated Workers',
      terminal: 'never',
      text: (p) => (p.parse === 'worker' ? `w${p.workers}` : 'main'),
    },
  },
  workers: {
    schema: { range: LIMITS.workers, description: 'Workers for parse mode worker (connections are dealt round-robin).' },
    default: 1,
    expansion: 10,
    // Worker counts only matter in parse mode worker: main-thread points are not multiplied by them.
    values: (listed, at) => (at.parse === 'worker' ? listedValues(listed) : [0]),
    dependsOn: ['parse'],
    onPoint: (v) => v!,
    // 0 on the main thread.
    recorded: { optional: false, range: { ...LIMITS.workers, min: 0 } },
    tag: (p) => (p.parse === 'worker' ? `-w${p.workers}` : ''),
    // `2 Workers` alone, when only their number varies; parse's words say it otherwise.
    words: (p) => (p.parse === 'worker' ? parseWords(p) : ''),
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: null,
    column: null,
  },
  pollMs: {
    schema: {
      range: LIMITS.pollMs,
      description: 'Milliseconds between the starts of two requests of the poll transport (only poll points are multiplied by it).',
    },
    default: DEFAULT_POLL_MS,
    expansion: 1,
    values: (listed, at) => (at.transport === 'poll' ? listedValues(listed) : [undefined]),
    dependsOn: ['transport'],
    onPoint: (v) => v,
    recorded: { optional: true, range: LIMITS.pollMs },
    tag: (p) => (p.pollMs !== undefined ? `-p${p.pollMs}` : ''),
    words: (p) => (p.pollMs !== undefined ? `poll every ${p.pollMs} ms` : ''),
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: null,
    // In the transport's column: `poll p25`.
    column: null,
  },
  origins: {
    schema: {
      range: LIMITS.origins,
      description: `Origins (server ports) the page spreads its connections over, connection i on origin i mod k: over HTTP/2 that is k TCP connections instead of one. Only transports on the main origin (${TRANSPORTS.filter((t) => TRANSPORT_INFO[t].origin === 'main').join(', ')}) are multiplied by it.`,
    },
    default: 1,
    expansion: 2,
    values: (listed, at) => (onMainOrigin(at.transport) ? listedValues(listed) : [1]),
    dependsOn: ['transport'],
    onPoint: (v) => (v !== undefined && v > 1 ? v : undefined),
    recorded: { optional: true, range: LIMITS.origins },
    tag: (p) => (p.origins !== undefined ? `-o${p.origins}` : ''),
    words: (p) => plural(p.origins ?? 1, 'origin'),
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: { name: 'origins', order: 2, value: (p) => String(p.origins ?? 1), rank: (p) => p.origins ?? 1, usual: '1' },
    column: null,
  },
  encoding: {
    schema: {
      values: ENCODINGS,
      description: `json; msgpack: MessagePack batches decoded in the page (${transportsCarrying('msgpack').join(', ')}); arrow: Apache Arrow IPC record batches decoded in the page (${transportsCarrying('arrow').join(', ')}). A transport is multiplied by the listed encodings it carries; by none, it runs json.`,
    },
    default: 'json',
    expansion: 3,
    // The listed encodings the transport carries (the encoding's carriages against the transport's, protocol/encodings.ts); a list naming none it carries (`msgpack` for `sse`) leaves it JSON.
    values: (listed, at) => {
      const fits = (listed ?? []).filter((e) => at.transport !== undefined && carries(at.transport, e));
      return fits.length ? fits : ['json'];
    },
    dependsOn: ['transport'],
    onPoint: (v) => (v !== undefined && v !== 'json' ? v : undefined),
    // JSON is left out.
    recorded: { optional: true, values: ENCODINGS.filter((e): e is BinaryEncoding => e !== 'json') },
    tag: (p) => (p.encoding ? `-${ENCODING_TAGS[p.encoding]}` : ''),
    words: (p) => p.encoding ?? 'json',
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: { name: 'encoding', order: 3, value: (p) => p.encoding ?? 'json', rank: (p) => (p.encoding ? 1 : 0), usual: 'json' },
    column: {
      order: 7,
      kind: 'text',
      label: 'encoding',
      title: 'How batches travel: json (text), msgpack or arrow (binary, on the transports that carry them)',
      terminal: 'when set',
      text: (p) => p.encoding ?? 'json',
    },
  },
  devtools: {
    schema: {
      values: DEVTOOLS_MODES,
      description: 'off, or network: the CDP Network domain enabled on the tab during the point, as DevTools does while open.',
    },
    default: 'off',
    expansion: 4,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (v === 'network' ? v : undefined),
    recorded: { optional: true, values: ['network'] },
    tag: (p) => (p.devtools ? '-dt' : ''),
    words: (p) => (p.devtools ? 'DevTools Network on' : 'DevTools off'),
    firefox: { refuses: (listed) => listed.includes('network'), mustBe: "'off' (the Network domain is Chrome's CDP)" },
    findMax: 'one value',
    applied: 'driver',
    knob: { name: 'DevTools', order: 4, value: (p) => p.devtools ?? 'off', rank: (p) => (p.devtools ? 1 : 0), usual: 'off' },
    column: null,
  },
  tabs: {
    schema: {
      range: LIMITS.tabs,
      description:
        "Tabs of the one browser streaming the point at once, each its own renderer, all sharing the browser's network service: the point's EPS is their total (offered = tabs × batch × concurrency × 1000 / intervalMs).",
    },
    default: 1,
    expansion: 5,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (v !== undefined && v > 1 ? v : undefined),
    recorded: { optional: true, range: LIMITS.tabs },
    tag: (p) => (p.tabs !== undefined ? `-t${p.tabs}` : ''),
    words: (p) => plural(p.tabs ?? 1, 'tab'),
    firefox: {
      refuses: (listed) => listed.some((t) => t > 1),
      mustBe: '1 (Firefox runs the tabs of one site in one content process, so per-tab CPU cannot be told apart)',
    },
    findMax: 'one value',
    applied: 'driver',
    knob: null,
    column: {
      order: 8,
      kind: 'number',
      label: 'tabs',
      unit: 'tabs',
      title: 'Tabs of one browser streaming the point at once; EPS, offered and renderer CPU are their totals',
      terminal: 'when set',
      value: (p) => p.tabs ?? 1,
      format: 'count',
    },
  },
  display: {
    schema: {
      values: DISPLAY_MODES,
      description:
        "headless: the sweep's headless Chrome; headful: a Chrome with a window, launched on first use (under an Xvfb the sweep starts when there is no DISPLAY).",
    },
    // None: a point runs in the sweep's own browser unless its scenario names one.
    default: undefined,
    expansion: 6,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => v,
    recorded: { optional: true, values: DISPLAY_MODES },
    tag: (p) => (p.display === 'headful' ? '-hf' : ''),
    words: (p) => p.display ?? "the sweep's browser",
    firefox: { refuses: () => true, mustBe: "left out (the display factor launches a Chrome of the other mode; --headful shows Firefox's window)" },
    findMax: 'one value',
    applied: 'driver',
    // A point without `display` runs in the sweep's own browser (headless unless --headful).
    knob: { name: 'display', order: 6, value: (p) => p.display ?? 'sweep', rank: (p) => (p.display === 'headful' ? 1 : 0), usual: 'sweep' },
    column: {
      order: 9,
      kind: 'text',
      label: 'display',
      title: "The browser the point ran in: headless, or headful (under Xvfb without a display); empty: the sweep's own",
      terminal: 'when set',
      text: (p) => p.display ?? '',
    },
  },
  compression: {
    schema: {
      values: COMPRESSIONS,
      description: `off; deflate: permessage-deflate on ${TRANSPORTS.filter((t) => compressionOf(t) === 'deflate').join(', ')}; gzip: Content-Encoding on ${TRANSPORTS.filter((t) => compressionOf(t) === 'gzip').join(', ')} (each transport is multiplied only by the values it carries).`,
    },
    default: 'off',
    expansion: 8,
    // `off`, and the transport's own kind (TRANSPORT_INFO); a list naming neither (`gzip` for `ws`) leaves it uncompressed, as `encoding` leaves SSE JSON.
    values: (listed, at) => {
      const fits = (listed ?? []).filter((c) => c === 'off' || (at.transport !== undefined && c === compressionOf(at.transport)));
      return fits.length ? fits : ['off'];
    },
    dependsOn: ['transport'],
    onPoint: (v) => (v !== undefined && v !== 'off' ? v : undefined),
    // Off is left out.
    recorded: { optional: true, values: COMPRESSIONS.filter((c): c is StreamCompression => c !== 'off') },
    tag: (p) => (p.compression ? `-${p.compression}` : ''),
    words: (p) => (p.compression ? `${p.compression} compression` : 'no compression'),
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: { name: 'compression', order: 7, value: (p) => p.compression ?? 'off', rank: (p) => (p.compression ? 1 : 0), usual: 'off' },
    column: {
      order: 11,
      kind: 'text',
      label: 'compression',
      title: 'off, deflate (permessage-deflate on WebSockets) or gzip (Content-Encoding on SSE and fetch)',
      terminal: 'when set',
      text: (p) => p.compression ?? 'off',
    },
  },
  engine: {
    schema: {
      values: ENGINES,
      description:
        "chrome: the sweep's Chrome (over CDP); firefox: a Firefox the sweep launches on first use (over WebDriver BiDi; its CPU from /proc). --engine overrides it.",
    },
    default: 'chrome',
    expansion: 7,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (v === 'firefox' ? v : undefined),
    // `chrome` too: a point may name it (a sweep leaves it out).
    recorded: { optional: true, values: ENGINES },
    tag: (p) => (p.engine === 'firefox' ? '-ff' : ''),
    words: (p) => p.engine ?? 'chrome',
    firefox: null,
    findMax: 'one value',
    applied: 'driver',
    // Chrome is A, so the sentence reads "firefox ÷ chrome" (issue 25).
    knob: { name: 'engine', order: 8, value: (p) => p.engine ?? 'chrome', rank: (p) => (p.engine === 'firefox' ? 1 : 0), usual: 'chrome' },
    column: {
      order: 10,
      kind: 'text',
      label: 'engine',
      title: 'The browser engine the point ran in: chrome (over CDP), or firefox (over WebDriver BiDi, its CPU from /proc)',
      terminal: 'when set',
      text: (p) => p.engine ?? 'chrome',
    },
  },
  device: {
    schema: {
      pattern: DEVICE_SETTING_PATTERN,
      description: `The device the point runs as: ${DEVICE_SETTING_TEXT}. The browser is slowed until Lighthouse's BenchmarkIndex reads the class's, once per run (docs/devices.md); off: this machine at full speed. --device overrides it.`,
    },
    default: 'off',
    expansion: 15,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (isDeviceClass(v) ? v : undefined),
    recorded: { optional: true, pattern: DEVICE_CLASS_PATTERN },
    tag: (p) => (p.device !== undefined ? deviceTag(p.device) : ''),
    words: (p) => (p.device !== undefined ? deviceWords(p.device, p.throttle ?? 'browser') : 'this machine'),
    firefox: null,
    findMax: 'one value',
    applied: 'driver',
    // This machine is A: the sentence reads "low-tier ÷ this machine". A slower class ranks higher.
    knob: {
      name: 'device',
      order: 9,
      value: (p) => p.device ?? 'off',
      rank: (p) => (p.device !== undefined ? 1 / targetIndexOf(p.device) : 0),
      usual: 'off',
    },
    column: {
      order: 12,
      kind: 'text',
      label: 'device',
      title:
        "The device class the point ran as (the browser slowed to the class's BenchmarkIndex); main-thread: only the renderer's main thread was slowed; empty: this machine",
      terminal: 'when set',
      text: (p) => (p.device !== undefined ? `${p.device}${p.throttle ? ' main-thread' : ''}` : ''),
    },
  },
  throttle: {
    schema: {
      values: THROTTLES,
      description:
        "How a device class slows the browser: browser (every process under one cgroup CPU quota, the default) or main-thread (CDP's CPU throttling of the renderer's main thread only, as DevTools does; the CPU read for that thread is then not valid). Points without a device are not multiplied by it. --throttle overrides it.",
    },
    default: 'browser',
    expansion: 16,
    values: (listed, at) => (isDeviceClass(at.device) ? listedValues(listed) : [undefined]),
    dependsOn: ['device'],
    onPoint: (v) => (v === 'main-thread' ? v : undefined),
    recorded: { optional: true, values: ['main-thread'] },
    tag: (p) => (p.throttle === 'main-thread' ? '-mt' : ''),
    // In the device's words.
    words: () => '',
    firefox: { refuses: (listed) => listed.includes('main-thread'), mustBe: "'browser' (main-thread throttling is Chrome's CDP)" },
    findMax: 'one value',
    applied: 'driver',
    knob: {
      name: 'throttle',
      order: 10,
      value: (p) => p.throttle ?? 'browser',
      rank: (p) => (p.throttle === 'main-thread' ? 1 : 0),
      usual: 'browser',
      words: (p) => (p.throttle === 'main-thread' ? 'main thread slowed (CDP)' : 'whole browser slowed (cgroup)'),
    },
    // In the device's column.
    column: null,
  },
  pace: {
    schema: {
      values: PACES,
      description:
        "When batches fall due: steady (one every interval) or recorded (when the --rows file's events were recorded: a HAR's message times, or a 't' field; scaled to the offered rate, docs/your-stream.md).",
    },
    default: 'steady',
    expansion: 17,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (v === 'recorded' ? v : undefined),
    recorded: { optional: true, values: ['recorded'] },
    tag: (p) => (p.pace === 'recorded' ? '-rec' : ''),
    words: (p) => (p.pace === 'recorded' ? 'recorded pace' : 'steady pace'),
    firefox: null,
    findMax: 'one value',
    applied: 'page',
    knob: { name: 'pace', order: 11, value: (p) => p.pace ?? 'steady', rank: (p) => (p.pace === 'recorded' ? 1 : 0), usual: 'steady' },
    column: {
      order: 13,
      kind: 'text',
      label: 'pace',
      title: "When batches fell due: steady (every interval) or recorded (the --rows file's recorded times, scaled to the offered rate)",
      terminal: 'when set',
      text: (p) => p.pace ?? 'steady',
    },
  },
  tab: {
    schema: {
      values: TAB_STATES,
      description:
        "The lab tab's state (docs/tab-states.md): visible (in the foreground, the default); hidden (behind another tab of a Chrome launched without its anti-throttling flags, from the connections' opening on); hidden-long (the same, for hiddenLongGraceSec plus 5 s before the warm-up: past intensive wake-up throttling's grace). Chrome launched by pushlab only.",
    },
    default: 'visible',
    expansion: 18,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => (v !== undefined && v !== 'visible' ? v : undefined),
    recorded: { optional: true, values: ['hidden', 'hidden-long'] },
    tag: (p) => (p.tab !== undefined ? TAB_TAGS[p.tab] : ''),
    words: (p) => tabWords(p),
    firefox: {
      refuses: (listed) => listed.some((t) => t !== 'visible'),
      mustBe: "'visible' (a hidden tab is made by a Chrome pushlab launches without its anti-throttling flags)",
    },
    findMax: 'one value',
    applied: 'driver',
    knob: {
      name: 'tab',
      order: 12,
      value: (p) => p.tab ?? 'visible',
      rank: (p) => (p.tab === 'hidden-long' ? 2 : p.tab === 'hidden' ? 1 : 0),
      usual: 'visible',
    },
    column: {
      order: 14,
      kind: 'text',
      label: 'tab',
      title:
        "The lab tab's state: visible, hidden (behind another tab, Chrome's background throttling on), or hidden-long (hidden past intensive throttling's grace)",
      terminal: 'when set',
      text: (p) => p.tab ?? 'visible',
    },
  },
  link: {
    schema: {
      pattern: LINK_SETTING_PATTERN,
      description: `The network between the server and the tab: ${LINK_SETTING_TEXT}. The server and the browser run in two network namespaces joined by a veth pair, capped by tbf, the delay added by a proxy in the browser's namespace (docs/network.md). --link overrides it.`,
    },
    default: 'off',
    expansion: 18,
    values: listedValues,
    dependsOn: [],
    onPoint: (v) => canonicalLink(v),
    recorded: { optional: true, pattern: LINK_PATTERN },
    tag: (p) => (p.link !== undefined ? linkTag(p.link) : ''),
    words: (p) => (p.link !== undefined ? linkWords(p.link) : 'loopback'),
    firefox: {
      refuses: (listed) => listed.some((l) => canonicalLink(l) !== undefined),
      mustBe: "'off' (a link runs a Chrome in a network namespace, over its CDP pipe)",
    },
    findMax: 'one value',
    applied: 'driver',
    // Loopback is A: the sentence reads "link ÷ loopback". A longer round trip ranks higher.
    knob: {
      name: 'link',
      order: 13,
      value: (p) => p.link ?? 'off',
      rank: (p) => (p.link !== undefined ? 1 + linkOf(p.link).rttMs : 0),
      usual: 'off',
    },
    column: {
      order: 15,
      kind: 'text',
      label: 'link',
      title: 'The network between the server and the tab: round trip ± jitter, cap (namespaces; cdp: Chrome emulation); empty: loopback',
      terminal: 'when set',
      text: (p) => p.link ?? '',
    },
  },
} satisfies { readonly [K in FactorName]: FactorInfo<K> };

/** Every factor, in the registry's order (the point id's, a point's fields'). */
export const FACTOR_NAMES = Object.keys(FACTORS) as readonly FactorName[];

/** The factors the page applies: copied from a point into its PageConfig. */
export type PageFactor = { [K in FactorName]: (typeof FACTORS)[K]['applied'] extends 'page' ? K : never }[FactorName];

/** A point's id (see `Point.id`): its scenario and each factor's tag. */
export function pointId(p: PointFactors): string {
  return `${p.scenario}/${FACTOR_NAMES.map((name) => FACTORS[name].tag(p)).join('')}`;
}

/** What a point keeps of these settings, in the registry's order: defaults left out (each factor's `onPoint`). */
export function pointFactors(values: FactorSettings): Pick<Point, FactorName> {
  const out: Partial<Record<FactorName, unknown>> = {};
  for (const name of FACTOR_NAMES) {
    const v = (FACTORS[name].onPoint as (v: unknown) => unknown)(values[name]);
    if (v !== undefined) out[name] = v;
  }
  return out as Pick<Point, FactorName>;
}

/** The settings of a point's factors that the page applies, for its PageConfig (absent ones left out). */
export function pageFactors(p: Pick<Point, FactorName>): Pick<Point, PageFactor> {
  const out: Partial<Record<FactorName, unknown>> = {};
  for (const name of FACTOR_NAMES) if (FACTORS[name].applied === 'page' && p[name] !== undefined) out[name] = p[name];
  return out as Pick<Point, PageFactor>;
}

/** A factor's listed values in a scenario: its list, its one value as a list, or undefined when unset. */
export type Listed = { [K in FactorName]?: FactorValues[K] | readonly FactorValues[K][] };

const asList = <T>(v: T | readonly T[] | undefined): readonly T[] | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? (v as readonly T[]) : [v as T];

/** The factors in the cross product's order, outermost first. */
const EXPANSION = [...FACTOR_NAMES].sort((a, b) => FACTORS[a].expansion - FACTORS[b].expansion);
/** The factors another one's values depend on: only these are held apart when counting. */
const DEPENDED = new Set<FactorName>(FACTOR_NAMES.flatMap((name) => FACTORS[name].dependsOn));

const valuesOf = (name: FactorName, listed: Listed, at: Partial<FactorValues>): readonly unknown[] =>
  (FACTORS[name].values as (l: readonly unknown[] | undefined, at: Partial<FactorValues>) => readonly unknown[])(asList(listed[name]), at);

/**
 * Every setting of the factors these lists make: the cross product, outermost factor first
 * (FactorInfo.expansion), each factor taking the values it has where it applies.
 */
export function crossProduct(listed: Listed): FactorSettings[] {
  let settings: Partial<FactorValues>[] = [{}];
  for (const name of EXPANSION) {
    settings = settings.flatMap((at) => valuesOf(name, listed, at).map((v) => ({ ...at, [name]: v })));
  }
  return settings as FactorSettings[];
}

/**
 * How many settings `crossProduct` makes of these lists, counted by the same values without
 * making them: a factor no other one depends on multiplies, the others are walked value by value.
 */
export function crossProductSize(listed: Listed): number {
  const count = (i: number, at: Partial<FactorValues>): number => {
    if (i === EXPANSION.length) return 1;
    const name = EXPANSION[i];
    const values = valuesOf(name, listed, at);
    if (!DEPENDED.has(name)) return values.length * count(i + 1, at);
    return values.reduce<number>((a, v) => a + count(i + 1, { ...at, [name]: v }), 0);
  };
  return count(0, {});
}
