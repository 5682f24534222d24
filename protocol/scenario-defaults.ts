/**
 * The built-in scenario defaults, under a scenario file's own `defaults`: apart from
 * scenario.ts, whose validator (TypeBox's schema, ajv) a reader of the defaults need not load.
 */
import type { ScenarioFields } from './scenario-schema.js';
import type { Engine } from './engine.js';
import { FACTOR_NAMES, FACTORS } from './factors.js';
import { CHROME_INTENSIVE_GRACE_SEC } from './tab-state.js';

export type BuiltinDefaults = Required<Omit<ScenarioFields, 'batch' | 'concurrency' | 'findMax' | 'display' | 'engine'>> & { engine: Engine };

/** Each factor's default that is a value (FactorInfo.default; batch, concurrency and display have none). */
const FACTOR_DEFAULTS = Object.fromEntries(
  FACTOR_NAMES.flatMap((name) => (FACTORS[name].default === undefined ? [] : [[name, FACTORS[name].default]])),
) as unknown as Omit<BuiltinDefaults, 'warmupSec' | 'measureSec' | 'repeats' | 'hiddenLongGraceSec'>;

/**
 * Built-in values under the file's `defaults`: each factor's (the reference's two transports
 * and 1 ms interval), and the timing. `display` has none: a point runs in the sweep's own
 * browser unless its scenario names one.
 */
export const BUILTIN_DEFAULTS: BuiltinDefaults = {
  ...FACTOR_DEFAULTS,
  warmupSec: 2,
  measureSec: 5,
  repeats: 3,
  hiddenLongGraceSec: CHROME_INTENSIVE_GRACE_SEC,
};
