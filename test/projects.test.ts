/**
 * Every test file runs in exactly one vitest project: a file in none would never run, and one
 * in two would run twice, once beside other files although it measures.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/root.js';
import { BEHAVIOUR, MEASURES, PURE } from './projects.js';
import config from '../vitest.config.js';

const LISTS = { measures: MEASURES, behaviour: BEHAVIOUR, pure: PURE };

/** Test files under test/, relative to the root (subfolders too, for when they come). */
function testFiles(dir = 'test'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() && e.name !== 'fixtures' ? testFiles(path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('vitest projects', () => {
  it('put every test file in exactly one project', () => {
    const where = new Map<string, string[]>();
    for (const [name, files] of Object.entries(LISTS)) for (const f of files) where.set(f, [...(where.get(f) ?? []), name]);
    const unplaced = testFiles().filter((f) => !where.has(f));
    expect(unplaced, 'test files in no project: add each to a list in test/projects.ts').toEqual([]);
    const twice = [...where].filter(([, names]) => names.length > 1).map(([f, names]) => `${f}: ${names.join(', ')}`);
    expect(twice, 'test files in more than one project').toEqual([]);
    const missing = [...where.keys()].filter((f) => !existsSync(path.join(ROOT, f)));
    expect(missing, 'listed files that do not exist').toEqual([]);
  });

  it('are the lists: measures alone in a later group, the others together', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[]; maxWorkers: number; sequence: { groupOrder: number } } }[];
    expect(Object.fromEntries(projects.map((p) => [p.test.name, p.test.include]))).toEqual(LISTS);
    const of = (name: string) => projects.find((p) => p.test.name === name)!.test;
    expect(of('measures').maxWorkers).toBe(1);
    expect(of('measures').sequence.groupOrder).toBeGreaterThan(of('behaviour').sequence.groupOrder);
    expect(of('pure').sequence.groupOrder).toBe(of('behaviour').sequence.groupOrder);
  });
});
