/**
 * The whole of report.json as checked shapes (protocol/shape.ts), one per type of
 * protocol/report.ts, protocol/repeat-figures.ts and protocol/advice.ts: every field every
 * reader touches, nested ones too, so the check (protocol/report-check.ts) accepts exactly what
 * the readers' types promise. Each `obj<T>()` names every key of T (a compile error otherwise),
 * so a field added to a type must be added here.
 *
 * Beyond the types, the rules a reader relies on: the factors of a point hold what their registry
 * entries say a point records (protocol/factors.ts `recorded`: the ranges of protocol/limits.ts a
 * scenario may give them, as a resumed sweep measures them, and each enum's kept values), rounds are
 * indices, and an advise target is what `--rate` and `--p99` would accept (protocol/target.ts).
 */
import {
  SIMPLICITY_CRITERIA,
  type Advice,
  type AnchorDrift,
  type AnchorProbe,
  type AnchorReading,
  type Candidate,
  type CandidateFigures,
  type Closest,
  type CostFigure,
  type Costs,
  type CpuComparison,
  type EquivalentCandidate,
  type Headroom,
  type MachineDrift,
  type SearchAccount,
  type Sustains,
  type SustainsFigures,
  type TriedCandidate,
  type YardstickReading,
} from './advice.js';
import { NOT_MEASURED_REASONS } from './advice.js';
import { HISTOGRAM_BUCKETS, type LatencySummary, type SparseHistogram, type TailSummary } from './histogram.js';
import { LIMITS, type Range } from './limits.js';
import type { Margins } from './margins.js';
import { ENGINES } from './engine.js';
import { DEVICE_CLASS_PATTERN, THROTTLES, type DeviceCalibration, type DeviceClass } from './device.js';
import type { ParseCeiling, TabThreadsCpu } from './page-api.js';
import type {
  BrowserFigures,
  ChromeCpu,
  ClockOffset,
  CompressionFigures,
  CpuFigure,
  CpuFigures,
  Efficiency,
  FailedRepeat,
  MeasuredRepeat,
  PageFigures,
  Repeat,
  ServerFigures,
  Stat,
  TabFigures,
  TabReturn,
  TabStateFigures,
  WireFigures,
  WindowTrend,
} from './repeat-figures.js';
import type {
  BrowserHost,
  Environment,
  KnobComparison,
  PairedComparison,
  PointResult,
  PointSummary,
  Report,
  Round,
  SaturationResult,
  SweepOptions,
  UnsteadyFlag,
  WallAccount,
} from './report.js';
import { WALL_PARTS } from './report.js';
import { ENCODING_NAMES } from './encodings.js';
import type { PayloadDescription } from './payload.js';
import { LINK_PATTERN, type LinkFigures } from './link.js';
import { ROWS_MAX_DEPTH } from './rows-file.js';
import type { Point } from './scenario.js';
import { SOAK_DURATION_SEC, type Soak, type SoakReconnect, type SoakSample } from './soak.js';
import { OBJECTIVES, parseP99, parseRate, type Target } from './target.js';
import { COMPRESSIONS, ENCODINGS, PARSE_MODES, RENDER_MODES, TRANSPORTS, type StreamCompression } from './wire.js';
import { arr, bool, byKey, isObject, lit, matching, named, nullable, num, numIn, obj, oneOf, opt, refine, str, type Shape, type Props } from './shape.js';
import { FACTOR_NAMES, FACTORS, type FactorName } from './factors.js';
import type { LongFrames } from './page-api.js';
import type { InputFigures } from './repeat-figures.js';
import type { RenderModuleRef } from './render-module.js';

const inRange = (r: Range) => numIn(r.min, r.max, r.integer);
/** A count or an index: an integer, 0 or more. */
const count = numIn(0, Number.MAX_SAFE_INTEGER, true);
const strings = arr(str);
const numOrNull = nullable(num);
const transport = oneOf(TRANSPORTS);
const encoding = oneOf(ENCODINGS);
const streamCompression = oneOf(COMPRESSIONS.filter((c): c is StreamCompression => c !== 'off'));
const engine = oneOf(ENGINES);
const verdict = lit('ok', 'client-bound', 'server-bound', 'host-bound', 'network-bound', 'failed');
const equivalenceKind = lit('both-kept-up', 'equivalent', 'different', 'unclear');
const spread = obj<{ min: number; median: number; max: number }>()({ min: num, median: num, max: num });
const lateness = obj<{ p50: number | null; p99: number | null; max: number | null }>()({ p50: numOrNull, p99: numOrNull, max: numOrNull });

const stat = obj<Stat>()({ n: count, median: num, mean: num, min: num, max: num, sd: num, ciLow: numOrNull, ciHigh: numOrNull });
const statOrNull = nullable(stat);

