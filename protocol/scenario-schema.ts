/**
 * The scenario file's schema, written once with TypeBox: it is both the JSON Schema that
 * validates scenarios.json and, through `Static`, the TypeScript types of what it accepts.
 * Ranges and enums come from protocol/limits.ts and protocol/wire.ts, so a new transport or
 * a changed limit needs no edit here. `npm run gen:schema` writes it to
 * protocol/scenarios.schema.json (for editors, via the file's `$schema`); a test fails when
 * that file is stale.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { LIMITS, P99_BOUND_MS, type Range } from './limits.js';
import { ENGINES } from './engine.js';
import { transportsCarrying, COMPRESSIONS, compressionOf, DEVTOOLS_MODES, DISPLAY_MODES, ENCODINGS, PARSE_MODES, RENDER_MODES, TRANSPORTS } from './wire.js';
import { TRANSPORT_INFO } from './wire.js';

const numberIn = (r: Range) => (r.integer ? Type.Integer({ minimum: r.min, maximum: r.max }) : Type.Number({ minimum: r.min, maximum: r.max }));

/** One value, or a list of them that the sweep crosses with every other listed factor. */
const oneOrMany = <T extends TSchema>(item: T, description: string, unique = false) =>
  Type.Optional(Type.Union([item, Type.Array(item, { minItems: 1, ...(unique ? { uniqueItems: true } : {}) })], { description }));

const fieldProperties = {
  transport: oneOrMany(Type.Enum(TRANSPORTS), `Transports to measure: ${TRANSPORTS.join(', ')}.`, true),
  batch: oneOrMany(numberIn(LIMITS.batch), 'Rows per batch.'),
  concurrency: oneOrMany(numberIn(LIMITS.concurrency), 'Connections the page opens at once.'),
  intervalMs: oneOrMany(numberIn(LIMITS.intervalMs), 'Milliseconds between batches on one connection.'),
  render: oneOrMany(Type.Enum(RENDER_MODES), 'full: table and chart; chart: chart only; none: counting only.', true),
  parse: oneOrMany(Type.Enum(PARSE_MODES), 'main: parse on the page\'s main thread; worker: in `workers` dedicated Workers.', true),
  workers: oneOrMany(numberIn(LIMITS.workers), 'Workers for parse mode worker (connections are dealt round-robin).'),
  origins: oneOrMany(
    numberIn(LIMITS.origins),
    `Origins (server ports) the page spreads its connections over, connection i on origin i mod k: over HTTP/2 that is k TCP connections instead of one. Only transports on the main origin (${TRANSPORTS.filter((t) => TRANSPORT_INFO[t].origin === 'main').join(', ')}) are multiplied by it.`,
  ),
  encoding: oneOrMany(Type.Enum(ENCODINGS), `json; msgpack: MessagePack batches decoded in the page (${transportsCarrying('msgpack').join(', ')}); arrow: Apache Arrow IPC record batches decoded in the page (${transportsCarrying('arrow').join(', ')}). A transport is multiplied by the listed encodings it carries; by none, it runs json.`, true),
  devtools: oneOrMany(Type.Enum(DEVTOOLS_MODES), "off, or network: the CDP Network domain enabled on the tab during the point, as DevTools does while open.", true),
  tabs: oneOrMany(
    numberIn(LIMITS.tabs),
    "Tabs of the one browser streaming the point at once, each its own renderer, all sharing the browser's network service: the point's EPS is their total (offered = tabs × batch × concurrency × 1000 / intervalMs).",
  ),
  display: oneOrMany(
    Type.Enum(DISPLAY_MODES),
    'headless: the sweep\'s headless Chrome; headful: a Chrome with a window, launched on first use (under an Xvfb the sweep starts when there is no DISPLAY).',
    true,
  ),
  engine: oneOrMany(
    Type.Enum(ENGINES),
    "chrome: the sweep's Chrome (over CDP); firefox: a Firefox the sweep launches on first use (over WebDriver BiDi; its CPU from /proc). --engine overrides it.",
    true,
  ),
  compression: oneOrMany(
    Type.Enum(COMPRESSIONS),
    `off; deflate: permessage-deflate on ${TRANSPORTS.filter((t) => compressionOf(t) === 'deflate').join(', ')}; gzip: Content-Encoding on ${TRANSPORTS.filter((t) => compressionOf(t) === 'gzip').join(', ')} (each transport is multiplied only by the values it carries).`,
    true,
  ),
  pollMs: oneOrMany(numberIn(LIMITS.pollMs), 'Milliseconds between the starts of two requests of the poll transport (only poll points are multiplied by it).'),
  warmupSec: Type.Optional(Type.Number({ minimum: LIMITS.warmupSec.min, maximum: LIMITS.warmupSec.max, description: 'Seconds streamed before the measured window.' })),
  measureSec: Type.Optional(Type.Number({ minimum: LIMITS.measureSec.min, maximum: LIMITS.measureSec.max, description: 'Length of the measured window in seconds.' })),
  repeats: Type.Optional(Type.Integer({ minimum: LIMITS.repeats.min, maximum: LIMITS.repeats.max, description: 'Times every point is measured, one round each (--repeats overrides it).' })),
};

