/** protocol/gen/ is what `npm run gen:proto` makes of proto/ today (as the scenario schema is checked). */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/sweep-process.js';

describe('protocol/gen', () => {
  it('is up to date (run `npm run gen:proto` after changing proto/)', async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), 'pushlab-proto-'));
    try {
      const bin = path.join(ROOT, 'node_modules/.bin');
      execFileSync(path.join(bin, 'buf'), ['generate', '--output', out], { cwd: ROOT, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
      const file = 'protocol/gen/pushlab/v1/push_pb.ts';
      expect(await readFile(path.join(out, file), 'utf8')).toBe(await readFile(path.join(ROOT, file), 'utf8'));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
