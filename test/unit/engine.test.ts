/**
 * The engine factor's pure parts (issue 25): scenarios multiplied by engine with stable ids and
 * the Chrome-only factors refused for Firefox; Firefox's processes classified by `comm`; a
 * Firefox repeat's CPU from /proc samples, with every figure it cannot read null and listed,
 * never 0; engine pairs compared by round on the same machine though their host kinds differ;
 * the report check reading null CPU; Firefox discovery's refusals, coded, with what to install.
 */
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { parseReport } from '../../protocol/report-check.js';
import type { PageSnapshot } from '../../protocol/page-api.js';
import type { BrowserHost, Report } from '../../protocol/report.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { expandScenario, parseScenarioFile, pointCount } from '../../protocol/scenario.js';
import { firefoxProcessType } from '../../results/cpu.js';
import { roundOrder } from '../../results/rounds.js';
import { knobComparisons } from '../../results/knobs.js';
import { summarisePoint } from '../../results/point-summary.js';
import type { Sample } from '../../results/samples.js';
import { rfc8441FallbackNote, summarise } from '../../results/summarise.js';
import { findFirefox } from '../../puppeteer/browser/firefox.js';
import { measured, point as v2Point, report as v2Report, result } from '../helpers/v2-fixture.js';

describe('the engine factor in a scenario', () => {
  it('multiplies points like any factor; a Firefox point ends its id in -ff, a Chrome one keeps its id', () => {
    const s = { id: 'e', transport: ['ws', 'sse'] as ('ws' | 'sse')[], batch: 20, concurrency: 4, engine: ['chrome', 'firefox'] as ('chrome' | 'firefox')[] };
    const points = expandScenario(s);
    expect(points.map((p) => p.id)).toEqual(['e/ws-b20-c4-i1-full', 'e/ws-b20-c4-i1-full-ff', 'e/sse-b20-c4-i1-full', 'e/sse-b20-c4-i1-full-ff']);
    expect(points.map((p) => p.engine)).toEqual([undefined, 'firefox', undefined, 'firefox']);
    expect(pointCount(s)).toBe(4);
    expect(expandScenario({ id: 'e', transport: 'ws', batch: 20, concurrency: 4 })[0]).not.toHaveProperty('engine');
  });

  it('refuses an unknown engine, and Chrome-only factors in a Firefox scenario, naming field, value and why', () => {
    const file = (extra: object) => ({ scenarios: [{ id: 'x', batch: 20, concurrency: 4, ...extra }] });
    expect(() => parseScenarioFile(file({ engine: 'safari' }))).toThrow('scenarios[0].engine must be one of chrome, firefox, got "safari"');
    expect(() => parseScenarioFile(file({ engine: 'firefox', devtools: ['off', 'network'] }))).toThrow(
      `scenarios[0] ('x') runs in firefox, so devtools must be 'off' (the Network domain is Chrome's CDP), got ["off","network"]`,
    );
    expect(() => parseScenarioFile(file({ engine: ['chrome', 'firefox'], tabs: 2 }))).toThrow(
      /runs in firefox, so tabs must be 1 \(Firefox runs the tabs of one site in one content process/,
    );
    expect(() => parseScenarioFile(file({ engine: 'firefox', display: 'headful' }))).toThrow(/runs in firefox, so display must be left out/);
    // A transport Firefox has no API for: coded, naming the transport, the API and the browser.
    const noStream = () => parseScenarioFile(file({ engine: ['chrome', 'firefox'], transport: ['ws', 'ws-stream'] }));
    expect(noStream).toThrow(
      `scenarios[0] ('x') runs in firefox, so transport must be one of ws, ws-h2, sse, sse-h1, fetch, grpc-web, poll (ws-stream opens a WebSocketStream, which Firefox does not have), got ["ws","ws-stream"]`,
    );
    expect(noStream).toThrow(expect.objectContaining({ code: 'PUSHLAB_BAD_SCENARIO' }));
    expect(expandScenario({ id: 'c', transport: 'ws-stream', batch: 20, concurrency: 4 }).map((p) => p.id)).toEqual(['c/ws-stream-b20-c4-i1-full']);
    expect(() =>
      parseScenarioFile({ scenarios: [{ id: 'k', concurrency: 4, engine: ['chrome', 'firefox'], findMax: { vary: 'batch', min: 1, max: 10 } }] }),
    ).toThrow(/searches batch, so engine must be one value/);
  });

  it('the shipped engines scenario: ws, sse and fetch below and at saturation, in both engines, 3 rounds', async () => {
    const { readFile } = await import('node:fs/promises');
    const file = parseScenarioFile(JSON.parse(await readFile(new URL('../../scenarios.json', import.meta.url), 'utf8')));
    const points = expandScenario(
      file.scenarios.find((s) => s.id === 'engines')!,
      file.defaults,
    );
    expect(new Set(points.map((p) => p.transport))).toEqual(new Set(['ws', 'sse', 'fetch']));
    expect(points.filter((p) => p.engine === 'firefox')).toHaveLength(points.length / 2);
    expect(new Set(points.map((p) => p.batch))).toEqual(new Set([20, 100]));
    expect(points.every((p) => p.repeats === 3)).toBe(true);
  });
});

describe('the round order with two engines', () => {
  it("puts a point's two engines back to back (after its transports), the engine first rotating by round", () => {
    const points = expandScenario({ id: 'e', transport: ['ws', 'sse'], batch: [20, 400], concurrency: 10, engine: ['chrome', 'firefox'] });
    for (let round = 0; round < 4; round++) {
      const order = roundOrder(points, round, 7).map((p) => p.id);
      expect(new Set(order).size).toBe(points.length);
      // Each load's four points (2 transports × 2 engines) are consecutive.
      for (const batch of [20, 400]) {
        const at = order.map((id, i) => (id.includes(`-b${batch}-`) ? i : -1)).filter((i) => i >= 0);
        expect(at[3] - at[0], `${order.join(' ')}`).toBe(3);
      }
      expect(order[0].endsWith('-ff')).toBe(round % 2 === 1);
    }
  });
});

describe("Firefox's processes by comm", () => {
  it('parent → browser, content → renderer, socket → network, GPU → gpu, the rest other', () => {
    expect(firefoxProcessType('firefox-esr', true)).toBe('browser');
    expect(firefoxProcessType('Web Content', false)).toBe('renderer');
    expect(firefoxProcessType('Isolated Web Co', false)).toBe('renderer');
    expect(firefoxProcessType('Socket Process', false)).toBe('network');
    expect(firefoxProcessType('GPU Process', false)).toBe('gpu');
    expect(firefoxProcessType('WebExtensions', false)).toBe('other: WebExtensions');
    expect(firefoxProcessType('forkserver', false)).toBe('other: forkserver');
  });
});

const latency = { count: 0, minMs: null, p25Ms: null, p50Ms: null, p75Ms: null, p95Ms: null, p99Ms: null, maxMs: null, meanMs: null };
const ffPoint = expandScenario({ id: 'f', transport: 'sse', batch: 100, concurrency: 2, engine: 'firefox', measureSec: 5 })[0];
const meta = { round: 0, startedAt: '2026-11-25T00:00:00.000Z', attempts: 1, cores: 2, settleSec: 0.2, startedBehind: false, ceilingEventsPerSec: 1e6 };

/** A 5 s window of a Firefox at 200 k EPS: content process 60% (main thread 40%), parent 30%, no socket or GPU process when `bare`. */
function firefoxSamples(o: { bare: boolean; remote?: boolean }): [Sample, Sample] {
  const page = (t: number, s: number): PageSnapshot => ({
    atMs: 1.7e12 + t * 1000,
    transport: 'sse',
    concurrency: 2,
    open: 2,
    counters: { events: 200_000 * s, batches: 2000 * s, bytes: 0, gaps: 0, duplicates: 0, reconnects: 0, errors: 0 },
    batchesPerConnection: [1000 * s, 1000 * s],
    latency,
  });
  const server = (t: number, s: number): ServerStats => ({
    nowMs: t * 1000,
    pid: 1,
    cpuUserUs: s * 100_000,
    cpuSystemUs: 0,
    eventLoopActiveMs: s * 100,
    eventLoopIdleMs: s * 900,
    rssBytes: 1e8,
    batchesSent: 2000 * s,
    eventsSent: 200_000 * s,
    bytesSent: 0,
    batchesShed: 0,
    batchesBehind: 0,
    latenessMs: { p50: 0.5, p99: 1, max: 2 },
    connectionsOpen: 2,
    connectionsTotal: 2,
    writeErrors: 0,
    lastWriteError: null,
    deadPeersDropped: 0,
    goneStreamsDropped: 0,
    badLastEventIds: 0,
    sendBufferLimitBytes: 4 << 20,
    connections: [],
  });
  const at = (t: number, s: number): Sample => ({
    page: page(t, s),
    tab: null,
    engine: 'firefox',
    procAtSec: 800 + t,
    chrome: o.remote
      ? null
      : [
          { id: 10, type: 'browser', cpuTime: s * 0.3 },
          { id: 11, type: 'other: forkserver', cpuTime: 0 },
          { id: 12, type: 'renderer', cpuTime: s * 0.6 },
          // The preallocated content process: idle, never the tab.
          { id: 13, type: 'renderer', cpuTime: 0.5 },
          ...(o.bare ? [] : [{ id: 14, type: 'network', cpuTime: s * 0.05 }]),
        ],
    rendererThreads: o.remote
      ? new Map()
      : new Map([
          [
            12,
            [
              { tid: 12, name: 'Web Content', cpuSeconds: s * 0.4 },
              { tid: 30, name: 'IPC I/O Child', cpuSeconds: s * 0.1 },
            ],
          ],
          [13, [{ tid: 13, name: 'Web Content', cpuSeconds: 0.5 }]],
        ]),
    server: server(t, s),
    host: o.remote ? null : { busy: s * 200 * 0.6, total: s * 200, cores: 2 },
  });
  return [at(10, 0), at(15, 5)];
}

describe('a Firefox repeat, CPU from /proc', () => {
  it('the tab is the busiest content process, its main thread the thread whose id is the pid; a kind with no process is null and listed', () => {
    const r = summarise(ffPoint, ...firefoxSamples({ bare: true }), meta);
    expect(r.cpu.tabProcess).toBe(60);
    expect(r.cpu.tabMainThread).toBe(40);
    expect(r.cpu.chrome).toEqual({ browser: 30, renderers: 60, network: null, gpu: null, other: 0, total: 90 });
    expect(r.cpu.unavailable).toEqual(['network', 'gpu']);
    expect(r.cpu.tabThreads).toMatchObject({ main: 40, io: 10, workers: [] });
    expect(r.cpu.sources?.tabProcess).toMatch(/content process/);
    expect(r.cpu.sources?.network).toMatch(/no Socket Process ran.*in the parent/);
    expect(r.efficiency.rendererCpuMsPerMillionEvents).toBeCloseTo(3000, 6);
    expect(summarisePoint(ffPoint, [r]).notes).toContain(
      "CPU from /proc, not CDP: the tab is the tab's content process (the Web Content process that used the most CPU in the window); its main thread is CPU time, not busy time; unread, so null (never 0): network (no Socket Process ran; in Firefox 153 ESR the network work is in the parent (browser)); gpu (no GPU Process ran (headless, or compositing in the parent))",
    );
  });

  it('a socket process fills the network figure', () => {
    const r = summarise(ffPoint, ...firefoxSamples({ bare: false }), meta);
    expect(r.cpu.chrome.network).toBe(5);
    expect(r.cpu.unavailable).toEqual(['gpu']);
  });

  it('a remote Firefox: every browser figure null and listed, never 0; the efficiency figures null', () => {
    const r = summarise(ffPoint, ...firefoxSamples({ bare: true, remote: true }), { ...meta, procfs: false });
    expect(r.cpu.tabProcess).toBeNull();
    expect(r.cpu.tabMainThread).toBeNull();
    expect(Object.values(r.cpu.chrome).every((v) => v === null)).toBe(true);
    expect(r.cpu.unavailable).toEqual(['tabMainThread', 'tabProcess', 'browser', 'renderers', 'network', 'gpu', 'other', 'total', 'tabThreads', 'host']);
    expect(r.efficiency.eventsPerCpuSecRenderer).toBeNull();
    expect(r.efficiency.rendererCpuMsPerMillionEvents).toBeNull();
    // The point's summary has no CPU statistics rather than a 0.
    const s = summarisePoint(ffPoint, [r]).summary!;
    expect(s.cpu.tabProcess).toBeNull();
    expect(s.cpu.network).toBeNull();
    expect(s.eventsPerSec.median).toBe(200_000);
    expect(summarisePoint(ffPoint, [r]).notes).toContain(
      "no CPU figure of the browser could be read; unread, so null (never 0): tabMainThread, tabProcess, browser, renderers, network, gpu, other, total (a remote Firefox has no CDP, and its /proc is not this machine's); tabThreads, host (this machine's /proc is not the browser's host's)",
    );
  });

  it('ws-h2 that arrived over HTTP/1.1 says so in words', () => {
    expect(rfc8441FallbackNote({ transport: 'ws-h2', engine: 'firefox' }, { http: { h1: 4, h2: 0 }, tcpConnections: 4, stalled: 0 })).toBe(
      'ws-h2: 4 of 4 WebSocket(s) arrived over HTTP/1.1: firefox did not speak RFC 8441 (WebSockets over HTTP/2) here, so this point measured WebSockets over HTTP/1.1',
    );
    expect(rfc8441FallbackNote({ transport: 'ws-h2' }, { http: { h1: 0, h2: 4 }, tcpConnections: 1, stalled: 0 })).toBeNull();
    expect(rfc8441FallbackNote({ transport: 'ws' }, { http: { h1: 4, h2: 0 }, tcpConnections: 4, stalled: 0 })).toBeNull();
  });
});

describe('engine against engine', () => {
  const host = (id: string, version: string): BrowserHost => ({
    id,
    origin: 'launched',
    endpoint: null,
    host: 'localhost',
    version,
    userAgent: 'X11; Linux x86_64',
    headless: true,
    cores: 2,
    cpuModel: 'cpu',
    machineModel: null,
    architecture: null,
    kind: `linux · ${version}`,
    procfs: true,
    serverSharesHost: true,
    sharesHostWith: [],
  });
  const hosts = [host('local', 'Chrome/156'), { ...host('local-firefox', 'firefox/153.7.0'), engine: 'firefox' as const }];
  const chromePoint = v2Point('sse', 100, 10, 'engines');
  const firefoxPoint = { ...chromePoint, id: `${chromePoint.id}-ff`, engine: 'firefox' as const };
  /** Round r's repeat: the same EPS; Firefox's renderer takes `cpu` × Chrome's CPU. */
  const repeats = (p: typeof chromePoint, browserId: string, cpu: number) =>
    [0, 1, 2].map((round) => ({ ...measured(p, { round, eps: 600_000 + round * 10_000, tab: (40 + round * 5) * cpu }), browserId }));
  const points = [result(chromePoint, repeats(chromePoint, 'local', 1)), result(firefoxPoint, repeats(firefoxPoint, 'local-firefox', 1.31))];

  it('pairs by round on one machine though the two builds are two host kinds, firefox ÷ chrome', () => {
    const knobs = knobComparisons(points, hosts);
    const cpu = knobs.find((k) => k.knob === 'engine' && k.metric === 'rendererCpuMsPerMillionEvents')!;
    expect(cpu).toMatchObject({ from: 'chrome', to: 'firefox', a: chromePoint.id, b: firefoxPoint.id, rounds: [0, 1, 2] });
    expect(cpu.ratio).toBeCloseTo(1.31, 6);
    expect(cpu.better).toBe('a');
    expect(cpu.text).toBe('chrome uses 24% less renderer CPU per event than firefox (CI 24–24%), 3 rounds');
  });

  it("never pools one engine's repeats with the other's: each point's statistics are its own engine's", () => {
    const s = summarisePoint(firefoxPoint, points[1].repeats, hosts);
    expect(s.browsers).toEqual(['local-firefox']);
    expect(s.summary!.cpu.tabProcess!.median).toBeCloseTo(45 * 1.31, 6);
  });
});

describe('the report check and null CPU', () => {
  const ok = v2Report([result(v2Point('sse', 100), [measured(v2Point('sse', 100), { round: 0, eps: 900_000 })])]);
  const withCpu = (cpu: object): unknown => {
    const r = structuredClone(ok) as Report;
    const rep = r.points[0].repeats[0] as unknown as { cpu: object };
    rep.cpu = { ...rep.cpu, ...cpu };
    return r;
  };
  it('reads null CPU figures with their unavailable list', () => {
    expect(() => parseReport(withCpu({ tabProcess: null, tabMainThread: null, unavailable: ['tabProcess', 'tabMainThread'] }), 'r.json')).not.toThrow();
  });
  it('refuses a CPU figure that is neither a number nor null, with its path', () => {
    expect(() => parseReport(withCpu({ tabProcess: '12' }), 'r.json')).toThrow(
      'r.json: points[0].repeats[0].cpu.tabProcess must be a number or null, got "12"',
    );
  });
});

describe('finding Firefox', () => {
  const none = { notExecutableBecause: () => 'it does not exist' };
  const only = (file: string) => ({ notExecutableBecause: (f: string) => (f === file ? null : 'it does not exist') });
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof PushlabError ? `${err.code}: ${err.message}` : String(err);
    }
    return 'no error';
  };

  it('FIREFOX_PATH first, then firefox-esr and firefox on PATH, then known paths', () => {
    expect(findFirefox({ FIREFOX_PATH: '/x/ff', PATH: '/usr/bin' }, only('/x/ff'))).toEqual({ path: '/x/ff', source: 'FIREFOX_PATH' });
    expect(findFirefox({ PATH: '/a:/b' }, only('/b/firefox'))).toEqual({ path: '/b/firefox', source: 'PATH' });
    expect(findFirefox({ PATH: '/a' }, only('/usr/lib/firefox-esr/firefox-esr'))).toEqual({ path: '/usr/lib/firefox-esr/firefox-esr', source: 'known path' });
  });

  it('none, or FIREFOX_PATH at nothing: PUSHLAB_NO_FIREFOX saying what to install', () => {
    expect(code(() => findFirefox({ PATH: '/a' }, none))).toBe(
      'PUSHLAB_NO_FIREFOX: No Firefox found (FIREFOX_PATH unset, no firefox-esr or firefox on PATH, none at the known install paths). Install Firefox (Debian/Ubuntu: `apt-get install -y firefox-esr`), or point FIREFOX_PATH at a Firefox binary.',
    );
    expect(code(() => findFirefox({ FIREFOX_PATH: '/nope/firefox' }, only('/usr/bin/firefox-esr')))).toMatch(
      /^PUSHLAB_NO_FIREFOX: FIREFOX_PATH is set to '\/nope\/firefox', which is not an executable file \(it does not exist\)\. Install Firefox/,
    );
  });
});