const margins = obj<Margins>()({ eventsPerSec: numIn(0, 1e6), cpuPerEvent: numIn(0, 1e6) });

const latency = obj<LatencySummary>()({
  count: num,
  minMs: numOrNull,
  p25Ms: numOrNull,
  p50Ms: numOrNull,
  p75Ms: numOrNull,
  p95Ms: numOrNull,
  p99Ms: numOrNull,
  maxMs: numOrNull,
  meanMs: numOrNull,
  // rule (issue 33): absent in version 3 reports.
  p999Ms: opt(numOrNull),
});

// --- age (issue 33) ---
const tail = obj<TailSummary>()({ count: num, p50Ms: numOrNull, p99Ms: numOrNull, p999Ms: numOrNull, maxMs: numOrNull });

/** A factor's field of a point, as its registry entry says a point records it (FactorInfo.recorded). */
function recordedField(r: { optional: boolean } & ({ range: Range } | { values: readonly (string | number)[] } | { pattern: string })) {
  const field = <T>(s: Shape<T>) => (r.optional ? opt(s) : s);
  if ('range' in r) return field(inRange(r.range));
  if ('pattern' in r) return field(matching(r.pattern));
  return field(lit(...r.values));
}

/** Every factor's field, in the registry's order; each entry's `recorded` is typed by its field of `Point`. */
const factorFields = Object.fromEntries(FACTOR_NAMES.map((name) => [name, recordedField(FACTORS[name].recorded)])) as Props<Pick<Point, FactorName>>;

/** A team's render module as a point or an advice's target names it: the file as given and its SHA-256. */
const renderModuleRef = obj<RenderModuleRef>()({ path: str, sha256: matching('^[0-9a-f]{64}$') });

const point = obj<Point>()({
  id: str,
  scenario: str,
  ...factorFields,
  warmupSec: inRange(LIMITS.warmupSec),
  measureSec: inRange(LIMITS.measureSec),
  repeats: inRange(LIMITS.repeats),
  offeredEventsPerSec: num,
  // Your page (issue 35): absent for pushlab's own views, and in reports written before it.
  renderModule: opt(renderModuleRef),
  // Tab states (issue 36): hidden-long points only, absent in reports written before them.
  hiddenLongGraceSec: opt(inRange(LIMITS.hiddenLongGraceSec)),
});

const efficiency = obj<Efficiency>()({
  eventsPerCpuSecRenderer: numOrNull,
  eventsPerCpuSecMainThread: numOrNull,
  eventsPerCpuSecChrome: numOrNull,
  rendererCpuMsPerMillionEvents: numOrNull,
});

const pageFigures = obj<PageFigures>()({
  events: num,
  batches: num,
  bytes: num,
  gaps: num,
  duplicates: num,
  reconnects: num,
  errors: num,
  // rule (issue 33): absent in version 3 reports.
  closedMs: opt(num),
  stalledMs: opt(num),
  perConnectionBatchesPerSec: spread,
});

const chromeCpu = obj<ChromeCpu>()({ browser: numOrNull, renderers: numOrNull, network: numOrNull, gpu: numOrNull, other: numOrNull, total: numOrNull });
const tabThreads = obj<TabThreadsCpu>()({ main: num, workers: arr(num), io: num, compositor: num, pool: num, other: num });
const cpuFigure = lit('tabProcess', 'tabMainThread', 'tabThreads', 'host', 'browser', 'renderers', 'network', 'gpu', 'other', 'total');
const cpuFigures = obj<CpuFigures>()({
  chrome: chromeCpu,
  tabProcess: numOrNull,
  tabMainThread: numOrNull,
  tabThreads: nullable(tabThreads),
  server: num,
  host: numOrNull,
  unavailable: opt(arr(cpuFigure)),
  sources: opt(
    obj<Partial<Record<CpuFigure, string>>>()({
      tabProcess: opt(str),
      tabMainThread: opt(str),
      tabThreads: opt(str),
      host: opt(str),
      browser: opt(str),
      renderers: opt(str),
      network: opt(str),
      gpu: opt(str),
      other: opt(str),
      total: opt(str),
    }),
  ),
});

const serverFigures = obj<ServerFigures>()({
  eventsSent: num,
  batchesSent: num,
  batchesShed: num,
  eventsPerSec: num,
  pacingRatio: num,
  batchesBehind: num,
  eventLoopUtilization: num,
  latenessMs: lateness,
  rssBytes: num,
});

const wireFigures = obj<WireFigures>()({ http: obj<{ h1: number; h2: number }>()({ h1: count, h2: count }), tcpConnections: count, stalled: count });

const tabFigures = obj<TabFigures>()({
  client: nullable(str),
  windowSec: num,
  eventsPerSec: num,
  batchesPerSec: num,
  megabytesPerSec: num,
  deliveredRatio: num,
  page: pageFigures,
  latency,
  cpu: obj<{ tabProcess: number | null; tabMainThread: number | null }>()({ tabProcess: numOrNull, tabMainThread: numOrNull }),
  wire: nullable(wireFigures),
});

