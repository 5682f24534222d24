/**
 * Measures one repeat of one point on a fresh page, and emits what happens; it never prints.
 * A fresh page per repeat gives a new renderer (site isolation) with nothing left over from
 * the last point, at a fraction of a new browser's cost. Every connection is open before the
 * clock starts, the warm-up ends once both ends have caught up (at least settle.ts minWarmupMs, at most
 * the point's `warmupSec` plus the settle budget), then one window is measured between two
 * samples.
 *
 * A repeat ends early, without waiting for its timeout, when the renderer or the browser
 * crashes, and at once when the caller's signal aborts (Ctrl-C): an aborted repeat is not
 * recorded at all, so a resumed sweep measures it again.
 */
import { applyClockOffset, clockOffset } from './clock-offset.js';
import { EventEmitter } from 'node:events';
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { BrowserLost, type BrowserSlot } from '../browser/slot.js';
import type { PageConfig, PageSnapshot, PushlabApi } from '../../protocol/page-api.js';
import { renderModuleUrl } from '../../protocol/render-module.js';
import type { ClockOffset, FailedRepeat, MeasuredRepeat, Repeat } from '../../protocol/repeat-figures.js';
import { PushlabError } from '../../protocol/errors.js';
import { streamsOf, type Point } from '../../protocol/scenario.js';
import { pageFactors, type PageFactor } from '../../protocol/factors.js';
import { takeSample, type SampleSources, type TabSource } from './sampler.js';
import { batchingFloorMs, earlyProbeMs, minWarmupMs, settle, settleBudgetMs, unsettledNote, type SettleOutcome, type SettleProbe } from './settle.js';
import type { ServerHandle } from './server-process.js';
import type { ServerStats } from '../../protocol/server-stats.js';
import { summarise } from '../../results/summarise.js';
import { openLabPage, type LabApi } from './page.js';
import { sendInput } from './input-sender.js';
import { DeviceEmulator, type AppliedDevice } from '../device/emulator.js';
import { CATCH_UP_WAIT_SEC, hiddenWaitSec } from '../../protocol/tab-state.js';
import type { TabReturn, TabStateFigures } from '../../protocol/repeat-figures.js';
import type { NetworkLink } from '../link/link.js';
import { emulateLink } from '../link/cdp.js';
import { linkOf } from '../../protocol/link.js';

/** What a repeat is doing now, for progress output. */
export type Phase = 'load' | 'open' | 'hide' | 'warm-up' | 'window' | 'return' | 'stop';

/** How long a hidden-tab point's page may take to say it is hidden once another tab is in front, ms. */
export const VISIBILITY_WAIT_MS = 2000;

/** How often the return to the foreground reads the page's count, ms: the catch-up time is about this coarse. */
const CATCH_UP_POLL_MS = 20;

/** Ticks during long phases: progress output is never silent for more than about this, ms. */
export const TICK_MS = 1000;

/**
 * A Firefox page streaming that answers no driver call for this long is given up, ms. Past its
 * saturation (SSE at 100 × 10 here) Firefox's tab stopped answering WebDriver BiDi script
 * calls altogether, where a swamped Chrome tab answers late; without this the repeat waited
 * out its whole timeout (a minute past its window) per attempt. Once streaming, progress ticks
 * at least every TICK_MS and each settle probe lasts well under a second, so 20 s of silence is
 * a page that will not answer.
 */
export const FIREFOX_UNRESPONSIVE_MS = 20_000;

export interface RepeatEvents {
  phase: [point: Point, phase: Phase, elapsedMs: number, plannedMs: number | null];
  'attempt-failed': [point: Point, attempt: number, error: Error, cause: string | undefined];
}

