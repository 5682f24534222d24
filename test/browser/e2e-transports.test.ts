/**
 * Every transport end to end in headless Chromium, through `npm run sweep`'s entry point: the
 * smoke load is delivered in full with zero gaps, each over the HTTP version it is meant to
 * use, on the number of TCP connections that version implies; and `sse-h1` past HTTP/1.1's
 * 6 connections per host measures the stalled connections instead of hanging.
 *
 * And the tabs, display and compression factors at the same load: several tabs of one browser
 * measured in one window, each tab's figures exact and summing to the point's; a headful Chrome
 * (under an Xvfb the sweep starts when there is no DISPLAY) beside the headless one, each repeat
 * recording which; and every compressible transport compressed for real, as the server counted
 * it, with the page still getting every batch.
 *
 * One sweep serves both: a sweep's start (server, Chrome, the JSON.parse ceiling at batch 20)
 * costs about 7 s, and both read points at the same smoke load in the same Chromium.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PointResult, Report } from '../../protocol/report.js';
import { BINARY_TRANSPORTS, compressionOf, TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const CONCURRENCY = 4;
/** Past the cap: 6 open, 2 stalled. */
const OVER_CAP = 8;
const ORIGINS = 3;
/** The tabs and display points: this many tabs, this many connections each. */
const TABS = 2;
const TAB_CONCURRENCY = 2;
const COMPRESSIBLE = TRANSPORTS.filter((t) => compressionOf(t) !== null);

/** TCP connections the page's streams should arrive on: one per stream over HTTP/1.1, one session over HTTP/2. */
const expectedTcp = (t: Transport, open: number) => (TRANSPORT_INFO[t].http === 'h1' ? open : 1);

const TRANSPORT_SCENARIOS = ['every', 'capped', 'spread', 'watched', 'binary'];
const FACTOR_SCENARIOS = ['tabs', 'display', 'compressed'];

let dir: string;
let report: Report;
let stderr: string;
let code: number | null;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-transports-'));
  // The points whose rate is held (every, binary, tabs, display, compressed) keep a 1 s window:
  // at batch 20 every 1 ms it holds about 1,000 batches per connection, plenty for a delivered
  // ratio held at 0.5 (a 2 s window cost 22 s more over these 22 points). Their warm-up is 0.5 s,
  // not 1 s (11 s less over the 22): the window opens only once the sweep's settle probes find
  // both ends caught up (puppeteer/measure/settle.ts), so a start-up backlog cannot reach it, and
  // the half-second holds the page's first frames and the decoder's first tiers.
  // The others are judged on exact counters, connections and notes only, which a window of any
  // length shows: no warm-up and the shortest window (about 1.5 s less a point).
  const base = { batch: 20, warmupSec: 0.5, measureSec: 1, repeats: 1 };
  const short = { ...base, warmupSec: 0, measureSec: 0.5 };
  const file = {
    scenarios: [
      { id: 'every', description: 'every transport at the smoke load', transport: [...TRANSPORTS], concurrency: CONCURRENCY, ...base },
      { id: 'capped', description: 'sse-h1 past 6 per host', transport: 'sse-h1', concurrency: OVER_CAP, ...short },
      { id: 'spread', description: 'three origins', transport: ['sse', 'grpc-web', 'ws-h2'], origins: ORIGINS, concurrency: ORIGINS, ...short },
      { id: 'watched', description: 'DevTools Network domain on', transport: 'sse', devtools: 'network', concurrency: 2, ...short },
      { id: 'binary', description: 'msgpack', transport: [...BINARY_TRANSPORTS], encoding: 'msgpack', concurrency: CONCURRENCY, ...base },
      { id: 'tabs', description: 'two tabs at once', transport: ['sse', 'ws'], concurrency: TAB_CONCURRENCY, tabs: TABS, ...base },
      { id: 'display', description: 'headless vs headful', transport: 'sse', concurrency: TAB_CONCURRENCY, display: ['headless', 'headful'], ...base },
      {
        id: 'compressed',
        description: 'every compressible transport, compressed',
        transport: [...COMPRESSIBLE],
        concurrency: 4,
        compression: ['deflate', 'gzip'],
        ...base,
      },
    ],
  };
  await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
  let stdout: string;
  ({ code, stdout, stderr } = await runSweep(
    [
      '--file',
      path.join(dir, 'scenarios.json'),
      '--scenario',
      [...TRANSPORT_SCENARIOS, ...FACTOR_SCENARIOS].join(','),
      '--json',
      '--retries',
      '0',
      '--out',
      dir,
    ],
    360_000,
  ));
  report = JSON.parse(stdout) as Report;
}, 420_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const measured = firstMeasured;
/** The ids of these scenarios' points, in the report's order. */
const idsOf = (scenarios: readonly string[]) => report.points.filter((p) => scenarios.includes(p.point.scenario)).map((p) => p.point.id);

