/**
 * Finding and launching Chrome. A system Chrome/Chromium is preferred and nothing is
 * downloaded when one exists. The order: $CHROME_PATH, $PUPPETEER_EXECUTABLE_PATH, the
 * `chromium`/`google-chrome` commands on PATH, known install paths, then a Chrome Puppeteer
 * downloaded earlier (in $PUPPETEER_CACHE_DIR or ~/.cache/puppeteer). Only when all of those
 * miss does it download the Chrome build this puppeteer-core version pins (fine on an ordinary
 * network; it fails offline), so a run uses the browser Puppeteer was tested with.
 */
import { Browser as BrowserKind, detectBrowserPlatform, getInstalledBrowsers, install, type InstalledBrowser } from '@puppeteer/browsers';
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
// The browser builds this puppeteer-core was released with; the `puppeteer` package reads them from here too.
import { PUPPETEER_REVISIONS } from 'puppeteer-core/internal/revisions.js';
import { PushlabError } from '../protocol/errors.js';

/** Commands looked up on PATH, in order. */
export const CHROME_COMMANDS = ['chromium', 'google-chrome', 'google-chrome-stable', 'chromium-browser'];

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

const noChrome = (message: string) => new PushlabError('PUSHLAB_NO_CHROME', `${message} ${INSTALL_HINT}`);

/** Where Puppeteer keeps the browsers it downloads, as Puppeteer itself decides it. */
export function puppeteerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PUPPETEER_CACHE_DIR || path.join(os.homedir(), '.cache', 'puppeteer');
}

/** What discovery touches outside `env`, so tests can give it a fake filesystem. */
export interface ChromeLookup {
  isExecutable(file: string): boolean;
  installedBrowsers(cacheDir: string): Promise<InstalledBrowser[]>;
}

const realLookup: ChromeLookup = {
  isExecutable(file) {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  installedBrowsers: (cacheDir) => getInstalledBrowsers({ cacheDir }).catch(() => []),
};

export interface FoundChrome {
  path: string;
  /** Where it came from: an env var name, 'PATH', 'known path', 'puppeteer cache' or 'download'. */
  source: string;
}

/** Looks for a Chrome without downloading. Throws PUSHLAB_NO_CHROME if an env var names a missing file. */
export async function findSystemChrome(env: NodeJS.ProcessEnv = process.env, lookup: ChromeLookup = realLookup): Promise<FoundChrome | null> {
  for (const name of ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH']) {
    const value = env[name];
    if (!value) continue;
    if (!lookup.isExecutable(value)) throw noChrome(`${name} is set to '${value}', which is not an executable file.`);
    return { path: value, source: name };
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const command of CHROME_COMMANDS) {
    const dir = dirs.find((d) => lookup.isExecutable(path.join(d, command)));
    if (dir) return { path: path.join(dir, command), source: 'PATH' };
  }
  const known = KNOWN_CHROME_PATHS.find((p) => lookup.isExecutable(p));
  if (known) return { path: known, source: 'known path' };
  const chromes = (await lookup.installedBrowsers(puppeteerCacheDir(env))).filter((b) => b.browser === BrowserKind.CHROME && lookup.isExecutable(b.executablePath));
  // The pinned build first: it is the one this Puppeteer was tested with.
  const cached = chromes.find((b) => b.buildId === PUPPETEER_REVISIONS.chrome) ?? chromes[0];
  return cached ? { path: cached.executablePath, source: 'puppeteer cache' } : null;
}

/** A Chrome to run: a system one, or the Chrome build Puppeteer pins, downloaded as the last resort. */
export async function findChrome(log: (line: string) => void = () => undefined): Promise<FoundChrome> {
  const found = await findSystemChrome();
  if (found) return found;
  const platform = detectBrowserPlatform();
  if (!platform) throw noChrome('No Chrome found, and Puppeteer has no Chrome build for this platform.');
  const buildId = PUPPETEER_REVISIONS.chrome;
  const cacheDir = puppeteerCacheDir();
  log(`no system Chrome found; downloading Chrome ${buildId}, the build this Puppeteer pins, into ${cacheDir}…`);
  try {
    const installed = await install({ browser: BrowserKind.CHROME, buildId, cacheDir, platform });
    return { path: installed.executablePath, source: 'download' };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw noChrome(`No Chrome found, and downloading Chrome ${buildId} failed (${why}).`);
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

/** The page size every measured page gets, in CSS pixels: the lab page's table and charts fit it. */
export const MEASURED_VIEWPORT = { width: 1280, height: 900 } as const;

export interface LaunchedChrome {
  browser: Browser;
  path: string;
  source: string;
  version: string;
  headless: boolean;
  args: string[];
  networkEnabled: boolean;
  /** The X display a headful Chrome was started on (`DISPLAY`), or null (headless, or no X). */
  display: string | null;
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
  /** The X display for a headful Chrome (`:99`); default: this process's DISPLAY. */
  display?: string;
  /**
   * A headful page takes its window's size (the lab: a person resizes it). Otherwise every
   * page is MEASURED_VIEWPORT, headless or headful, so the display factor compares one layout
   * (a headful window's own viewport here was 1050 × 637, which draws fewer table rows).
   */
  fitWindow?: boolean;
}): Promise<LaunchedChrome> {
  const chrome = await findChrome(options.log);
  const args = [...CHROME_ARGS, ...(options.extraArgs ?? [])];
  // Puppeteer enables the CDP Network domain by default; Chrome then ships every WS frame and
  // SSE message to this process, which halved EPS here. Measured runs keep it off.
  const networkEnabled = false;
  // CDP over a pipe (Chrome's fds 3 and 4) rather than a WebSocket: Chrome ends when the pipe
  // closes, so it goes with this process however that ends, SIGKILL included; over a WebSocket
  // a killed driver leaves Chrome running. A caller that asks for a DevTools port (the lab's
  // test attaches over it) gets the WebSocket, which is how Puppeteer learns that port.
  const pipe = !args.some((a) => a.startsWith('--remote-debugging-port'));
  const browser = await puppeteer.launch({
    executablePath: chrome.path,
    headless: options.headless,
    args,
    pipe,
    acceptInsecureCerts: true,
    networkEnabled,
    defaultViewport: !options.headless && options.fitWindow ? null : MEASURED_VIEWPORT,
    protocolTimeout: 120_000,
    handleSIGINT: options.handleSignals ?? true,
    handleSIGTERM: options.handleSignals ?? true,
    handleSIGHUP: options.handleSignals ?? true,
    ...(options.display !== undefined ? { env: { ...process.env, DISPLAY: options.display } } : {}),
  });
  const display = options.headless ? null : (options.display ?? process.env.DISPLAY ?? null);
  return { browser, path: chrome.path, source: chrome.source, version: await browser.version(), headless: options.headless, args, networkEnabled, display };
}
