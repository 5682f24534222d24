/**
 * The engine factor end to end (issue 25), through `npm run sweep`'s entry point: every
 * transport Firefox can open (all but ws-stream) in headless Firefox over WebDriver BiDi at the
 * smoke load, delivered in full with zero gaps over the protocol it is meant to use as the
 * server saw it (Firefox speaks RFC 8441,
 * so ws-h2 is a WebSocket over HTTP/2); sse-h1 past Firefox's own per-host cap, measured; its
 * CPU from /proc with each figure's source; its own JSON.parse ceiling; its build in the report;
 * and a ws point in both engines compared firefox ÷ chrome by round.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../protocol/report.js';
import { opensIn, TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { firefoxFound } from '../../puppeteer/browser/firefox.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const CONCURRENCY = 4;
const OVER_CAP = 8;
const INTERVAL_MS = 5;
const expectedTcp = (t: Transport, open: number) => (TRANSPORT_INFO[t].http === 'h1' ? open : 1);
/** The transports a Firefox page can open: ws-stream's WebSocketStream it has not (refused up front: test/unit/engine.test.ts). */
const FIREFOX_TRANSPORTS = TRANSPORTS.filter((t) => opensIn(t, 'firefox'));

/** `.ci/run` installs firefox-esr; a machine without it skips this file, and says so. */
const hasFirefox = firefoxFound();

