/**
 * A soak judged (results/soak.ts) and checked (protocol/report-shape.ts) from made-up samples
 * whose heap slope, drift and reconnect are chosen, so each bound is tested apart from the noise;
 * the plot's panels (web/report/soak-view.ts); the duration flag's bounds (puppeteer/options.ts).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReport } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import { SOAK_DURATION_SEC, type Soak, type SoakSample } from '../../protocol/soak.js';
import {
  endDrift,
  endWindowSize,
  FILL_SEC,
  HEAP_BOUND_MB_PER_HOUR,
  heapGrowth,
  judgedSamples,
  judgeSoak,
  latencyHeld,
  MIN_END_SAMPLES,
  RECOVERY_BOUND_SEC,
  sampleSecFor,
  slopePerHour,
  soakLines,
} from '../../results/soak.js';
import { parseSoakDuration } from '../../puppeteer/options.js';
import { renderView } from '../../puppeteer/report/views.js';
import { niceCeil, soakPanels } from '../../web/report/soak-view.js';
import { samples, soakOf } from '../helpers/soak-fixture.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** A saw-tooth heap around `level` MB (the collector), ±3 MB with a 30 s period. */
const saw = (sec: number) => ((sec % 30) / 30 - 0.5) * 6;

describe('the soak judgement', () => {
  it('the slope of an exact line is its slope per hour, with a zero-width interval', () => {
    const xs = [0, 60, 120, 180];
    const s = slopePerHour(
      xs,
      xs.map((x) => 10 + x / 120),
    )!;
    expect(s.perHour).toBeCloseTo(30, 9);
    expect(s.ciHigh - s.ciLow).toBeCloseTo(0, 9);
    expect(slopePerHour([0, 1], [0, 1])).toBeNull();
  });

  it('a flat heap under a collector saw-tooth holds over 10 minutes; a leak of 60 MB/h does not', () => {
    const flat = judgeSoak(soakOf(samples(10, (sec) => ({ heapUsedMb: 20 + saw(sec) }))));
    const heap = flat.parts.find((p) => p.name === 'heap')!;
    expect(heap.held).toBe(true);
    expect(flat.held).toBe(true);
    expect(flat.headline).toMatch(/^held for 10\.0 min/);
    const leak = judgeSoak(soakOf(samples(10, (sec) => ({ heapUsedMb: 20 + saw(sec) + (60 * sec) / 3600 }))));
    expect(leak.parts.find((p) => p.name === 'heap')!.held).toBe(false);
    expect(leak.held).toBe(false);
    expect(leak.headline).toBe('did not hold over 10.0 min: heap');
  });

  it('a heap whose interval straddles the bound is not judged, and the whole soak then neither held nor failed', () => {
    // Two minutes past the fill: the saw-tooth's swing makes the interval far wider than the bound.
    const j = judgeSoak(soakOf(samples(3, (sec) => ({ heapUsedMb: 20 + saw(sec) + (HEAP_BOUND_MB_PER_HOUR * sec) / 3600 }))));
    const heap = j.parts.find((p) => p.name === 'heap')!;
    expect(heap.held).toBeNull();
    expect(heap.text).toContain('too short to tell');
    expect(j.held).toBeNull();
  });

  it('the first 60 s are left out where two end windows are left after them, else kept', () => {
    const long = judgedSamples(samples(3));
    expect(long.afterFill).toBe(true);
    expect(long.samples.every((s) => s.atSec > FILL_SEC)).toBe(true);
    const short = judgedSamples(samples(1.25));
    expect(short.afterFill).toBe(false);
    expect(short.samples).toHaveLength(15);
  });

  it('end windows: a tenth of the intervals, at least 3, none when they would overlap', () => {
    expect(endWindowSize(120)).toBe(12);
    expect(endWindowSize(10)).toBe(MIN_END_SAMPLES);
    expect(endWindowSize(5)).toBe(0);
  });

  it('drift reads the medians at the two ends, so one spike in a window does not move it; nulls are left out', () => {
    const ages = [10, 10, 500, 10, 11, 12, 13, 20, 20, 20];
    expect(endDrift(ages)).toEqual({ startN: 3, endN: 3, start: 10, end: 20 });
    expect(endDrift([null, null, 10, 10, 10, 10, 10, 10])).toBeNull();
  });

  it('a latency rise holds within +25% or +5 ms, whichever is more', () => {
    expect(latencyHeld({ startN: 3, endN: 3, start: 40, end: 50 })).toBe(true);
    expect(latencyHeld({ startN: 3, endN: 3, start: 40, end: 50.1 })).toBe(false);
    expect(latencyHeld({ startN: 3, endN: 3, start: 4, end: 9 })).toBe(true);
    expect(latencyHeld({ startN: 3, endN: 3, start: 4, end: 9.1 })).toBe(false);
  });

  it('event age creeping up over the run does not hold, and the part names both ends', () => {
    const j = judgeSoak(soakOf(samples(10, (sec) => ({ ageP99Ms: 40 + sec / 10 }))));
    const age = j.parts.find((p) => p.name === 'age')!;
    expect(age.held).toBe(false);
    // The medians of the 11 intervals after the first minute (65–115 s) and of the last 11 (550–600 s).
    expect(age.text).toMatch(/^event age p99: 49 ms → 97\.5 ms \(\+99\.0%\), median of the interval p99s, first 11 vs last 11 intervals after the first 60 s/);
    expect(j.parts.find((p) => p.name === 'input')!.held).toBe(true);
  });

  it('throughput falling more than 5% does not hold', () => {
    const j = judgeSoak(soakOf(samples(10, (sec) => ({ eventsPerSec: sec > 500 ? 90_000 : 100_000 }))));
    expect(j.parts.find((p) => p.name === 'eps')!.held).toBe(false);
  });

  it('the reconnect holds when every connection is back within the bound, and its loss is said', () => {
    const ok = judgeSoak(soakOf(samples(10))).parts.find((p) => p.name === 'reconnect')!;
    expect(ok.held).toBe(true);
    expect(ok.text).toContain('lost 1,000 events (50 batches by sequence number, 0 of them shed by the server)');
    const slow = soakOf(samples(10));
    slow.reconnect = { ...slow.reconnect!, recoverySec: RECOVERY_BOUND_SEC + 0.1 };
    expect(judgeSoak(slow).parts.find((p) => p.name === 'reconnect')!.held).toBe(false);
    const never = soakOf(samples(10));
    never.reconnect = { ...never.reconnect!, recoverySec: null };
    expect(judgeSoak(never).parts.find((p) => p.name === 'reconnect')!.text).toContain('not all');
  });

  it('a failed soak did not hold; an interrupted one is not judged whole', () => {
    expect(judgeSoak(soakOf(samples(10), { stopped: 'failed', error: 'renderer crashed' })).headline).toBe('the soak failed after 10.0 min: renderer crashed');
    expect(judgeSoak(soakOf(samples(10), { stopped: 'interrupted' })).held).toBeNull();
  });

  it('samples every 2 s up to a minute, 5 s past it', () => {
    expect(sampleSecFor(60)).toBe(2);
    expect(sampleSecFor(61)).toBe(5);
  });
});

