/** Measures the in-page JSON.parse ceiling once per batch size, on a fresh lab page. */
import type { Browser } from 'puppeteer-core';
import type { ParseCeiling, PushlabApi } from '../protocol/report.js';
import { openLabPage } from './runner.js';

export const CEILING_MS = 1500;

export async function measureCeilings(browser: Browser, serverUrl: string, batches: readonly number[]): Promise<ParseCeiling[]> {
  const out: ParseCeiling[] = [];
  for (const batch of [...new Set(batches)].sort((a, b) => a - b)) {
    const page = await browser.newPage();
    try {
      await openLabPage(page, serverUrl);
      out.push(await page.evaluate((b, ms) => (globalThis as unknown as { pushlab: PushlabApi }).pushlab.parseCeiling(b, ms), batch, CEILING_MS));
    } finally {
      await page.close().catch(() => undefined);
    }
  }
  return out;
}
