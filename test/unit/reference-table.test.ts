/** The reference reproduction table on a constructed timeplus-shaped v2 report with known figures. */
import { describe, expect, it } from 'vitest';
import type { PointResult, SaturationResult } from '../../protocol/report.js';
import type { Point } from '../../protocol/scenario.js';
import { describe as stat } from '../../results/stats.js';
import { pairedComparisons, summarisePoint } from '../../results/point-summary.js';
import { referenceTable } from '../../results/views/reference-table.js';
import { measured, point, report, result } from '../helpers/v2-fixture.js';

/** A point measured in three rounds at eps × (0.95, 1, 1.05), tab CPU fixed. */
function threeRounds(p: Point, eps: number, tab: number): PointResult {
  const r = result(
    p,
    [0.95, 1, 1.05].map((f, round) => measured(p, { round, eps: eps * f, tab })),
  );
  return { ...r, ...summarisePoint(p, r.repeats) };
}

function timeplusReport(saturation: SaturationResult[] = []) {
  const points = [
    // Test I: batch at 10 connections; WS keeps up to 50, SSE to 400 (offered 4 M, delivered 99.5%).
    threeRounds(point('ws', 1), 10e3, 5),
    threeRounds(point('sse', 1), 10e3, 4),
    threeRounds(point('ws', 50), 500e3, 60),
    threeRounds(point('sse', 50), 500e3, 30),
    threeRounds(point('ws', 400), 1.2e6, 100),
    threeRounds(point('sse', 400), 3.98e6, 95),
    // Test II: concurrency at batch 50 (its c10 point duplicates Test I's b50, from another scenario).
    threeRounds(point('ws', 50, 10, 'test2-concurrency'), 495e3, 61),
    threeRounds(point('sse', 50, 10, 'test2-concurrency'), 497e3, 31),
    threeRounds(point('ws', 50, 60, 'test2-concurrency'), 1.5e6, 100),
    threeRounds(point('sse', 50, 60, 'test2-concurrency'), 2.99e6, 90),
    // Test III, scenario 1.
    threeRounds(point('ws', 250, 20, 'test3-20x250', 50), 100e3, 76),
    threeRounds(point('sse', 250, 20, 'test3-20x250', 50), 100e3, 17),
  ];
  return report(points, { comparisons: pairedComparisons(points), saturation });
}

