/**
 * How a test starts one of pushlab's entry points as its own process: as the commands do
 * (cli/entry.ts), the compiled build when it was built from these sources (`npm test` builds
 * first), else through tsx, so a test never runs stale code and never pays tsx's start-up when
 * it need not.
 */
import { entryArgv } from '../../cli/entry.js';

/** What follows `node` to run `script` (relative to the root: `puppeteer/sweep/main.ts`), for `spawn(process.execPath, …)`. */
export const nodeArgs = (script: string): string[] => entryArgv(script);

/** `[node, …]` that runs `script`; its arguments follow. */
export const nodeCommand = (script: string): string[] => [process.execPath, ...nodeArgs(script)];