describe('every transport, smoke load, headless Chromium', () => {
  it('measures every point', () => {
    expect(code, stderr).toBe(0);
    expect(idsOf(TRANSPORT_SCENARIOS)).toEqual([
      ...TRANSPORTS.map((t) => expect.stringMatching(new RegExp(`^every/${t}-`))),
      'capped/sse-h1-b20-c8-i1-full',
      `spread/sse-b20-c${ORIGINS}-i1-full-o${ORIGINS}`,
      `spread/grpc-web-b20-c${ORIGINS}-i1-full-o${ORIGINS}`,
      // ws-h2 has its own origin: the factor does not multiply it.
      `spread/ws-h2-b20-c${ORIGINS}-i1-full`,
      'watched/sse-b20-c2-i1-full-dt',
      ...BINARY_TRANSPORTS.map((t) => `binary/${t}-b20-c${CONCURRENCY}-i1-full-mp`),
    ]);
  });

  it.each(TRANSPORTS.map((t) => [t]))('%s: delivers the smoke load with 0 gaps, duplicates or shed', (t) => {
    const p = report.points.find((x) => x.point.scenario === 'every' && x.point.transport === t)!;
    const r = measured(p);
    // A timing figure from one short window on a shared 2-core host (0.74 was seen with another
    // suite beside it), held loosely; the exact counters below prove nothing was lost.
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(r.page.gaps, p.point.id).toBe(0);
    expect(r.page.duplicates, p.point.id).toBe(0);
    expect(r.page.errors, p.point.id).toBe(0);
    expect(r.server.batchesShed, p.point.id).toBe(0);
  });

  it.each(TRANSPORTS.map((t) => [t]))('%s: arrives over the expected HTTP version and TCP connections', (t) => {
    const p = report.points.find((x) => x.point.scenario === 'every' && x.point.transport === t)!;
    const wire = measured(p).wire!;
    const http = TRANSPORT_INFO[t].http;
    expect(wire.http, p.point.id).toEqual({ h1: http === 'h1' ? CONCURRENCY : 0, h2: http === 'h2' ? CONCURRENCY : 0 });
    expect(wire.tcpConnections, p.point.id).toBe(expectedTcp(t, CONCURRENCY));
    expect(wire.stalled, p.point.id).toBe(0);
    expect(p.summary!.wire).toEqual(wire);
  });

  it('sse-h1 past 6 per host: 6 open on 6 TCP connections, 2 measured as stalled, and a note saying why', () => {
    const p = report.points.find((x) => x.point.scenario === 'capped')!;
    const r = measured(p);
    expect(r.wire).toEqual({ http: { h1: 6, h2: 0 }, tcpConnections: 6, stalled: OVER_CAP - 6 });
    expect(r.page.gaps).toBe(0);
    expect(r.notes.join('\n')).toMatch(/only 6 of 8 connections were open .*stalled behind the browser's 6 connections per host/);
    // The cap, not the server or a thread, was the limit.
    expect(r.verdict).toBe('client-bound');
    expect(r.notes).toContain('2 of 8 connections never opened: the browser allows 6 per host over HTTP/1.1');
  });

  it('origins: k spreads HTTP/2 streams over k TCP connections, delivered in full', () => {
    for (const t of ['sse', 'grpc-web']) {
      const p = report.points.find((x) => x.point.scenario === 'spread' && x.point.transport === t)!;
      const r = measured(p);
      expect(p.point.origins, p.point.id).toBe(ORIGINS);
      expect(r.wire, p.point.id).toEqual({ http: { h1: 0, h2: ORIGINS }, tcpConnections: ORIGINS, stalled: 0 });
      expect(r.page.gaps, p.point.id).toBe(0);
    }
  });

  it('devtools network: the point is measured with the Network domain on, losing nothing', () => {
    const p = report.points.find((x) => x.point.scenario === 'watched')!;
    expect(p.point.devtools).toBe('network');
    const r = measured(p);
    // Its rate is what the factor measures (46% of 40 k offered was seen here), so only the exact counters are held.
    expect(r.page.gaps).toBe(0);
    expect(r.page.errors).toBe(0);
    expect(r.page.events).toBeGreaterThan(0);
  });

  it.each(BINARY_TRANSPORTS.map((t) => [t]))('%s with msgpack: delivered with 0 gaps over the same wire, in fewer bytes per event than JSON', (t) => {
    const p = report.points.find((x) => x.point.scenario === 'binary' && x.point.transport === t)!;
    const json = measured(report.points.find((x) => x.point.scenario === 'every' && x.point.transport === t)!);
    const r = measured(p);
    expect(p.point.encoding).toBe('msgpack');
    expect(r.page.gaps, p.point.id).toBe(0);
    expect(r.page.errors, p.point.id).toBe(0);
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(r.wire).toEqual(json.wire);
    // Sizes, not timings: a row is about 110 bytes in msgpack and 130 in JSON.
    expect(r.page.bytes / r.page.events, p.point.id).toBeLessThan(0.95 * (json.page.bytes / json.page.events));
  });
});

describe('tabs, display and compression, smoke load, Chromium', () => {
  const pointOf = (scenario: string, transport: Transport, extra: (p: PointResult) => boolean = () => true) =>
    report.points.find((p) => p.point.scenario === scenario && p.point.transport === transport && extra(p))!;

  it('measures every point', () => {
    expect(code, stderr).toBe(0);
    expect(idsOf(FACTOR_SCENARIOS)).toEqual([
      `tabs/sse-b20-c${TAB_CONCURRENCY}-i1-full-t${TABS}`,
      `tabs/ws-b20-c${TAB_CONCURRENCY}-i1-full-t${TABS}`,
      `display/sse-b20-c${TAB_CONCURRENCY}-i1-full`,
      `display/sse-b20-c${TAB_CONCURRENCY}-i1-full-hf`,
      ...COMPRESSIBLE.map((t) => `compressed/${t}-b20-c4-i1-full-${compressionOf(t)}`),
    ]);
  });

  it.each([['sse'], ['ws']] as const)('%s in 2 tabs: each tab measured in the same window, the totals exactly their sums, 0 gaps', (t) => {
    const p = pointOf('tabs', t);
    const r = measured(p);
    expect(p.point.offeredEventsPerSec).toBe(TABS * TAB_CONCURRENCY * 20 * 1000);
    const tabs = r.tabs!;
    expect(tabs).toHaveLength(TABS);
    // Each tab tags its own streams: distinct tags, and each finds exactly its own in /stats.
    expect(new Set(tabs.map((x) => x.client)).size).toBe(TABS);
    const http = TRANSPORT_INFO[t].http;
    for (const tab of tabs) {
      expect(tab.wire!.http, p.point.id).toEqual({ h1: http === 'h1' ? TAB_CONCURRENCY : 0, h2: http === 'h2' ? TAB_CONCURRENCY : 0 });
      expect(tab.page.gaps, p.point.id).toBe(0);
      expect(tab.page.events, p.point.id).toBeGreaterThan(0);
      expect(tab.cpu.tabProcess, p.point.id).toBeGreaterThan(0);
    }
    expect(r.wire!.http[http]).toBe(TABS * TAB_CONCURRENCY);
    expect(r.page.events).toBe(tabs.reduce((a, x) => a + x.page.events, 0));
    expect(r.page.batches).toBe(tabs.reduce((a, x) => a + x.page.batches, 0));
    expect(r.page.gaps).toBe(0);
    expect(r.server.batchesShed).toBe(0);
    // Rates are rounded per tab and in total: at most half an event per tab apart.
    expect(Math.abs(r.eventsPerSec - tabs.reduce((a, x) => a + x.eventsPerSec, 0))).toBeLessThanOrEqual(TABS);
    expect(r.perTabEventsPerSec!.min).toBe(Math.min(...tabs.map((x) => x.eventsPerSec)));
    expect(r.perTabEventsPerSec!.max).toBe(Math.max(...tabs.map((x) => x.eventsPerSec)));
    expect(r.cpu.tabProcess).toBeCloseTo(
      tabs.reduce((a, x) => a + x.cpu.tabProcess!, 0),
      0,
    );
    expect(r.cpu.tabMainThread).toBe(Math.max(...tabs.map((x) => x.cpu.tabMainThread!)));
    // A timing figure from a short window on a shared 2-core host: held loosely.
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(p.summary!.tabEventsPerSecMin!.n).toBe(1);
  });

  it('headful beside headless: both delivered in full, each repeat naming its browser', () => {
    const headless = measured(pointOf('display', 'sse', (p) => p.point.display === 'headless'));
    const headful = measured(pointOf('display', 'sse', (p) => p.point.display === 'headful'));
    expect(headless.browser).toMatchObject({ headless: true, display: null, xvfb: false });
    expect(headful.browser).toMatchObject({ headless: false, xvfb: !process.env.DISPLAY });
    expect(headful.browser!.display).toMatch(/^:\d+/);
    expect(headful.browser!.version).toMatch(/Chrom/);
    for (const r of [headless, headful]) {
      expect(r.page.gaps).toBe(0);
      expect(r.page.errors).toBe(0);
      expect(r.eventsPerSec / (TAB_CONCURRENCY * 20_000)).toBeGreaterThan(0.5);
    }
    // The report's environment is the sweep's own (headless) browser.
    expect(report.environment.headless).toBe(true);
  });

  it.each(COMPRESSIBLE.map((t) => [t]))('%s compressed: negotiated on every stream, fewer bytes on the wire than the page decoded, 0 gaps', (t) => {
    const p = pointOf('compressed', t);
    const r = measured(p);
    const c = r.compression!;
    expect(p.point.compression).toBe(compressionOf(t));
    expect(c.kind).toBe(compressionOf(t));
    expect(c.streams, p.point.id).toBe(4);
    expect(c.compressedStreams, p.point.id).toBe(4);
    expect(c.ratio!, p.point.id).toBeLessThan(0.5);
    expect(c.outputBytes).toBeLessThan(c.inputBytes);
    // The page counts what it decoded; the server what it wrote: compressed, well below it.
    expect(c.wireBytes, p.point.id).toBeLessThan(0.6 * r.page.bytes);
    expect(r.page.gaps, p.point.id).toBe(0);
    expect(r.page.errors, p.point.id).toBe(0);
    expect(r.server.batchesShed, p.point.id).toBe(0);
    expect(r.eventsPerSec / p.point.offeredEventsPerSec, p.point.id).toBeGreaterThan(0.5);
    expect(r.notes.join('\n')).not.toMatch(/compression .* was asked for/);
  });
});
