/**
 * The scenario file's schema, written once with TypeBox: it is both the JSON Schema that
 * validates scenarios.json and, through `Static`, the TypeScript types of what it accepts.
 * Each factor's field comes from its entry in protocol/factors.ts (its range from
 * protocol/limits.ts, or its enum), so a new factor, transport or a changed limit needs no
 * edit here. `npm run gen:schema` writes it to protocol/scenarios.schema.json (for editors,
 * via the file's `$schema`); a test fails when that file is stale.
 */
import { Type, type Static, type TOptional, type TSchema, type TUnsafe } from 'typebox';
import { FACTOR_NAMES, FACTORS, type FactorName, type FactorValues, type FactorInfo } from './factors.js';
import { LIMITS, P99_BOUND_MS, type Range } from './limits.js';

const numberIn = (r: Range) => (r.integer ? Type.Integer({ minimum: r.min, maximum: r.max }) : Type.Number({ minimum: r.min, maximum: r.max }));

/** One value, or a list of them that the sweep crosses with every other listed factor. */
const oneOrMany = <T extends TSchema>(item: T, description: string, unique = false) =>
  Type.Optional(Type.Union([item, Type.Array(item, { minItems: 1, ...(unique ? { uniqueItems: true } : {}) })], { description }));

/** A factor's field: one value of its enum (each listed once), pattern (each listed once) or range, or a list of them. */
function factorField<K extends FactorName>(f: FactorInfo<K>) {
  if ('values' in f.schema) return oneOrMany(Type.Enum([...f.schema.values] as string[]), f.schema.description, true);
  if ('pattern' in f.schema) return oneOrMany(Type.String({ pattern: f.schema.pattern }), f.schema.description, true);
  return oneOrMany(numberIn(f.schema.range), f.schema.description);
}

// Built from the registry at run time; typed here, since a loop's schema has no static type of its own.
const factorProperties = Object.fromEntries(FACTOR_NAMES.map((name) => [name, factorField(FACTORS[name] as FactorInfo<FactorName>)])) as unknown as {
  [K in FactorName]: TOptional<TUnsafe<FactorValues[K] | FactorValues[K][]>>;
};

const fieldProperties = {
  ...factorProperties,
  warmupSec: Type.Optional(
    Type.Number({ minimum: LIMITS.warmupSec.min, maximum: LIMITS.warmupSec.max, description: 'Seconds streamed before the measured window.' }),
  ),
  measureSec: Type.Optional(
    Type.Number({ minimum: LIMITS.measureSec.min, maximum: LIMITS.measureSec.max, description: 'Length of the measured window in seconds.' }),
  ),
  hiddenLongGraceSec: Type.Optional(
    Type.Integer({
      minimum: LIMITS.hiddenLongGraceSec.min,
      maximum: LIMITS.hiddenLongGraceSec.max,
      description:
        "tab hidden-long only: seconds the tab is hidden before Chrome's intensive wake-up throttling starts (Chrome's own: 300, the default). A shorter one is Chromium's own feature parameter (IntensiveWakeUpThrottling:grace_period_seconds), the same throttling sooner, not a different one. The point streams hidden for it plus 5 s before its warm-up.",
    }),
  ),
  renderModule: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "A team's own page component drawn instead of pushlab's table and charts: an ES module (.js, .mjs, .jsx, .ts, .tsx) exporting mount(host, page), relative to the project root (docs/your-stream.md). --render-module overrides it.",
    }),
  ),
  repeats: Type.Optional(
    Type.Integer({
      minimum: LIMITS.repeats.min,
      maximum: LIMITS.repeats.max,
      description: 'Times every point is measured, one round each (--repeats overrides it).',
    }),
  ),
};

/** Search `vary` in [min, max] for the highest sustainable EPS, the other factor held at the scenario's. */
const FindMax = Type.Object(
  {
    vary: Type.Enum(['batch', 'concurrency'], { description: "The factor searched; the other one is the scenario's." }),
    // Each bound is checked against the limits of the factor searched when the file is read.
    min: Type.Integer({ minimum: 1, maximum: Math.max(LIMITS.batch.max, LIMITS.concurrency.max), description: 'Lowest value searched.' }),
    max: Type.Integer({ minimum: 1, maximum: Math.max(LIMITS.batch.max, LIMITS.concurrency.max), description: 'Highest value searched.' }),
    p99BoundMs: Type.Optional(
      Type.Number({
        minimum: P99_BOUND_MS.min,
        maximum: P99_BOUND_MS.max,
        description: "Latency p99 bound of a sustainable load, ms (default 50, the reference's goal).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Search one factor for the highest sustainable EPS of each transport (delivered ≥ 99%, nothing lost, pooled latency p99 ≤ p99BoundMs, not falling behind); every other factor holds one value.',
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
    rows: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The events the run streams instead of the lab's car rows: a file as `--rows` takes it (NDJSON, a JSON array of events, or a HAR), relative to this file's folder. `--rows` overrides it. Run-wide: one server streams one pool, so it is not a per-scenario factor.",
      }),
    ),
    chartField: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "The numeric field of the events the page's chart plots (max per 1 s), as `--chart-field` takes it; default the first numeric field (speed for the car rows). Goes with `rows`: `--chart-field` overrides it, and `--rows` drops it (another file has other fields).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Values every scenario inherits unless it sets its own, and what holds for the whole run: its margin and its rows.',
  },
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
        description: "Named lists of scenario ids: `--scenario <group>` runs them all (timeplus: the reference's three tests).",
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
