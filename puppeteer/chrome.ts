/**
 * Finding and launching Chrome. A system Chrome/Chromium is preferred and nothing is
 * downloaded when one exists: $CHROME_PATH, then $PUPPETEER_EXECUTABLE_PATH, then known
 * install paths, then a browser Puppeteer downloaded earlier. Only when all of those miss
 * does it try Puppeteer's own download (fine on an ordinary network; it fails offline).
 */
import { Browser as BrowserKind, computeExecutablePath, detectBrowserPlatform, getInstalledBrowsers, install, resolveBuildId } from '@puppeteer/browsers';
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export const KNOWN_CHROME_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
];

export const INSTALL_HINT =
  'Install Chrome or Chromium (Debian/Ubuntu: `apt-get install -y chromium`), or point CHROME_PATH at a Chrome binary.';

export class ChromeNotFound extends Error {
  override name = 'ChromeNotFound';
}

const CACHE_DIR = path.join(os.homedir(), '.cache', 'puppeteer');

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface FoundChrome {
  path: string;
  /** Where it came from: an env var name, 'known path', 'puppeteer cache' or 'download'. */
  source: string;
}

/** Looks for a Chrome without downloading. Throws if an env var names a missing file. */
export async function findSystemChrome(env: NodeJS.ProcessEnv = process.env): Promise<FoundChrome | null> {
  for (const name of ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH']) {
    const value = env[name];
    if (!value) continue;
    if (!executable(value)) throw new ChromeNotFound(`${name} is set to '${value}', which is not an executable file. ${INSTALL_HINT}`);
    return { path: value, source: name };
  }
  const known = KNOWN_CHROME_PATHS.find(executable);
  if (known) return { path: known, source: 'known path' };
  const cached = (await getInstalledBrowsers({ cacheDir: CACHE_DIR }).catch(() => [])).find((b) => b.browser === BrowserKind.CHROME);
  if (cached && executable(cached.executablePath)) return { path: cached.executablePath, source: 'puppeteer cache' };
  return null;
}

/** A Chrome to run: a system one, or Puppeteer's download as the last resort. */
export async function findChrome(log: (line: string) => void = () => undefined): Promise<FoundChrome> {
  const found = await findSystemChrome();
  if (found) return found;
  const platform = detectBrowserPlatform();
  if (!platform) throw new ChromeNotFound(`No Chrome found, and Puppeteer has no Chrome build for this platform. ${INSTALL_HINT}`);
  log('no system Chrome found; trying Puppeteer’s Chrome download…');
  try {
    const buildId = await resolveBuildId(BrowserKind.CHROME, platform, 'stable');
    const installed = await install({ browser: BrowserKind.CHROME, buildId, cacheDir: CACHE_DIR, platform });
    return { path: installed.executablePath ?? computeExecutablePath({ browser: BrowserKind.CHROME, buildId, cacheDir: CACHE_DIR }), source: 'download' };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ChromeNotFound(`No Chrome found, and Puppeteer’s download failed (${why}). ${INSTALL_HINT}`);
  }
}

/**
 * Flags every launch gets, and why:
 * - the sandbox needs user namespaces a container or root shell often lacks;
 * - no GPU on a server; QUIC would bypass the TLS/TCP path under test;
 * - background networking, component updates and sync open connections a closed network
 *   refuses (and they cost CPU in the middle of a measurement);
 * - the page's certificate is self-signed;
 * - timers, rendering and the renderer's priority must not be throttled when the window is
 *   hidden or occluded (headful lab runs).
 */
export const CHROME_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--ignore-certificate-errors',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
];

export interface LaunchedChrome {
  browser: Browser;
  path: string;
  source: string;
  version: string;
  headless: boolean;
  args: string[];
  networkEnabled: boolean;
}

export async function launchChrome(options: {
  headless: boolean;
  log?: (line: string) => void;
  extraArgs?: string[];
  /**
   * Let Puppeteer end Chrome on SIGINT/SIGTERM/SIGHUP (default). Its SIGINT handler also exits
   * the process at once (code 130), so a caller that saves its work on Ctrl-C turns this off.
   */
  handleSignals?: boolean;
}): Promise<LaunchedChrome> {
  const chrome = await findChrome(options.log);
  const args = [...CHROME_ARGS, ...(options.extraArgs ?? [])];
  // Puppeteer enables the CDP Network domain by default; Chrome then ships every WS frame and
  // SSE message to this process, which halved EPS here. Measured runs keep it off.
  const networkEnabled = false;
  const browser = await puppeteer.launch({
    executablePath: chrome.path,
    headless: options.headless,
    args,
    acceptInsecureCerts: true,
    networkEnabled,
    defaultViewport: options.headless ? { width: 1280, height: 900 } : null,
    protocolTimeout: 120_000,
    handleSIGINT: options.handleSignals ?? true,
    handleSIGTERM: options.handleSignals ?? true,
    handleSIGHUP: options.handleSignals ?? true,
  });
  return { browser, path: chrome.path, source: chrome.source, version: await browser.version(), headless: options.headless, args, networkEnabled };
}
