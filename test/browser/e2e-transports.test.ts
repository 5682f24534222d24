/**
 * Every transport end to end in headless Chromium, through `npm run sweep`'s entry point: the
 * smoke load is delivered in full with zero gaps, each over the HTTP version it is meant to
 * use, on the number of TCP connections that version implies; and `sse-h1` past HTTP/1.1's
 * 6 connections per host measures the stalled connections instead of hanging.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../protocol/report.js';
import { BINARY_TRANSPORTS, TRANSPORT_INFO, TRANSPORTS, type Transport } from '../../protocol/wire.js';
import { firstMeasured, runSweep } from '../helpers/sweep-process.js';

const CONCURRENCY = 4;
/** Past the cap: 6 open, 2 stalled. */
const OVER_CAP = 8;
const ORIGINS = 3;

/** TCP connections the page's streams should arrive on: one per stream over HTTP/1.1, one session over HTTP/2. */
const expectedTcp = (t: Transport, open: number) => (TRANSPORT_INFO[t].http === 'h1' ? open : 1);

describe('every transport, smoke load, headless Chromium', () => {
  let dir: string;
  let report: Report;
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-transports-'));
    const base = { batch: 20, warmupSec: 1, measureSec: 2, repeats: 1 };
    const file = {
      scenarios: [
        { id: 'every', description: 'every transport at the smoke load', transport: [...TRANSPORTS], concurrency: CONCURRENCY, ...base },
        { id: 'capped', description: 'sse-h1 past 6 per host', transport: 'sse-h1', concurrency: OVER_CAP, ...base },
        { id: 'spread', description: 'three origins', transport: ['sse', 'grpc-web', 'ws-h2'], origins: ORIGINS, concurrency: ORIGINS, ...base },
        { id: 'watched', description: 'DevTools Network domain on', transport: 'sse', devtools: 'network', concurrency: 2, ...base },
        { id: 'binary', description: 'msgpack', transport: [...BINARY_TRANSPORTS], encoding: 'msgpack', concurrency: CONCURRENCY, ...base },
      ],
    };
    await writeFile(path.join(dir, 'scenarios.json'), JSON.stringify(file));
    let stdout: string;
    ({ code, stdout, stderr } = await runSweep(
      ['--file', path.join(dir, 'scenarios.json'), '--scenario', 'every,capped,spread,watched,binary', '--json', '--retries', '0', '--out', dir],
      240_000,
    ));
    report = JSON.parse(stdout) as Report;
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const measured = firstMeasured;

  it('measures every point', () => {
    expect(code, stderr).toBe(0);
    expect(report.points.map((p) => p.point.id)).toEqual([
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
