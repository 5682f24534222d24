import { describe, expect, it } from 'vitest';
import {
  earlyProbeMs,
  isSettled,
  MIN_WARMUP_MS,
  minWarmupMs,
  lostInProbe,
  probeMs,
  settle,
  settleBudgetMs,
  SETTLED_MS,
  settledBehind,
  unsettledNote,
  type SettleProbe,
} from '../../puppeteer/measure/settle.js';

describe('isSettled', () => {
  it('needs a page and a server each at most 50 ms behind', () => {
    expect(isSettled({ p50Ms: 3, batchesBehind: 0 }, 1, 10)).toBe(true);
    expect(isSettled({ p50Ms: SETTLED_MS, batchesBehind: 500 }, 1, 10)).toBe(true);
    expect(isSettled({ p50Ms: SETTLED_MS + 1, batchesBehind: 0 }, 1, 10)).toBe(false);
    expect(isSettled({ p50Ms: 3, batchesBehind: 501 }, 1, 10)).toBe(false);
  });

  it('lets a slow-interval server be a batch or two behind at any instant', () => {
    expect(settledBehind(50, 20)).toBe(40);
    expect(settledBehind(0.5, 1)).toBe(100);
  });

  it('counts a probe without batches as caught up: the interval outlasted it', () => {
    expect(isSettled({ p50Ms: null, batchesBehind: 0 }, 60_000, 1)).toBe(true);
  });
});

describe('probe length and budget', () => {
  it('sees a few batches per probe and stays bounded', () => {
    expect(probeMs(1)).toBe(250);
    expect(probeMs(200)).toBe(600);
    expect(probeMs(60_000)).toBe(2000);
    expect(settleBudgetMs(1)).toBe(2000);
    expect(settleBudgetMs(5)).toBe(5000);
  });
});

