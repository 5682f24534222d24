/**
 * Measures the in-page decoding ceilings (JSON.parse, and each other encoding a round uses) at
 * each batch size, on one fresh lab page per round:
 * the machine's speed drifts (by 2× between days here), so each round measures its own and
 * every repeat is related to the ceiling of its round.
 */
import type { Page } from 'puppeteer-core';
import type { ParseCeiling } from '../../protocol/page-api.js';
import type { CeilingNeed } from '../../results/ceilings.js';
import { openLabPage } from './page.js';

/**
 * Timed parsing per batch size, ms, after the page's own 200 ms warm-up and never fewer than
 * two passes over the sample (web/lab/ceiling.ts): hundreds of thousands of events at any
 * batch size. Against the 1,000 ms it was (after one warm-up pass), in interleaved pairs under
 * the lock, the median ratio was 1.03, 0.99, 0.99 and 1.02 at batch 20, 100, 400 and 1,000
 * (8, 8, 8 and 6 pairs), 1.03, 1.03 and 1.11 at 20, 400 and 2,000 in a second series (5 pairs),
 * each within the 1,000 ms figures' own spread (11–50%); each batch size of each round takes
 * ~0.5 s less (batch 10,000: two passes either way).
 */
export const CEILING_MS = 300;

/** `browser`: a puppeteer Browser, or a BrowserSlot (which opens tabs in its own context). */
export async function measureCeilings(
  browser: { newPage(): Promise<Page> },
  serverUrl: string,
  needs: readonly CeilingNeed[],
  signal?: AbortSignal,
): Promise<ParseCeiling[]> {
  const out: ParseCeiling[] = [];
  const page = await browser.newPage();
  try {
    const api = await openLabPage(page, serverUrl);
    for (const { batch, encoding } of needs) {
      signal?.throwIfAborted();
      out.push(await api.evaluate((p, b, ms, e) => p.parseCeiling(b, ms, e), batch, CEILING_MS, encoding));
    }
  } finally {
    await page.close().catch(() => undefined);
  }
  return out;
}
