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
   * when it was planned to; the page then has handled fewer than were sent.
   */
  stop(): { sent: number; unavailable: string | null };
}

/** Starts sending input to `page` now; `signal` aborting stops it too. */
export function sendInput(page: Page, signal: AbortSignal, everyMs = INPUT_EVERY_MS): InputSender {
  let sent = 0;
  let unavailable: string | null = null;
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  const one = async (n: number) => {
    if (n % 2 === 0) {
      // Moved there once: a move per click would add a mousemove (and its hit test) each time.
      if (n === 0) await page.mouse.move(CLICK_AT.x, CLICK_AT.y);
      await page.mouse.down();
      await page.mouse.up();
    } else {
      await page.keyboard.down(KEY);
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
      return { sent, unavailable };
    },
  };
}