export interface RepeatOptions {
  /** The browser points run in, unless `browserFor` gives another. */
  browser: BrowserSlot;
  /**
   * The browser for a point whose scenario names a `display` (display.ts launches the other
   * mode's on first use), a Firefox point's, and a hidden-tab point's (tab-state.ts: a Chrome
   * throttling its background tabs); absent, or resolving to null: `browser`.
   */
  browserFor?: (point: Point) => Promise<BrowserSlot | null>;
  server: ServerHandle;
  /** The browser host's logical cores: what host-bound and Worker verdicts are judged against. */
  cores: number;
  /**
   * Whether the browser's processes are on this machine, so procfs can give per-thread and
   * host CPU (default true). False for a remote browser: those figures are then unavailable.
   */
  procfs?: boolean;
  /**
   * The browser and the server read one clock (one machine; default true): latency needs no
   * correction, and an estimate there would only add its own noise (± about 1 ms). Otherwise
   * each repeat measures the page's clock offset and takes it off (clock-offset.ts).
   */
  sameClock?: boolean;
  /** The browser's id in the report's `hosts`, recorded on every repeat. */
  browserId?: string;
  /** The id a Firefox point's failed repeat carries when no Firefox could be had (its slot never came). */
  firefoxHostId?: string;
  /** Notes every repeat in this browser carries (it shared its host with another browser). */
  notes?: readonly string[];
  /** Extra tries for a failed repeat before it is recorded as failed. */
  retries: number;
  /** Slack on top of warm-up + settle + window before a repeat is abandoned, ms. */
  slackMs?: number;
  /** The page to measure, relative to the server URL: the lab page unless a bench says otherwise. */
  pagePath?: string;
  /**
   * Send input through the window and time it on the page (default true). False only for
   * bench:page's baseline: no input, and the page's probe off (PageConfig.inputProbe).
   */
  input?: boolean;
  /** Slows the browser for points with a device class (puppeteer/device/); absent: such a point fails, coded. */
  devices?: DeviceEmulator;
  /** The run's network link (puppeteer/link/): shaped for each point's `link` before its tabs load; absent: a point with a namespace link fails, coded. */
  link?: NetworkLink | null;
  /**
   * The first settle probe fills the minimum warm-up's last part (default true, settle.ts
   * earlyProbeMs); false: every probe after the minimum, for a paired check of what that moves.
   */
  earlyProbe?: boolean;
}

export interface RepeatContext {
  round: number;
  /** The current round's in-page decoding ceiling of this point's encoding at its batch size, events/s. */
  ceilingEventsPerSec: number | null;
  /** The current round's best JSON.parse ceiling over its batch sizes, events/s. */
  jsonCeilingEventsPerSec?: number | null;
  /** Aborting it (Ctrl-C) stops the repeat at once; it is then not recorded. */
  signal?: AbortSignal;
}

/**
 * A point streaming, settled, where a repeat would open its one window: what `stream()` hands its
 * body (a soak samples it many times, puppeteer/soak/). Its tabs are closed when the body ends.
 */
export interface Streaming {
  pages: readonly Page[];
  apis: readonly LabApi[];
  /** What takeSample() reads: the tabs, the browser, the server. */
  src: SampleSources;
  settled: SettleOutcome;
  /** The page's clock offset, taken off latency when the browser and server clocks differ; null: one clock. */
  clock: ClockOffset | null;
  device: AppliedDevice;
  /** A hidden-tab point's: when its tab was hidden (performance.now()); null in the foreground. */
  hiddenAt: number | null;
  /** Aborts on a crash, the timeout or Ctrl-C: every wait in the body should take it. */
  signal: AbortSignal;
  /** Emits a progress phase (and throws once `signal` has aborted). */
  phase(name: Phase, elapsedMs?: number, plannedMs?: number | null): void;
}

/** Every tab's snapshot at a settle probe's end (latency reset), as the page gave it. */
type ProbeSnapshots = Awaited<ReturnType<PushlabApi['snapshot']>>[];

/** What a settle probe reads at each end: every tab's snapshot, and the server's /stats. */
interface ProbeReadings {
  snapshots: ProbeSnapshots;
  server: ServerStats;
  /** When the reading was asked for (performance.now()): the next probe's span counts from here. */
  at: number;
}

/** Why an attempt stopped early. */
class Stopped extends Error {
  override name = 'Stopped';
  constructor(
    readonly kind: 'interrupted' | 'timeout' | 'renderer crashed' | 'browser crashed' | 'page unresponsive',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A Firefox tab lost under the driver: over WebDriver BiDi a content process that went away
 * shows as its browsing context closing ("Target closed"), or as the tab showing Firefox's own
 * crash page, which lives in the parent process, so the next script call into it is refused;
 * not as a page `error` event. Recorded like a crashed Chrome renderer (pitfalls 20: at SSE
 * 50 × 10 the tab closed within 8 s). Killed during the warm-up, it can also show as "no such
 * handle": the page's API handle lived in the realm that went away with the process (the page
 * never navigates during a repeat, so nothing else drops that realm).
 */
export function lostFirefoxTab(err: Error): boolean {
  return /Target closed|browsing ?context.*(closed|discarded|destroyed)|no such frame|no such handle|Session closed|not supported for parent process browsing contexts/i.test(
    err.message,
  );
}

/** Whether a failed attempt was a page load that failed in Chrome's network stack. */
export function needsNewConnection(err: Error): boolean {
  return /^net::ERR_/.test(err.message);
}

export class RepeatMeasurer extends EventEmitter<RepeatEvents> {
  constructor(private readonly o: RepeatOptions) {
    super();
  }

