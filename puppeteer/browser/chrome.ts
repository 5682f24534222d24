/**
 * Finding and launching Chrome. A system Chrome/Chromium is preferred and nothing is
 * downloaded when one exists. The order: $CHROME_PATH, $PUPPETEER_EXECUTABLE_PATH, the
 * `chromium`/`google-chrome` commands on PATH, known install paths, then a Chrome Puppeteer
 * downloaded earlier (in $PUPPETEER_CACHE_DIR or ~/.cache/puppeteer). Only when all of those
 * miss does it download the Chrome build this puppeteer-core version pins (fine on an ordinary
 * network; it fails offline), so a run uses the browser Puppeteer was tested with.
 */
import { Browser as BrowserKind, detectBrowserPlatform, getInstalledBrowsers, install, type InstalledBrowser } from '@puppeteer/browsers';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
// The browser builds this puppeteer-core was released with; the `puppeteer` package reads them from here too.
import { PUPPETEER_REVISIONS } from 'puppeteer-core/internal/revisions.js';
import { deadPidEntries } from '../../cli/pid.js';
import { PushlabError } from '../../protocol/errors.js';

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

export const INSTALL_HINT = 'Install Chrome or Chromium (Debian/Ubuntu: `apt-get install -y chromium`), or point CHROME_PATH at a Chrome binary.';

const noChrome = (message: string) => new PushlabError('PUSHLAB_NO_CHROME', `${message} ${INSTALL_HINT}`);

/** Where Puppeteer keeps the browsers it downloads, as Puppeteer itself decides it. */
export function puppeteerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PUPPETEER_CACHE_DIR || path.join(os.homedir(), '.cache', 'puppeteer');
}

/** What discovery touches outside `env`, so tests can give it a fake filesystem. */
export interface ChromeLookup {
  /** Why `file` is not a browser to run, or null when it is (see notExecutableBecause). */
  notExecutableBecause(file: string): string | null;
  installedBrowsers(cacheDir: string): Promise<InstalledBrowser[]>;
}

/**
 * Why `file` cannot be run as a browser, or null when it can: a regular file this user may
 * execute. A directory passes access(X_OK) (search permission) and then fails in spawn, which
 * Puppeteer does not catch: it must be refused here.
 */
export function notExecutableBecause(file: string): string | null {
  let isFile: boolean;
  try {
    const st = statSync(file);
    if (st.isDirectory()) return 'it is a directory';
    isFile = st.isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'it does not exist' : `it cannot be read (${code ?? String(err)})`;
  }
  if (!isFile) return 'it is not a regular file';
  try {
    accessSync(file, constants.X_OK);
    return null;
  } catch {
    return 'this user may not execute it';
  }
}

const realLookup: ChromeLookup = {
  notExecutableBecause,
  installedBrowsers: (cacheDir) => getInstalledBrowsers({ cacheDir }).catch(() => []),
};

const isExecutable = (lookup: ChromeLookup, file: string) => lookup.notExecutableBecause(file) === null;

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
    const why = lookup.notExecutableBecause(value);
    if (why !== null) throw noChrome(`${name} is set to '${value}', which is not an executable file (${why}).`);
    return { path: value, source: name };
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const command of CHROME_COMMANDS) {
    const dir = dirs.find((d) => isExecutable(lookup, path.join(d, command)));
    if (dir) return { path: path.join(dir, command), source: 'PATH' };
  }
  const known = KNOWN_CHROME_PATHS.find((p) => isExecutable(lookup, p));
  if (known) return { path: known, source: 'known path' };
  const chromes = (await lookup.installedBrowsers(puppeteerCacheDir(env))).filter(
    (b) => b.browser === BrowserKind.CHROME && isExecutable(lookup, b.executablePath),
  );
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
 * What Chromium needs to run at all on a machine like the one pushlab is built on (bench:page's
 * plain setup launches with these alone, bench/instrument.ts): see CHROME_ARGS for why.
 */
export const MACHINE_CHROME_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The flags that keep a hidden or occluded tab at full speed: timers, rendering and the
 * renderer's priority. Every launch has them (Puppeteer adds them by default too) except a
 * hidden-tab point's browser, which must throttle as a user's Chrome does (protocol/tab-state.ts).
 */
export const ANTI_THROTTLING_ARGS = ['--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows', '--disable-renderer-backgrounding'];

/**
 * Flags every launch gets (but ANTI_THROTTLING_ARGS for a hidden-tab point's browser), and why:
 * - the sandbox needs user namespaces a container or root shell often lacks;
 * - no GPU on a server; QUIC would bypass the TLS/TCP path under test;
 * - background networking, component updates and sync open connections a closed network
 *   refuses (and they cost CPU in the middle of a measurement);
 * - the page's certificate is self-signed;
 * - timers, rendering and the renderer's priority must not be throttled when the window is
 *   hidden or occluded (headful lab runs).
 */
export const CHROME_ARGS = [...MACHINE_CHROME_ARGS, '--ignore-certificate-errors', ...ANTI_THROTTLING_ARGS];

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
  /** The browser's DevTools WebSocket when a `--remote-debugging-port` was asked for, else null. */
  devtools: string | null;
}

/** Chrome profiles live in the temp directory under this prefix, then this process's pid. */
const PROFILE_PREFIX = 'pushlab-chrome-';
/** Profiles of Chromes this process started that are not removed yet. */
const liveProfiles = new Set<string>();
let exitHooked = false;

