/**
 * Sends real input to a page while a window is measured, so the page can say whether it still
 * answers (web/lab/input-probe.ts times each). Through puppeteer's page.mouse and page.keyboard,
 * which are the browser's input pipeline: in Chrome, CDP `Input.dispatchMouseEvent` /
 * `Input.dispatchKeyEvent` on the tab's session; in Firefox, WebDriver BiDi
 * `input.performActions`. Input sent that way reaches the renderer like a user's, queued behind
 * whatever the main thread is doing (pitfalls 28).
 *
 * Bounded: one input every INPUT_EVERY_MS, alternating a click and a key press, and at most one
 * in flight (Chrome answers a dispatch only once the renderer has taken the event, so on a
 * swamped page a tick is skipped rather than letting inputs pile up, as a user waits for a
 * click to land before the next). Every exit path stops it: `stop()`, and the signal of the
 * repeat that started it (an error, a timeout, a crash or Ctrl-C all abort it).
 */
import type { Page } from 'puppeteer-core';
import { Histogram, type LatencySummary } from '../../protocol/histogram.js';

/** A few inputs a second: enough for a p99 over a confirmation's windows, far too few to load the page. */
export const INPUT_EVERY_MS = 250;

/**
 * Where clicks land, CSS px: the page's top-left margin, outside every control, so a click
 * starts nothing (on the lab page, the heading's left margin).
 */
const CLICK_AT = { x: 2, y: 2 };
/** A key with no default action and no meaning to the page. */
const KEY = 'Shift';

export interface InputSender {
  /**
   * Stops sending at once: the input in flight (if any) is not waited for, so the window ends
   * when it was planned to; the page then has handled fewer than were sent, and `unansweredMs`
   * says how long that one had waited.
   */
  stop(): InputSent;
}

/** What the driver sent over a window. */
export interface InputSent {
  sent: number;
  /** Why input could not be sent; null when it could. */
  unavailable: string | null;
  /**
   * Each input's round trip as the driver saw it, ms: from sending its first event (the press)
   * to the browser answering that event. Chrome answers once the renderer has handled it;
   * Firefox once its content process has dispatched it (then the page's own timestamp comes after
   * any wait, so only this figure holds the wait).
   */
  roundTrip: LatencySummary;
  /**
   * How long the input in flight when sending stopped had waited unanswered, ms, from sending
   * its first event; null when none was waiting. A lower bound on its delay: on a main thread
   * blocked for the whole window the first input never lands, and without this figure the
   * window would read as one input sent, none handled, and no delay.
   */
  unansweredMs: number | null;
}

/** Starts sending input to `page` now; `signal` aborting stops it too. */
export function sendInput(page: Page, signal: AbortSignal, everyMs = INPUT_EVERY_MS): InputSender {
  let sent = 0;
  let unavailable: string | null = null;
  let inFlight: Promise<void> | null = null;
  const roundTrip = new Histogram();
  let stopped = false;
  // When the input in flight sent its first event; null once the browser answered its press.
  let waitingSince: number | null = null;
  const one = async (n: number) => {
    waitingSince = performance.now();
    if (n % 2 === 0) {
      // Moved there once: a move per click would add a mousemove (and its hit test) each time.
      if (n === 0) await page.mouse.move(CLICK_AT.x, CLICK_AT.y);
      const t0 = performance.now();
      await page.mouse.down();
      roundTrip.record((performance.now() - t0) * 1000);
      waitingSince = null;
      await page.mouse.up();
    } else {
      const t0 = performance.now();
      await page.keyboard.down(KEY);
      roundTrip.record((performance.now() - t0) * 1000);
      waitingSince = null;
      await page.keyboard.up(KEY);
    }
  };
  const tick = () => {
    if (stopped || inFlight) return;
    const n = sent++;
    inFlight = one(n)
      .catch((err: unknown) => {
        // A browser that refuses input (closed page aside) has no figure to give: say why, once.
        if (!stopped && !signal.aborted) {
          unavailable = `input could not be sent: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
          halt();
        }
      })
      .finally(() => {
        inFlight = null;
        waitingSince = null;
      });
  };
  const timer = setInterval(tick, everyMs);
  const halt = () => {
    stopped = true;
    clearInterval(timer);
  };
  signal.addEventListener('abort', halt, { once: true });
  tick();
  return {
    stop() {
      halt();
      signal.removeEventListener('abort', halt);
      const unansweredMs = waitingSince === null || unavailable !== null ? null : performance.now() - waitingSince;
      return { sent, unavailable, roundTrip: roundTrip.summary(), unansweredMs };
    },
  };
}
