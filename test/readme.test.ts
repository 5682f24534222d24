/** The README documents every flag the commands accept, so it cannot drift from the flag tables. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAB_FLAGS, SWEEP_FLAGS } from '../puppeteer/options.js';
import { SERVER_FLAGS } from '../server/options.js';

const readme = readFileSync(path.resolve(import.meta.dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it.each([
    ['npm run sweep', SWEEP_FLAGS],
    ['npm run lab', LAB_FLAGS],
    ['npm run server', SERVER_FLAGS],
  ] as const)('names every %s flag', (_, flags) => {
    for (const name of Object.keys(flags)) expect(readme, `--${name}`).toContain(`--${name}`);
  });

  it('gives the two commands', () => {
    expect(readme).toContain('npm install && npm run sweep');
    expect(readme).toContain('npm test');
  });
});
