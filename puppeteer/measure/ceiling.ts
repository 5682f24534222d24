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

/** Parsing time per batch size, ms: thousands of parses at any batch size, so the rate is stable. */
export const CEILING_MS = 1000;

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