const browserFigures = obj<BrowserFigures>()({
  version: str,
  engine: opt(engine),
  headless: bool,
  display: nullable(str),
  xvfb: bool,
  // Tab states (issue 36): hidden-tab points only.
  args: opt(strings),
});

// --- tab states (issue 36): hidden-tab repeats only, absent in reports before them ---
const visibility = lit('visible', 'hidden');
const tabStateFigures = obj<TabStateFigures>()({
  state: lit('hidden', 'hidden-long'),
  graceSec: opt(inRange(LIMITS.hiddenLongGraceSec)),
  hiddenBeforeWindowSec: num,
  visibilityAtStart: visibility,
  visibilityAtEnd: visibility,
  visibilityChanges: count,
  return: obj<TabReturn>()({
    backlogBatches: numOrNull,
    backlogEvents: numOrNull,
    catchUpMs: numOrNull,
    waitedSec: num,
    visibilityAfter: visibility,
  }),
});

const compressionFigures = obj<CompressionFigures>()({
  kind: streamCompression,
  streams: count,
  compressedStreams: count,
  wireBytes: num,
  wireMegabytesPerSec: num,
  inputBytes: num,
  outputBytes: num,
  ratio: numOrNull,
});

// rule (issue 33): a window's latency histogram and trend. Absent in version 3 reports.
const sparseHistogram = refine(
  obj<SparseHistogram>()({
    count: numIn(0, Number.MAX_SAFE_INTEGER),
    minUs: numIn(0, Number.MAX_VALUE),
    maxUs: numIn(0, Number.MAX_VALUE),
    sumUs: num,
    buckets: arr(numIn(0, HISTOGRAM_BUCKETS - 1, true)),
    counts: arr(numIn(0, Number.MAX_SAFE_INTEGER)),
  }),
  (h) => {
    if (h.buckets.length !== h.counts.length) return `buckets and counts must be the same length, got ${h.buckets.length} and ${h.counts.length}`;
    for (let i = 1; i < h.buckets.length; i++)
      if (h.buckets[i] <= h.buckets[i - 1]) return `buckets must be ascending, got ${h.buckets[i - 1]} then ${h.buckets[i]}`;
    const total = h.counts.reduce((a, c) => a + c, 0);
    return total === h.count ? null : `counts must add up to count ${h.count}, got ${total}`;
  },
);
const windowTrend = obj<WindowTrend>()({ backlogStartMs: numOrNull, backlogEndMs: numOrNull, firstHalfMeanMs: numOrNull, secondHalfMeanMs: numOrNull });

// Named with their unit, as the hand check said them: an offset can be negative, its uncertainty cannot.
const clock = obj<ClockOffset>()({
  offsetMs: named(num, 'a number of ms'),
  uncertaintyMs: named(numIn(0, Number.MAX_VALUE), 'a number of ms, 0 or more'),
});

// --- input (issue 33): absent in version 3 reports ---
const longFrames = obj<LongFrames>()({ count, blockingMs: num, durationMs: num });
const inputFigures = obj<InputFigures>()({
  sent: count,
  handled: count,
  unansweredMs: opt(named(numIn(0, Number.MAX_VALUE), 'a number of ms, 0 or more')),
  delayMs: latency,
  nextFrameMs: latency,
  longFrames: nullable(longFrames),
  longFramesUnavailable: opt(str),
  unavailable: opt(str),
  roundTripMs: opt(latency),
  delaySource: opt(str),
  pageDelayMs: opt(latency),
});

const linkFigures = obj<LinkFigures>()({ link: matching(LINK_PATTERN), carriedMbit: num, mbit: numOrNull, atRate: numOrNull });

const measuredRepeat = obj<MeasuredRepeat>()({
  status: lit('ok'),
  verdict: lit('ok', 'client-bound', 'server-bound', 'host-bound', 'network-bound'),
  round: count,
  startedAt: str,
  attempts: count,
  notes: strings,
  browserId: opt(str),
  startedBehind: opt(bool),
  clock: opt(clock),
  latencyBook: opt(lit('transit')),
  windowSec: num,
  settleSec: num,
  eventsPerSec: num,
  batchesPerSec: num,
  megabytesPerSec: num,
  deliveredRatio: num,
  ceilingEventsPerSec: numOrNull,
  ceilingRatio: numOrNull,
  jsonCeilingEventsPerSec: opt(numOrNull),
  jsonCeilingRatio: opt(numOrNull),
  bytesPerEvent: opt(numOrNull),
  efficiency,
  page: pageFigures,
  latency,
  cpu: cpuFigures,
  server: serverFigures,
  wire: opt(nullable(wireFigures)),
  tabs: opt(arr(tabFigures)),
  perTabEventsPerSec: opt(spread),
  browser: opt(browserFigures),
  tabState: opt(tabStateFigures),
  compression: opt(compressionFigures),
  link: opt(linkFigures),
  // rule (issue 33): absent in version 3 reports.
  latencyHistogram: opt(sparseHistogram),
  trend: opt(windowTrend),
  input: opt(inputFigures),
  // --- age (issue 33): absent in version 3 reports ---
  transit: opt(tail),
  displayAge: opt(nullable(tail)),
});

