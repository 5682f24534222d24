/**
 * The advisor's answer as a scenario file a plain sweep can run: the advised setup and the
 * runner-up, each a one-point scenario at the target's render mode, so `npm run sweep` measures
 * them in paired, interleaved rounds of its own and `npm run report -- --compare <run>
 * --scenarios runner-up,advised` reads one against the other (results/compare.ts pairs two
 * one-point scenarios whatever differs). It checks the claim with the sweep's own statistics.
 */
import type { Advice, Candidate } from '../../protocol/advice.js';
import type { ScenarioFile, ScenarioInput } from '../../protocol/scenario.js';
import { tabOf } from '../../protocol/tab-state.js';
import { conditionsOf, type Conditions } from './measurer.js';

/** The scenario ids of the confirm file, in the order `--scenarios` compares them (A, then B). */
export const CONFIRM_SCENARIOS = { runnerUp: 'runner-up', advised: 'advised' } as const;

/** Rounds the confirming sweep asks for: enough for a paired CI, as the check asks. */
export const CONFIRM_ROUNDS = 5;

/**
 * Each condition the answer holds for (measurer.ts Conditions: every candidate of the search ran
 * under them) as the scenario fields a sweep makes it again with. The compiler holds this to
 * Conditions, so a condition added there cannot be left out of the check, as `pace` once was.
 */
const SCENARIO_FIELDS_OF: { [K in keyof Conditions]-?: (c: Conditions) => Partial<ScenarioInput> } = {
  render: (c) => ({ render: c.render }),
  // The class the answer holds for: the sweep calibrates it again on its own run.
  device: (c) => (c.device !== undefined ? { device: c.device } : {}),
  throttle: (c) => (c.throttle !== undefined ? { throttle: c.throttle } : {}),
  // Batches at the rows file's recorded times (the file itself is the run's: confirmScenarioFile's `events`).
  pace: (c) => (c.pace !== undefined ? { pace: c.pace } : {}),
  // The page the answer holds for: the sweep builds the file again (its path as given, from the project root).
  renderModule: (c) => (c.renderModule ? { renderModule: c.renderModule.path } : {}),
  // The tab state the answer holds for, and a hidden-long target's grace (tabOf writes both).
  tab: (c) => tabOf(c),
  hiddenLongGraceSec: () => ({}),
  // The link the answer holds for: the sweep makes it again.
  link: (c) => (c.link !== undefined ? { link: c.link } : {}),
};

function scenarioOf(id: string, c: Candidate, a: Advice, words: string): ScenarioInput {
  const on = conditionsOf(a.target);
  return {
    id,
    description: `${words} for ${a.target.eventsPerSec} events/s with p99 ≤ ${a.target.p99BoundMs} ms: ${c.id}`,
    transport: c.transport,
    batch: c.batch,
    concurrency: c.concurrency,
    intervalMs: c.intervalMs,
    parse: c.parse,
    ...(c.parse === 'worker' ? { workers: c.workers } : {}),
    ...(c.pollMs !== undefined ? { pollMs: c.pollMs } : {}),
    ...(c.origins > 1 ? { origins: c.origins } : {}),
    ...(c.encoding !== 'json' ? { encoding: c.encoding } : {}),
    ...(c.compression ? { compression: c.compression } : {}),
    ...Object.assign({}, ...Object.values(SCENARIO_FIELDS_OF).map((fields) => fields(on))),
  };
}

/**
 * The events the search streamed, when not the lab's car rows: `rows`, the file as the server
 * read it (an absolute path: the confirm file lives in the run's folder, and a relative
 * `defaults.rows` is read against that), and the chart field; absent or '': the car rows.
 */
export interface ConfirmEvents {
  rows: string;
  chartField: string;
}

/** The confirm file for an answer with a winner and a runner-up; null without both. */
export function confirmScenarioFile(a: Advice, events?: ConfirmEvents): ScenarioFile | null {
  if (!a.winner || !a.runnerUp) return null;
  return {
    // The answer holds for the events it was measured on: the sweep streams the same file.
    ...(events?.rows ? { defaults: { rows: events.rows, ...(events.chartField ? { chartField: events.chartField } : {}) } } : {}),
    default: [CONFIRM_SCENARIOS.runnerUp, CONFIRM_SCENARIOS.advised],
    scenarios: [
      scenarioOf(CONFIRM_SCENARIOS.runnerUp, a.runnerUp.candidate, a, 'The runner-up'),
      scenarioOf(CONFIRM_SCENARIOS.advised, a.winner.candidate, a, 'The advised setup'),
    ],
  };
}
