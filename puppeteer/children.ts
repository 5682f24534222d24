/**
 * What a measuring command (sweep, advise, soak) starts and must end: the server, Chrome (or the
 * remote browsers it connects to) and whatever else it opens on the way (another display mode's
 * browser, Firefox, Grid sessions, a device class's cgroup), under one owner that ends them on
 * every exit path: the command's own end (`close`), a first Ctrl-C or SIGTERM (the command stops
 * after saving, through `signal`, then closes), a second one (killed at once), and a process
 * that exits any other way (an uncaught error, process.exit: killed on 'exit').
 */
import { stopAfterSaving } from '../cli/stop.js';
import type { Children } from './browser/start.js';

/** Something else the command opened: `close` at its end; `kill`, when it has one, on an exit that cannot wait. */
export interface OwnedPart {
  close(): Promise<void>;
  kill?(): void;
}

export class CommandChildren {
  /** Filled by startServerAndBrowsers (browser/start.ts) as each starts. */
  readonly children: Children = { server: null, local: null, remotes: [] };
  private readonly controller = new AbortController();
  private launched = false;
  /** Closed before the browsers: browsers of their own. */
  private readonly beforeBrowsers: OwnedPart[] = [];
  /** Closed after the browsers, before the server: what the browsers ran on or were slowed by. */
  private readonly afterBrowsers: OwnedPart[] = [];

  /** Installs the stop rule at once (cli/stop.ts stopAfterSaving): before `launching`, a stop request ends the command. */
  constructor(log: (line: string) => void) {
    stopAfterSaving({ launched: () => this.launched, abort: () => this.controller.abort(), killChildren: this.kill, log });
  }

  /** Aborted by the first stop request: the command stops after saving what was measured. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Called just before the first child starts: from here a stop request saves before it stops,
   * and however the process ends it takes its children along.
   */
  launching(): void {
    this.launched = true;
    process.once('exit', this.kill);
  }

  /**
   * Another part to end with the command. `after: true` closes it after the browsers (Grid
   * sessions, under the remote browsers connected to them; a device cgroup); else before them.
   * Killed in the order owned, before Chrome and the server.
   */
  own<T extends OwnedPart>(part: T, o: { after?: boolean } = {}): T {
    (o.after ? this.afterBrowsers : this.beforeBrowsers).push(part);
    return part;
  }

  /** For an exit that cannot wait: kills what can be killed; the server is signalled synchronously (its promise only waits for the exit). */
  readonly kill = (): void => {
    for (const p of [...this.afterBrowsers, ...this.beforeBrowsers]) p.kill?.();
    this.children.local?.kill();
    void this.children.server?.stop();
  };

  /** The command's end, normal or not: every part closed, then the browsers, then the server last. */
  async close(): Promise<void> {
    for (const p of this.beforeBrowsers) await p.close();
    await this.children.local?.close();
    await Promise.all(this.children.remotes.map((r) => r.close()));
    for (const p of this.afterBrowsers) await p.close();
    await this.children.server?.stop();
  }
}

/** The children of one command, with its stop rule installed: call first thing in main. */
export function commandChildren(log: (line: string) => void): CommandChildren {
  return new CommandChildren(log);
}