const failedRepeat = obj<FailedRepeat>()({
  status: lit('failed'),
  verdict: lit('failed'),
  round: count,
  startedAt: str,
  attempts: count,
  notes: strings,
  browserId: opt(str),
  error: str,
  cause: opt(str),
});

const repeat: Shape<Repeat> = byKey<Repeat, 'status'>('status')({ ok: measuredRepeat, failed: failedRepeat });

const unsteadyFlag = obj<UnsteadyFlag>()({
  kind: lit('over-delivery', 'backlog', 'outlier', 'failed-repeats', 'mixed-hosts', 'mixed-latency'),
  rounds: arr(count),
  message: str,
});

const pointSummary = obj<PointSummary>()({
  n: count,
  eventsPerSec: stat,
  deliveredRatio: stat,
  ceilingRatio: statOrNull,
  jsonCeilingRatio: opt(statOrNull),
  bytesPerEvent: opt(statOrNull),
  latencyP50Ms: statOrNull,
  latencyP99Ms: statOrNull,
  cpu: obj<PointSummary['cpu']>()({
    tabProcess: statOrNull,
    tabMainThread: statOrNull,
    chromeTotal: statOrNull,
    browser: statOrNull,
    network: statOrNull,
    gpu: statOrNull,
    server: stat,
    host: statOrNull,
  }),
  efficiency: obj<PointSummary['efficiency']>()({
    eventsPerCpuSecRenderer: statOrNull,
    eventsPerCpuSecMainThread: statOrNull,
    eventsPerCpuSecChrome: statOrNull,
    rendererCpuMsPerMillionEvents: statOrNull,
  }),
  gaps: num,
  shed: num,
  wire: opt(nullable(wireFigures)),
  tabEventsPerSecMin: opt(stat),
  tabEventsPerSecMax: opt(stat),
  wireMegabytesPerSec: opt(stat),
  compressionRatio: opt(statOrNull),
  inputDelayP99Ms: opt(statOrNull),
  longFrameBlockingMsPerSec: opt(statOrNull),
  // --- age (issue 33): absent in version 3 reports ---
  transitP99Ms: opt(statOrNull),
  displayAgeP50Ms: opt(statOrNull),
  displayAgeP99Ms: opt(statOrNull),
});

const pointResult = obj<PointResult>()({
  point,
  repeats: arr(repeat),
  summary: nullable(pointSummary),
  verdict,
  unsteady: arr(unsteadyFlag),
  notes: strings,
  browsers: opt(strings),
});

const parseCeiling = obj<ParseCeiling>()({
  batch: inRange(LIMITS.batch),
  encoding: opt(encoding),
  eventsPerSec: num,
  messages: num,
  bytesPerMessage: num,
  durationMs: num,
  device: opt(matching<DeviceClass>(DEVICE_CLASS_PATTERN)),
  throttle: opt(lit('main-thread')),
});
const parseCeilings = arr(parseCeiling);

const deviceCalibration = obj<DeviceCalibration>()({
  device: matching<DeviceClass>(DEVICE_CLASS_PATTERN),
  throttle: oneOf(THROTTLES),
  browser: str,
  targetIndex: num,
  baseIndex: num,
  index: num,
  speed: numIn(0, 1),
  slowdown: num,
  periodMs: numOrNull,
  pinnedCpu: numOrNull,
  readings: arr(obj<DeviceCalibration['readings'][number]>()({ speed: num, index: num })),
  at: str,
});

const round = obj<Round>()({
  index: count,
  seed: num,
  order: strings,
  startedAt: str,
  finishedAt: nullable(str),
  parseCeilings,
  hostCeilings: opt(arr(obj<{ browser: string; parseCeilings: ParseCeiling[] }>()({ browser: str, parseCeilings }))),
  engineCeilings: opt(arr(obj<{ engine: (typeof ENGINES)[number]; parseCeilings: ParseCeiling[] }>()({ engine, parseCeilings }))),
});

