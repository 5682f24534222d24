/**
 * The `display` factor: the sweep's own browser, and a browser of the other mode (a headful
 * Chrome in a headless sweep) launched the first time a point asks for it, kept for the later
 * ones, and ended with the sweep. A headful Chrome needs an X display: the process's DISPLAY
 * when it has one, else an Xvfb this module starts and owns.
 *
 * Ownership: Chrome is driven over a CDP pipe and dies when the sweep does. Xvfb does not watch
 * its parent, so it is started under a small shell that holds a pipe from the sweep on its
 * stdin and kills Xvfb once that pipe closes, which happens however the sweep ends (SIGKILL
 * included); a normal end kills both at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { PushlabError } from '../../protocol/errors.js';
import type { BrowserFigures } from '../../protocol/repeat-figures.js';
import type { Point } from '../../protocol/scenario.js';
import type { DisplayMode } from '../../protocol/wire.js';
import { LocalBrowser } from './local.js';
import type { BrowserSlot } from './slot.js';

/** The screen an Xvfb gets: the lab page's layout fits it, and 24-bit depth is what Chrome expects. */
export const XVFB_SCREEN = '1280x800x24';

/** How long Xvfb may take to say it is ready, ms. */
const XVFB_READY_MS = 15_000;

/**
 * Runs Xvfb on the first free display (`-displayfd` writes the number to fd 3 once it accepts
 * connections), prints its pid, then waits for its stdin to close and kills it. The shell
 * closes its own copy of fd 3, so the owner sees end-of-file there if Xvfb dies before it is ready.
 */
const XVFB_SCRIPT = `Xvfb -displayfd 3 -screen 0 ${XVFB_SCREEN} -nolisten tcp & x=$!
exec 3>&-
echo "$x"
read -r _ || true
kill "$x" 2>/dev/null
wait "$x" 2>/dev/null
exit 0`;

/** The Xvfb binary on PATH, or null. */
export function findXvfb(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, 'Xvfb');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** An Xvfb the sweep started, on display `display` (`:1`). */
export class Xvfb {
  private constructor(
    private readonly shell: ChildProcess,
    readonly pid: number,
    readonly display: string,
  ) {}

