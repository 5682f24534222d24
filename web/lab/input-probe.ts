/**
 * Whether the page still answers while it streams: how long input waits before its handler
 * runs, and the long animation frames that make it wait. The driver sends real input through
 * the browser's input pipeline (puppeteer/measure/input-sender.ts); a person's clicks in the lab
 * count the same way.
 *
 * - Input delay, as INP defines it: from the event's timestamp (`event.timeStamp`, when the
 *   browser received the input) to the start of its first handler. This listener is registered
 *   on `window` in the capture phase before any other, so no other handler runs before it.
 * - Next frame: from the same timestamp to the first animation frame after the handler (one
 *   requestAnimationFrame per input): delay + processing + the wait for a frame. The paint
 *   itself is not in it, so it is a lower bound of INP's whole duration.
 * - Long animation frames (> 50 ms): count, duration and blocking duration, from a
 *   PerformanceObserver where the browser has 'long-animation-frame' (Chrome 123+). Elsewhere
 *   (Firefox 153) the figure is null with the reason, never 0: no entries is not no long frames.
 *
 * Its cost per input is a histogram record and one animation frame callback; with no input it
 * costs nothing but the observer (bench:page measures it).
 */
import { Histogram } from '../../protocol/histogram.js';
import type { InputSnapshot, LongFrames } from '../../protocol/page-api.js';

const INPUTS = ['pointerdown', 'keydown'] as const;

/** Why long frames are not available in this browser, or null when they are. */
function longFramesUnsupported(): string | null {
  const types = typeof PerformanceObserver === 'undefined' ? [] : (PerformanceObserver.supportedEntryTypes ?? []);
  return types.includes('long-animation-frame')
    ? null
    : "not available: this browser has no 'long-animation-frame' PerformanceObserver entries (Chrome 123+ has them)";
}

/** The fields of a PerformanceLongAnimationFrameTiming this reads (not yet in TypeScript's DOM lib). */
interface LongFrameEntry extends PerformanceEntry {
  blockingDuration: number;
}

export class InputProbe {
  private readonly delay = new Histogram();
  private readonly nextFrame = new Histogram();
  private handled = 0;
  private frames: LongFrames = { count: 0, blockingMs: 0, durationMs: 0 };
  /** Since the last takeRecent(), for the lab's live line (apart from the driver's window). */
  private recent = { handled: 0, maxDelayMs: 0, blockingMs: 0 };
  private readonly unsupported = longFramesUnsupported();
  private observer: PerformanceObserver | null = null;
  private readonly onInput = (e: Event) => {
    const start = performance.now();
    const stamp = e.timeStamp;
    // An event synthesised in script (dispatchEvent) has no input behind it: not counted.
    if (!e.isTrusted) return;
    this.handled++;
    this.delay.record((start - stamp) * 1000);
    this.recent.handled++;
    this.recent.maxDelayMs = Math.max(this.recent.maxDelayMs, start - stamp);
    // performance.now() in the callback, not its argument: that is the frame's begin time, which
    // may lie before this handler ran.
    requestAnimationFrame(() => this.nextFrame.record((performance.now() - stamp) * 1000));
  };

  start(): void {
    for (const type of INPUTS) window.addEventListener(type, this.onInput, { capture: true, passive: true });
    if (this.unsupported === null) {
      this.observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as LongFrameEntry[]) {
          this.frames.count++;
          this.frames.durationMs += entry.duration;
          this.frames.blockingMs += entry.blockingDuration;
          this.recent.blockingMs += entry.blockingDuration;
        }
      });
      this.observer.observe({ type: 'long-animation-frame', buffered: false });
    }
  }

  stop(): void {
    for (const type of INPUTS) window.removeEventListener(type, this.onInput, { capture: true });
    this.observer?.disconnect();
    this.observer = null;
  }

  /** Whether long animation frames are measured here (null: they are, else why not). */
  get longFramesUnavailable(): string | null {
    return this.unsupported;
  }

  /** Inputs handled, their worst delay (ms) and long frames' blocking time (ms; null where not available) since the last call. */
  takeRecent(): { handled: number; maxDelayMs: number; blockingMs: number | null } {
    const r = this.recent;
    this.recent = { handled: 0, maxDelayMs: 0, blockingMs: 0 };
    return { ...r, blockingMs: this.unsupported === null ? r.blockingMs : null };
  }

  /**
   * The figures since the last reset. Long frames arrive through the observer's callback, a task
   * after the frame: one that ends just before a snapshot counts in the next window.
   */
  snapshot(reset: boolean): InputSnapshot {
    const round = (x: number) => Math.round(x * 10) / 10;
    const s: InputSnapshot = {
      handled: this.handled,
      delay: this.delay.summary(),
      nextFrame: this.nextFrame.summary(),
      longFrames:
        this.unsupported === null ? { count: this.frames.count, blockingMs: round(this.frames.blockingMs), durationMs: round(this.frames.durationMs) } : null,
    };
    if (this.unsupported !== null) s.longFramesUnavailable = this.unsupported;
    if (reset) {
      this.delay.reset();
      this.nextFrame.reset();
      this.handled = 0;
      this.frames = { count: 0, blockingMs: 0, durationMs: 0 };
    }
    return s;
  }
}