const pairedProps = {
  a: str,
  b: str,
  metric: lit('eventsPerSec', 'rendererCpuMsPerMillionEvents'),
  rounds: arr(count),
  ratios: arr(num),
  ratio: num,
  ciLow: numOrNull,
  ciHigh: numOrNull,
  better: lit('a', 'b', 'none'),
  equivalence: opt(obj<NonNullable<PairedComparison['equivalence']>>()({ kind: equivalenceKind, margin: num })),
  text: str,
};
const pairedComparison = obj<PairedComparison>()(pairedProps);
const knobComparison = obj<KnobComparison>()({ ...pairedProps, knob: str, from: str, to: str, context: str });

const saturationResult = obj<SaturationResult>()({
  scenario: str,
  transport,
  varied: lit('batch', 'concurrency'),
  fixed: obj<{ batch?: number; concurrency?: number }>()({ batch: opt(num), concurrency: opt(num) }),
  range: obj<{ min: number; max: number }>()({ min: num, max: num }),
  criteria: obj<SaturationResult['criteria']>()({ deliveredRatio: num, shed: lit(0), p99BoundMs: num, inputDelayBoundMs: opt(num) }),
  probes: arr(obj<SaturationResult['probes'][number]>()({ value: num, pointId: str, sustainable: bool, eventsPerSec: numOrNull, reason: str })),
  confirmations: opt(arr(obj<NonNullable<SaturationResult['confirmations']>[number]>()({ value: num, pointId: str, sustainable: bool, reason: str }))),
  knee: nullable(obj<NonNullable<SaturationResult['knee']>>()({ value: num, pointId: str, eventsPerSec: stat })),
  firstPast: nullable(obj<NonNullable<SaturationResult['firstPast']>>()({ value: num, pointId: str, reason: str })),
  repeats: opt(arr(obj<NonNullable<SaturationResult['repeats']>[number]>()({ pointId: str, purpose: lit('probe', 'confirm'), repeat }))),
});

const sweepOptions = obj<SweepOptions>()({
  repeats: inRange(LIMITS.repeats),
  seed: numIn(0, 2 ** 32 - 1, true),
  auto: bool,
  maxRepeats: numIn(0, LIMITS.repeats.max, true),
  timeBudgetSec: nullable(numIn(0, Number.MAX_VALUE)),
  findMax: bool,
  // Read by --input-delay's own parser (byParser below is declared after this shape).
  inputDelayBoundMs: opt(
    refine(num, (v) => {
      const parsed = parseP99(String(v), 'options.inputDelayBoundMs');
      return parsed.ok ? null : parsed.error.allowed;
    }),
  ),
  retries: numIn(0, 5, true),
  file: str,
  spreadRepeats: opt(bool),
  margins: opt(margins),
});

const environment = obj<Environment>()({
  chromeVersion: str,
  chromePath: str,
  nodeVersion: str,
  platform: str,
  cpuModel: str,
  cores: num,
  memoryBytes: num,
  headless: bool,
  launchArgs: strings,
  networkEnabled: bool,
  serverUrl: str,
  engine: opt(engine),
  firefox: opt(obj<NonNullable<Environment['firefox']>>()({ version: str, path: str, source: str, headless: bool })),
});

const browserHost = obj<BrowserHost>()({
  id: str,
  origin: lit('launched', 'remote'),
  engine: opt(engine),
  endpoint: nullable(str),
  host: str,
  version: str,
  userAgent: str,
  headless: bool,
  cores: numOrNull,
  cpuModel: nullable(str),
  machineModel: nullable(str),
  architecture: nullable(str),
  kind: str,
  procfs: bool,
  serverSharesHost: nullable(bool),
  sharesHostWith: strings,
  lost: opt(obj<{ at: string; error: string }>()({ at: str, error: str })),
  clock: opt(clock),
  gridNode: opt(obj<{ id: string; uri: string }>()({ id: str, uri: str })),
});

// ---- advice (protocol/advice.ts)

/** A recorded rate or bound, read by the very parser of `--rate` or `--p99`: one rule for both. */
const byParser = (parse: typeof parseRate, field: string): Shape<number> =>
  refine(num, (v) => {
    const parsed = parse(String(v), field);
    return parsed.ok ? null : parsed.error.allowed;
  });

const target = obj<Target>()({
  eventsPerSec: byParser(parseRate, 'advice.target.eventsPerSec'),
  p99BoundMs: byParser(parseP99, 'advice.target.p99BoundMs'),
  render: oneOf(RENDER_MODES),
  inputDelayBoundMs: opt(byParser(parseP99, 'advice.target.inputDelayBoundMs')),
  // --- age (issue 33): absent in version 3 reports ---
  displayP99BoundMs: opt(byParser(parseP99, 'advice.target.displayP99BoundMs')),
  // --- device classes (issue 36): absent at full speed, and in reports before them ---
  device: opt(matching<DeviceClass>(DEVICE_CLASS_PATTERN)),
  throttle: opt(lit('main-thread')),
  // --- costs (issue 34): absent for the default objective, and in reports before it ---
  objective: opt(oneOf(OBJECTIVES)),
  // --- your page (issue 35): absent for pushlab's own views, and in reports before it ---
  renderModule: opt(renderModuleRef),
  // --- your stream (issue 35): absent at the steady tick, and in reports before it ---
  pace: opt(lit('recorded')),
  // --- tab states (issue 36): absent in the foreground, and in reports before them ---
  tab: opt(lit('hidden', 'hidden-long')),
  hiddenLongGraceSec: opt(inRange(LIMITS.hiddenLongGraceSec)),
  link: opt(matching(LINK_PATTERN)),
});

