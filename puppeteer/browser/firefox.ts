/**
 * Finding and launching Firefox (issue 25), driven over WebDriver BiDi: the `engine: firefox`
 * points' browser, and the lab's with `--engine firefox`. Found like Chrome, without any
 * download: $FIREFOX_PATH, the `firefox-esr`/`firefox` commands on PATH, then known install
 * paths. When there is none, the coded error says what to install; the sweep's Chrome points
 * go on without it.
 *
 * Ownership: over BiDi Puppeteer talks to Firefox on a WebSocket, not a pipe, so Firefox would
 * outlive a driver that was SIGKILLed. It is started in a process group of its own (Puppeteer
 * does that), and a small shell holding a pipe from this process on its stdin kills that
 * group once the pipe closes, which happens however this process ends (as display.ts does
 * for Xvfb).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PushlabError } from '../../protocol/errors.js';
import type { BrowserFigures } from '../../protocol/repeat-figures.js';
import { BrowserLost, type BrowserSlot } from './slot.js';
import { MEASURED_VIEWPORT, notExecutableBecause, type ChromeLookup } from './chrome.js';

/** Commands looked up on PATH, in order: Debian's ESR first, as pitfalls 20 measured it. */
export const FIREFOX_COMMANDS = ['firefox-esr', 'firefox'];

export const KNOWN_FIREFOX_PATHS = [
  '/usr/bin/firefox-esr',
  '/usr/bin/firefox',
  '/usr/lib/firefox-esr/firefox-esr',
  '/usr/lib/firefox/firefox',
  '/opt/firefox/firefox',
  '/snap/bin/firefox',
  '/Applications/Firefox.app/Contents/MacOS/firefox',
  'C:\\Program Files\\Mozilla Firefox\\firefox.exe',
];

export const FIREFOX_INSTALL_HINT = 'Install Firefox (Debian/Ubuntu: `apt-get install -y firefox-esr`), or point FIREFOX_PATH at a Firefox binary.';

export const noFirefox = (message: string) => new PushlabError('PUSHLAB_NO_FIREFOX', `${message} ${FIREFOX_INSTALL_HINT}`);

export interface FoundFirefox {
  path: string;
  /** 'FIREFOX_PATH', 'PATH' or 'known path'. */
  source: string;
}

/**
 * A Firefox to run, or PUSHLAB_NO_FIREFOX: FIREFOX_PATH naming something that is not an
 * executable file is refused (not passed over), as CHROME_PATH is.
 */
export function findFirefox(env: NodeJS.ProcessEnv = process.env, lookup: Pick<ChromeLookup, 'notExecutableBecause'> = { notExecutableBecause }): FoundFirefox {
  const named = env.FIREFOX_PATH;
  if (named) {
    const why = lookup.notExecutableBecause(named);
    if (why !== null) throw noFirefox(`FIREFOX_PATH is set to '${named}', which is not an executable file (${why}).`);
    return { path: named, source: 'FIREFOX_PATH' };
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const command of FIREFOX_COMMANDS) {
    const dir = dirs.find((d) => lookup.notExecutableBecause(path.join(d, command)) === null);
    if (dir) return { path: path.join(dir, command), source: 'PATH' };
  }
  const known = KNOWN_FIREFOX_PATHS.find((p) => lookup.notExecutableBecause(p) === null);
  if (known) return { path: known, source: 'known path' };
  throw noFirefox(`No Firefox found (FIREFOX_PATH unset, no ${FIREFOX_COMMANDS.join(' or ')} on PATH, none at the known install paths).`);
}

/** Whether a Firefox is found here (findFirefox does not throw): what tests that need one skip on. */
export function firefoxFound(): boolean {
  try {
    findFirefox();
    return true;
  } catch {
    return false;
  }
}

/**
 * Preferences every launch gets, beside Puppeteer's own automation ones (no updates, no
 * telemetry, no first-run pages), and why:
 * - HTTP/3 off: QUIC would bypass the TLS/TCP path under test (Chrome's `--disable-quic`);
 * - background timers and rendering of an unfocused or hidden window not throttled (headful lab runs);
 * - no safe-browsing and no captive-portal probes: connections a closed network refuses, and
 *   CPU in the middle of a measurement;
 * - the page's clock at full precision (below).
 */