  /** One repeat with retries; null when the caller's signal aborted it (nothing to record). */
  async measure(point: Point, ctx: RepeatContext): Promise<Repeat | null> {
    const startedAt = new Date().toISOString();
    let last: Error = new Error('not run');
    let cause: string | undefined;
    let attempts = 0;
    for (let attempt = 1; attempt <= 1 + this.o.retries; attempt++) {
      if (ctx.signal?.aborted) return null;
      attempts = attempt;
      let slot: BrowserSlot | null = null;
      try {
        // A browser that cannot be had (no display for a headful one) fails the attempt like any other cause.
        slot = await this.slotFor(point);
        const s = slot;
        const repeat = await this.attempt(s, point, ctx.signal, (pages, signal) => this.run(pages, s, point, ctx, startedAt, attempt, signal));
        const id = slot.hostId ?? this.o.browserId;
        if (id !== undefined) repeat.browserId = id;
        repeat.notes.push(...(this.o.notes ?? []));
        return repeat;
      } catch (err) {
        if (ctx.signal?.aborted) return null;
        last = err instanceof Error ? err : new Error(String(err));
        // A coded refusal (no Firefox to run this point) keeps its code as the cause.
        cause = last instanceof Stopped ? last.kind : last instanceof PushlabError ? last.code : undefined;
        // A browser that died under a CDP call fails that call ("Target closed") before its
        // `disconnected` event stops the attempt: the same crash, named as one, so it is relaunched.
        if (cause === undefined && slot && slot.engine !== 'firefox' && (await disconnectedWithin(slot.browser(), 500))) {
          last = new Stopped('browser crashed', `browser crashed (Chrome disconnected: ${last.message.split('\n')[0]})`);
          cause = 'browser crashed';
        }
        if (cause === undefined && slot?.engine === 'firefox' && lostFirefoxTab(last)) {
          cause = 'renderer crashed';
          // Firefox's text ends in its own stack (`RemoteError@chrome://…`): the words before it say it.
          last = new Error(`Firefox tab lost (its content process went away: ${last.message.split('\n')[0].replace(/\s*\w*Error@\S.*$/, '')})`);
        }
        this.emit('attempt-failed', point, attempt, last, cause);
        // A page that could not load (net::ERR_…) met a broken connection to the server: Chrome
        // would reuse it for the retry (it keeps one HTTP/2 session per origin for every tab),
        // so the retry gets a new browser and with it a new connection.
        if (slot && ((last instanceof Stopped && last.kind === 'browser crashed') || needsNewConnection(last))) {
          try {
            await slot.relaunch();
          } catch (lost) {
            if (!(lost instanceof BrowserLost)) throw lost;
            // A remote browser that is gone: no retry can run here; the runner moves on without it.
            last = new Error(`${last.message}; ${lost.message}`);
            cause = 'browser lost';
            break;
          }
        }
      }
    }
    const failed: FailedRepeat = {
      status: 'failed',
      verdict: 'failed',
      round: ctx.round,
      startedAt,
      attempts,
      notes: [],
      error: last.message,
    };
    if (cause !== undefined) failed.cause = cause;
    const id = point.engine === 'firefox' && this.o.firefoxHostId !== undefined ? this.o.firefoxHostId : this.o.browserId;
    if (id !== undefined) failed.browserId = id;
    return failed;
  }

  /**
   * Streams `point` as a repeat does up to its window (fresh tabs, connections open, warm-up,
   * settle), then hands it to `body` in place of the one window, and stops it. One attempt, no
   * retries: a failure rejects with its cause. Every exit of a repeat holds (a crash, the
   * timeout of budgetMs(point), `signal`); null when `signal` aborted it.
   */
  async stream<R>(point: Point, signal: AbortSignal | undefined, body: (s: Streaming) => Promise<R>): Promise<R | null> {
    const slot = await this.slotFor(point);
    try {
      return await this.attempt(slot, point, signal, async (pages, stop) => {
        const streaming = await this.open(pages, slot, point, stop);
        const got = await body(streaming);
        streaming.phase('stop');
        await Promise.all(streaming.apis.map((api) => api.evaluate((p) => p.stop())));
        return got;
      });
    } catch (err) {
      if (signal?.aborted) return null;
      throw err;
    }
  }