/** Removes a profile; one that cannot be removed yet (Chrome still writing) stays listed for the exit hook. */
function removeProfile(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    liveProfiles.delete(dir);
  } catch {
    // Tried again when this process exits.
  }
}

/**
 * A fresh profile directory, `<tmp>/pushlab-chrome-<pid>-XXXXXX`, owned here rather than by
 * Puppeteer: Puppeteer makes its temporary profile before it spawns Chrome and removes it only
 * when Chrome exits, so a spawn that failed left an empty one in /tmp every run. Ours is
 * removed when Chrome exits, when the launch fails, and when this process exits; one whose
 * process was SIGKILLed (the pid in its name no longer runs) is removed by the next launch.
 */
function newProfile(): string {
  // An unreadable temp directory fails at mkdtemp below, with its reason.
  for (const dir of deadPidEntries(PROFILE_PREFIX)) removeProfile(dir);
  if (!exitHooked) process.once('exit', () => [...liveProfiles].forEach(removeProfile));
  exitHooked = true;
  const dir = mkdtempSync(path.join(os.tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
  liveProfiles.add(dir);
  return dir;
}

/** The DevTools WebSocket Chrome wrote to its profile's DevToolsActivePort (port, then path). */
async function devtoolsEndpoint(profile: string, timeoutMs = 10_000): Promise<string> {
  const file = path.join(profile, 'DevToolsActivePort');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
    if (lines.length >= 2 && /^\d+$/.test(lines[0]) && lines[1].startsWith('/')) return `ws://127.0.0.1:${lines[0]}${lines[1]}`;
    if (Date.now() > until) throw new Error(`Chrome did not write ${file} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function launchChrome(options: {
  headless: boolean;
  log?: (line: string) => void;
  extraArgs?: string[];
  /**
   * Let Puppeteer end Chrome on SIGINT/SIGTERM/SIGHUP (its SIGINT handler also exits the
   * process at once). Off by default: commands stop by cli/stop.ts's rule, and Chrome, on its
   * pipe, ends with this process anyway.
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
  /**
   * Chrome's background throttling on, as in a user's browser: the launch leaves out
   * ANTI_THROTTLING_ARGS, its own and Puppeteer's defaults (a hidden-tab point's browser).
   */
  backgroundThrottling?: boolean;
  /** Runs Chrome through a launcher made from its path (a sweep's link: the browser's network namespace, puppeteer/link/); the report still names Chrome's own path. */
  wrap?: (chromePath: string) => string;
}): Promise<LaunchedChrome> {
  const chrome = await findChrome(options.log);
  const throttled = options.backgroundThrottling === true;
  const base = throttled ? CHROME_ARGS.filter((a) => !ANTI_THROTTLING_ARGS.includes(a)) : CHROME_ARGS;
  const args = [...base, ...(options.extraArgs ?? [])];
  // Puppeteer enables the CDP Network domain by default; Chrome then ships every WS frame and
  // SSE message to this process, which halved EPS here. Measured runs keep it off.
  const networkEnabled = false;
  // CDP over a pipe (Chrome's fds 3 and 4) rather than a WebSocket: Chrome ends when the pipe
  // closes, so it goes with this process however that ends, SIGKILL included; over a WebSocket
  // a killed driver leaves Chrome running. A caller that asks for a DevTools port (the lab's
  // test attaches over it) gets it beside the pipe, which Puppeteer then leaves to us to add.
  const devtools = args.some((a) => a.startsWith('--remote-debugging-port'));
  const profile = newProfile();
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: options.wrap ? options.wrap(chrome.path) : chrome.path,
      headless: options.headless,
      // A copy: Puppeteer takes `--enable-features`/`--disable-features` out of the array it is
      // given (merging them into its own), which would leave them out of the recorded `args`.
      args: devtools ? [...args, '--remote-debugging-pipe'] : [...args],
      ...(throttled ? { ignoreDefaultArgs: ANTI_THROTTLING_ARGS } : {}),
      pipe: true,
      userDataDir: profile,
      acceptInsecureCerts: true,
      networkEnabled,
      defaultViewport: !options.headless && options.fitWindow ? null : MEASURED_VIEWPORT,
      protocolTimeout: 120_000,
      handleSIGINT: options.handleSignals ?? false,
      handleSIGTERM: options.handleSignals ?? false,
      handleSIGHUP: options.handleSignals ?? false,
      ...(options.display !== undefined ? { env: { ...process.env, DISPLAY: options.display } } : {}),
    });
  } catch (err) {
    removeProfile(profile);
    // Puppeteer's text is a stack with the browser's log under it: the first line says it.
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw noChrome(`Chrome at '${chrome.path}' (${chrome.source}) did not start: ${why}.`);
  }
  const child = browser.process();
  if (child && child.exitCode === null && child.signalCode === null) child.once('exit', () => removeProfile(profile));
  else removeProfile(profile);
  try {
    const display = options.headless ? null : (options.display ?? process.env.DISPLAY ?? null);
    return {
      browser,
      path: chrome.path,
      source: chrome.source,
      version: await browser.version(),
      headless: options.headless,
      args,
      networkEnabled,
      display,
      devtools: devtools ? await devtoolsEndpoint(profile) : null,
    };
  } catch (err) {
    child?.kill('SIGKILL');
    throw err;
  }
}
