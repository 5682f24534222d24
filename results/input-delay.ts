/**
 * A repeat's input delay p99 as the sustains rule, the table's `input p99 ms` column and the
 * point summary read it. Pure, no Node or DOM.
 *
 * The driver keeps one input in flight and counts it when sent (puppeteer/measure/input-sender.ts);
 * Chrome answers a dispatch only once the page took it. So the input the window ends on may
 * still be waiting, and on a main thread blocked for the whole window the first one never lands
 * (sent 1, handled 0). Its wait so far (`unansweredMs`) is a lower bound on its delay and counts
 * as one more sample: where it ranks at the p99 (fewer than 99 answered, with 4 inputs a second
 * every window of under 25 s) the p99 is at least that wait.
 */
import type { InputFigures } from '../protocol/repeat-figures.js';

/**
 * The input delay p99, ms, with the unanswered input counted as a lower bound; null without
 * the figure (input the browser refused, nothing sent, or none answered in a report that did
 * not keep how long it waited). With none answered it is that wait: a figure for the table; the
 * rule reads such a window as unbounded (`noneAnswered`), whatever the bound.
 */
export function inputDelayP99Ms(input: InputFigures): number | null {
  if (input.unavailable !== undefined) return null;
  const waited = input.unansweredMs;
  if (input.handled === 0) return input.sent > input.handled ? (waited ?? null) : null;
  const p99 = input.delayMs.p99Ms;
  if (waited === undefined || p99 === null) return p99;
  // Nearest rank over the answered inputs and the waiting one, which ranks last when it exceeds them.
  const n = input.handled + 1;
  return Math.ceil(0.99 * n) === n ? Math.max(p99, waited) : p99;
}

/** Whether the page answered none of the inputs sent in the window (the words say so). */
export const noneAnswered = (input: InputFigures): boolean => input.unavailable === undefined && input.handled === 0 && input.sent > input.handled;
