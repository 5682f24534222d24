/**
 * A full disk, for real: `--out` on a small tmpfs (mounted here, so root only; unmounted
 * however the test ends).
 * - Too small from the start (200 KiB, where a report and its viewer need about 550 KiB): the
 *   sweep refuses before it launches anything, in one line saying "no space left on <dir>",
 *   and leaves nothing on the disk. (An empty probe file used to pass, and the sweep died with
 *   a raw ENOSPC stack after launching Chrome and the server, leaving a .tmp file.)
 * - Filled while the sweep measures: report.html gives its space to report.json (it is a view
 *   `npm run report` writes again), and when even that does not fit the sweep stops in one line
 *   naming the directory, with the report saved before kept valid, no temp file, the command
 *   that finishes it, and nothing left running.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutputDir } from '../../cli/output.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import { filesUnder, leftRunning, sleep, startFaultRun } from '../helpers/fault-run.js';
import { serversAndChromes, watchDescendants } from '../helpers/sweep-process.js';
import { nodeCommand } from '../helpers/node-command.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-no-space-'));
const disk = path.join(dir, 'disk');
const mounted = () => spawnSync('mountpoint', ['-q', disk]).status === 0;
const unmount = () => {
  if (mounted()) spawnSync('umount', ['-l', disk]);
};
const mount = (size: string) => {
  unmount();
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', disk]).status === 0;
};
mkdirSync(disk);
const canMount = process.getuid?.() === 0 && mount('200k');
// However this process ends, the tmpfs goes with it.
process.once('exit', unmount);

afterAll(() => {
  unmount();
  rmSync(dir, { recursive: true, force: true });
});

const scenarios = path.join(dir, 'tiny.json');
// The shortest repeat: the test waits for one to be saved, and reads no figure.
writeFileSync(scenarios, JSON.stringify({ scenarios: [{ id: 'tiny', transport: 'sse', batch: 5, concurrency: 2, warmupSec: 0, measureSec: 0.5 }] }));

describe.skipIf(!canMount)('--out on a full disk', () => {
  beforeAll(() => {
    expect(mount('200k')).toBe(true);
  });

  it('checks the space for real: an empty probe passes on a full disk, a report-sized one does not', () => {
    const err = (() => {
      try {
        checkOutputDir('--out', disk, 512 * 1024);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_OUTPUT');
    expect((err as PushlabError).message).toBe(`--out ${disk}: no space left on ${disk}: 200 KiB free, and a report here needs about 512 KiB`);
    expect(() => checkOutputDir('--out', disk, 64 * 1024)).not.toThrow();
    expect(filesUnder(disk)).toEqual([]);
  });

  it('a sweep refuses before launching anything, in one line, and leaves the disk as it was', async () => {
    const r = startFaultRun([...nodeCommand('puppeteer/sweep/main.ts'), '--file', scenarios, '--repeats', '1', '--out', disk]);
    try {
      const seen = await watchDescendants(r.child.pid!, r.exit);
      const { code } = await r.exit;
      expect(code, r.output()).toBe(EXIT.badInput);
      expect(serversAndChromes(seen), 'launched before refusing').toEqual([]);
      const lines = r.output().trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^pushlab sweep: PUSHLAB_BAD_OUTPUT: --out ${disk}: no space left on ${disk}: \\d+ KiB free, and a report here needs about \\d+ KiB$`),
      );
      expect(filesUnder(disk)).toEqual([]);
    } finally {
      r.cleanUp();
    }
  }, 60_000);

  it('filled while measuring: report.html makes way, then the sweep stops in one line, the report saved before kept', async () => {
    // Room for the first saves of report.json and the viewer (the sweep's estimate: about 0.8 MiB
    // with this build's viewer), then the filler takes the rest.
    expect(mount('1200k')).toBe(true);
    const r = startFaultRun([...nodeCommand('puppeteer/sweep/main.ts'), '--file', scenarios, '--repeats', '3', '--retries', '0', '--out', disk]);
    let filling = true;
    try {
      await r.until('the first repeat saved', () => /round 1: [\d.]+( [kM])? EPS/.test(r.output()), 90_000);
      // Whatever space the sweep frees, this takes: the disk stays full from here on.
      const filler = (async () => {
        const fd = openSync(path.join(disk, 'filler'), 'a');
        const chunk = Buffer.alloc(4096);
        try {
          while (filling) {
            try {
              writeSync(fd, chunk);
            } catch {
              await sleep(20);
            }
          }
        } finally {
          closeSync(fd);
        }
      })();
      const { code } = await r.exit;
      filling = false;
      await filler;
      expect(code, r.output()).toBe(EXIT.badInput);
      expect(await leftRunning(r.dir, 15_000)).toEqual([]);
      const last = r.output().trimEnd().split('\n').at(-1)!;
      expect(last).toMatch(
        /^pushlab sweep: PUSHLAB_BAD_OUTPUT: no space left on \S+ \(ENOSPC\): cannot write report\.json; \S+report\.json keeps the \d+ repeat\(s\) saved before/,
      );
      expect(last).toMatch(/free space, then finish it: npm run sweep -- --resume \d{8}-\d{6} --out /);
      expect(r.output()).not.toMatch(/\n\s+at /);
      expect(r.output()).toMatch(
        /no space left on \S+ \(ENOSPC\): cannot write report\.json: removed report\.html to keep report\.json \(write it again later: npm run report -- /,
      );
      const files = filesUnder(disk);
      expect(
        files.filter((f) => f.endsWith('.tmp')),
        'temp files left',
      ).toEqual([]);
      const json = files.find((f) => f.endsWith('report.json'))!;
      const report = parseReportText(readFileSync(path.join(disk, json), 'utf8'), json);
      const kept = Number(/keeps the (\d+) repeat/.exec(last)![1]);
      expect(kept).toBeGreaterThanOrEqual(1);
      expect(report.points.flatMap((p) => p.repeats)).toHaveLength(kept);
    } finally {
      filling = false;
      r.cleanUp();
    }
  }, 120_000);
});
