/**
 * The docs (README.md and docs/) document every flag the commands accept, so they cannot drift
 * from the flag tables; each fact is looked for in the file that holds it.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT } from '../../protocol/errors.js';
import { ADVISE_FLAGS } from '../../puppeteer/advise/options.js';
import { LAB_FLAGS, REPORT_FLAGS, SOAK_FLAGS, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { SERVER_FLAGS } from '../../server/options.js';
import { docFiles, readDoc } from '../helpers/docs-files.js';

const readme = readDoc('README.md');
const files = ['README.md', ...docFiles()];
const allDocs = files.map(readDoc).join('\n');
/** Where the exit codes and error codes are documented in full. */
const codesDoc = readDoc('docs/reliability.md');

describe('README and docs', () => {
  it.each([
    ['npm run sweep', SWEEP_FLAGS],
    ['npm run advise', ADVISE_FLAGS],
    ['npm run lab', LAB_FLAGS],
    ['npm run server', SERVER_FLAGS],
    ['npm run report', REPORT_FLAGS],
    ['npm run soak', SOAK_FLAGS],
  ] as const)('name every %s flag', (_, flags) => {
    for (const name of Object.keys(flags)) expect(allDocs, `--${name}`).toContain(`--${name}`);
  });

  it('document every exit code and every error code', () => {
    const section = codesDoc.slice(codesDoc.indexOf('## Exit codes and error codes'));
    expect(section.length, 'the section "Exit codes and error codes" of docs/reliability.md').toBeLessThan(codesDoc.length);
    for (const code of Object.values(EXIT)) expect(section, `exit code ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    for (const code of Object.keys(ERROR_CODES)) expect(section, code).toContain(`| \`${code}\` |`);
  });

  it.each(files)('%s cites nothing outside the repository', (file) => {
    expect(readDoc(file)).not.toMatch(/\.\.\/shared|\/work\//);
  });

  it('the README gives the two commands', () => {
    expect(readme).toContain('npm install && npm run sweep');
    expect(readme).toContain('npm test');
  });
});
