import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { BEHAVIOUR, MEASURES, PURE } from './test/helpers/projects.js';

/**
 * Three projects in two groups, their files listed in test/helpers/projects.ts (test/unit/projects.test.ts
 * fails when a test file is in no list or in two):
 * - group 0, `pure` and `behaviour`, in parallel on PARALLEL workers: pure files start nothing;
 *   behaviour files start servers, processes and browsers, but every assertion holds with
 *   another file running beside them (exact outputs, codes and counts; generous bounds).
 * - group 1, `measures`, one file at a time and nothing else: each has an assertion that needs
 *   the machine to itself (a delivered-events ratio, a rate band, CPU agreement, real-clock pacing).
 * Projects in one group must have the same maxWorkers (vitest refuses otherwise).
 */
const PARALLEL = 3;

/**
 * Within a group, files start in the order test/helpers/projects.ts lists them (the slowest behaviour files
 * first), not vitest's default for a fresh clone (largest file first): a two-minute file
 * started last would run on alone after the others finished.
 */
class ListedOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const order = [...BEHAVIOUR, ...MEASURES];
    // The pure files (test/unit/, seconds each) fill in last.
    const rank = (s: TestSpecification) => {
      const at = order.findIndex((f) => s.moduleId.endsWith(`/${f}`));
      return at === -1 ? order.length : at;
    };
    const group = (s: TestSpecification) => s.project.config.sequence.groupOrder;
    return [...files].sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    testTimeout: 20_000,
    sequence: { sequencer: ListedOrder },
    projects: [
      { extends: true, test: { name: 'pure', include: PURE, maxWorkers: PARALLEL, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'behaviour', include: BEHAVIOUR, maxWorkers: PARALLEL, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'measures', include: MEASURES, maxWorkers: 1, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
