/**
 * The sweep's own cost, measured the way a user meets it (issue 37): one count-only point run
 * through `npm run sweep` itself, a process of its own with its own server and Chrome, against
 * a plain setup that does the least a careful person would:
 * - the plain reference server (bench/plain-server.ts) and the bare page (web/bench/bare.ts);
 * - a Chrome launched for it with only the flags this machine needs (no pushlab flags, no
 *   Puppeteer defaults past them) and the CDP Network domain off;
 * - a fixed warm-up, then the page's count and the tab's renderer CPU read once at each edge
 *   of the window, nothing in between (no sampling, settling, input, progress or ceiling).
 * Both start from nothing every repeat (a fresh server and browser), as `npm run sweep` does.
 * The plain setup's read takes no figure the sweep's does not: its count and the renderer's CPU
 * (the same CDP ProcessTime the sweep's tab figure is), so the two compare like for like.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser } from 'puppeteer-core';
import { entryArgv } from '../cli/entry.js';
import { ROOT } from '../cli/root.js';
import type { PageConfig } from '../protocol/page-api.js';
import type { Transport } from '../protocol/wire.js';
import { parseReportText } from '../protocol/report-check.js';
import { DEFAULT_ENCODING } from '../protocol/encodings.js';
import { expandScenario } from '../protocol/scenario.js';
import { findChrome, launchChrome, MACHINE_CHROME_ARGS, MEASURED_VIEWPORT } from '../puppeteer/browser/chrome.js';
import { measureCeilings } from '../puppeteer/measure/ceiling.js';
import { RepeatMeasurer } from '../puppeteer/measure/repeat.js';
import { tabMetrics } from '../puppeteer/measure/sampler.js';
import type { BrowserSlot } from '../puppeteer/browser/slot.js';
import { openLabPage } from '../puppeteer/measure/page.js';
import { startServer, type ServerHandle } from '../puppeteer/measure/server-process.js';

export interface CountOnlyPoint {
  transport: Transport;
  batch: number;
  concurrency: number;
  intervalMs: number;
  warmupSec: number;
  measureSec: number;
}

export interface InstrumentRun {
  /** Events the page counted ÷ the window, events/s. */
  eps: number;
  /** The tab's renderer process CPU over the window ÷ its events, ms per million events. */
  cpuMsPerMillion: number;
  /** From the command's start (or the plain setup's) to its end, s: what the figure costs. */
  wallSec: number;
}

/** The point as a one-point scenario file, the way a user writes one for `npm run sweep -- --file`. */
function scenarioFile(p: CountOnlyPoint): string {
  return JSON.stringify({
    scenarios: [
      {
        id: 'instrument',
        transport: p.transport,
        batch: p.batch,
        concurrency: p.concurrency,
        intervalMs: p.intervalMs,
        render: 'none',
        warmupSec: p.warmupSec,
        measureSec: p.measureSec,
      },
    ],
  });
}

/**
 * One repeat of `p` through `npm run sweep` (the built command, as npm runs it), its report read
 * back. `extraArgs` go to the sweep (a bench may pass ones that take a part away).
 */
