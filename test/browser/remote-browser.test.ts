/**
 * Remote browsers and sharding, end to end and on loopback only: Chromiums started here with
 * `--remote-debugging-port` on 127.0.0.1 stand in for browsers on other hosts (browserless, a
 * Selenium Grid node, a Chrome on another machine all hand out the same kind of endpoint).
 * The smoke sweep in one of them, whose delivered ratio needs the machine to itself, is
 * test/browser/remote-browser-smoke.test.ts; nothing here depends on speed.
 * - Two of them shard a small scenario: every point is measured once per round, each on one
 *   browser, pairs together; the sweep warns that both share one host and the report says so.
 * - One of the two killed mid-sweep: its repeat is recorded failed with the cause, the rest is
 *   measured on the other, and the report passes the schema check.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EXIT } from '../../protocol/errors.js';
import type { FailedRepeat } from '../../protocol/repeat-figures.js';
import type { Report } from '../../protocol/report.js';
import { pairKey } from '../../results/rounds.js';
import { DEFAULT_TABLE_WIDTH, formatTable } from '../../results/views/terminal.js';
import { startRemoteChrome, type RemoteChrome } from '../../bench/remote-chrome.js';
import { measuredOf, readLastReport as readReport, runSweep, startSweep } from '../helpers/sweep-process.js';

const chromes: RemoteChrome[] = [];
let dir: string;

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/**
 * Watches `chrome`'s tabs over CDP from before a sweep starts (CDP sees every browser context:
 * the sweep's tabs are in one of its own, which the DevTools HTTP endpoint's /json/list left
 * out here). `repeatTab()`, called once a line says the browser finished a repeat, resolves
 * as soon as it holds a tab on the lab page (an http(s) URL), open already or opened later: the
 * browser's next repeat, loading the page or streaming, where a lost browser is that repeat's
 * failure. A finished repeat's tabs are closed before its line is written, and a round's
 * JSON.parse ceiling (a lab page too) is measured before the round's repeats, so the tab
 * found is the next repeat's. It once waited for a tab opened after the line instead: when the
 * next repeat's tab was open by then, that was the next round's ceiling, and no repeat failed.
 */
