/**
 * The `engine` factor's second browser: the Firefox a sweep launches the first time a point
 * asks for it, keeps for the later ones, and ends with the sweep. When no Firefox is found the
 * coded error is kept, so every later Firefox point fails at once with it (no retry searches
 * the disk again) while the Chrome points go on.
 */
import { PushlabError } from '../../protocol/errors.js';
import { LocalFirefox } from './firefox.js';

export class FirefoxBrowsers {
  private firefox: Promise<LocalFirefox> | null = null;
  private launched: LocalFirefox | null = null;
  private closed = false;

  constructor(
    private readonly o: {
      headless: boolean;
      log: (line: string) => void;
      /** Called once, when Firefox first started: the report records its host and version. */
      onLaunch: (firefox: LocalFirefox) => Promise<void>;
    },
  ) {}

  /** The sweep's Firefox, launched on first use; rejects with PUSHLAB_NO_FIREFOX when there is none. */
  for(): Promise<LocalFirefox> {
    if (this.closed) return Promise.reject(new Error('the sweep is closing its browsers'));
    this.firefox ??= this.start().catch((err: unknown) => {
      // No Firefox is for good; anything else (one that failed to start once) may be tried again.
      if (!(err instanceof PushlabError && err.code === 'PUSHLAB_NO_FIREFOX' && /No Firefox found|FIREFOX_PATH/.test(err.message))) this.firefox = null;
      throw err;
    });
    return this.firefox;
  }

  private async start(): Promise<LocalFirefox> {
    const ff = await LocalFirefox.launch({ headless: this.o.headless, log: this.o.log });
    this.launched = ff;
    this.o.log(`Firefox ${ff.launched.version} (${ff.launched.path}, ${ff.launched.source}) for the engine firefox points`);
    await this.o.onLaunch(ff);
    return ff;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.firefox?.catch(() => undefined);
    await this.launched?.close();
  }

  /** Ends it at once (exit handlers, a second Ctrl-C). */
  kill(): void {
    this.launched?.kill();
  }
}
