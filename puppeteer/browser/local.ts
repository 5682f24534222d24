/**
 * The sweep's browser: launched once, relaunched after a crash with the same flags, closed
 * (or killed, when it no longer answers) at the end.
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { launchChrome, type LaunchedChrome } from './chrome.js';
import type { BrowserSlot } from './slot.js';

/**
 * `backgroundThrottling`: Chrome throttles hidden tabs (a hidden-tab point's browser, launchChrome);
 * `extraArgs`: more Chrome flags; `display`: the X display of a headful browser (default: this
 * process's DISPLAY); `fitWindow`: a headful page takes its window's size (see launchChrome).
 */
export type LaunchOptions = Pick<Parameters<typeof launchChrome>[0], 'extraArgs' | 'display' | 'fitWindow' | 'backgroundThrottling' | 'wrap'>;

export class LocalBrowser implements BrowserSlot {
  private constructor(
    private chrome: LaunchedChrome,
    private cdp: CDPSession,
    private readonly headless: boolean,
    private readonly log: (line: string) => void,
    private readonly options: LaunchOptions,
  ) {}

  static async launch(headless: boolean, log: (line: string) => void, options: LaunchOptions = {}): Promise<LocalBrowser> {
    // The sweep handles Ctrl-C itself (it saves the report first); Chrome still dies with the process.
    const chrome = await launchChrome({ headless, log, handleSignals: false, ...options });
    try {
      return new LocalBrowser(chrome, await chrome.browser.target().createCDPSession(), headless, log, options);
    } catch (err) {
      chrome.browser.process()?.kill('SIGKILL');
      throw err;
    }
  }

  get launched(): LaunchedChrome {
    return this.chrome;
  }

  browser(): Browser {
    return this.chrome.browser;
  }

  session(): CDPSession {
    return this.cdp;
  }

  newPage(): Promise<Page> {
    return this.chrome.browser.newPage();
  }

  processRoot(): number | null {
    return this.chrome.browser.process()?.pid ?? null;
  }

  async relaunch(): Promise<void> {
    this.log('Chrome crashed, disconnected, or lost its connection to the server: launching it again');
    this.kill();
    this.chrome = await launchChrome({ headless: this.headless, log: this.log, handleSignals: false, ...this.options });
    this.cdp = await this.chrome.browser.target().createCDPSession();
  }

  /** Closes Chrome, and kills it if it does not close within a few seconds. */
  async close(): Promise<void> {
    const closed = this.chrome.browser.close().catch(() => undefined);
    const timeout = new Promise<void>((r) => setTimeout(r, 5000).unref());
    await Promise.race([closed, timeout]);
    this.kill();
  }

  /** Ends the browser process at once (also after a crash, when nothing answers any more). */
  kill(): void {
    const child = this.chrome.browser.process();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