  /** The longest one attempt may take before it is abandoned, ms. */
  budgetMs(point: Point): number {
    // A hidden-tab point also streams hidden past its grace (hidden-long) and watches its return.
    const tab = point.tab !== undefined ? (hiddenWaitSec(point) + CATCH_UP_WAIT_SEC) * 1000 + VISIBILITY_WAIT_MS : 0;
    return (point.warmupSec + point.measureSec) * 1000 + settleBudgetMs(point.warmupSec) + tab + (this.o.slackMs ?? 60_000);
  }

  /** The browser this point runs in: the sweep's, or the one its `display`, `engine` or `tab` asks for. */
  private async slotFor(point: Point): Promise<BrowserSlot> {
    const other = point.display !== undefined || point.engine === 'firefox' || point.tab !== undefined;
    const slot = (other && this.o.browserFor ? await this.o.browserFor(point) : null) ?? this.o.browser;
    const engine = point.engine ?? 'chrome';
    if ((slot.engine ?? 'chrome') !== engine) {
      throw new Error(`engine ${engine}: this browser is ${slot.engine ?? 'chrome'}, and no ${engine} was given for this point`);
    }
    return slot;
  }

  private async attempt<R>(
    slot: BrowserSlot,
    point: Point,
    callerSignal: AbortSignal | undefined,
    body: (pages: Page[], signal: AbortSignal) => Promise<R>,
  ): Promise<R> {
    const stop = new AbortController();
    const browser = slot.browser();
    const onAbort = () => stop.abort(new Stopped('interrupted', 'interrupted'));
    const onDisconnect = () => stop.abort(new Stopped('browser crashed', 'browser crashed (Chrome disconnected)'));
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    browser.once('disconnected', onDisconnect);
    const timer = setTimeout(
      () => stop.abort(new Stopped('timeout', `${point.id} did not finish within ${Math.round(this.budgetMs(point) / 1000)} s`)),
      this.budgetMs(point),
    );
    const pages: Page[] = [];
    try {
      // Full speed while the tabs load: a device class slows the stream, from before it starts (run()).
      await this.o.devices?.enter(slot, {}, this.hostIdOf(slot));
      // One tab per `tabs`, all in this browser: each its own renderer, sharing its network service.
      // The slot opens them (a remote browser's in the context this sweep measures in).
      for (let i = 0; i < (point.tabs ?? 1); i++) {
        const page = await slot.newPage();
        pages.push(page);
        // The page's `error` event is a renderer crash (or a kill): stop now, not at the timeout.
        page.once('error', (err) => stop.abort(new Stopped('renderer crashed', `renderer crashed (${err.message})`)));
        // Over BiDi a lost Firefox tab closes its browsing context instead.
        if (slot.engine === 'firefox')
          page.once('close', () => stop.abort(new Stopped('renderer crashed', 'Firefox tab lost (Target closed: its browsing context closed)')));
      }
      // Firefox only: once its page streams (from the warm-up on), a stall in the driver's calls to it ends the attempt.
      let lastProgress = performance.now();
      let streaming = false;
      const onPhase = (_p: Point, phase: Phase) => {
        lastProgress = performance.now();
        if (phase === 'warm-up') streaming = true;
      };
      this.on('phase', onPhase);
      const watchdog =
        slot.engine === 'firefox'
          ? setInterval(() => {
              if (streaming && performance.now() - lastProgress > FIREFOX_UNRESPONSIVE_MS) {
                stop.abort(
                  new Stopped(
                    'page unresponsive',
                    `the Firefox page answered no driver call for ${FIREFOX_UNRESPONSIVE_MS / 1000} s while streaming: its tab could not take this load`,
                  ),
                );
              }
            }, 1000)
          : null;
      stop.signal.addEventListener(
        'abort',
        () => {
          if (watchdog) clearInterval(watchdog);
          this.off('phase', onPhase);
        },
        { once: true },
      );
      const measured = body(pages, stop.signal).finally(() => {
        if (watchdog) clearInterval(watchdog);
        this.off('phase', onPhase);
      });
      // Once stopped, the pages are closed under the run, which then rejects: nothing to report.
      measured.catch(() => undefined);
      return await Promise.race([measured, rejectOnAbort(stop.signal)]);
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
      browser.off('disconnected', onDisconnect);
      await Promise.all(pages.map((page) => page.close().catch(() => undefined)));
    }
  }

  private hostIdOf(slot: BrowserSlot): string {
    return slot.hostId ?? this.o.browserId ?? 'local';
  }