describe('the soak in report.json and the viewer', () => {
  it('passes the report check, and a duration out of bounds is refused naming the field', () => {
    const report = JSON.parse(readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8')) as Report;
    const soak = soakOf(samples(2));
    expect(parseReport(structuredClone({ ...report, soak }), 'r.json').soak).toEqual(soak);
    expect(() => parseReport(structuredClone({ ...report, soak: { ...soak, durationSec: 5 } }), 'r.json')).toThrow(/soak\.durationSec/);
  });

  it('npm run report prints the lines the soak and advise commands print, on stderr, and none for a report without one', async () => {
    const report = JSON.parse(readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8')) as Report;
    const soak = soakOf(samples(2));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-soak-view-'));
    try {
      const view = async (r: Report) => {
        await writeFile(path.join(dir, 'report.json'), JSON.stringify(r));
        return renderView({ mode: 'wide', positionals: [path.join(dir, 'report.json')], reportsDir: dir, scenarios: [], format: '', margins: null });
      };
      const withSoak = await view({ ...report, soak });
      expect(withSoak.stderr).toEqual(soakLines(soak));
      expect(withSoak.stderr[0]).toMatch(/^Soak of confirm\.json: advised, /);
      expect((await view(report)).stderr).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('plots four panels on one time axis, the heap with its trend, the reconnect and the two windows marked', () => {
    const v = soakPanels(soakOf(samples(10, (sec) => ({ heapUsedMb: 20 + sec / 100 }))));
    expect(v.panels.map((p) => p.title)).toEqual(['JS heap in use', 'event age p99', 'input delay p99', 'events/s received']);
    expect(v.panels[0].yMax).toBe(50);
    expect(v.panels[0].trend!.y1 - v.panels[0].trend!.y0).toBeCloseTo((600 - 65) / 100, 6);
    expect(v.reconnect!.x).toBe(5);
    expect(v.reconnect!.label).toBe('reconnect: 2 streams dropped, back in 0.4 s, 1 k events lost');
    expect(v.windows!.start[0]).toBe(1);
    expect(v.windows!.end[1]).toBe(10);
    expect(v.xMax).toBe(10);
    expect([0.3, 1, 3, 7, 12].map(niceCeil)).toEqual([0.5, 1, 5, 10, 20]);
  });
});

describe('the soak duration flag', () => {
  it('takes 90s, 10m and 2h, and refuses outside the bounds naming them', () => {
    expect(parseSoakDuration('soak', '90s')).toBe(90);
    expect(parseSoakDuration('soak', '10m')).toBe(600);
    expect(parseSoakDuration('soak', '2h')).toBe(7200);
    expect(parseSoakDuration('soak', String(SOAK_DURATION_SEC.min))).toBe(SOAK_DURATION_SEC.min);
    for (const bad of ['19s', '25h', 'ten', '']) {
      expect(() => parseSoakDuration('soak', bad)).toThrow(
        `--soak must be a duration from 20s to 24h: seconds, or a number with s, m or h (90s, 10m, 2h); got '${bad}'`,
      );
    }
  });
});
