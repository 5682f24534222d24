/**
 * `npm run lab` end to end, headful under Xvfb: a point started from the page's own form,
 * CPU readings arriving on the page, "Record this point" writing a valid report point, the
 * behind-indicator on at an overloaded point and off at an easy one, and Ctrl-C leaving no
 * Chrome or server process behind. The test attaches to the lab's Chrome over a DevTools port
 * the lab opens only for it (PUSHLAB_LAB_DEVTOOLS). Leaves a screenshot in test-artifacts/.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../protocol/report.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { getJson } from '../../puppeteer/measure/server-process.js';
import { nodeCommand } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const hasXvfb = spawnSync('sh', ['-c', 'command -v xvfb-run'], { stdio: 'ignore' }).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let lab: ChildProcess;
let stderr = '';
let out: string;
let browser: Browser;
let page: Page;
let serverUrl: string;
/** Every process the lab started: the server and each Chrome process. */
const pids: number[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; lab stderr:\n${stderr}`);
    await sleep(100);
  }
}

const text = (id: string) => page.$eval(`#${id}`, (e) => e.textContent ?? '');

describe.skipIf(!hasXvfb)('npm run lab under Xvfb', () => {
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-lab-'));
    // detached: its own process group, so Ctrl-C (SIGINT) reaches xvfb-run and the lab as a terminal would send it.
    lab = spawn(
      'xvfb-run',
      [
        '-a',
        ...nodeCommand('puppeteer/lab/main.ts'),
        '--batch',
        '20',
        '--concurrency',
        '2',
        '--render',
        'full',
        '--warmup-sec',
        '1',
        '--measure-sec',
        '1',
        '--repeats',
        '1',
        '--out',
        out,
      ],
      { cwd: ROOT, env: { ...process.env, PUSHLAB_LAB_DEVTOOLS: '1' }, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    lab.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const endpoint = await waitFor('the lab to start', async () => /devtools: (ws:\S+)/.exec(stderr)?.[1], 90_000);
    serverUrl = /pushlab lab: (https:\/\/[^/\s]+\/)/.exec(stderr)![1];
    browser = await puppeteer.connect({ browserWSEndpoint: endpoint, acceptInsecureCerts: true, defaultViewport: null });
    page = await waitFor('the lab page', async () => (await browser.pages()).find((p) => p.url().startsWith(serverUrl)), 30_000);
    await page.waitForFunction(() => typeof (globalThis as { pushlab?: unknown }).pushlab === 'object', { timeout: 30_000 });
    const session = await browser.target().createCDPSession();
    const { processInfo } = await session.send('SystemInfo.getProcessInfo');
    pids.push(...processInfo.map((p) => p.id));
    pids.push((await getJson<ServerStats>(`${serverUrl}stats`)).pid);
  }, 150_000);

  afterAll(async () => {
    await browser?.disconnect().catch(() => undefined);
    try {
      if (lab?.pid) process.kill(-lab.pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
    await rm(out, { recursive: true, force: true });
  });

  it('starts a point from the form, and CPU readings arrive and are plausible', async () => {
    await page.click('#start');
    await waitFor('events on the page', async () => Number((await text('live-received')).replace(/\D/g, '')) > 0, 20_000);
    const cpu = await waitFor(
      'a CPU reading',
      async () => {
        const t = await text('cpu-numbers');
        return /tab renderer (\d+)%/.test(t) && t;
      },
      20_000,
    );
    const cores = os.cpus().length;
    const figures = [...cpu.matchAll(/(\d+)%/g)].map((m) => Number(m[1]));
    expect(Number(/tab renderer (\d+)%/.exec(cpu)![1])).toBeGreaterThan(0);
    for (const f of figures) expect(f).toBeLessThanOrEqual(100 * cores);
    await mkdir(ARTIFACTS, { recursive: true });
    // A second more of charts for the screenshot (nothing reads it).
    await sleep(1000);
    await page.screenshot({ path: path.join(ARTIFACTS, 'lab-under-load.png'), fullPage: true });
  }, 60_000);

  it("shows the page's input delay live for a real click, and long frames (Chrome has them)", async () => {
    // A click through CDP Input.dispatchMouseEvent, as a person's would arrive, on the heading.
    await page.mouse.click(2, 2);
    const delay = await waitFor('an input delay', async () => /^\d+ ms$/.test(await text('live-input-delay')) && text('live-input-delay'), 10_000);
    expect(Number.parseInt(delay, 10)).toBeLessThan(10_000);
    expect(await text('live-long-frames')).toMatch(/^\d+ ms\/s$/);
  }, 30_000);

  it('records this point: a valid report point in <out>/lab-<run>/report.json', async () => {
    await page.click('#record');
    const line = await waitFor(
      'the recorded line',
      async () => {
        const t = await text('recorded');
        return (t.startsWith('recorded:') || t.startsWith('recording failed')) && t;
      },
      90_000,
    );
    expect(line).toMatch(/^recorded: (ok|client-bound|server-bound|host-bound): [\d,]+ events\/s/);
    const [run] = await readdir(out);
    expect(run).toMatch(/^lab-\d{8}-\d{6}$/);
    const report = JSON.parse(await readFile(path.join(out, run, 'report.json'), 'utf8')) as Report;
    expect(report.schemaVersion).toBe(4);
    expect(report.scenarios).toEqual(['lab']);
    const [point] = report.points;
    expect(point.point).toMatchObject({ scenario: 'lab', transport: 'sse', batch: 20, concurrency: 2, render: 'full', warmupSec: 1, measureSec: 1 });
    expect(point.repeats).toHaveLength(1);
    expect(point.repeats[0].status).toBe('ok');
    expect(point.summary?.eventsPerSec.median).toBeGreaterThan(0);
    expect(report.rounds[0].parseCeilings[0].batch).toBe(20);
  }, 120_000);

  it('says the page fell behind at an overloaded point, and not at an easy one', async () => {
    const run = (c: object) =>
      page.evaluate((cfg) => (globalThis as unknown as { pushlab: { start(c: object): Promise<unknown> } }).pushlab.start(cfg).then(() => undefined), c);
    const behind = () => page.$eval('#live-verdict', (e) => e.classList.contains('behind'));
    await run({ transport: 'ws', batch: 2000, concurrency: 20, intervalMs: 1, render: 'full' });
    await waitFor('the behind-indicator', behind, 20_000);
    expect(await text('live-verdict')).toMatch(/^falling behind — (client|server|host)-bound: /);
    await run({ transport: 'sse', batch: 1, concurrency: 2, intervalMs: 10, render: 'full' });
    // The verdict reads the last seconds' figures, so it turns once the overload has left them:
    // polled for, rather than a fixed 8 s wait, and then read as before.
    await waitFor('the verdict to read the easy point', async () => (await text('live-verdict')) === 'keeping up', 20_000);
    expect(await text('live-verdict')).toBe('keeping up');
    expect(await behind()).toBe(false);
  }, 60_000);

  it('Ctrl-C stops the server and Chrome', async () => {
    expect(pids.length).toBeGreaterThan(1);
    await browser.disconnect();
    const exited = new Promise<void>((r) => lab.once('exit', () => r()));
    process.kill(-lab.pid!, 'SIGINT');
    await Promise.race([exited, sleep(20_000)]);
    await waitFor('every lab process to end', async () => pids.every((p) => !alive(p)), 10_000);
  }, 40_000);
});