/** Search `vary` in [min, max] for the highest sustainable EPS, the other factor held at the scenario's. */
const FindMax = Type.Object(
  {
    vary: Type.Enum(['batch', 'concurrency'], { description: 'The factor searched; the other one is the scenario\'s.' }),
    // Each bound is checked against the limits of the factor searched when the file is read.
    min: Type.Integer({ minimum: 1, maximum: Math.max(LIMITS.batch.max, LIMITS.concurrency.max), description: 'Lowest value searched.' }),
    max: Type.Integer({ minimum: 1, maximum: Math.max(LIMITS.batch.max, LIMITS.concurrency.max), description: 'Highest value searched.' }),
    p99BoundMs: Type.Optional(
      Type.Number({ minimum: P99_BOUND_MS.min, maximum: P99_BOUND_MS.max, description: 'Latency p99 bound of a sustainable load, ms (default 50, the reference\'s goal).' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Search one factor for the highest sustainable EPS of each transport (delivered ≥ 99%, nothing shed, latency p99 ≤ p99BoundMs); every other factor holds one value.',
  },
);

const Fields = Type.Object(fieldProperties, { additionalProperties: false, description: 'Values every scenario inherits unless it sets its own.' });

/** The file's `defaults`: the scenario fields, and what holds for the whole run (its margins). */
const Defaults = Type.Object(
  {
    ...fieldProperties,
    margin: Type.Optional(
      Type.String({
        description:
          "Practical margins the run's comparisons are read against, as `--margin` takes them: eps=<p>%,cpu=<p>% (either or both; default eps=3%,cpu=5%). `--margin` overrides it; the report records the margins used.",
      }),
    ),
  },
  { additionalProperties: false, description: 'Values every scenario inherits unless it sets its own, and the run-wide margin.' },
);

const ScenarioInputSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', description: 'Stable, sortable name; also names result files.' }),
    description: Type.Optional(Type.String()),
    ...fieldProperties,
    findMax: Type.Optional(FindMax),
  },
  { additionalProperties: false },
);

const HEADER = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://pushlab.local/scenarios.schema.json',
  title: 'pushlab scenarios',
  description:
    'Sweeps for `npm run sweep`. Array-valued fields expand to the cross product of points. Generated from protocol/scenario-schema.ts by `npm run gen:schema`: do not edit.',
};

export const SCENARIO_FILE_SCHEMA = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    default: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'Scenario or group ids run when --scenario is not given.' })),
    groups: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }), Type.Array(Type.String(), { minItems: 1, uniqueItems: true }), {
        description: 'Named lists of scenario ids: `--scenario <group>` runs them all (timeplus: the reference\'s three tests).',
      }),
    ),
    defaults: Type.Optional(Defaults),
    scenarios: Type.Array(ScenarioInputSchema, { minItems: 1 }),
  },
  { ...HEADER, additionalProperties: false },
);

/** The fields a scenario (or the file's `defaults`) may set. */
export type ScenarioFields = Static<typeof Fields>;
export type ScenarioInput = Static<typeof ScenarioInputSchema>;
export type ScenarioFile = Static<typeof SCENARIO_FILE_SCHEMA>;
export type FindMaxSpec = Static<typeof FindMax>;

/** The committed protocol/scenarios.schema.json's text: the schema, its `$schema` and title first. */
export function scenarioSchemaText(): string {
  return `${JSON.stringify({ ...HEADER, ...SCENARIO_FILE_SCHEMA }, null, 2)}\n`;
}
