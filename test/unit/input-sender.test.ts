/**
 * The input sender against a page that never answers (puppeteer/measure/input-sender.ts): Chrome
 * answers `Input.dispatch*` only once the page took the input, so on a main thread blocked for
 * the whole window the first input is still in flight when the window ends. Its wait is a lower
 * bound on its delay; the rule reads a window with none answered as unbounded, not as "input
 * delay not measured".
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'puppeteer-core';
import type { InputSnapshot, PageSnapshot } from '../../protocol/page-api.js';
import { sendInput } from '../../puppeteer/measure/input-sender.js';
import { inputDelayP99Ms } from '../../results/input-delay.js';
import { inputFigures } from '../../results/summarise.js';
import { pointSustains, sustainsRepeat } from '../../results/sustains.js';
import { measured, point } from '../helpers/v2-fixture.js';

const never = new Promise<void>(() => {});
/** A page whose presses the browser answers `answered` times, then never again (a main thread that blocked). */
function stuckPage(answered: number): Page {
  let presses = 0;
  const press = () => (presses++ < answered ? Promise.resolve() : never);
  const ok = () => Promise.resolve();
  return { mouse: { move: ok, down: press, up: ok }, keyboard: { down: press, up: ok } } as unknown as Page;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lat = (p99Ms: number | null, count: number) => ({
  count,
  minMs: null,
  p25Ms: null,
  p50Ms: null,
  p75Ms: null,
  p95Ms: null,
  p99Ms,
  maxMs: null,
  meanMs: null,
});
const snapshot = (input: InputSnapshot): PageSnapshot => ({
  atMs: 0,
  transport: 'ws',
  concurrency: 1,
  open: 1,
  counters: { events: 0, batches: 0, bytes: 0, gaps: 0, duplicates: 0, reconnects: 0, errors: 0 },
  batchesPerConnection: [0],
  latency: lat(null, 0),
  input,
});

describe('input sent to a page that stops answering', () => {
  const p = point('ws', 10, 10);
  const repeatWith = (input: NonNullable<ReturnType<typeof inputFigures>>) => ({ ...measured(p, { round: 0, eps: p.offeredEventsPerSec, p99: 20 }), input });

  it('a page blocked for the whole window: one input sent, none answered, its wait kept, and the point fails', async () => {
    const sender = sendInput(stuckPage(0), new AbortController().signal, 10);
    await sleep(120);
    const sent = sender.stop();
    // One in flight at a time: the ticks behind the stuck one were skipped, not sent.
    expect(sent.sent).toBe(1);
    expect(sent.unansweredMs).toBeGreaterThanOrEqual(100);
    const input = inputFigures(snapshot({ handled: 0, delay: lat(null, 0), nextFrame: lat(null, 0), longFrames: null }), sent)!;
    expect(input.unansweredMs).toBeGreaterThanOrEqual(100);
    // The table shows the wait (a lower bound); the rule reads none answered as unbounded.
    expect(inputDelayP99Ms(input)).toBe(input.unansweredMs);
    expect(sustainsRepeat(p, repeatWith(input))).toMatchObject({ inputDelayP99Ms: Number.POSITIVE_INFINITY });
    const s = pointSustains(p, [repeatWith(input)], { p99BoundMs: 50, inputDelayBoundMs: 10_000 });
    expect(s.sustains).toBe(false);
    expect(s.reasons).toContain('input delay p99 unbounded (input sent, none answered in the window) > 10000 ms: the page did not answer input in time');
  });

  it('a page that answered, then blocked: the input still waiting at the end counts in the p99 as a lower bound', async () => {
    const sender = sendInput(stuckPage(3), new AbortController().signal, 10);
    await sleep(300);
    const sent = sender.stop();
    expect(sent.sent).toBe(4);
    expect(sent.unansweredMs).toBeGreaterThanOrEqual(200);
    const input = inputFigures(snapshot({ handled: 3, delay: lat(20, 3), nextFrame: lat(30, 3), longFrames: null }), sent)!;
    expect(inputDelayP99Ms(input)).toBe(input.unansweredMs);
    const s = pointSustains(p, [repeatWith(input)], { p99BoundMs: 50, inputDelayBoundMs: 200 });
    expect(s.sustains).toBe(false);
    expect(s.reasons.at(-1)).toMatch(/^input delay p99 \d+ ms > 200 ms: the page did not answer input in time$/);
    // Past 99 answered, one waiting input is beyond the p99's rank: it stands at the answered p99.
    expect(inputDelayP99Ms({ ...input, handled: 120, delayMs: lat(20, 120) })).toBe(20);
  });

  it('an input answered before the window ended leaves nothing waiting', async () => {
    const sender = sendInput(stuckPage(Number.POSITIVE_INFINITY), new AbortController().signal, 10);
    await sleep(50);
    const sent = sender.stop();
    expect(sent.sent).toBeGreaterThan(1);
    expect(sent.unansweredMs).toBeNull();
  });
});