describe('settle', () => {
  const scripted = (probes: SettleProbe[]) => {
    const asked: number[] = [];
    return {
      asked,
      probe: async (ms: number) => {
        asked.push(ms);
        return probes[Math.min(asked.length - 1, probes.length - 1)];
      },
    };
  };

  it('returns at the first settled probe', async () => {
    const s = scripted([
      { p50Ms: 400, batchesBehind: 0 },
      { p50Ms: 120, batchesBehind: 0 },
      { p50Ms: 2, batchesBehind: 1 },
      { p50Ms: 900, batchesBehind: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 10_000 });
    expect(o.settled).toBe(true);
    expect(s.asked).toEqual([250, 250, 250]);
    expect(o.last.p50Ms).toBe(2);
  });

  it('gives up early on an overloaded point whose backlog does not drain', async () => {
    const s = scripted([
      { p50Ms: 80, batchesBehind: 0 },
      { p50Ms: 60, batchesBehind: 0 },
      { p50Ms: 200, batchesBehind: 0 },
      { p50Ms: 190, batchesBehind: 0 },
      { p50Ms: 700, batchesBehind: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: false, diverging: true });
    // 80 → 60 fell by a quarter (draining), so the stuck run is 200, 190 (−5%), 700: probes 3–5.
    expect(s.asked).toHaveLength(5);
    expect(unsettledNote(o)).toMatch(/page latency p50 700 ms\): its backlog was not draining: overloaded$/);
  });

  it('gives up on a point the server sheds for in probes in a row, though its latency seems to drain', async () => {
    const s = scripted([
      { p50Ms: 900, batchesBehind: 0, lostBatches: 0 },
      { p50Ms: 700, batchesBehind: 0, lostBatches: 1200 },
      { p50Ms: 500, batchesBehind: 0, lostBatches: 1100 },
      { p50Ms: 20, batchesBehind: 0, lostBatches: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: false, diverging: true });
    expect(s.asked).toHaveLength(3);
    expect(unsettledNote(o)).toMatch(/1100 batches shed in the last probe\): the server shed batches for it in probes in a row: overloaded$/);
  });

  it("reads the server's shed count for the point's streams as lost batches: it calls overload before the page's gaps show it", async () => {
    // At saturation the page counts a gap only when the batch after it arrives, behind its backlog.
    const s = scripted([
      { p50Ms: 900, batchesBehind: 0, lostBatches: 0, shedBatches: 800 },
      { p50Ms: 700, batchesBehind: 0, lostBatches: 0, shedBatches: 900 },
      { p50Ms: 500, batchesBehind: 0, lostBatches: 1200, shedBatches: 900 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: false, diverging: true });
    expect(s.asked).toHaveLength(2);
    expect(unsettledNote(o)).toMatch(/900 batches shed in the last probe\): the server shed batches for it in probes in a row: overloaded$/);
  });

  it("takes the server's count when it was read, else the page's gaps", () => {
    expect(lostInProbe({ p50Ms: 1, batchesBehind: 0 })).toBe(0);
    expect(lostInProbe({ p50Ms: 1, batchesBehind: 0, lostBatches: 7 })).toBe(7);
    expect(lostInProbe({ p50Ms: 1, batchesBehind: 0, shedBatches: 9 })).toBe(9);
    // The page's gaps then are batches shed before the probe began, already counted by the server.
    expect(lostInProbe({ p50Ms: 1, batchesBehind: 0, lostBatches: 12, shedBatches: 0 })).toBe(0);
  });

  it("waits on after one probe the server shed in, though the page's gaps show the same loss a probe later", async () => {
    const s = scripted([
      { p50Ms: 900, batchesBehind: 0, lostBatches: 0, shedBatches: 300 },
      { p50Ms: 400, batchesBehind: 0, lostBatches: 300, shedBatches: 0 },
      { p50Ms: 300, batchesBehind: 0, lostBatches: 0, shedBatches: 0 },
      { p50Ms: 20, batchesBehind: 0, lostBatches: 0, shedBatches: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: true, diverging: false });
    expect(s.asked).toHaveLength(4);
  });

  it('waits on after one probe with a loss: a hiccup the page then drains', async () => {
    const s = scripted([
      { p50Ms: 900, batchesBehind: 0, lostBatches: 300 },
      { p50Ms: 400, batchesBehind: 0, lostBatches: 0 },
      { p50Ms: 300, batchesBehind: 0, lostBatches: 5 },
      { p50Ms: 20, batchesBehind: 0, lostBatches: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: true, diverging: false });
    expect(s.asked).toHaveLength(4);
  });

  it('keeps waiting while a backlog drains, however slowly it started', async () => {
    const s = scripted([
      { p50Ms: 900, batchesBehind: 0 },
      { p50Ms: 600, batchesBehind: 0 },
      { p50Ms: 300, batchesBehind: 0 },
      { p50Ms: 120, batchesBehind: 0 },
      { p50Ms: 20, batchesBehind: 0 },
    ]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: true, diverging: false });
    expect(s.asked).toHaveLength(5);
  });

  it('warms up for half the minimum only where each connection gets 100 messages in it: ticks of 5 ms or less', () => {
    expect(MIN_WARMUP_MS).toBe(1000);
    expect(minWarmupMs({ intervalMs: 1, warmupSec: 2 })).toBe(500);
    expect(minWarmupMs({ intervalMs: 5, warmupSec: 2 })).toBe(500);
    expect(minWarmupMs({ intervalMs: 6, warmupSec: 2 })).toBe(1000);
    expect(minWarmupMs({ intervalMs: 50, warmupSec: 1 })).toBe(1000);
    // Never more than the point's own warm-up.
    expect(minWarmupMs({ intervalMs: 50, warmupSec: 0.3 })).toBe(300);
    expect(minWarmupMs({ intervalMs: 1, warmupSec: 0 })).toBe(0);
    // The early probe still fits the last part of the half-second at a 1 ms tick.
    expect(earlyProbeMs(1, minWarmupMs({ intervalMs: 1, warmupSec: 2 }))).toBe(250);
  });

  it("an early probe (the minimum warm-up's last part) opens the window as the minimum ends when it finds both ends caught up", async () => {
    expect(earlyProbeMs(1, 1000)).toBe(250);
    expect(earlyProbeMs(200, 1000)).toBe(0);
    expect(earlyProbeMs(1, 0)).toBe(0);
    const s = scripted([{ p50Ms: 4, batchesBehind: 0 }]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 10_000, earlyMs: 250 });
    expect(o).toMatchObject({ settled: true, diverging: false });
    expect(s.asked).toEqual([250]);
    // Counted from the end of the minimum: the probe here took no time, so none was waited.
    expect(o.waitedMs).toBe(0);
  });

  it('an early probe that is not settled is set aside: an overloaded point meets the same probes as without it', async () => {
    const overloaded: SettleProbe[] = [
      { p50Ms: 80, batchesBehind: 0 },
      { p50Ms: 60, batchesBehind: 0 },
      { p50Ms: 200, batchesBehind: 0 },
      { p50Ms: 190, batchesBehind: 0 },
      { p50Ms: 700, batchesBehind: 0 },
    ];
    // Its early probe saw a high, not draining latency and a loss: neither starts a streak.
    const s = scripted([{ p50Ms: 900, batchesBehind: 0, lostBatches: 50 }, ...overloaded]);
    const o = await settle(s.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000, earlyMs: 250 });
    const plain = scripted(overloaded);
    const p = await settle(plain.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000 });
    expect(o).toMatchObject({ settled: false, diverging: true, last: p.last });
    expect(s.asked).toHaveLength(plain.asked.length + 1);
    // A draining backlog from the first second still gets its probes: 900 early, then 500, 480 (stuck 2), 300 (draining), 20.
    const d = scripted([
      { p50Ms: 900, batchesBehind: 0 },
      { p50Ms: 500, batchesBehind: 0 },
      { p50Ms: 480, batchesBehind: 0 },
      { p50Ms: 300, batchesBehind: 0 },
      { p50Ms: 20, batchesBehind: 0 },
    ]);
    expect(await settle(d.probe, { intervalMs: 1, concurrency: 4, budgetMs: 60_000, earlyMs: 250 })).toMatchObject({ settled: true });
  });

  it('gives up within its budget on a point that never catches up, and says how far behind it was', async () => {
    const s = scripted([{ p50Ms: 3000, batchesBehind: 400 }]);
    const probe = async (ms: number) => {
      await new Promise((r) => setTimeout(r, 20));
      return s.probe(ms);
    };
    const o = await settle(probe, { intervalMs: 1, concurrency: 4, budgetMs: 300 });
    expect(o.settled).toBe(false);
    // A probe is 250 ms long, so the next one would have overrun the 300 ms budget.
    expect(s.asked.length).toBeLessThanOrEqual(3);
    expect(unsettledNote(o)).toMatch(/page latency p50 3000 ms, server 400 batches behind/);
  });
});