describe.skipIf(!hasFirefox)('every transport, smoke load, headless Firefox', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;
  const pointOf = (scenario: string, t: Transport, engine: 'chrome' | 'firefox' = 'firefox') =>
    report.points.find((x) => x.point.scenario === scenario && x.point.transport === t && (x.point.engine ?? 'chrome') === engine)!;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-firefox-'));
    // Every 5 ms, not 1: a smoke load the host carries with room to spare. At 1 ms (80k events/s) Firefox's
    // SSE took 67% of a core and the host 195% of 200%, so a neighbour on the machine tipped grpc-web to
    // 38% delivered and the capped tab (6 open × 20k) past answering its driver for 20 s (stop 41's CI).
    const base = { batch: 20, intervalMs: INTERVAL_MS, warmupSec: 1, measureSec: 1, repeats: 1 };
    // Only `every`'s rates are held: its points keep a 1 s warm-up and a 1 s window, about 200
    // batches per connection, enough for a delivered ratio held at 0.5. `capped` is judged on the
    // connections that opened, and `pair` on the comparison being made, not on what it found: no
    // warm-up and the shortest window (about 1.5 s less a point, and less load).
    const short = { ...base, warmupSec: 0, measureSec: 0.5 };
    const file = {
      scenarios: [
        { id: 'every', transport: [...FIREFOX_TRANSPORTS], concurrency: CONCURRENCY, engine: 'firefox', ...base },
        { id: 'capped', transport: 'sse-h1', concurrency: OVER_CAP, engine: 'firefox', ...short },
        { id: 'pair', transport: 'ws', concurrency: CONCURRENCY, engine: ['chrome', 'firefox'], ...short },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(['--file', path.join(dir, 'scenarios.json'), '--json', '--retries', '0', '--out', dir], 300_000));
    report = JSON.parse(stdout) as Report;
  }, 360_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('measures every point, the Firefox ones in the Firefox it launched', () => {
    expect(code, stderr).toBe(0);
    expect(report.points.filter((p) => p.point.scenario === 'every').map((p) => p.point.id)).toEqual(
      FIREFOX_TRANSPORTS.map((t) => expect.stringMatching(new RegExp(`^every/${t}-.*-ff$`))),
    );
    const firefox = report.hosts!.find((h) => h.id === 'local-firefox')!;
    expect(firefox).toMatchObject({ engine: 'firefox', origin: 'launched', host: 'localhost' });
    expect(firefox.version).toMatch(/^firefox\/\d+/);
    expect(report.environment.engine).toBe('chrome');
    expect(report.environment.firefox).toMatchObject({ version: firefox.version, headless: true });
    const r = firstMeasured(pointOf('every', 'sse'));
    expect(r.browserId).toBe('local-firefox');
    expect(r.browser).toMatchObject({ engine: 'firefox', version: firefox.version, headless: true });
  });

  it.each(FIREFOX_TRANSPORTS.map((t) => [t]))('%s: delivers the smoke load with 0 gaps, duplicates or shed', (t) => {
    const p = pointOf('every', t);
    const r = firstMeasured(p);
    // A timing figure from one short window on a shared 2-core host, held loosely; the exact counters prove nothing was lost.
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(r.page.gaps, p.point.id).toBe(0);
    expect(r.page.duplicates, p.point.id).toBe(0);
    expect(r.page.errors, p.point.id).toBe(0);
    expect(r.server.batchesShed, p.point.id).toBe(0);
  });

  it.each(FIREFOX_TRANSPORTS.map((t) => [t]))('%s: arrives over the expected HTTP version and TCP connections (ws-h2: RFC 8441 over HTTP/2)', (t) => {
    const p = pointOf('every', t);
    const r = firstMeasured(p);
    const http = TRANSPORT_INFO[t].http;
    expect(r.wire, p.point.id).toEqual({
      http: { h1: http === 'h1' ? CONCURRENCY : 0, h2: http === 'h2' ? CONCURRENCY : 0 },
      tcpConnections: expectedTcp(t, CONCURRENCY),
      stalled: 0,
    });
    expect(r.notes.join('\n')).not.toMatch(/RFC 8441/);
  });

  it("sse-h1 past Firefox's own per-host cap: the cap measured from what opened, the rest stalled", () => {
    const r = firstMeasured(report.points.find((x) => x.point.scenario === 'capped')!);
    const open = r.wire!.http.h1;
    expect(open).toBeGreaterThanOrEqual(6);
    expect(open).toBeLessThan(OVER_CAP);
    expect(r.wire).toEqual({ http: { h1: open, h2: 0 }, tcpConnections: open, stalled: OVER_CAP - open });
    expect(r.page.gaps).toBe(0);
    // The notes in the message: a failure here (seen once in a full run, not alone) must say what they were.
    expect(r.notes, JSON.stringify(r.notes)).toContain(
      `${OVER_CAP - open} of ${OVER_CAP} connections never opened: the browser allows ${open} per host over HTTP/1.1`,
    );
  });

  it('CPU from /proc: the tab, its main thread and the parent read, each saying where from; what cannot be read is null and listed', () => {
    for (const t of FIREFOX_TRANSPORTS) {
      const r = firstMeasured(pointOf('every', t));
      expect(r.cpu.tabProcess, t).toBeGreaterThan(0);
      expect(r.cpu.tabMainThread, t).toBeGreaterThan(0);
      expect(r.cpu.chrome.browser, t).toBeGreaterThan(0);
      expect(r.cpu.chrome.total, t).toBeGreaterThanOrEqual(r.cpu.tabProcess!);
      expect(r.cpu.sources?.tabProcess, t).toMatch(/^\/proc: the tab's content process/);
      for (const k of r.cpu.unavailable ?? []) {
        expect(k === 'tabThreads' || k === 'host' ? r.cpu[k] : r.cpu.chrome[k as 'gpu' | 'network'], `${t} ${k}`).toBeNull();
        expect(r.cpu.sources?.[k], `${t} ${k}`).toMatch(/^unavailable: /);
      }
      expect(r.cpu.unavailable ?? []).not.toContain('tabProcess');
      expect(r.efficiency.rendererCpuMsPerMillionEvents, t).toBeGreaterThan(0);
    }
  });

  it("its own JSON.parse ceiling, measured in Firefox each round; Chrome's points keep Chrome's", () => {
    const round = report.rounds[0];
    const firefox = round.engineCeilings?.find((e) => e.engine === 'firefox')?.parseCeilings ?? [];
    expect(firefox.map((c) => c.batch)).toEqual([20]);
    expect(firefoxRepeatCeiling()).toBe(firefox[0].eventsPerSec);
    const chrome = firstMeasured(pointOf('pair', 'ws', 'chrome'));
    expect(chrome.ceilingEventsPerSec).toBe(round.parseCeilings.find((c) => c.batch === 20)!.eventsPerSec);
  });
  const firefoxRepeatCeiling = () => firstMeasured(pointOf('every', 'ws')).ceilingEventsPerSec;

  it('the same point in both engines is compared firefox ÷ chrome, paired by round', () => {
    // (every/ws-…-ff is the same load as pair's Chrome point too, and is compared with it as well.)
    const knobs = (report.knobs ?? []).filter((k) => k.knob === 'engine' && k.b === `pair/ws-b20-c4-i${INTERVAL_MS}-full-ff`);
    expect(knobs.map((k) => k.metric).sort()).toEqual(['eventsPerSec', 'rendererCpuMsPerMillionEvents']);
    for (const k of knobs) {
      expect(k).toMatchObject({
        from: 'chrome',
        to: 'firefox',
        a: `pair/ws-b20-c4-i${INTERVAL_MS}-full`,
        b: `pair/ws-b20-c4-i${INTERVAL_MS}-full-ff`,
        rounds: [0],
      });
      expect(k.text).toContain('firefox ÷ chrome');
    }
  });
});