const candidate = obj<Candidate>()({
  id: str,
  transport,
  batch: inRange(LIMITS.batch),
  intervalMs: inRange(LIMITS.intervalMs),
  concurrency: inRange(LIMITS.concurrency),
  parse: oneOf(PARSE_MODES),
  workers: numIn(0, LIMITS.workers.max, true),
  origins: inRange(LIMITS.origins),
  encoding,
  compression: opt(oneOf(COMPRESSIONS.filter((c): c is StreamCompression => c !== 'off'))),
  pollMs: opt(inRange(LIMITS.pollMs)),
  offeredEventsPerSec: num,
});

const sustainsFigures = obj<SustainsFigures>()({
  repeats: count,
  failed: count,
  deliveredRatio: num,
  shedRepeats: count,
  shedBatches: num,
  p99Ms: nullable(obj<NonNullable<SustainsFigures['p99Ms']>>()({ median: num, low: num, high: numOrNull, confidence: num })),
  stalledRepeats: count,
  notOpen: num,
  streams: numOrNull,
  cap: numOrNull,
  // rule (issue 33): absent in version 3 reports.
  tail: opt(
    obj<NonNullable<SustainsFigures['tail']>>()({
      pooled: bool,
      p99Ms: numOrNull,
      p99HighMs: numOrNull,
      confidence: num,
      p999Ms: numOrNull,
      maxMs: numOrNull,
    }),
  ),
  loss: opt(obj<NonNullable<SustainsFigures['loss']>>()({ repeats: count, gapBatches: num, reconnects: num, closedMs: numOrNull, stalledMs: numOrNull })),
  behindRepeats: opt(count),
  fewestBatches: opt(numOrNull),
  otherFailures: opt(count),
  nearThreshold: opt(bool),
  inputDelayP99Ms: opt(numOrNull),
});

const sustains = obj<Sustains>()({ sustains: bool, reasons: strings, figures: sustainsFigures });

const costFigure = obj<CostFigure>()({
  unit: str,
  median: numOrNull,
  min: numOrNull,
  max: numOrNull,
  n: count,
  of: count,
  unmeasured: opt(str),
});

const costs = obj<Costs>()({
  rendererCpuMsPerMillionEvents: costFigure,
  mainThreadPercent: costFigure,
  mainThreadMsPerMillionEvents: costFigure,
  chromePercent: costFigure,
  chromeCpuMsPerMillionEvents: costFigure,
  chromeProcesses: obj<Costs['chromeProcesses']>()({ renderers: costFigure, network: costFigure, browser: costFigure, gpu: costFigure }),
  bytesPerEvent: costFigure,
  megabytesPerSec: costFigure,
  gigabytesPerUserHour: costFigure,
  serverCpuPercentPer100kEventsPerSec: costFigure,
  eventAgeP99Ms: costFigure,
  displayAgeP99Ms: costFigure,
  inputDelayP99Ms: costFigure,
});

const candidateFigures = obj<CandidateFigures>()({
  sustains,
  cpuMsPerMillionEvents: statOrNull,
  rendererPercent: statOrNull,
  mainThreadPercent: statOrNull,
  eventsPerSec: statOrNull,
  deliveredRatio: statOrNull,
  latencyP99Ms: statOrNull,
  verdict,
  limit: nullable(str),
  closeness: num,
  // --- costs (issue 34): absent in reports before them ---
  costs: opt(costs),
  objective: opt(obj<NonNullable<CandidateFigures['objective']>>()({ name: oneOf(OBJECTIVES), median: numOrNull })),
});

const cpuComparison = obj<CpuComparison>()({
  objective: opt(oneOf(OBJECTIVES)),
  of: str,
  against: str,
  ratio: num,
  ciLow: numOrNull,
  ciHigh: numOrNull,
  rounds: count,
  kind: equivalenceKind,
  margin: num,
});
const purpose = lit('probe', 'confirm');

/** One candidate's paired p99 against the winner's (EquivalentCandidate, TriedCandidate). */
const pairedP99 = obj<NonNullable<EquivalentCandidate['p99VsWinner']>>()({ ratio: num, ciLow: numOrNull, ciHigh: numOrNull, rounds: count });