  /**
   * The browser at the point's device class (calibrated on its first use in this run), once its
   * tabs have loaded at full speed: page load is not what a point measures, and a low-tier class
   * loaded the lab page in ~15 s here. Points without a class run at full speed.
   */
  private async enterDevice(slot: BrowserSlot, point: Point, tabs: readonly TabSource[]): Promise<AppliedDevice> {
    if (!this.o.devices) {
      if (point.device === undefined) return null;
      throw new PushlabError('PUSHLAB_NO_DEVICE', `${point.id}: this command does not run device classes`);
    }
    const device = await this.o.devices.enter(slot, point, this.hostIdOf(slot));
    for (const t of tabs) await DeviceEmulator.onTab(t.pageSession, device);
    return device;
  }

  /** The run's link shaped as the point asks, before its tabs load (a namespace link; CDP's is per tab). */
  private async enterLink(point: Point): Promise<void> {
    if (point.link === undefined || linkOf(point.link).via !== 'netns') return;
    if (!this.o.link) throw new PushlabError('PUSHLAB_NO_NETNS', `${point.id}: this command does not make network links`);
    await this.o.link.apply(point);
  }

  /** Loads the lab page in one tab, with the CDP session its renderer metrics come from (none in Firefox). */
  private async openTab(page: Page, point: Point, slot: BrowserSlot): Promise<TabSource> {
    let pageSession: CDPSession | null = null;
    if (slot.engine !== 'firefox') {
      pageSession = await page.createCDPSession();
      await pageSession.send('Performance.enable');
      // What DevTools costs while open: its Network domain ships every request, frame and event
      // to the client (here this driver), which parses them like DevTools' front end would.
      if (point.devtools === 'network') await pageSession.send('Network.enable');
    }
    const api = await openLabPage(page, new URL(this.o.pagePath ?? '', this.o.server.url).href);
    return { api, pageSession };
  }

  /** Loads the tabs, opens the connections, warms up and settles: the point streams, ready to be measured. */
  private async open(pages: Page[], slot: BrowserSlot, point: Point, signal: AbortSignal): Promise<Streaming> {
    const phase = (name: Phase, elapsedMs = 0, plannedMs: number | null = null) => {
      signal.throwIfAborted();
      this.emit('phase', point, name, elapsedMs, plannedMs);
    };
    phase('load');
    await this.enterLink(point);
    const tabs = await Promise.all(pages.map((page) => this.openTab(page, point, slot)));
    const apis = tabs.map((t) => t.api);
    const device = await this.enterDevice(slot, point, tabs);
    if (point.link !== undefined && linkOf(point.link).via === 'cdp') for (const t of tabs) await emulateLink(t.pageSession, point);
    // Before streaming: the exchanges then meet an idle page and server (the smallest round trip).
    const clock = this.o.sameClock === false ? await clockOffset(pages[0]) : null;
    phase('open');
    const config: PageConfig = {
      // The factors the page applies (FactorInfo.applied); one PageConfig lacks does not compile.
      ...(pageFactors(point) satisfies Pick<PageConfig, PageFactor>),
      // A main-thread point has 0 Workers, below what the page's config takes (it uses none then).
      workers: Math.max(1, point.workers),
      ...(this.o.input === false ? { inputProbe: false } : {}),
      // Built before the run started (puppeteer/render-module.ts); the page imports it from the server.
      ...(point.renderModule ? { renderModule: renderModuleUrl(point.renderModule.sha256) } : {}),
    };
    // Functions passed to evaluate() run in the page: they cannot close over anything here.
    // Several tabs start together, so all of them stream through the warm-up and the window.
    await Promise.all(apis.map((api) => api.evaluate((p, c) => p.start(c).then(() => undefined), config)));
    const hiddenAt = point.tab !== undefined ? await this.hide(pages, slot, point, phase, signal) : null;
    const warmStart = performance.now();
    const minWarmup = minWarmupMs(point);
    phase('warm-up', 0, minWarmup);
    // The first settle probe fills the minimum's last part (settle.ts earlyProbeMs).
    const earlyMs = this.o.earlyProbe === false ? 0 : earlyProbeMs(point.intervalMs, minWarmup);
    await ticking(minWarmup - earlyMs, signal, (t) => phase('warm-up', t, minWarmup));
    // Each probe's closing readings (latency reset) open the next one: one page call per probe, not two.
    let since: ProbeReadings | null = null;
    const settled = await settle(
      async (ms) => {
        const got = await this.probe(apis, ms, signal, clock?.offsetMs ?? 0, () => phase('warm-up', Math.round(performance.now() - warmStart), null), since);
        since = got.readings;
        return got.probe;
      },
      {
        intervalMs: point.intervalMs,
        concurrency: streamsOf(point),
        // The scenario's warm-up is the longest one: what the minimum did not use goes to settling.
        budgetMs: point.warmupSec * 1000 - minWarmup + settleBudgetMs(point.warmupSec),
        floorMs: (point.pollMs ?? 0) + batchingFloorMs(point.intervalMs, point.batch),
        earlyMs,
      },
    );
    const procfs = this.o.procfs ?? true;
    const [first, ...moreTabs] = tabs;
    const src: SampleSources = {
      ...first,
      ...(moreTabs.length ? { moreTabs } : {}),
      browserSession: slot.session(),
      serverStats: (reset) => this.o.server.stats(reset),
      procfs,
      ...(slot.engine === 'firefox' ? { firefoxPid: slot.pid?.() ?? null } : {}),
      ...(device?.throttle === 'browser' ? { chromeCpuFromProc: true } : {}),
    };
    return { pages, apis, src, settled, clock, device, hiddenAt, signal, phase };
  }