describe('referenceTable', () => {
  const md = referenceTable(timeplusReport());
  const section = (title: string) => md.split('### ').find((s) => s.startsWith(title))!;

  it('has a caption saying to compare shapes and ratios, not absolute EPS', () => {
    expect(md).toContain('## The reference reproduced: run 2026-11-22T01-30-00-timeplus');
    expect(md).toContain('Apple M1 Pro with Chrome 103; this run is Chromium 156.0.0.0 on test CPU (2 cores), up to 3 repeats per point');
    expect(md).toContain('**Compare shapes and ratios, not absolute EPS**');
  });

  it('puts Test I in rows by batch, with medians, CIs and the WS ÷ SSE ratios', () => {
    const rows = section('Test I')
      .split('\n')
      .filter((l) => l.startsWith('| '));
    expect(rows[0]).toBe('| batch | offered EPS | WS EPS | SSE EPS | WS tab CPU | SSE tab CPU | WS ÷ SSE EPS | WS ÷ SSE renderer CPU per event |');
    // EPS 1.2 M × (0.95, 1, 1.05): mean 1.2 M, sd 60 k, CI 1.2 M ± t(2) × 60 k / √3 = 1.05–1.35 M.
    // EPS ratio 1.2 ÷ 3.98 = 0.30 every round: a CI of zero width that excludes 1.
    // Renderer CPU per event: (100 / 1.2 M) ÷ (95 / 3.98 M) = 3.49.
    expect(rows.slice(2)).toEqual([
      '| 1 | 10 k | 10 k (CI 8.76–11.2 k) | 10 k (CI 8.76–11.2 k) | 5% | 4% | 1.00 (CI 1.00–1.00) | 1.25 (CI 1.25–1.25) ✱ |',
      '| 50 | 500 k | 500 k (CI 438–562 k) | 500 k (CI 438–562 k) | 60% | 30% | 1.00 (CI 1.00–1.00) | 2.00 (CI 2.00–2.00) ✱ |',
      '| 400 | 4 M | 1.2 M (CI 1.05–1.35 M) | 3.98 M (CI 3.49–4.47 M) | 100% | 95% | 0.30 (CI 0.30–0.30) ✱ | 3.49 (CI 3.49–3.49) ✱ |',
    ]);
    expect(section('Test I')).toContain('Reference: both transports linear in batch size from 1 to 400; SSE ≈ 3.0 M EPS at batch 400');
  });

  it('takes Test II from the concurrency sweep only, not the duplicate point of Test I', () => {
    const rows = section('Test II')
      .split('\n')
      .filter((l) => l.startsWith('| '));
    expect(rows.slice(2).map((r) => r.split(' | ').slice(0, 3).join(' | '))).toEqual([
      '| 10 | 500 k | 495 k (CI 434–556 k)',
      '| 60 | 3 M | 1.5 M (CI 1.31–1.69 M)',
    ]);
  });

  it('shows Test III tab CPU and the renderer CPU ratio', () => {
    // (76 / 100 k) ÷ (17 / 100 k) = 4.47
    expect(section('Test III')).toContain(
      '| 20 × 250 every 50 ms | 100 k (CI 87.6–112 k) | 100 k (CI 87.6–112 k) | 76% | 17% | 9 ms | 9 ms | 1.00 (CI 1.00–1.00) | 4.47 (CI 4.47–4.47) ✱ |',
    );
  });

  it('gives each transport’s peak with its tab CPU beside the published figure', () => {
    const rows = section('Tab CPU')
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .slice(2);
    expect(rows).toEqual([
      '| Test I | WS | batch 400 | 1.2 M (CI 1.05–1.35 M) | 100% | 80% | — |',
      '| Test I | SSE | batch 400 | 3.98 M (CI 3.49–4.47 M) | 95% | 76% | ≈ 3 M at batch 400, tab 100% |',
      '| Test II | WS | concurrency 60 | 1.5 M (CI 1.31–1.69 M) | 100% | 80% | ≈ 2.4 M at its max, tab not given |',
      '| Test II | SSE | concurrency 60 | 2.99 M (CI 2.62–3.36 M) | 90% | 72% | ≈ 2.7 M at concurrency 60, tab 100% |',
    ]);
  });

  it('estimates saturation from delivered ≥ 99% when --find-max did not run', () => {
    const rows = section('Where each')
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .slice(2);
    expect(rows).toEqual([
      '| WS | batch 50: 500 k (CI 438–562 k); batch 400 delivered 30.0% | concurrency 10: 495 k (CI 434–556 k); concurrency 60 delivered 50.0% |',
      '| SSE | batch 400: 3.98 M (CI 3.49–4.47 M); kept up at every value swept | concurrency 60: 2.99 M (CI 2.62–3.36 M); kept up at every value swept |',
    ]);
  });

  it('uses the --find-max knee where the search ran', () => {
    const search: SaturationResult = {
      scenario: 'timeplus',
      transport: 'ws',
      varied: 'batch',
      fixed: { concurrency: 10 },
      range: { min: 10, max: 1000 },
      criteria: { deliveredRatio: 0.99, shed: 0, p99BoundMs: 50 },
      probes: [],
      knee: { value: 137, pointId: 'timeplus/ws-b137-c10-i1-full', eventsPerSec: stat([1.33e6, 1.37e6, 1.41e6]) },
      firstPast: { value: 158, pointId: 'timeplus/ws-b158-c10-i1-full', reason: 'delivered 97.2% < 99%' },
    };
    const row = referenceTable(timeplusReport([search]))
      .split('\n')
      .find((l) => l.startsWith('| WS | batch'))!;
    expect(row).toBe(
      '| WS | batch 137: 1.37 M (CI 1.27–1.47 M); 158 not (delivered 97.2% < 99%) [find-max] | concurrency 10: 495 k (CI 434–556 k); concurrency 60 delivered 50.0% |',
    );
  });

  it('leaves out the sections a run has no points for', () => {
    const only = report([threeRounds(point('ws', 50, 100, 'test3-100x50', 50), 100e3, 40)]);
    const text = referenceTable(only);
    expect(text).toContain('### Test III');
    expect(text).not.toContain('### Test I:');
    expect(text).not.toContain('### Where each');
  });
});