const triedCandidate = obj<TriedCandidate>()({
  candidate,
  outcome: lit('kept', 'marginal', 'dropped', 'finalist', 'winner', 'runner-up'),
  why: str,
  probe: nullable(candidateFigures),
  confirmed: nullable(candidateFigures),
  cpuVsWinner: nullable(cpuComparison),
  lostOn: opt(lit('cpu', 'median-cpu', 'p99', 'simplicity', 'headroom', 'order')),
  // --- the answer as a set (issue 34): absent in earlier reports ---
  criterion: opt(oneOf(SIMPLICITY_CRITERIA)),
  dearerThan: opt(cpuComparison),
  slowerThan: opt(str),
  p99VsWinner: opt(pairedP99),
  repeats: arr(obj<TriedCandidate['repeats'][number]>()({ purpose, round: nullable(count), repeat })),
});

const headroom = obj<Headroom>()({
  // --- the runner-up's headroom and what capped it (issue 34): absent in earlier reports ---
  candidateId: opt(str),
  batch: nullable(inRange(LIMITS.batch)),
  eventsPerSec: numOrNull,
  atLeast: bool,
  limit: opt(lit('setup', 'not-held', 'message-limit', 'search-range', 'budget', 'confirmations', 'interrupted')),
  messageLimit: opt(inRange(LIMITS.batch)),
  firstPast: nullable(obj<NonNullable<Headroom['firstPast']>>()({ batch: num, eventsPerSec: num, reason: str })),
  probes: count,
  confirmations: count,
  stopped: nullable(lit('budget', 'confirmations')),
  repeats: arr(obj<Headroom['repeats'][number]>()({ batch: num, purpose, repeat })),
});

const equivalentCandidate = obj<EquivalentCandidate>()({
  candidate,
  figures: candidateFigures,
  reading: lit('equivalent', 'cannot-tell'),
  cpuVsWinner: nullable(cpuComparison),
  p99VsWinner: nullable(pairedP99),
  lostOn: lit('simplicity', 'headroom', 'order'),
  criterion: opt(oneOf(SIMPLICITY_CRITERIA)),
});

const closest = obj<Closest>()({ candidate, figures: candidateFigures, limit: str, helps: strings });

const yardstickReading = obj<YardstickReading>()({
  index: count,
  at: lit('start', 'screen-confirm', 'confirm-headroom', 'end'),
  measuredAt: str,
  tookSec: numIn(0, Number.MAX_VALUE),
  parseCeilings,
  error: opt(str),
});

const anchorProbe = obj<AnchorProbe>()({ startedAt: str, eventsPerSec: numOrNull, cpuMsPerMillionEvents: numOrNull });

const anchorReading = obj<AnchorReading>()({ atSec: num, startedAt: str, cost: numOrNull, factor: num, repeat: nullable(repeat) });

const machineDrift = obj<MachineDrift>()({
  readings: arr(yardstickReading),
  anchor: nullable(
    obj<AnchorDrift>()({
      candidateId: str,
      chosen: str,
      first: anchorProbe,
      second: anchorProbe,
      apartSec: num,
      eventsPerSecRatio: numOrNull,
      cpuPerEventRatio: numOrNull,
      noise: obj<AnchorDrift['noise']>()({ eventsPerSec: num, cpuPerEvent: num }),
      beyondNoise: bool,
      repeat,
      readings: opt(arr(anchorReading)),
    }),
  ),
  anchorSkipped: opt(str),
});

const searchEnded = lit('converged', 'budget', 'interrupted');
const notMeasuredBucket = obj<SearchAccount['notMeasured']['notReached']>()({ count, examples: strings });

const searchAccount = obj<SearchAccount>()({
  ended: searchEnded,
  stoppedIn: nullable(lit('screen', 'confirm', 'headroom')),
  screen: nullable(obj<NonNullable<SearchAccount['screen']>>()({ endedSec: numIn(0, Number.MAX_VALUE), ended: searchEnded })),
  measurements: obj<SearchAccount['measurements']>()({ probes: count, confirmRounds: count, headroomRepeats: count }),
  notMeasured: obj<SearchAccount['notMeasured']>()({
    notReached: notMeasuredBucket,
    prunedDear: notMeasuredBucket,
    prunedHopeless: notMeasuredBucket,
    outOfBudget: notMeasuredBucket,
    interrupted: notMeasuredBucket,
  }),
});