  /** Starts one; rejects with Xvfb's own words when it cannot. */
  static async start(): Promise<Xvfb> {
    // A process group of its own, as the server's: Ctrl-C is the sweep's to act on, and the
    // sweep ends Xvfb after the repeat it stopped, not under it.
    const shell = spawn('sh', ['-c', XVFB_SCRIPT], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    shell.stderr!.setEncoding('utf8');
    // Drained for good: a full pipe would block Xvfb's writes.
    shell.stderr!.on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
    const line = (stream: Readable) =>
      new Promise<string | null>((resolve) => {
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => {
          text += d;
          if (text.includes('\n')) resolve(text.split('\n')[0].trim());
        });
        stream.once('end', () => resolve(text.includes('\n') ? text.split('\n')[0].trim() : null));
      });
    const pidLine = line(shell.stdout!);
    const displayLine = line(shell.stdio[3] as Readable);
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), XVFB_READY_MS).unref());
    const number = await Promise.race([displayLine, timeout]);
    const pid = Number(await Promise.race([pidLine, timeout]));
    if (number === 'timeout' || number === null || !/^\d+$/.test(number) || !Number.isInteger(pid)) {
      shell.stdin!.destroy();
      if (Number.isInteger(pid) && pid > 0) killQuietly(pid);
      const why = number === 'timeout' ? `not ready within ${XVFB_READY_MS / 1000} s` : 'it exited before it was ready';
      throw new PushlabError(
        'PUSHLAB_NO_DISPLAY',
        `could not start Xvfb for a headful Chrome (${why})${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}`,
      );
    }
    return new Xvfb(shell, pid, `:${number}`);
  }

  /** Ends it now (synchronous, so exit handlers can call it): the shell kills Xvfb when its stdin closes; Xvfb is told too. */
  kill(): void {
    this.shell.stdin?.destroy();
    killQuietly(this.pid);
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/** A browser slot that also says which build and mode it is (and, when `withArgs`, the flags it was launched with). */
export class DescribedSlot implements BrowserSlot {
  constructor(
    readonly local: LocalBrowser,
    private readonly xvfb: boolean,
    private readonly withArgs = false,
  ) {}

  browser() {
    return this.local.browser();
  }

  session() {
    return this.local.session();
  }

  newPage() {
    return this.local.newPage();
  }

  relaunch() {
    return this.local.relaunch();
  }

  processRoot() {
    return this.local.processRoot();
  }

  about(): BrowserFigures {
    const c = this.local.launched;
    return { version: c.version, headless: c.headless, display: c.display, xvfb: this.xvfb, ...(this.withArgs ? { args: [...c.args] } : {}) };
  }
}

/**
 * The sweep's browsers by display mode: its own (launched by the sweep), and the other mode's,
 * launched on first use. `for(point)` is what RepeatMeasurer's `browserFor` calls.
 */
export class DisplayBrowsers {
  private readonly main: DescribedSlot;
  private other: Promise<DescribedSlot> | null = null;
  private otherSlot: DescribedSlot | null = null;
  private xvfb: Xvfb | null = null;
  private closed = false;

  constructor(
    main: LocalBrowser,
    private readonly log: (line: string) => void,
  ) {
    this.main = new DescribedSlot(main, false);
  }

  private get mainMode(): DisplayMode {
    return this.main.local.launched.headless ? 'headless' : 'headful';
  }

  /** The browser a point runs in: the sweep's unless its `display` names the other mode. */
  async for(point: Pick<Point, 'display'>): Promise<BrowserSlot> {
    if (point.display === undefined || point.display === this.mainMode) return this.main;
    if (this.closed) throw new Error('the sweep is closing its browsers');
    this.other ??= this.launchOther(point.display).catch((err: unknown) => {
      // No display is for good; anything else (a Chrome that failed to start) may be tried again.
      if (!(err instanceof PushlabError && err.code === 'PUSHLAB_NO_DISPLAY')) this.other = null;
      throw err;
    });
    return this.other;
  }

  private async launchOther(mode: DisplayMode): Promise<DescribedSlot> {
    if (mode === 'headless') return this.keep(new DescribedSlot(await LocalBrowser.launch(true, this.log), false));
    let display: string | undefined;
    if (!process.env.DISPLAY) {
      if (process.platform !== 'linux' || !findXvfb()) {
        throw new PushlabError(
          'PUSHLAB_NO_DISPLAY',
          'display headful needs an X display: DISPLAY is unset and Xvfb is not installed (Debian/Ubuntu: apt-get install -y xvfb), or run the sweep under xvfb-run',
        );
      }
      this.xvfb = await Xvfb.start();
      display = this.xvfb.display;
      this.log(`started Xvfb on display ${display} (pid ${this.xvfb.pid}) for the headful points`);
    }
    try {
      return this.keep(new DescribedSlot(await LocalBrowser.launch(false, this.log, { display }), this.xvfb !== null));
    } catch (err) {
      this.xvfb?.kill();
      this.xvfb = null;
      throw err;
    }
  }

  private keep(slot: DescribedSlot): DescribedSlot {
    this.otherSlot = slot;
    return slot;
  }

  /** Closes the other mode's browser and its Xvfb (the sweep's own browser is the sweep's to close). */
  async close(): Promise<void> {
    this.closed = true;
    await this.other?.catch(() => undefined);
    await this.otherSlot?.local.close();
    this.xvfb?.kill();
  }

  /** Ends them at once (exit handlers, a second Ctrl-C). */
  kill(): void {
    this.otherSlot?.local.kill();
    this.xvfb?.kill();
  }
}