async function watchTabs(chrome: RemoteChrome): Promise<{ repeatTab(timeoutMs: number): Promise<void>; close(): void }> {
  const socket = new WebSocket(chrome.ws);
  const live = new Map<string, TargetInfo>();
  const isLab = (t: TargetInfo) => t.type === 'page' && /^https?:/.test(t.url);
  let changed = () => {};
  socket.on('message', (data) => {
    const m = JSON.parse(String(data)) as { method?: string; params?: { targetInfo?: TargetInfo; targetId?: string } };
    if (m.method === 'Target.targetDestroyed' && m.params?.targetId) live.delete(m.params.targetId);
    else if (m.params?.targetInfo) live.set(m.params.targetInfo.targetId, m.params.targetInfo);
    changed();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => resolve());
  });
  // Announces every target there is, then each one created, changed (a new URL) or destroyed.
  socket.send(JSON.stringify({ id: 1, method: 'Target.setDiscoverTargets', params: { discover: true } }));
  return {
    repeatTab: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no tab on the lab page in ${chrome.http} within ${timeoutMs} ms`)), timeoutMs);
        changed = () => {
          if (![...live.values()].some(isLab)) return;
          clearTimeout(timer);
          changed = () => {};
          resolve();
        };
        changed();
      }),
    close: () => socket.terminate(),
  };
}

type KillSweep = { report: Report; code: number | null; stderr: string };

/**
 * A sweep of pair2 over `browsers` (`--browser`), whose `victim` (labelled `label`) is killed once
 * it is into its second repeat: after its round-1 line, once that repeat's tab is on the lab page.
 * Both kill sweeps start beside the shard sweep: each has its own server and browsers, nothing
 * here reads a rate or a duration, and a kill waits for its browser's tab, not for a time.
 */
async function killSweep(browsers: string, repeats: number, victim: RemoteChrome, label: string): Promise<KillSweep> {
  const tabs = await watchTabs(victim);
  const run = startSweep([
    '--file',
    path.join(dir, 'scenarios.json'),
    '--scenario',
    'pair2',
    '--repeats',
    String(repeats),
    '--retries',
    '0',
    '--browser',
    browsers,
    '--out',
    dir,
  ]);
  try {
    await run.waitForStderr(new RegExp(`round 1 \\[${label}\\]: `), 120_000);
    await tabs.repeatTab(60_000);
  } finally {
    tabs.close();
  }
  victim.crash();
  const { code } = await run.exit;
  return { report: await readReport(run.stdout()), code, stderr: run.stderr() };
}
/** The sweep whose only browser is killed. */
const lonelySweep = () => killSweep(`lonely=${chromes[4].http}`, 1, chromes[4], 'lonely');
let lonely: Promise<KillSweep>;
/** The sweep one of whose two browsers (keeper, victim) is killed: round 2 then all goes to the keeper. */
const victimSweep = () => killSweep(`keeper=${chromes[2].http},victim=${chromes[3].http}`, 2, chromes[3], 'victim');
let victimRun: Promise<KillSweep>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-remote-'));
  const file = {
    scenarios: [
      // Nothing here reads a rate or a window's length: the shortest repeats the sweep takes, at
      // a load two browsers beside the server take on two cores (settled at once, not after 2 s).
      // Every sweep of the file runs it: two pairs, one dealt to each of two browsers, are all a
      // killed browser's sweep needs (its second repeat in round 1 is the one killed, and round 2
      // goes to the keeper); a third pair (12 repeats, not 8) only added work to the keeper.
      { id: 'pair2', transport: ['ws', 'sse'], batch: [5, 10], concurrency: 2, intervalMs: 10, warmupSec: 0, measureSec: 0.5 },
    ],
  };
  await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
  // Every Chromium of the file at once: two to shard, keeper and victim, and the lonely one.
  const started = await Promise.allSettled([0, 1, 2, 3, 4].map(() => startRemoteChrome()));
  chromes.push(...started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])));
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  // The two kill sweeps start here, beside the shard sweep (its describe's beforeAll, next): with
  // the victim's sweep after the others, the file used 63 s of CPU in 93 s on two cores.
  lonely = lonelySweep();
  victimRun = victimSweep();
  // Each is awaited by its describe; a failure before then is not unhandled.
  for (const sweep of [lonely, victimRun]) sweep.catch(() => undefined);
}, 60_000);

afterAll(async () => {
  // The kill sweeps have ended (their describes awaited them) before their browsers and files go.
  await Promise.allSettled([lonely, victimRun]);
  // Every Chromium this file started ends here, whatever happened above.
  await Promise.all(chromes.map((c) => c.kill()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('two remote browsers shard a sweep', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    let stdout: string;
    // One through its WebSocket endpoint as Puppeteer's browserWSEndpoint, one through its
    // DevTools HTTP endpoint. Unlabelled, both are named by their loopback address: one host.
    ({ code, stdout, stderr } = await runSweep(
      [
        '--file',
        path.join(dir, 'scenarios.json'),
        '--scenario',
        'pair2',
        '--repeats',
        '2',
        '--retries',
        '0',
        '--browser',
        `${chromes[0].ws},${chromes[1].http}`,
        '--out',
        dir,
      ],
      180_000,
    ));
    report = await readReport(stdout);
  }, 200_000);

  it('measures every point once per round, each point on one browser, pairs together', () => {
    expect(code, stderr).toBe(EXIT.ok);
    const ids = report.hosts!.map((h) => h.id);
    expect(ids).toEqual([`127.0.0.1:${chromes[0].port}`, `127.0.0.1:${chromes[1].port}`]);
    expect(report.points).toHaveLength(4);
    for (const p of report.points) {
      expect(p.repeats.map((r) => r.round).sort()).toEqual([0, 1]);
      expect(new Set(p.repeats.map((r) => r.browserId)).size).toBe(1);
      expect(p.browsers).toEqual([p.repeats[0].browserId]);
    }
    // Points that differ only in transport share a browser; the two pairs went to the two browsers.
    const byPair = new Map<string, Set<string>>();
    for (const p of report.points) byPair.set(pairKey(p.point), new Set([...(byPair.get(pairKey(p.point)) ?? []), ...p.browsers!]));
    expect([...byPair.values()].map((s) => s.size)).toEqual([1, 1]);
    expect(new Set([...byPair.values()].flatMap((s) => [...s]))).toEqual(new Set(ids));
    // Each browser measured its own JSON.parse ceiling every round.
    for (const round of report.rounds) expect(round.hostCeilings!.map((h) => h.browser).sort()).toEqual([...ids].sort());
  });

  it('warns that both browsers share one host, and marks it in the report', () => {
    expect(stderr).toMatch(/warning: browsers \S+ and \S+ are on the same host \(localhost\)/);
    const [a, b] = report.hosts!;
    expect(a.sharesHostWith).toEqual([b.id]);
    expect(b.sharesHostWith).toEqual([a.id]);
    for (const p of report.points) expect(p.notes.join(' ')).toMatch(/shared its host \(localhost\) with/);
    // The terminal table has a host column naming each point's browser.
    const table = formatTable(report, { width: DEFAULT_TABLE_WIDTH });
    expect(table).toMatch(/\|\s+host \|/);
    for (const p of report.points) expect(table).toContain(p.browsers![0]);
  });
});

describe('a remote browser killed mid-sweep', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;
  const victim = 'victim';

  beforeAll(async () => {
    ({ report, code, stderr } = await victimRun);
  }, 240_000);

  it('records the repeat in progress as failed with the cause, and says the browser was lost', () => {
    expect(code, stderr).toBe(EXIT.failed);
    const failed = report.points.flatMap((p) => p.repeats.filter((r): r is FailedRepeat => r.status === 'failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ browserId: victim, cause: 'browser lost' });
    expect(failed[0].error).toMatch(/browser crashed .*reconnecting to victim=http:\/\/127\.0\.0\.1:\d+\/ failed/);
    // Labelled loopback endpoints read as tunnels to other machines: named by label, the server's place unknown.
    expect(report.hosts!.map((h) => [h.id, h.host, h.serverSharesHost, h.sharesHostWith])).toEqual([
      ['keeper', 'keeper', null, []],
      ['victim', 'victim', null, []],
    ]);
    const lost = report.hosts!.find((h) => h.id === victim)!;
    expect(lost.lost?.error).toMatch(/reconnecting/);
    expect(stderr).toMatch(/browser victim lost: .*its points go to the other browsers/);
  });

  it('measures every other repeat on the other browser, in a valid, finished report', () => {
    expect(report.finishedAt).not.toBeNull();
    expect(report.interrupted).toBe(false);
    const all = report.points.flatMap((p) => p.repeats.map((r) => `${p.point.id}@${r.round}`)).sort();
    expect(all).toEqual(report.points.flatMap((p) => [0, 1].map((round) => `${p.point.id}@${round}`)).sort());
    const failedAt = report.points.flatMap((p) => p.repeats.filter((r) => r.status === 'failed').map((r) => r.startedAt))[0];
    // Everything that started after the failure ran on the keeper.
    const later = report.points.flatMap((p) => p.repeats).filter((r) => r.startedAt > failedAt);
    expect(later.length).toBeGreaterThan(0);
    for (const r of later) expect(r.browserId).toBe('keeper');
    for (const r of measuredOf(report)) expect(r.browserId === 'keeper' || r.startedAt < failedAt).toBe(true);
  });
});

describe('the only remote browser killed mid-sweep', () => {
  let report: Report;
  let code: number | null;
  let stderr: string;

  beforeAll(async () => {
    ({ report, code, stderr } = await lonely);
  }, 180_000);

  it('stops cleanly: a valid report with what was measured, the lost repeat failed with the cause, and how to finish', () => {
    expect(code, stderr).toBe(EXIT.failed);
    // readReport ran the schema check; the sweep says why it stopped and how to go on.
    expect(report.interrupted).toBe(true);
    expect(report.finishedAt).toBeNull();
    expect(report.resumeCommand).toMatch(/^npm run sweep -- --resume \S+ --out \S+ --browser lonely=http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(stderr).toContain('every browser was lost');
    const repeats = report.points.flatMap((p) => p.repeats);
    expect(measuredOf(report).length).toBeGreaterThanOrEqual(1);
    const failed = repeats.filter((r): r is FailedRepeat => r.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ browserId: 'lonely', cause: 'browser lost' });
    // Points not reached are left unmeasured (no repeat at all), for a resume to measure.
    expect(repeats.length).toBeLessThan(report.points.length);
    expect(report.hosts![0].lost?.error).toMatch(/reconnecting to lonely=http:\/\/127\.0\.0\.1:\d+\/ failed/);
  });
});