  /**
   * Hides the lab tab once its connections are open: a blank tab of the same browser brought to
   * the front (in headless Chrome too, the page then reads `hidden`, and with background
   * throttling on its timers are throttled). The page must say it is hidden, or the attempt fails.
   * A hidden-long point then streams hidden past its grace before its warm-up. The blank tab
   * joins `pages`, after the lab tabs, so the attempt closes it with them. Returns when the tab
   * was hidden (performance.now()).
   */
  private async hide(pages: Page[], slot: BrowserSlot, point: Point, phase: Streaming['phase'], signal: AbortSignal): Promise<number> {
    phase('hide');
    const lab = pages[0];
    const cover = await slot.newPage();
    pages.push(cover);
    await cover.bringToFront();
    const at = performance.now();
    let visibility = await visibilityOf(lab);
    while (visibility !== 'hidden' && performance.now() - at < VISIBILITY_WAIT_MS) {
      await sleepFor(50, undefined, { signal });
      visibility = await visibilityOf(lab);
    }
    if (visibility !== 'hidden') {
      throw new Error(
        `tab ${point.tab}: the lab page still read visibilityState '${visibility}' ${VISIBILITY_WAIT_MS / 1000} s after another tab was brought to the front, so it was never hidden`,
      );
    }
    const waitMs = hiddenWaitSec(point) * 1000;
    if (waitMs > 0) await ticking(waitMs, signal, (t) => phase('hide', t, waitMs));
    return at;
  }

  /**
   * Brings the lab tab back to the front after the window, and reads at once what the server had
   * written to its streams (`/stats`, by its client tag) against what the page had counted: the
   * backlog. Then reads the page's count until it holds every batch written up to the return:
   * the catch-up time, watched CATCH_UP_WAIT_SEC at most (null past it, never a failure).
   */
  private async bringBack(lab: Page, api: LabApi, point: Point, signal: AbortSignal): Promise<TabReturn> {
    await lab.bringToFront();
    const t0 = performance.now();
    const [snap, stats] = await Promise.all([api.evaluate((p) => p.snapshot({ resetLatency: false })), this.o.server.stats(false)]);
    if (!snap) throw new Error('the page has no run to snapshot');
    const written = stats.connections.filter((c) => c.client !== null && c.client === snap.client).reduce((n, c) => n + c.sent, 0);
    // The server lists open streams only: after a reconnect its count is not the page's to compare.
    const known = snap.counters.reconnects === 0;
    let catchUpMs: number | null = null;
    if (known) {
      // Nothing left at the return: 0, not the time the first reading took.
      for (let counted = snap.counters.batches, first = true; ; first = false) {
        if (counted >= written) {
          catchUpMs = first ? 0 : Math.round(performance.now() - t0);
          break;
        }
        if (performance.now() - t0 > CATCH_UP_WAIT_SEC * 1000) break;
        await sleepFor(CATCH_UP_POLL_MS, undefined, { signal });
        counted = (await api.evaluate((p) => p.snapshot({ resetLatency: false })))?.counters.batches ?? counted;
      }
    }
    const backlogBatches = known ? Math.max(0, written - snap.counters.batches) : null;
    return {
      backlogBatches,
      backlogEvents: backlogBatches === null ? null : backlogBatches * point.batch,
      catchUpMs,
      waitedSec: CATCH_UP_WAIT_SEC,
      visibilityAfter: await visibilityOf(lab),
    };
  }

