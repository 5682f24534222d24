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

/** The scenario ids of the confirm file, in the order `--scenarios` compares them (A, then B). */
export const CONFIRM_SCENARIOS = { runnerUp: 'runner-up', advised: 'advised' } as const;

/** Rounds the confirming sweep asks for: enough for a paired CI, as the check asks. */
export const CONFIRM_ROUNDS = 5;

function scenarioOf(id: string, c: Candidate, a: Advice, words: string): ScenarioInput {
  return {
    id,
    description: `${words} for ${a.target.eventsPerSec} events/s with p99 ≤ ${a.target.p99BoundMs} ms: ${c.id}`,
    transport: c.transport,
    batch: c.batch,
    concurrency: c.concurrency,
    intervalMs: c.intervalMs,
    render: a.target.render,
    parse: c.parse,
    ...(c.parse === 'worker' ? { workers: c.workers } : {}),
    ...(c.pollMs !== undefined ? { pollMs: c.pollMs } : {}),
    ...(c.origins > 1 ? { origins: c.origins } : {}),
    ...(c.encoding !== 'json' ? { encoding: c.encoding } : {}),
    ...(c.compression ? { compression: c.compression } : {}),
    // The class the answer holds for: the sweep calibrates it again on its own run.
    ...(a.target.device !== undefined ? { device: a.target.device } : {}),
    ...(a.target.throttle !== undefined ? { throttle: a.target.throttle } : {}),
    // The tab state the answer holds for, and a hidden-long target's grace.
    ...tabOf(a.target),
    // The link the answer holds for: the sweep makes it again.
    ...(a.target.link !== undefined ? { link: a.target.link } : {}),
    // The page the answer holds for: the sweep builds the file again (its path as given, from the project root).
    ...(a.target.renderModule ? { renderModule: a.target.renderModule.path } : {}),
  };
}

/** The confirm file for an answer with a winner and a runner-up; null without both. */
export function confirmScenarioFile(a: Advice): ScenarioFile | null {
  if (!a.winner || !a.runnerUp) return null;
  return {
    default: [CONFIRM_SCENARIOS.runnerUp, CONFIRM_SCENARIOS.advised],
    scenarios: [
      scenarioOf(CONFIRM_SCENARIOS.runnerUp, a.runnerUp.candidate, a, 'The runner-up'),
      scenarioOf(CONFIRM_SCENARIOS.advised, a.winner.candidate, a, 'The advised setup'),
    ],
  };
}
