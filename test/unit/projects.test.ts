/**
 * Every test file runs in exactly one vitest project: a file in none would never run, and one
 * in two would run twice, once beside other files although it measures.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/root.js';
import { BEHAVIOUR, MEASURES, PURE } from '../helpers/projects.js';
import config from '../../vitest.config.js';

const LISTS = { measures: MEASURES, behaviour: BEHAVIOUR, pure: PURE };

/** Test files under test/, relative to the root (subfolders too, for when they come). */
function testFiles(dir = 'test'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() && e.name !== 'fixtures' ? testFiles(path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('vitest projects', () => {
  it('put every test file in exactly one project: test/unit/ by its folder, the rest by a list', () => {
    const files = testFiles();
    const outside = files.filter((f) => !/^test\/(unit|server|commands|browser)\/[^/]+\.test\.ts$/.test(f));
    expect(outside, 'test files outside test/unit, test/server, test/commands and test/browser').toEqual([]);
    const listed = new Map<string, string[]>();
    for (const [name, list] of Object.entries({ measures: MEASURES, behaviour: BEHAVIOUR }))
      for (const f of list) listed.set(f, [...(listed.get(f) ?? []), name]);
    const starting = files.filter((f) => !f.startsWith('test/unit/'));
    const unplaced = starting.filter((f) => !listed.has(f));
    expect(unplaced, 'test files that start something and are in no list: add each to MEASURES or BEHAVIOUR in test/helpers/projects.ts').toEqual([]);
    const twice = [...listed].filter(([, names]) => names.length > 1).map(([f, names]) => `${f}: ${names.join(', ')}`);
    expect(twice, 'test files in more than one list').toEqual([]);
    const wrong = [...listed.keys()].filter((f) => !starting.includes(f));
    expect(wrong, 'listed files that do not exist, or that are pure (test/unit/ runs by its folder)').toEqual([]);
    expect(PURE).toEqual(['test/unit/**/*.test.ts']);
  });

  it('are the lists: pure first, then measures alone, then behaviour', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include: string[]; maxWorkers: number; sequence: { groupOrder: number } } }[];
    expect(Object.fromEntries(projects.map((p) => [p.test.name, p.test.include]))).toEqual(LISTS);
    const of = (name: string) => projects.find((p) => p.test.name === name)!.test;
    expect(of('measures').maxWorkers).toBe(1);
    expect(of('measures').sequence.groupOrder).toBeGreaterThan(of('pure').sequence.groupOrder);
    expect(of('behaviour').sequence.groupOrder).toBeGreaterThan(of('measures').sequence.groupOrder);
  });
});