export async function sweepRun(p: CountOnlyPoint, extraArgs: readonly string[] = []): Promise<InstrumentRun> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-instrument-'));
  const started = performance.now();
  try {
    await writeFile(path.join(dir, 'scenarios.json'), scenarioFile(p));
    const args = [
      ...entryArgv('puppeteer/sweep/main.ts'),
      '--file',
      path.join(dir, 'scenarios.json'),
      '--repeats',
      '1',
      '--retries',
      '0',
      '--out',
      dir,
      ...extraArgs,
    ];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const file = stdout.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !file.endsWith('report.json')) throw new Error(`the sweep exited ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
    const report = parseReportText(await readFile(file, 'utf8'), file);
    const r = report.points[0]?.repeats[0];
    if (r?.status !== 'ok') throw new Error(`the sweep's repeat ${r?.status ?? 'is missing'}: ${r && 'error' in r ? r.error : ''}`);
    const cpu = r.cpu.tabProcess ?? Number.NaN;
    return { eps: r.eventsPerSec, cpuMsPerMillion: ((cpu / 100) * 1e9) / r.eventsPerSec, wallSec: (performance.now() - started) / 1000 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What `npm run sweep` does that the plain setup does not, one at a time (bench:page
 * --ingredients adds each alone to the plain setup, so each one's cost is a ratio to it):
 * - flags: Chrome launched as pushlab launches it (puppeteer/browser/chrome.ts: its flags and
 *   Puppeteer's defaults) instead of with only the machine's flags;
 * - server: pushlab's server instead of the plain one;
 * - page: the lab page in render mode none instead of the bare page;
 * - ceiling: the JSON.parse ceiling measured in a tab of its own just before the point, as
 *   every round of a sweep does;
 * - driver: the repeat measured by pushlab's measurer (puppeteer/measure/repeat.ts: settling,
 *   CDP and /proc samples, the input probe, progress) instead of read at the window's edges.
 */
export const INGREDIENTS = ['flags', 'server', 'page', 'ceiling', 'driver'] as const;
export type Ingredient = (typeof INGREDIENTS)[number];

/** A Chrome with only the machine's flags (and `extraArgs`), in a profile of its own that goes with it. */
export async function plainChrome(extraArgs: readonly string[] = []): Promise<{ browser: Browser; close(): Promise<void> }> {
  const chrome = await findChrome();
  const profile = await mkdtemp(path.join(os.tmpdir(), 'pushlab-plain-chrome-'));
  const browser = await puppeteer.launch({
    executablePath: chrome.path,
    headless: true,
    // Puppeteer's own defaults left out too, but for what it needs to drive Chrome at all.
    ignoreDefaultArgs: true,
    args: [...MACHINE_CHROME_ARGS, ...extraArgs, '--headless=new', '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'],
    pipe: true,
    acceptInsecureCerts: true,
    networkEnabled: false,
    defaultViewport: MEASURED_VIEWPORT,
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The window read at its edges only: the page's count, and the tab's renderer CPU (CDP, once each side). */
export async function edgesRun(browser: Browser, url: string, p: CountOnlyPoint): Promise<Omit<InstrumentRun, 'wallSec'>> {
  const page = await browser.newPage();
  try {
    const session = await page.createCDPSession();
    await session.send('Performance.enable');
    const api = await openLabPage(page, url);
    const config: PageConfig = {
      transport: p.transport,
      batch: p.batch,
      concurrency: p.concurrency,
      intervalMs: p.intervalMs,
      render: 'none',
      inputProbe: false,
    };
    await api.evaluate((pl, c) => pl.start(c).then(() => undefined), config);
    await sleep(p.warmupSec * 1000);
    const count = () => api.evaluate((pl) => pl.snapshot().then((s) => s?.counters.events ?? Number.NaN));
    const [e0, c0] = [await count(), (await tabMetrics(session)).processTime];
    const t0 = performance.now();
    await sleep(p.measureSec * 1000);
    const [e1, c1] = [await count(), (await tabMetrics(session)).processTime];
    const sec = (performance.now() - t0) / 1000;
    await api.evaluate((pl) => pl.stop());
    const events = e1 - e0;
    return { eps: events / sec, cpuMsPerMillion: ((c1 - c0) * 1e9) / events };
  } finally {
    await page.close();
  }
}

/**
 * A launched browser as the repeat measurer takes it (a BrowserSlot): its tabs, and its CDP
 * session for SystemInfo. A bench that finds it crashed fails the repeat; it does not relaunch.
 */
export async function benchSlot(browser: Browser, bench: string): Promise<BrowserSlot> {
  const session = await browser.target().createCDPSession();
  return {
    browser: () => browser,
    session: () => session,
    newPage: () => browser.newPage(),
    relaunch: () => Promise.reject(new Error(`${bench} does not relaunch a crashed browser`)),
  };
}

/** The repeat through pushlab's own measurer, in `browser`, on `server`'s page at `pagePath`. */
async function measurerRun(browser: Browser, server: ServerHandle, pagePath: string, p: CountOnlyPoint): Promise<Omit<InstrumentRun, 'wallSec'>> {
  const slot = await benchSlot(browser, 'the plain setup');
  const measurer = new RepeatMeasurer({ browser: slot, server, cores: os.cpus().length, retries: 0, pagePath });
  const [point] = expandScenario({ id: 'instrument', ...p, render: 'none' });
  const r = await measurer.measure(point, { round: 0, ceilingEventsPerSec: null });
  if (r?.status !== 'ok') throw new Error(`the plain setup's repeat: ${r?.error ?? 'interrupted'}`);
  return { eps: r.eventsPerSec, cpuMsPerMillion: (((r.cpu.tabProcess ?? Number.NaN) / 100) * 1e9) / r.eventsPerSec };
}

/**
 * One repeat of `p` on the plain setup (see the top of this file), a fresh server and Chrome,
 * with those of the sweep's `ingredients` given in place of the plain ones.
 */
export async function plainRun(p: CountOnlyPoint, ingredients: ReadonlySet<Ingredient> = new Set()): Promise<InstrumentRun> {
  const started = performance.now();
  const server = ingredients.has('server') ? await startServer() : await startServer([], 30_000, [], 'bench/plain-server.ts');
  try {
    const chrome = ingredients.has('flags')
      ? await launchChrome({ headless: true }).then((c) => ({ browser: c.browser, close: () => c.browser.close() }))
      : await plainChrome();
    try {
      if (ingredients.has('ceiling')) await measureCeilings(chrome.browser, server.url, [{ batch: p.batch, encoding: DEFAULT_ENCODING }]);
      const pagePath = ingredients.has('page') ? '' : 'bench/bare.html';
      const run = ingredients.has('driver')
        ? await measurerRun(chrome.browser, server, pagePath, p)
        : await edgesRun(chrome.browser, new URL(pagePath, server.url).href, p);
      return { ...run, wallSec: (performance.now() - started) / 1000 };
    } finally {
      await chrome.close();
    }
  } finally {
    await server.stop();
  }
}
