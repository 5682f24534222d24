/**
 * pushlab's errors: one class with a stable code, like fastify's `FST_…` codes, so a test or a
 * script can tell them apart without parsing messages. Every entry point catches once, prints
 * `pushlab <command>: <CODE>: <message>` (no stack for a PushlabError; a bug says so and keeps
 * its stack, see cli/command.ts errorLine) and exits with `exitCodeOf`.
 */

/** Exit codes, the same for every command: documented in full in docs/reliability.md ("Exit codes and error codes"). */
export const EXIT = {
  /** Everything ran and nothing regressed. */
  ok: 0,
  /** The work ran, but a point failed or a comparison found a regression. */
  failed: 1,
  /** Bad input (flag, scenario file, query, report) or an unusable environment (no Chrome, unwritable output). */
  badInput: 2,
  /** Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) or its owner's end, after saving what was measured: 128 + SIGINT. */
  interrupted: 130,
} as const;

export const ERROR_CODES = {
  PUSHLAB_BAD_FLAG: 'a command-line flag is unknown, missing its value, or out of range',
  PUSHLAB_BAD_SCENARIO: 'the scenario file is unreadable, not a regular file, not JSON, or breaks its schema',
  PUSHLAB_BAD_REPORT:
    'a report.json is unreadable, not a regular file, not JSON, of a schemaVersion this build does not read, or lacks a field its readers need',
  PUSHLAB_BAD_OUTPUT: 'an output location cannot be created or written, or has no space left',
  PUSHLAB_NO_CHROME: 'no Chrome or Chromium was found (or the one named is not an executable file, or does not start), and none could be downloaded',
  PUSHLAB_BAD_SERVER: 'the pushlab server named by --server is not a valid URL or does not answer',
  PUSHLAB_BAD_HOST: 'the server was asked to listen on an address that is not loopback, without --allow-remote',
  PUSHLAB_CANNOT_LISTEN: "a port a server was asked to listen on is in use (or not open to this user, or its address is not this machine's)",
  PUSHLAB_BAD_BROWSER:
    'a browser named by --browser does not answer, is not a Chrome DevTools endpoint, is behind a certificate not trusted here, or cannot load the server',
  PUSHLAB_NO_FIREFOX:
    'a point asked for engine firefox and no Firefox was found (or the one named by FIREFOX_PATH is not an executable file, or does not start)',
  PUSHLAB_BAD_GRID:
    'the Selenium Grid named by --grid does not answer, is not ready, has no free Chrome slot, refuses a session or does not start one in time (its own message is quoted)',
  PUSHLAB_NO_NETNS:
    "a network link (the sweep's `link`, bench:link) needs network namespaces and tc (root, iproute2) and this machine cannot make them, or the run's browser or server is not in this machine's namespaces, or a loopback point shares a run with a link",
  PUSHLAB_NO_DEVICE:
    "a device class cannot be made here: slowing the whole browser needs root and a cgroup cpu controller, and a browser on this machine; main-thread throttling needs Chrome; or the calibration could not reach the class's BenchmarkIndex (this machine reads lower, or its readings would not settle)",
  PUSHLAB_NO_TAB_STATE:
    'a hidden tab state cannot be made here: it needs a Chrome pushlab launches itself (not --browser or --grid), one lab tab, and no display factor',
  PUSHLAB_NO_DISPLAY: 'a headful Chrome was asked for on a machine with no display (and, for a sweep, no Xvfb to start)',
  PUSHLAB_NOT_BUILT: 'the lab page is not built (dist/web/index.html is missing): run npm run build',
  PUSHLAB_BAD_ROWS:
    "a --rows file (or a scenario's rows) is unreadable, empty, not JSON, of mixed shapes, of a field Arrow cannot hold, nested too deep, above its size bound, or a HAR with no received WebSocket messages; or a --chart-field that is not one of the events' numeric fields",
  PUSHLAB_BAD_DEPENDENCY: "an installed package lacks what pushlab relies on (ws's private socket field)",
  PUSHLAB_BAD_RENDER_MODULE:
    "a render module (--render-module, a scenario's renderModule) is not a .js/.mjs/.ts/.tsx file, does not build (the build's first error is quoted), or does not export mount(host, page)",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class PushlabError extends Error {
  override name = 'PushlabError';
  /** The same work may succeed if asked again (a machine too busy for a moment), where the rest are the input's or the machine's for good. */
  readonly transient: boolean;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { transient?: boolean } = {},
  ) {
    super(message);
    this.transient = options.transient ?? false;
  }
}

/** Every PushlabError is bad input or environment (exit 2); anything else is a bug, also 2. */
export function exitCodeOf(_err: unknown): number {
  return EXIT.badInput;
}
