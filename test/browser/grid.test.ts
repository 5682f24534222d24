/**
 * `--grid`: a real Selenium Grid 4 standalone on loopback (test/helpers/selenium-grid.ts), Chrome
 * through Debian's chromedriver, offline.
 * - The smoke sweep through `--grid --grid-sessions 2` delivers in full with CPU figures,
 *   shards over both sessions, names each browser's Grid node, and leaves the Grid with no
 *   session, no chromedriver and no Chrome.
 * - SIGTERM mid-sweep: the report is saved interrupted, its resume command names the Grid,
 *   and the sessions are ended all the same.
 * - A Grid with too few free slots, one that refuses the session (its own message quoted), and
 *   none listening: PUSHLAB_BAD_GRID, nothing left open.
 * Skipped, with the reason, where Java, chromedriver or the jar is missing (.ci/run installs them).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { MeasuredRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { GridSessions, parseGridUrl } from '../../puppeteer/browser/grid.js';
import { GRID_SLOTS, gridMissing, groupAlive, startGrid, type Grid } from '../helpers/selenium-grid.js';
import { runSweep, startSweep } from '../helpers/sweep-process.js';

const missing = gridMissing();
const BINARY = '/usr/bin/chromium';
let grid: Grid;
let dir: string;

/** Waits up to 15 s for the Grid to hold no session and run no chromedriver or Chrome. */
async function gridEmpty(): Promise<{ sessions: string[]; browsers: string[] }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const now = { sessions: await grid.sessions(), browsers: grid.browsers() };
    if ((!now.sessions.length && !now.browsers.length) || Date.now() > until) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const measuredOf = (r: Report) => r.points.flatMap((p) => p.repeats.filter((x): x is MeasuredRepeat => x.status === 'ok'));
const readReport = async (stdout: string) => parseReportText(await readFile(stdout.trim().split('\n').at(-1)!, 'utf8'), 'report.json');

/**
 * A light load in the shortest repeats a sweep takes, for the SIGTERM tests: they read where the
 * sweep stops and what it leaves, no rate. The delivered sweep runs the smoke scenario itself.
 */
const SHORT = { scenarios: [{ id: 'short', batch: 20, concurrency: 4, intervalMs: 10, warmupSec: 0, measureSec: 0.5 }] };
/** Its sweep's flags, three rounds through `--grid --grid-sessions 2`. */
const shortSweep = () => [
  '--file',
  path.join(dir, 'short.json'),
  '--repeats',
  '3',
  '--grid',
  grid.url,
  '--grid-sessions',
  '2',
  '--grid-binary',
  BINARY,
  '--out',
  dir,
];

/** A real socket that takes the request and says nothing, as a hung hub does: what opening a session there gives. */
async function askSilentHub(): Promise<unknown> {
  const held: Socket[] = [];
  const silent = createServer((s) => held.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const { port } = silent.address() as { port: number };
    return await new GridSessions(parseGridUrl(`http://127.0.0.1:${port}`), () => undefined).open(1, null).catch((e: unknown) => e);
  } finally {
    for (const s of held) s.destroy();
    await new Promise((r) => silent.close(r));
  }
}

/** The flags refused before anything starts: --grid beside --browser, and --grid-sessions without --grid. */
const refuseFlags = () =>
  Promise.all([runSweep(['--grid', 'http://127.0.0.1:1', '--browser', 'http://127.0.0.1:9222'], 30_000), runSweep(['--grid-sessions', '2'], 30_000)]);

/**
 * What needs no Grid starts first, while Java starts: the silent hub's 10 s wait and the refused
 * flags, each read by its own test below. The flag runs end before the smoke sweep measures.
 */
let silentHub: Promise<unknown>;
let refusedFlags: ReturnType<typeof refuseFlags>;
beforeAll(() => {
  silentHub = askSilentHub();
  refusedFlags = refuseFlags();
});

