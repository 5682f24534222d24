/**
 * What a repeat needs of a browser, whichever kind it is: the slot it measures in, and the error
 * a slot throws when its browser is gone for good.
 */
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import type { Engine } from '../../protocol/engine.js';
import type { BrowserFigures } from '../../protocol/repeat-figures.js';

/**
 * Where repeats run: the current browser, replaced after a crash by `relaunch()`. A launched
 * Chrome (local.ts), one connected to (remote.ts) and a launched Firefox (firefox.ts) are the
 * same to a repeat (measure/repeat.ts).
 */
export interface BrowserSlot {
  browser(): Browser;
  /** Browser-level CDP session: SystemInfo lives there, not on page sessions. Null for Firefox (WebDriver BiDi, no CDP). */
  session(): CDPSession | null;
  /** Its engine; absent: chrome. */
  readonly engine?: Engine;
  /** The report's `hosts` id its repeats carry, when it is not the lane's own browser (the sweep's Firefox). */
  readonly hostId?: string;
  /** A launched Firefox's parent pid: its processes are read from /proc. Absent: none to read (Chrome, or remote). */
  pid?(): number;
  /**
   * The root of the browser's process tree on this machine (a launched Chrome's or Firefox's), which
   * a device class's CPU quota takes in (puppeteer/device/); absent or null: not on this machine.
   */
  processRoot?(): number | null;
  /** A new tab, in the browser context this slot measures in. */
  newPage(): Promise<Page>;
  /**
   * Replaces a browser that crashed or disconnected, or gives it a fresh connection to the
   * server. Throws BrowserLost when the browser cannot be had again (a remote one that is gone).
   */
  relaunch(): Promise<void>;
  /** Its build and mode, recorded with the repeats of points that name a `display`. */
  about?(): BrowserFigures;
}

/** A browser that cannot be reached again: its repeats go elsewhere (sweep/runner.ts). */
export class BrowserLost extends Error {
  override name = 'BrowserLost';
}
