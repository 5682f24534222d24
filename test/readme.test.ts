/** The README documents every flag the commands accept, so it cannot drift from the flag tables. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT } from '../protocol/errors.js';
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

  it('documents every exit code and every error code', () => {
    const section = readme.slice(readme.indexOf('## Exit codes and error codes'));
    expect(section.length, 'the section "Exit codes and error codes"').toBeLessThan(readme.length);
    for (const code of Object.values(EXIT)) expect(section, `exit code ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    for (const code of Object.keys(ERROR_CODES)) expect(section, code).toContain(`| \`${code}\` |`);
  });

  it('cites nothing outside the repository', () => {
    expect(readme).not.toMatch(/\.\.\/shared|\/work\//);
  });

  it('gives the two commands', () => {
    expect(readme).toContain('npm install && npm run sweep');
    expect(readme).toContain('npm test');
  });
});
