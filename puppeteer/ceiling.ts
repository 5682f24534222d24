/** Measures the in-page JSON.parse ceiling once per batch size, on a fresh lab page. */
import type { Browser } from 'puppeteer-core';
import type { ParseCeiling } from '../protocol/report.js';
import { openLabPage } from './lab-page.js';

export const CEILING_MS = 1500;

export async function measureCeilings(browser: Browser, serverUrl: string, batches: readonly number[]): Promise<ParseCeiling[]> {
  const out: ParseCeiling[] = [];
  for (const batch of [...new Set(batches)].sort((a, b) => a - b)) {
    const page = await browser.newPage();
    try {
      const api = await openLabPage(page, serverUrl);
      out.push(await api.evaluate((p, b, ms) => p.parseCeiling(b, ms), batch, CEILING_MS));
    } finally {
      await page.close().catch(() => undefined);
    }
  }
  return out;
}
