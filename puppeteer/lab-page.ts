/** Opening the lab page (or a bench page) in a tab and waiting until it can be driven. */
import type { Page } from 'puppeteer-core';

/** Loads the lab page and waits for `window.pushlab`. */
export async function openLabPage(page: Page, serverUrl: string): Promise<void> {
  // With the Network domain off, goto() resolves to null instead of a response, so success
  // is judged by the page itself: its control surface appears.
  const res = await page.goto(serverUrl, { waitUntil: 'load', timeout: 30_000 });
  if (res && !res.ok()) throw new Error(`loading ${serverUrl} gave HTTP ${res.status()}`);
  await page.waitForFunction(() => typeof (globalThis as { pushlab?: unknown }).pushlab === 'object', { timeout: 10_000 }).catch(() => {
    throw new Error(`${serverUrl} loaded, but window.pushlab never appeared: is the page built (npm run build)?`);
  });
}