  private async run(
    pages: Page[],
    slot: BrowserSlot,
    point: Point,
    ctx: RepeatContext,
    startedAt: string,
    attempt: number,
    signal: AbortSignal,
  ): Promise<MeasuredRepeat> {
    const { apis, src, settled, clock, device, hiddenAt, phase } = await this.open(pages, slot, point, signal);
    const procfs = this.o.procfs ?? true;
    const windowMs = point.measureSec * 1000;
    phase('window', 0, windowMs);
    const windowOpenedAt = performance.now();
    const a = await takeSample(src, true);
    const link = point.link !== undefined && linkOf(point.link).via === 'netns' ? this.o.link : null;
    link?.windowStart();
    // Half-way, every tab's counters once more (latency not reset): the window's trend compares its halves.
    let mid: Promise<PageSnapshot[] | undefined> | undefined;
    const readMid = () =>
      Promise.all(apis.map((api) => api.evaluate((p) => p.snapshot({ resetLatency: false })))).then(
        (all) => (all.every((s) => s !== null) ? (all as PageSnapshot[]) : undefined),
        () => undefined,
      );
    // Real input while the window runs (the first tab's): does the page still answer? An
    // aborted repeat stops it through `signal`; an error out of ticking through the finally.
    // None to a hidden tab: no user can click one.
    const input = this.o.input === false || point.tab !== undefined ? null : sendInput(pages[0], signal);
    let inputSent: ReturnType<NonNullable<typeof input>['stop']> | undefined;
    try {
      await ticking(
        windowMs,
        signal,
        (t) => {
          if (mid === undefined && t >= windowMs / 2) mid = readMid();
          phase('window', t, windowMs);
        },
        windowMs / 2,
      );
    } finally {
      inputSent = input?.stop();
    }
    const b = await takeSample(src, true);
    const linkFigures = link?.windowEnd() ?? null;
    const midSnapshots = await mid;
    let back: TabReturn | null = null;
    if (point.tab !== undefined) {
      phase('return');
      back = await this.bringBack(pages[0], apis[0], point, signal);
    }
    phase('stop');
    await Promise.all(apis.map((api) => api.evaluate((p) => p.stop())));
    const repeat = summarise(point, a, b, {
      round: ctx.round,
      startedAt,
      attempts: attempt,
      cores: this.o.cores,
      procfs,
      settleSec: Math.round(settled.waitedMs) / 1000,
      startedBehind: !settled.settled,
      ceilingEventsPerSec: ctx.ceilingEventsPerSec,
      ...(ctx.jsonCeilingEventsPerSec !== undefined ? { jsonCeilingEventsPerSec: ctx.jsonCeilingEventsPerSec } : {}),
      ...((point.display !== undefined || slot.engine === 'firefox' || point.tab !== undefined) && slot.about ? { browser: slot.about() } : {}),
      ...(midSnapshots ? { mid: midSnapshots } : {}),
      ...(inputSent ? { input: inputSent } : {}),
      ...(device ? { device: { throttle: device.throttle, slowdown: device.slowdown } } : {}),
      ...(linkFigures ? { link: linkFigures } : {}),
    });
    if (!settled.settled) repeat.notes.push(unsettledNote(settled));
    if (back && hiddenAt !== null && point.tab !== undefined) {
      repeat.tabState = tabStateOf(point, hiddenAt, windowOpenedAt, a.page, b.page, back);
      if (back.catchUpMs === null) repeat.notes.push(catchUpNote(back));
    }
    // How the link was made, in the report: what it emulates depends on it (docs/network.md).
    if (link) repeat.notes.push(`link ${point.link}: ${link.describe()}`);
    applyClockOffset(repeat, clock);
    return repeat;
  }

