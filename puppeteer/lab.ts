/**
 * `npm run lab`: the server plus a headful Chrome on the lab page, for poking at by hand.
 * Flags pre-fill the page's form; --autostart starts streaming at once. Runs until the
 * browser window closes or Ctrl-C.
 */
import { commandLineFlags, runCommand } from '../cli/command.js';
import { PushlabError } from '../protocol/errors.js';
import { launchChrome } from './chrome.js';
import { LAB_FLAGS } from './options.js';
import { remoteServer, startServer } from './server-process.js';


runCommand('lab', async () => {
  const flags = commandLineFlags(LAB_FLAGS, 'lab');
  if (!flags.headless && process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    throw new PushlabError('PUSHLAB_NO_DISPLAY', 'no display for a headful Chrome (DISPLAY is unset): run under a desktop, use `xvfb-run npm run lab`, or pass --headless');
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
  return undefined;
});
