/** The lab page's live "keeping up?" judgement: the sweep's verdict decision on the last seconds. */
import { describe, expect, it } from 'vitest';
import type { CpuReading } from '../../protocol/page-api.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { judgeHealth, RunServerTally, type HealthInput, type RunServer } from '../../web/lab/health.js';

const NOW = 1_700_000_000_000;
const server = (generated: number, shed: number, atMs: number): RunServer => ({ atMs, generated, shed, behind: 0, duePerSec: 10_000, cpuUs: atMs * 300 });
const reading = (main: number): CpuReading => ({
  atMs: NOW - 500,
  intervalSec: 1,
  cores: 2,
  renderer: main + 10,
  mainThreadBusy: main,
  threads: null,
  network: 10,
  browser: 5,
  gpu: 0,
  otherChrome: 1,
  server: 30,
  host: 150,
});
const input = (o: Partial<HealthInput>): HealthInput => ({
  offeredEventsPerSec: 200_000,
  receivedEventsPerSec: 200_000,
  windowEvents: 1_000_000,
  windowSec: 5,
  backlogMs: 5,
  server: { first: server(0, 0, 0), windowStart: server(100_000, 0, 10_000), now: server(150_000, 0, 15_000) },
  cpu: null,
  stalled: null,
  parse: 'main',
  workers: 1,
  runSec: 20,
  ...o,
});

describe('judgeHealth', () => {
  it('keeps quiet while the page keeps up', () => {
    const h = judgeHealth(input({}), NOW);
    expect(h).toMatchObject({ behind: false, text: 'keeping up', shedThisRun: 0 });
    expect(h.deliveredRatio).toBe(1);
  });

  it("says client-bound with the main thread and this run's shed count, in the sweep's terms", () => {
    const h = judgeHealth(
      input({
        windowEvents: 600_000,
        cpu: reading(98),
        server: { first: server(0, 1_000, 0), windowStart: server(100_000, 2_000, 10_000), now: server(150_000, 32_000, 15_000) },
      }),
      NOW,
    );
    expect(h.behind).toBe(true);
    expect(h.shedThisRun).toBe(31_000);
    expect(h.limit?.verdict).toBe('client-bound');
    expect(h.text).toMatch(/^falling behind — client-bound: the tab's main thread is at 98%, the server shed 31K batches$/);
  });

  it("allows the backlog the rule's jitter (the window's event age p99), so the live line and the rule are one check", () => {
    // Under load on this machine, a backlog read at one moment moved 15 → 35 ms at a p99 of 177 ms with nothing growing.
    const rising = { backlogStartMs: 15, backlogMs: 35, intervalMs: 1 };
    expect(judgeHealth(input({ ...rising, jitterMs: 177 }), NOW).behind).toBe(false);
    expect(judgeHealth(input(rising), NOW).behind).toBe(true);
    // Beyond a tick plus the p99 it still falls behind.
    expect(judgeHealth(input({ ...rising, backlogMs: 15 + 1 + 177 + 1, jitterMs: 177 }), NOW).behind).toBe(true);
  });

  it("names connections stalled behind the browser's per-host cap before any CPU figure", () => {
    const h = judgeHealth(input({ windowEvents: 600_000, cpu: reading(98), stalled: { connections: 4, of: 10, cap: 6 } }), NOW);
    expect(h.limit?.verdict).toBe('client-bound');
    expect(h.text).toContain("4 of 10 connections stalled behind the browser's 6 per host");
  });

  it('counts a page with an old newest batch as behind even at full rate, and asks for npm run lab without readings', () => {
    const h = judgeHealth(input({ backlogMs: 3200 }), NOW);
    expect(h.behind).toBe(true);
    expect(h.text).toContain('the newest batch is 3.2 s old');
    expect(h.text).toContain('CPU readings need `npm run lab`');
  });

  it('calls a server that fell behind its schedule without shedding server-bound', () => {
    const h = judgeHealth(
      input({ windowEvents: 500_000, server: { first: server(0, 0, 0), windowStart: server(100_000, 0, 10_000), now: server(125_000, 0, 15_000) } }),
      NOW,
    );
    expect(h.limit?.verdict).toBe('server-bound');
    expect(h.text).toContain('the server generated only 50.0% of its schedule');
  });

  it('does not judge the first seconds, nor use a stale CPU reading', () => {
    expect(judgeHealth(input({ runSec: 1, windowEvents: 0 }), NOW).text).toBe('starting…');
    const stale = { ...reading(99), atMs: NOW - 10_000 };
    expect(judgeHealth(input({ windowEvents: 500_000, cpu: stale }), NOW).text).not.toContain('main thread');
  });
});

describe('RunServerTally', () => {
  it("sums only this run's connections, and keeps what a closed one last showed", () => {
    const conn = (id: number, client: string | null, generated: number, shed: number) =>
      ({ id, client, generated, shed, behind: 1, intervalMs: 1 }) as ServerStats['connections'][number];
    const stats = (connections: ServerStats['connections']) => ({ nowMs: 1000, cpuUserUs: 5, cpuSystemUs: 5, connections }) as ServerStats;
    const t = new RunServerTally('lab-a');
    expect(t.add(stats([conn(1, 'lab-a', 100, 3), conn(2, 'other', 900, 90), conn(3, 'lab-a', 50, 1)]))).toMatchObject({
      generated: 150,
      shed: 4,
      behind: 2,
      duePerSec: 2000,
    });
    expect(t.add(stats([conn(3, 'lab-a', 60, 2)]))).toMatchObject({ generated: 160, shed: 5, behind: 1, duePerSec: 1000 });
  });
});
