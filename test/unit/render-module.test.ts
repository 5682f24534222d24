/** The render module's interface check (protocol/render-module.ts) and the one-line build error (puppeteer/render-module.ts). */
import { describe, expect, it } from 'vitest';
import { RENDER_MODULE_URL_PATTERN, renderExportsProblem, renderModuleUrl, renderViewProblem } from '../../protocol/render-module.js';
import { firstBuildError } from '../../puppeteer/render-module.js';

describe('renderExportsProblem', () => {
  it('takes a module that exports mount as a function, whatever else it exports', () => {
    expect(renderExportsProblem({ mount: 'function' })).toBeNull();
    expect(renderExportsProblem({ mount: 'function', default: 'object', helper: 'function' })).toBeNull();
  });

  it('names what the module exports when mount is missing', () => {
    expect(renderExportsProblem({ draw: 'function', default: 'function' })).toMatch(/does not export `mount` \(it exports `draw`, `default`\)/);
    expect(renderExportsProblem({})).toMatch(/does not export `mount` \(it exports nothing\)/);
  });

  it('refuses a mount that is not a function', () => {
    expect(renderExportsProblem({ mount: 'object' })).toMatch(/`mount` export is a object, not a function/);
  });
});

describe('renderViewProblem', () => {
  it('takes an object with batch, and unmount when it is a function', () => {
    expect(renderViewProblem({ batch: () => undefined })).toBeNull();
    expect(renderViewProblem({ batch: () => undefined, unmount: () => undefined })).toBeNull();
  });

  it('refuses anything else, saying what is wrong', () => {
    expect(renderViewProblem(undefined)).toMatch(/returned undefined, not an object/);
    expect(renderViewProblem(null)).toMatch(/returned null/);
    expect(renderViewProblem({ draw: () => undefined })).toMatch(/has no batch\(b\) function/);
    expect(renderViewProblem({ batch: () => undefined, unmount: 1 })).toMatch(/unmount that is not a function/);
  });
});

describe('renderModuleUrl', () => {
  it('is the one shape the page imports', () => {
    const url = renderModuleUrl('a'.repeat(64));
    expect(url).toBe(`./render-modules/${'a'.repeat(64)}/module.js`);
    expect(RENDER_MODULE_URL_PATTERN.test(url)).toBe(true);
    for (const bad of ['https://example.com/x.js', './render-modules/../x/module.js', `./render-modules/${'A'.repeat(64)}/module.js`, './lab/main.js']) {
      expect(RENDER_MODULE_URL_PATTERN.test(bad), bad).toBe(false);
    }
  });
});

describe('firstBuildError', () => {
  it("quotes the first line of the first error, without Vite's prefix", () => {
    expect(firstBuildError(new Error('[vite]: Rollup failed to resolve import "x" from "a.ts".\nThis is most likely unintended'))).toBe(
      'Rollup failed to resolve import "x" from "a.ts".',
    );
    expect(firstBuildError({ errors: [{ message: '\nUnexpected token (3:4)\n  1 | …' }, { message: 'second' }] })).toBe('Unexpected token (3:4)');
    expect(firstBuildError('plain')).toBe('plain');
  });
});
