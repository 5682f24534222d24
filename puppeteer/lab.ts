/**
 * `npm run lab`: the server plus a headful Chrome on the lab page, for poking at by hand.
 * Flags pre-fill the page's form; --autostart starts streaming at once. Runs until the
 * browser window closes or Ctrl-C.
 */
import { FlagError, helpText, parseFlags, type FlagSpec } from '../protocol/flags.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';
import { ChromeNotFound, launchChrome } from './chrome.js';
import { remoteServer, startServer } from './server-process.js';

export const LAB_FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport the form starts with' },
  batch: { type: 'integer', default: 50, min: 1, max: 10_000, help: 'rows per batch' },
  concurrency: { type: 'integer', default: 10, min: 1, max: 500, help: 'connections' },
  'interval-ms': { type: 'number', default: 1, min: 0.05, max: 60_000, help: 'ms between batches per connection' },
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'full, chart or none' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse on the main thread or in Workers' },
  workers: { type: 'integer', default: 1, min: 1, max: 16, help: 'Workers for --parse worker' },
  autostart: { type: 'boolean', default: false, help: 'start streaming as soon as the page loads' },
  headless: { type: 'boolean', default: false, help: 'run Chrome headless (for machines without a display)' },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server (default: start one)' },
} as const satisfies Record<string, FlagSpec>;

async function main(): Promise<void> {
  const flags = parseFlags(LAB_FLAGS, process.argv.slice(2), 'npm run lab --');
  if (flags.help) {
    process.stdout.write(helpText(LAB_FLAGS, 'npm run lab --'));
    return;
  }
  if (!flags.headless && process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    throw new FlagError('no display for a headful Chrome (DISPLAY is unset): run under a desktop, use `xvfb-run npm run lab`, or pass --headless');
  }
  const server = flags.server ? remoteServer(flags.server) : await startServer();
  const query = new URLSearchParams({
    transport: flags.transport,
    batch: String(flags.batch),
    concurrency: String(flags.concurrency),
    intervalMs: String(flags['interval-ms']),
    render: flags.render,
    parse: flags.parse,
    workers: String(flags.workers),
    ...(flags.autostart ? { autostart: '1' } : {}),
  });
  const url = `${server.url}?${query}`;
  const chrome = await launchChrome({ headless: flags.headless });
  const [page] = await chrome.browser.pages();
  await (page ?? (await chrome.browser.newPage())).goto(url);
  process.stderr.write(`pushlab lab: ${url}\nChrome ${chrome.version}; close the window or press Ctrl-C to stop.\n`);
  const stop = async () => {
    await chrome.browser.close().catch(() => undefined);
    await server.stop();
    process.exit(0);
  };
  chrome.browser.on('disconnected', () => void stop());
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  const known = err instanceof FlagError || err instanceof ChromeNotFound;
  process.stderr.write(`pushlab lab: ${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
  process.exit(2);
});
