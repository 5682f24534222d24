/**
 * The file that travels: report.html written for the recorded fixture, opened by a real
 * headless Chromium from file:// with every request that is not file: or data: aborted (so
 * nothing may come from a server or the network). Checks no console errors, every chart has
 * drawn pixels, one table row per point, each row one line high, the details row and the
 * sort. Keeps screenshots of the top and of one scenario in test-artifacts/ (looked at by
 * hand; see the commit that changed the viewer).
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportText } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { launchChrome } from '../../puppeteer/browser/chrome.js';
import { knobComparisons } from '../../results/knobs.js';
import { writeReportHtml } from '../../puppeteer/report/html.js';

/** Page globals used inside evaluated callbacks (this project's tsconfig has no DOM lib); a type only, erased before the callback is sent. */
type PageGlobals = { getComputedStyle(e: unknown): { lineHeight: string }; scrollX: number; scrollY: number };

const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts');
const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'report-v2.json');

let browser: Browser;
let page: Page;
let dir: string;
let report: Report;
const problems: string[] = [];

beforeAll(async () => {
  report = parseReportText(await readFile(FIXTURE, 'utf8'), FIXTURE);
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-report-'));
  const file = await writeReportHtml(dir, report);
  browser = (await launchChrome({ headless: true })).browser;
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`));
  await page.setRequestInterception(true);
  page.on('request', (r) => {
    const url = r.url();
    if (url.startsWith('file:') || url.startsWith('data:')) void r.continue();
    else {
      problems.push(`network request blocked: ${url}`);
      void r.abort();
    }
  });
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  await page.waitForSelector('section.scenario canvas');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('report.html from file:// with the network blocked', () => {
  it('shows the run with no console errors and no request beyond the file', async () => {
    expect(await page.$eval('.run-header h2', (e) => e.textContent)).toBe(`Run ${report.runId}`);
    expect(await page.$eval('#status', (e) => e.hasAttribute('hidden'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('every chart canvas has drawn, non-blank pixels', async () => {
    const drawn = await page.$$eval('canvas', (canvases) =>
      canvases.map((c) => {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) return 0;
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        let inked = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
        return inked;
      }),
    );
    const scenarios = new Set(report.points.map((p) => p.point.scenario)).size;
    expect(drawn).toHaveLength(3 * scenarios);
    for (const n of drawn) expect(n).toBeGreaterThan(500);
  });

  it('the table has one row per point, none taller than twice a line', async () => {
    const rows = await page.$$eval('table.points:not(.compare) tbody tr.point-row', (trs) =>
      trs.map((tr) => ({
        height: tr.getBoundingClientRect().height,
        line: parseFloat((globalThis as unknown as PageGlobals).getComputedStyle(tr.querySelector('td')!).lineHeight),
      })),
    );
    expect(rows).toHaveLength(report.points.length);
    for (const r of rows) expect(r.height).toBeLessThanOrEqual(2 * r.line);
  });

  it('a details row opens on demand with the raw repeats, and headers sort', async () => {
    await page.click('tbody tr.point-row button.toggle');
    expect(await page.$$eval('tr.details-row table.repeats tbody tr', (trs) => trs.length)).toBe(report.points[0].repeats.length);
    await page.click('th.col-eventsPerSec');
    const eps = await page.$$eval('tbody tr.point-row td.col-eventsPerSec', (tds) => tds.map((td) => td.getAttribute('title') ?? ''));
    const medians = eps.map((t) => Number(/median ([\d.]+) k/.exec(t)?.[1]));
    expect(medians).toEqual([...medians].sort((a, b) => b - a));
  });

  it('keeps screenshots of the top and of one scenario', async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-top.png') });
    const box = await page.$$eval('section.scenario', (sections) => {
      const r = sections[sections.length - 1].getBoundingClientRect();
      const w = globalThis as unknown as PageGlobals;
      return { x: r.left + w.scrollX, y: r.top + w.scrollY, width: r.width, height: r.height };
    });
    // A clip of the full page, so the sticky toolbar does not sit over the scenario.
    await page.screenshot({ path: path.join(ARTIFACTS, 'report-scenario.png'), clip: box, captureBeyondViewport: true });
    expect(problems).toEqual([]);
  });
});

describe('report.html with knob comparisons', () => {
  it('shows what each knob bought as one table row per pair, with both ratios', async () => {
    // The fixture's smoke SSE point again, parsed in 2 Workers and 20% faster each round: one knob apart.
    const sse = report.points.find((p) => p.point.id === 'smoke/sse-b20-c4-i1-full')!;
    const workers = structuredClone(sse);
    Object.assign(workers.point, { id: 'smoke/sse-b20-c4-i1-full-w2', parse: 'worker', workers: 2 });
    for (const r of workers.repeats) if (r.status === 'ok') r.eventsPerSec *= 1.2;
    const points = [...report.points, workers];
    const knobDir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-report-knobs-'));
    const file = await writeReportHtml(knobDir, { ...report, points, knobs: knobComparisons(points) });
    const knobPage = await browser.newPage();
    try {
      await knobPage.goto(`file://${file}`, { waitUntil: 'load' });
      const rows = await knobPage.$$eval('section.knobs tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(rows).toHaveLength(1);
      expect(rows[0].slice(0, 3)).toEqual(['parsing', 'main thread → 2 Workers', 'sse 20 × 4 every 1 ms']);
      expect(rows[0][3]).toMatch(/^1\.20 \(/);
    } finally {
      await knobPage.close();
      await rm(knobDir, { recursive: true, force: true });
    }
  });
});
