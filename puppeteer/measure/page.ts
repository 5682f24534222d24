/**
 * Opening a page the driver measures (the lab page, or the bench's bare page) and reaching its
 * `window.pushlab`. Serves the runner, the parse ceiling, the soak bench and the tests.
 */
import type { JSHandle, Page } from 'puppeteer-core';
import type { PushlabApi } from '../../protocol/page-api.js';

/** `window.pushlab` as seen from the driver: run a function on it with `api.evaluate((p, …) => p.start(…), …)`. */
export type LabApi = JSHandle<PushlabApi>;

/** Loads the page at `url`, waits for `window.pushlab` and returns a handle to it. */
export async function openLabPage(page: Page, url: string): Promise<LabApi> {
  // With the Network domain off, goto() resolves to null instead of a response, so success
  // is judged by the page itself: its control surface appears.
  const res = await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  // Over WebDriver BiDi (Firefox) a page loaded before comes back as 304 from its cache: loaded all the same.
  if (res && !res.ok() && res.status() !== 304) throw new Error(`loading ${url} gave HTTP ${res.status()}`);
  // The one place the driver names the page's global: a function given to evaluate() runs in
  // the page and cannot import a helper, so callers get this handle instead.
  const pushlabOf = () => (globalThis as unknown as { pushlab?: PushlabApi }).pushlab;
  // At `load` the page's module has run, so the global is there: two plain calls take a few ms,
  // where waitForFunction first injects Puppeteer's poller into the fresh page (40–75 ms a tab).
  if (await page.evaluate(() => typeof (globalThis as { pushlab?: unknown }).pushlab === 'object')) {
    return (await page.evaluateHandle(pushlabOf)) as unknown as LabApi;
  }
  const handle = await page.waitForFunction(pushlabOf, { timeout: 10_000 }).catch(() => {
    throw new Error(`${url} loaded, but window.pushlab never appeared: is the page built (npm run build)?`);
  });
  return handle as unknown as LabApi;
}