describe.skipIf(missing !== null)(`a sweep on a Selenium Grid${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-grid-'));
    await writeFile(path.join(dir, 'short.json'), JSON.stringify(SHORT));
    grid = await startGrid();
    await refusedFlags;
  }, 90_000);

  afterAll(async () => {
    const pid = grid?.pid;
    await grid?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
    // Nothing of the Grid's is left: no Java, no chromedriver, no Chrome.
    if (pid) expect(groupAlive(pid)).toBe(false);
  }, 30_000);

  describe('the smoke sweep through --grid --grid-sessions 2', () => {
    let report: Report;
    let code: number | null;
    let stderr: string;

    beforeAll(async () => {
      let stdout: string;
      ({ code, stdout, stderr } = await runSweep(
        ['--scenario', 'smoke', '--repeats', '1', '--grid', grid.url, '--grid-sessions', '2', '--grid-binary', BINARY, '--out', dir],
        150_000,
      ));
      report = await readReport(stdout);
    }, 180_000);

    it('delivers the load in full with CPU figures', () => {
      expect(code, stderr).toBe(EXIT.ok);
      expect(report.points).toHaveLength(2);
      const measured = measuredOf(report);
      expect(measured).toHaveLength(2);
      for (const r of measured) {
        expect(r.deliveredRatio, JSON.stringify(r.notes)).toBeGreaterThanOrEqual(0.97);
        expect(r.page.gaps).toBe(0);
        expect(r.cpu.tabMainThread).toBeGreaterThan(0);
        expect(r.cpu.tabProcess).toBeGreaterThan(0);
        expect(r.cpu.chrome.total).toBeGreaterThan(0);
        // Remote: what cannot be read over CDP is null and marked, never 0.
        expect(r.cpu.host).toBeNull();
        expect(r.cpu.unavailable).toEqual(['tabThreads', 'host']);
        expect(['grid-1', 'grid-2']).toContain(r.browserId);
      }
    });

    it("names each browser's machine as its Grid node, and its session's CDP endpoint", () => {
      expect(report.hosts).toHaveLength(2);
      for (const [i, h] of report.hosts!.entries()) {
        expect(h).toMatchObject({ id: `grid-${i + 1}`, origin: 'remote', host: 'localhost', serverSharesHost: true, procfs: false });
        // Standalone: the node is the Grid itself, with an id of its own.
        expect(h.gridNode?.uri).toBe(grid.url);
        expect(h.gridNode?.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(h.endpoint).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/session/[0-9a-f]+/se/cdp$`));
      }
      expect(report.hosts![0].sharesHostWith).toEqual(['grid-2']);
      expect(stderr).toMatch(/--grid http:\/\/127\.0\.0\.1:\d+\/: 2 Chrome session\(s\)/);
    });

    it('ends its sessions: no session, chromedriver or Chrome is left on the Grid', async () => {
      expect(await gridEmpty()).toEqual({ sessions: [], browsers: [] });
    });
  });

  it('SIGTERM mid-sweep: an interrupted report whose resume command names the Grid; the sessions are ended', async () => {
    const run = startSweep(shortSweep());
    try {
      await run.waitForStderr(/round 1 \[grid-\d\]: /, 90_000);
      expect((await grid.sessions()).length).toBe(2);
      run.child.kill('SIGTERM');
      const { code } = await run.exit;
      expect(code, run.stderr()).toBe(EXIT.interrupted);
      const report = await readReport(run.stdout());
      expect(report.interrupted).toBe(true);
      expect(report.resumeCommand).toContain(`--grid ${grid.url}/ --grid-sessions 2 --grid-binary ${BINARY}`);
      expect(await gridEmpty()).toEqual({ sessions: [], browsers: [] });
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 150_000);

  it('a second SIGTERM (stop at once): the sessions are still ended, by a process that outlives the sweep', async () => {
    const run = startSweep(shortSweep());
    try {
      await run.waitForStderr(/round 1 \[grid-\d\]: /, 90_000);
      run.child.kill('SIGTERM');
      await run.waitForStderr(/SIGTERM: stopping after saving/, 10_000);
      // Later than the repeat window: a person's second request, not an echo of the first.
      await new Promise((r) => setTimeout(r, 700));
      run.child.kill('SIGTERM');
      const { code } = await run.exit;
      expect(code, run.stderr()).toBe(EXIT.interrupted);
      expect(await gridEmpty()).toEqual({ sessions: [], browsers: [] });
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 150_000);

  it("too few free Chrome slots: PUSHLAB_BAD_GRID with the Grid's own status message, before asking", async () => {
    const sessions = new GridSessions(parseGridUrl(grid.url), () => undefined);
    const err = await sessions.open(GRID_SLOTS + 1, BINARY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
    expect((err as Error).message).toMatch(
      new RegExp(
        `no free slot: --grid-sessions ${GRID_SLOTS + 1} asks for ${GRID_SLOTS + 1} Chrome session\\(s\\), the Grid has ${GRID_SLOTS} free Chrome slot\\(s\\) \\(Selenium Grid ready\\.\\)`,
      ),
    );
    expect(sessions.sessions).toEqual([]);
  });

  it('a session the Grid refuses: PUSHLAB_BAD_GRID quoting the Grid (chromedriver) message; the sweep exits 2 and leaves nothing', async () => {
    const sessions = new GridSessions(parseGridUrl(grid.url), () => undefined);
    const err = await sessions.open(1, '/nonexistent/chromium').catch((e: unknown) => e);
    await sessions.close();
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
    expect((err as Error).message).toMatch(/the Grid refused \(HTTP 500, session not created\): .*\/nonexistent\/chromium/);
    const r = await runSweep(['--scenario', 'smoke', '--repeats', '1', '--grid', grid.url, '--grid-binary', '/nonexistent/chromium', '--out', dir], 60_000);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(/^pushlab sweep: PUSHLAB_BAD_GRID: --grid http:\/\/127\.0\.0\.1:\d+\/: new Chrome session: the Grid refused/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(await gridEmpty()).toEqual({ sessions: [], browsers: [] });
  }, 90_000);

  it('no Grid listening: PUSHLAB_BAD_GRID, nothing is listening there', async () => {
    // The Grid's port with one added: nothing of this test listens there.
    const url = new URL(grid.url);
    url.port = String(Number(url.port) + 1);
    const err = await new GridSessions(parseGridUrl(url.href), () => undefined).open(1, BINARY).catch((e: unknown) => e);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
    expect((err as Error).message).toMatch(/reading \/status: nothing is listening there/);
  });
});

// CI (.ci/run) installs Java and chromedriver: there a skipped Grid test is a failure.
it.runIf(process.env.PUSHLAB_GRID_REQUIRED === '1')('the Grid test runs (PUSHLAB_GRID_REQUIRED)', () => {
  expect(missing).toBeNull();
});

it('a Grid that accepts the connection and never answers: PUSHLAB_BAD_GRID, no answer within 10 s', async () => {
  const err = await silentHub;
  expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
  expect((err as Error).message).toMatch(/reading \/status: no answer within 10 s/);
}, 30_000);

describe('--grid flags', () => {
  it('refuses a URL that is not http(s), and --grid beside --browser', async () => {
    expect(() => parseGridUrl('ws://grid:4444')).toThrow(/--grid takes the http:\/\/ or https:\/\/ URL/);
    const [r, s] = await refusedFlags;
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(/--grid opens sessions on a Grid; --browser connects/);
    expect(s.stderr).toMatch(/--grid-sessions only applies with --grid/);
  }, 60_000);
});