export const FIREFOX_PREFS: Record<string, unknown> = {
  'network.http.http3.enable': false,
  'dom.min_background_timeout_value': 4,
  'dom.timeout.enable_budget_timer_throttling': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  // Firefox rounds performance.now() to 1 ms (with jitter) in a page that is not cross-origin
  // isolated, which put sub-millisecond latencies at 0; Chrome's is 0.1 ms. Full precision, as
  // a lab instrument needs (the page's latency is receive time − the server's sentAt).
  'privacy.reduceTimerPrecision': false,
};

export interface LaunchedFirefox {
  browser: Browser;
  path: string;
  source: string;
  /** As Firefox reports itself over BiDi: `firefox/153.7.0`. */
  version: string;
  headless: boolean;
  /** The parent process's pid: its descendants are Firefox's processes in /proc. */
  pid: number;
  /** The X display a headful Firefox was started on, or null. */
  display: string | null;
}

/** Starts the shell that kills Firefox's process group when this process's end of its stdin closes. */
function groupReaper(pid: number): ChildProcess {
  const shell = spawn('sh', ['-c', `read -r _ || true; kill -KILL -- -${pid} 2>/dev/null; exit 0`], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  shell.unref();
  return shell;
}

export async function launchFirefox(options: {
  headless: boolean;
  log?: (line: string) => void;
  display?: string;
  fitWindow?: boolean;
}): Promise<LaunchedFirefox> {
  const found = findFirefox();
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: found.path,
      headless: options.headless,
      acceptInsecureCerts: true,
      extraPrefsFirefox: FIREFOX_PREFS,
      defaultViewport: !options.headless && options.fitWindow ? null : MEASURED_VIEWPORT,
      protocolTimeout: 120_000,
      // Commands stop by cli/stop.ts's rule; the reaper ends Firefox with this process.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      ...(options.display !== undefined ? { env: { ...process.env, DISPLAY: options.display } } : {}),
    });
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw noFirefox(`Firefox at '${found.path}' (${found.source}) did not start: ${why}.`);
  }
  const child = browser.process();
  const pid = child?.pid;
  if (pid === undefined) {
    await browser.close().catch(() => undefined);
    throw noFirefox(`Firefox at '${found.path}' started without a process to measure.`);
  }
  const reaper = groupReaper(pid);
  child!.once('exit', () => reaper.stdin?.destroy());
  try {
    return {
      browser,
      path: found.path,
      source: found.source,
      version: await browser.version(),
      headless: options.headless,
      pid,
      display: options.headless ? null : (options.display ?? process.env.DISPLAY ?? null),
    };
  } catch (err) {
    killGroup(pid);
    throw err;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * The Firefox the sweep's `engine: firefox` points run in (a BrowserSlot with no CDP session):
 * launched on first use, relaunched after a crash, closed (or its group killed) at the end.
 */
export class LocalFirefox implements BrowserSlot {
  readonly engine = 'firefox' as const;

  private constructor(
    private ff: LaunchedFirefox,
    private readonly options: Parameters<typeof launchFirefox>[0],
    readonly hostId: string,
  ) {}

  static async launch(options: Parameters<typeof launchFirefox>[0], hostId = FIREFOX_HOST_ID): Promise<LocalFirefox> {
    return new LocalFirefox(await launchFirefox(options), options, hostId);
  }

  get launched(): LaunchedFirefox {
    return this.ff;
  }

  /** Its process tree's root in /proc. */
  pid(): number {
    return this.ff.pid;
  }

  processRoot(): number {
    return this.ff.pid;
  }

  browser(): Browser {
    return this.ff.browser;
  }

  session(): null {
    return null;
  }

  newPage(): Promise<Page> {
    return this.ff.browser.newPage();
  }

  async relaunch(): Promise<void> {
    this.options.log?.('Firefox crashed, disconnected, or lost its connection to the server: launching it again');
    this.kill();
    try {
      this.ff = await launchFirefox(this.options);
    } catch (err) {
      throw new BrowserLost(err instanceof Error ? err.message : String(err));
    }
  }

  about(): BrowserFigures {
    return { version: this.ff.version, engine: 'firefox', headless: this.ff.headless, display: this.ff.display, xvfb: false };
  }

  async close(): Promise<void> {
    const closed = this.ff.browser.close().catch(() => undefined);
    const timeout = new Promise<void>((r) => setTimeout(r, 5000).unref());
    await Promise.race([closed, timeout]);
    this.kill();
  }

  /** Ends Firefox and every process it started (content processes are its forkserver's children). */
  kill(): void {
    killGroup(this.ff.pid);
  }
}

/** The report's `hosts` id of the Firefox a sweep launches. */
export const FIREFOX_HOST_ID = 'local-firefox';
