/**
 * Made-up soaks (protocol/soak.ts) for tests: samples whose figures a test chooses, in a soak of
 * the example report's first point. Shared by the judgement's tests and `npm run report`'s.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Report } from '../../protocol/report.js';
import type { Soak, SoakSample } from '../../protocol/soak.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** A sample every 5 s for `minutes`, figures from `at(sec)`. */
export function samples(minutes: number, at: (sec: number, i: number) => Partial<SoakSample> = () => ({})): SoakSample[] {
  return Array.from({ length: (minutes * 60) / 5 }, (_, i) => {
    const sec = (i + 1) * 5;
    return {
      atSec: sec,
      windowSec: 5,
      heapUsedMb: 20,
      eventsPerSec: 100_000,
      deliveredRatio: 1,
      ageP99Ms: 40,
      inputDelayP99Ms: 8,
      inputsHandled: 20,
      gaps: 0,
      shed: 0,
      reconnects: 0,
      rendererCpuPercent: 50,
      ...at(sec, i),
    };
  });
}

export function soakOf(s: SoakSample[], o: Partial<Soak> = {}): Soak {
  const report = JSON.parse(readFileSync(path.join(ROOT, 'reports', 'example', 'report.json'), 'utf8')) as Report;
  return {
    point: report.points[0].point,
    source: 'confirm.json: advised',
    durationSec: 600,
    sampleSec: 5,
    startedAt: '2026-11-28T12:00:00.000Z',
    finishedAt: '2026-11-28T12:10:00.000Z',
    stopped: null,
    settleSec: 0.3,
    samples: s,
    reconnect: { atSec: 300, dropped: 2, reconnects: 2, recoverySec: 0.4, lostBatches: 50, lostEvents: 1000, shedBatches: 0, closedMs: 250 },
    ...o,
  };
}