const advice = obj<Advice>()({
  target,
  transports: arr(transport),
  margins,
  budgetSec: numIn(0, Number.MAX_VALUE),
  elapsedSec: numIn(0, Number.MAX_VALUE),
  stopped: nullable(lit('budget', 'interrupted')),
  winner: nullable(obj<NonNullable<Advice['winner']>>()({ candidate, figures: candidateFigures })),
  runnerUp: nullable(
    obj<NonNullable<Advice['runnerUp']>>()({ candidate, figures: candidateFigures, cpuVsWinner: nullable(cpuComparison), headroom: opt(nullable(headroom)) }),
  ),
  headroom: nullable(headroom),
  rejected: arr(obj<Advice['rejected'][number]>()({ candidateId: str, transport, reason: str })),
  tried: arr(triedCandidate),
  notTried: arr(obj<Advice['notTried'][number]>()({ candidate, why: str, reason: opt(oneOf(NOT_MEASURED_REASONS)) })),
  closest: nullable(closest),
  drift: opt(machineDrift),
  // --- the answer as a set (issue 34): absent in earlier reports ---
  equivalent: opt(arr(equivalentCandidate)),
  prefer: opt(arr(oneOf(SIMPLICITY_CRITERIA))),
  search: opt(searchAccount),
});

// ---- soak (protocol/soak.ts)
const soakSample = obj<SoakSample>()({
  atSec: num,
  windowSec: num,
  heapUsedMb: numOrNull,
  heapRetainedMb: opt(numOrNull),
  eventsPerSec: num,
  deliveredRatio: num,
  ageP99Ms: numOrNull,
  inputDelayP99Ms: numOrNull,
  inputsHandled: count,
  gaps: count,
  shed: count,
  reconnects: count,
  rendererCpuPercent: numOrNull,
});

const soak = obj<Soak>()({
  point,
  source: str,
  durationSec: numIn(SOAK_DURATION_SEC.min, SOAK_DURATION_SEC.max),
  sampleSec: numIn(0, Number.MAX_VALUE),
  startedAt: str,
  finishedAt: nullable(str),
  stopped: nullable(lit('interrupted', 'failed')),
  error: opt(str),
  settleSec: num,
  samples: arr(soakSample),
  reconnect: nullable(
    obj<SoakReconnect>()({
      atSec: num,
      dropped: count,
      reconnects: count,
      recoverySec: numOrNull,
      lostBatches: count,
      lostEvents: count,
      shedBatches: count,
      closedMs: num,
    }),
  ),
});

const wallAccount = obj<WallAccount>()({
  wallSec: numIn(0, Number.MAX_VALUE),
  windowsSec: numIn(0, Number.MAX_VALUE),
  windowShare: numIn(0, 1),
  outsideSec: obj<WallAccount['outsideSec']>()(
    Object.fromEntries(WALL_PARTS.map((part) => [part, numIn(0, Number.MAX_VALUE)])) as Props<WallAccount['outsideSec']>,
  ),
});

// ---- payload (protocol/payload.ts)
const bytesPerEvent = numIn(0, Number.MAX_VALUE);
/** What a server answers at /payload, as report.json keeps it. */
export const PAYLOAD_SHAPE = obj<PayloadDescription>()({
  source: nullable(str),
  sha256: nullable(str),
  format: nullable(lit('ndjson', 'json-array', 'har')),
  shape: lit('array', 'object'),
  events: count,
  bytesPerEvent: obj<PayloadDescription['bytesPerEvent']>()(
    Object.fromEntries(ENCODING_NAMES.map((e) => [e, bytesPerEvent])) as Props<PayloadDescription['bytesPerEvent']>,
  ),
  fields: strings,
  nestingDepth: numIn(0, ROWS_MAX_DEPTH, true),
  chartField: opt(nullable(str)),
  recorded: opt(recordedPace()),
  maxBatch: opt(inRange(LIMITS.batch)),
});

/** `payload.recorded`: the recording's figures, or why there is none (told apart by `why`). */
function recordedPace(): Shape<NonNullable<PayloadDescription['recorded']>> {
  const why = obj<{ why: string }>()({ why: str });
  const figures = obj<{ eventsPerSec: number; periodMs: number }>()({ eventsPerSec: numIn(0, Number.MAX_VALUE), periodMs: numIn(0, Number.MAX_VALUE) });
  return {
    allowed: '{eventsPerSec, periodMs} or {why}',
    check: (v, at) => (isObject(v) && 'why' in v ? why : figures).check(v, at),
  };
}

/** A current (schemaVersion 4) report, whole. */
export const REPORT: Shape<Report> = obj<Report>()({
  schemaVersion: lit(4),
  runId: str,
  startedAt: str,
  finishedAt: nullable(str),
  interrupted: bool,
  resumeCommand: nullable(str),
  scenarios: strings,
  environment,
  hosts: opt(arr(browserHost)),
  devices: opt(arr(deviceCalibration)),
  options: sweepOptions,
  rounds: arr(round),
  points: arr(pointResult),
  comparisons: arr(pairedComparison),
  knobs: opt(arr(knobComparison)),
  saturation: arr(saturationResult),
  advice: opt(advice),
  soak: opt(soak),
  wall: opt(wallAccount),
  payload: opt(PAYLOAD_SHAPE),
});
