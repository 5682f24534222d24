/**
 * CHROME_PATH at something that is not a Chrome, with the real sweep. A directory passed the
 * executable check (a directory is "executable": searchable), crashed the sweep with an
 * unhandled spawn error and left an empty profile directory in /tmp on every run. Now: a
 * directory, a missing file or a file without the execute bit is refused before anything is
 * launched, saying which; an executable that does not start as Chrome is one line too. Either
 * way no profile directory is left in the temp directory (the run's own TMPDIR here) and
 * nothing runs on.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { notExecutableBecause } from '../../puppeteer/browser/chrome.js';
import { filesUnder, leftRunning, startFaultRun, type FaultRun } from '../helpers/fault-run.js';
import { serversAndChromes, watchDescendants } from '../helpers/sweep-process.js';
import { nodeCommand } from '../helpers/node-command.js';

/** The sweep with CHROME_PATH set to `chromePath` (`{dir}`: the run's directory, after `prepare`). */
async function sweepWith(chromePath: string, prepare?: (dir: string) => void): Promise<{ r: FaultRun; code: number | null; launched: string[]; line: string }> {
  const r = startFaultRun(
    [...nodeCommand('puppeteer/sweep/main.ts'), '--scenario', 'smoke', '--repeats', '1', '--out', '{dir}/reports'],
    { CHROME_PATH: chromePath },
    prepare,
  );
  const seen = await watchDescendants(r.child.pid!, r.exit);
  const { code } = await r.exit;
  return { r, code, launched: serversAndChromes(seen), line: r.output().trimEnd().split('\n').at(-1)! };
}

describe('CHROME_PATH', () => {
  it('says why a path is not a browser to run', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-chrome-path-'));
    try {
      const file = path.join(dir, 'not-executable');
      writeFileSync(file, '#!/bin/sh\n');
      chmodSync(file, 0o644);
      expect(notExecutableBecause(dir)).toBe('it is a directory');
      expect(notExecutableBecause(path.join(dir, 'missing'))).toBe('it does not exist');
      expect(notExecutableBecause(file)).toBe('this user may not execute it');
      expect(notExecutableBecause('/bin/sh')).toBeNull();
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('a directory: refused before anything is launched, one line, no profile directory left', async () => {
    const { r, code, launched, line } = await sweepWith('{dir}/chrome-dir', (dir) => mkdirSync(path.join(dir, 'chrome-dir')));
    try {
      expect(code, r.output()).toBe(EXIT.badInput);
      expect(line).toMatch(
        /^pushlab sweep: PUSHLAB_NO_CHROME: CHROME_PATH is set to '.*chrome-dir', which is not an executable file \(it is a directory\)\. Install Chrome/,
      );
      expect(r.output()).not.toMatch(/\n\s+at |EACCES/);
      expect(launched, 'launched before refusing').toEqual([]);
      expect(filesUnder(r.dir).filter((f) => /chrome.*profile|pushlab-chrome-/.test(f))).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 60_000);

  it('an executable that is not Chrome: one line, its server ended, no profile directory left', async () => {
    const { r, code, line } = await sweepWith('/bin/false');
    try {
      expect(code, r.output()).toBe(EXIT.badInput);
      expect(line).toMatch(/^pushlab sweep: PUSHLAB_NO_CHROME: Chrome at '\/bin\/false' \(CHROME_PATH\) did not start: /);
      expect(r.output()).not.toMatch(/\n\s+at /);
      expect(filesUnder(r.dir).filter((f) => /chrome.*profile|pushlab-chrome-/.test(f))).toEqual([]);
      expect(await leftRunning(r.dir, 15_000)).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 60_000);
});
