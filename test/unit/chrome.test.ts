/** Chrome discovery's order and its errors, against a fake filesystem (no Chrome is run). */
import type { InstalledBrowser } from '@puppeteer/browsers';
import path from 'node:path';
import { PUPPETEER_REVISIONS } from 'puppeteer-core/internal/revisions.js';
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { findSystemChrome, puppeteerCacheDir, type ChromeLookup } from '../../puppeteer/browser/chrome.js';

/** A filesystem where exactly `files` are executable (nothing else exists), and Puppeteer's caches hold `cached`. */
function fake(files: string[], cached: Record<string, { buildId: string; executablePath: string; browser?: string }[]> = {}) {
  const cacheDirsAsked: string[] = [];
  const lookup: ChromeLookup = {
    notExecutableBecause: (f) => (files.includes(f) ? null : 'it does not exist'),
    installedBrowsers: async (dir) => {
      cacheDirsAsked.push(dir);
      return (cached[dir] ?? []).map((b) => ({ browser: 'chrome', ...b }) as unknown as InstalledBrowser);
    },
  };
  return { lookup, cacheDirsAsked };
}

const bin = (dir: string, name: string) => path.join(dir, name);

describe('findSystemChrome', () => {
  it('takes CHROME_PATH first, then PUPPETEER_EXECUTABLE_PATH, over everything else', async () => {
    const { lookup } = fake(['/opt/a/chrome', '/opt/b/chrome', '/usr/bin/chromium', bin('/p', 'chromium')]);
    const env = { CHROME_PATH: '/opt/a/chrome', PUPPETEER_EXECUTABLE_PATH: '/opt/b/chrome', PATH: '/p' };
    expect(await findSystemChrome(env, lookup)).toEqual({ path: '/opt/a/chrome', source: 'CHROME_PATH' });
    expect(await findSystemChrome({ ...env, CHROME_PATH: '' }, lookup)).toEqual({ path: '/opt/b/chrome', source: 'PUPPETEER_EXECUTABLE_PATH' });
  });

  it('fails with PUSHLAB_NO_CHROME naming the variable when it points at no executable', async () => {
    const { lookup } = fake(['/usr/bin/chromium']);
    const err = await findSystemChrome({ CHROME_PATH: '/nowhere/chrome' }, lookup).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_NO_CHROME');
    expect((err as PushlabError).message).toContain("CHROME_PATH is set to '/nowhere/chrome', which is not an executable file");
    expect((err as PushlabError).message).toContain('apt-get install -y chromium');
  });

  it('looks up chromium, then google-chrome, on PATH (in PATH order) before the fixed install paths', async () => {
    const PATH = ['/first', '/second'].join(path.delimiter);
    const both = fake([bin('/second', 'chromium'), bin('/first', 'google-chrome'), '/usr/bin/chromium']);
    expect(await findSystemChrome({ PATH }, both.lookup)).toEqual({ path: bin('/second', 'chromium'), source: 'PATH' });
    const twice = fake([bin('/first', 'chromium'), bin('/second', 'chromium')]);
    expect(await findSystemChrome({ PATH }, twice.lookup)).toEqual({ path: bin('/first', 'chromium'), source: 'PATH' });
    const chromeOnly = fake([bin('/second', 'google-chrome'), '/usr/bin/chromium']);
    expect(await findSystemChrome({ PATH }, chromeOnly.lookup)).toEqual({ path: bin('/second', 'google-chrome'), source: 'PATH' });
  });

  it('falls back to the fixed install paths when PATH has none', async () => {
    const { lookup, cacheDirsAsked } = fake(['/opt/google/chrome/chrome']);
    expect(await findSystemChrome({ PATH: '/empty' }, lookup)).toEqual({ path: '/opt/google/chrome/chrome', source: 'known path' });
    expect(cacheDirsAsked).toEqual([]);
  });

  it('then takes a Chrome Puppeteer downloaded into PUPPETEER_CACHE_DIR, preferring the build it pins', async () => {
    const pinned = { buildId: PUPPETEER_REVISIONS.chrome, executablePath: '/cache/chrome/pinned/chrome' };
    const older = { buildId: '1.0.0.0', executablePath: '/cache/chrome/old/chrome' };
    const firefox = { browser: 'firefox', buildId: '1', executablePath: '/cache/firefox/firefox' };
    const { lookup, cacheDirsAsked } = fake([pinned.executablePath, older.executablePath, firefox.executablePath], { '/cache': [firefox, older, pinned] });
    expect(await findSystemChrome({ PUPPETEER_CACHE_DIR: '/cache' }, lookup)).toEqual({ path: pinned.executablePath, source: 'puppeteer cache' });
    expect(cacheDirsAsked).toEqual(['/cache']);
    const onlyOlder = fake([older.executablePath], { '/cache': [older] });
    expect(await findSystemChrome({ PUPPETEER_CACHE_DIR: '/cache' }, onlyOlder.lookup)).toEqual({ path: older.executablePath, source: 'puppeteer cache' });
  });

  it('returns null when nothing is found, having looked in the default cache', async () => {
    const { lookup, cacheDirsAsked } = fake([]);
    expect(await findSystemChrome({ PATH: '/usr/local/bin' }, lookup)).toBeNull();
    expect(cacheDirsAsked).toEqual([puppeteerCacheDir({})]);
    expect(puppeteerCacheDir({})).toMatch(/\.cache[/\\]puppeteer$/);
  });
});