  /**
   * Page latency over the next `ms` (with several tabs, the slowest tab's p50), the server's
   * pacing debt at its end, and what was lost meanwhile (the page's gaps, and the server's shed
   * count for the page's streams); from `since` (the last probe's closing readings) when given,
   * which adds the time since then to the `ms`. Returns its own closing readings with it.
   */
  private async probe(
    apis: readonly LabApi[],
    ms: number,
    signal: AbortSignal,
    offsetMs: number,
    tick: () => void,
    since: ProbeReadings | null,
  ): Promise<{ probe: SettleProbe; readings: ProbeReadings }> {
    const read = async (): Promise<ProbeReadings> => {
      const at = performance.now();
      const [snapshots, server] = await Promise.all([
        Promise.all(apis.map((api) => api.evaluate((p) => p.snapshot({ resetLatency: true })))),
        this.o.server.stats(false),
      ]);
      return { snapshots, server, at };
    };
    const before = since ?? (await read());
    // From reading to reading: a saturated page answers a reading between its message tasks,
    // 0.2–0.35 s late here, and a sleep of `ms` after that answer made each probe 0.45–0.6 s
    // where 0.25 s was meant (about 0.5 s a saturated repeat on the default sweep).
    await sleepFor(Math.max(0, ms - (performance.now() - before.at)), undefined, { signal });
    tick();
    const after = await read();
    const gaps = (s: ProbeSnapshots[number]) => s?.counters.gaps ?? 0;
    const lostBatches = after.snapshots.reduce((n, s, i) => n + Math.max(0, gaps(s) - gaps(before.snapshots[i])), 0);
    const shedBatches = shedFor(after.snapshots, before.server, after.server);
    // Backlog is read on the server's clock: the page's offset is taken off.
    const p50s = after.snapshots.map((s) => (s?.latency.p50Ms == null ? null : s.latency.p50Ms - offsetMs));
    return {
      probe: {
        p50Ms: p50s.includes(null) ? null : Math.max(...(p50s as number[])),
        batchesBehind: after.server.batchesBehind,
        lostBatches,
        ...(shedBatches === null ? {} : { shedBatches }),
      },
      readings: after,
    };
  }
}

/** The page's `document.visibilityState`, as Chrome has it now. */
async function visibilityOf(page: Page): Promise<'visible' | 'hidden'> {
  // Runs in the page: this file's types have no DOM.
  const state = await page.evaluate(() => (globalThis as unknown as { document: { visibilityState: string } }).document.visibilityState);
  return state === 'hidden' ? 'hidden' : 'visible';
}

/** A hidden-tab repeat's figures: the state, how long it had been hidden, the page's visibility over the window, the return. */
function tabStateOf(point: Point, hiddenAt: number, windowAt: number, a: PageSnapshot, b: PageSnapshot, back: TabReturn): TabStateFigures {
  return {
    state: point.tab!,
    ...(point.tab === 'hidden-long' && point.hiddenLongGraceSec !== undefined ? { graceSec: point.hiddenLongGraceSec } : {}),
    hiddenBeforeWindowSec: Math.round(windowAt - hiddenAt) / 1000,
    visibilityAtStart: a.visibility ?? 'visible',
    visibilityAtEnd: b.visibility ?? 'visible',
    visibilityChanges: (b.visibilityChanges ?? 0) - (a.visibilityChanges ?? 0),
    return: back,
  };
}

/** Why a hidden-tab repeat's catch-up time is null. */
export function catchUpNote(back: TabReturn): string {
  return back.backlogBatches === null
    ? "no catch-up time: a connection reopened, and the server's counts cover its open streams only"
    : `did not catch up within ${back.waitedSec} s of returning to the foreground (${back.backlogEvents} events behind at the return)`;
}

/**
 * Batches the server shed between two of its /stats readings for the streams of these tabs
 * (found by their client tags); null when a tab has no tag (the bare page) or gave no snapshot.
 * Only this point's streams count: another browser may be streaming from the same server.
 */
function shedFor(snapshots: ProbeSnapshots, before: ServerStats, after: ServerStats): number | null {
  const tags = new Set<string>();
  for (const s of snapshots) {
    if (!s?.client) return null;
    tags.add(s.client);
  }
  const was = new Map(before.connections.map((c) => [c.id, c.shed]));
  return after.connections.filter((c) => c.client !== null && tags.has(c.client)).reduce((n, c) => n + c.shed - (was.get(c.id) ?? 0), 0);
}

/**
 * Sleeps `ms` in ticks of at most TICK_MS, calling `tick(elapsedMs)` after each; `wakeAt` (ms
 * from the start) ends one tick exactly there, for a reading that must fall at that moment.
 */
async function ticking(ms: number, signal: AbortSignal, tick: (elapsedMs: number) => void, wakeAt?: number): Promise<void> {
  const start = performance.now();
  for (let left = ms; left > 0; left = ms - (performance.now() - start)) {
    const elapsed = ms - left;
    const toWake = wakeAt !== undefined && wakeAt > elapsed ? wakeAt - elapsed : Infinity;
    await sleepFor(Math.min(TICK_MS, left, toWake), undefined, { signal });
    tick(Math.round(performance.now() - start));
  }
}

/** Whether `browser` is disconnected now or disconnects within `ms` (answered at its `disconnected` event, not at the end of the wait). */
function disconnectedWithin(browser: Browser, ms: number): Promise<boolean> {
  if (!browser.connected) return Promise.resolve(true);
  return new Promise((resolve) => {
    const gone = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      browser.off('disconnected', gone);
      resolve(!browser.connected);
    }, ms);
    browser.once('disconnected', gone);
  });
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
