/** `npm run server`: listens on loopback, prints its URL on stdout. Flags: see server/options.ts. */
import path from 'node:path';
import { commandLineFlags, runCommand } from '../cli/command.js';
import { listenOr } from '../cli/listen.js';
import { onStopRequest } from '../cli/stop.js';
import { PushlabError } from '../protocol/errors.js';
import { RENDER_MODULES_DIR, ROOT } from '../cli/root.js';
import { buildServer, type PushlabServer } from './app.js';
import { loadOrCreateCert } from './cert.js';
import type { ClockKind } from './clock.js';
import { MIB, type SseWriter } from './defaults.js';
import { checkListenHost, SERVER_FLAGS } from './options.js';
import { EXTRA_ORIGIN_PORTS } from './origins.js';
import { loadRows } from './rows-source.js';

runCommand('server', async () => {
  const flags = commandLineFlags(SERVER_FLAGS, 'server');
  let app: PushlabServer | null = null;
  let stopping = false;
  const stop = (why?: string) => {
    if (stopping) return;
    stopping = true;
    if (why) process.stderr.write(`pushlab server: ${why}: stopping\n`);
    if (!app) process.exit(0);
    void app.close().then(() => process.exit(0));
  };
  // A signal, or the end of what started it (npm, its shell): the same graceful stop, from the
  // first moment (a server still starting just exits). Under --exit-with-stdin the pipe is the
  // owner's watch (below), so the owners are not polled as well.
  onStopRequest({ stop, now: () => process.exit(0) }, { watchOwners: !flags['exit-with-stdin'] });
  // Refused unless asked for; said out loud when asked for (before listening, on stderr).
  const { warning } = checkListenHost(flags.host, flags['allow-remote']);
  if (warning) process.stderr.write(`pushlab server: ${warning}\n`);
  // Read and checked before anything listens: a file that cannot serve is refused here, in one line.
  const rows = flags.rows ? await loadRows(flags.rows) : undefined;
  const server = (app = await buildServer({
    rows,
    chartField: flags['chart-field'],
    tls: await loadOrCreateCert(path.join(ROOT, '.cert')),
    webRoot: path.join(ROOT, 'dist/web'),
    renderModulesRoot: RENDER_MODULES_DIR,
    reportsRoot: path.join(ROOT, 'reports'),
    sendBufferLimitBytes: Math.round(flags['send-buffer-mib'] * MIB),
    sseWriter: flags['sse-writer'] as SseWriter,
    clock: flags.clock as ClockKind,
    originPorts: flags.port === 0 ? 'any' : 'next',
  }));
  await listenOr('--port', flags.host, flags.port, () => server.listen({ host: flags.host, port: flags.port }));
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : flags.port;
  // Every origin listens, or the server does not start: a page would find out point by point.
  const [missing] = Object.entries(await server.originErrors());
  if (missing) {
    await server.close();
    const ports =
      flags.port === 0
        ? ''
        : `; the server takes --port ${port} and the ${EXTRA_ORIGIN_PORTS} ports after it (${port}–${port + EXTRA_ORIGIN_PORTS}): free them or pick another --port (0 takes free ones)`;
    throw new PushlabError('PUSHLAB_CANNOT_LISTEN', `the ${missing[0]} origin cannot listen: ${missing[1]}${ports}`);
  }
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  // The driver reads this line to find the server; keep its shape.
  process.stdout.write(`pushlab server listening on https://${host}:${port}/\n`);
  if (flags['exit-with-stdin']) {
    // The driver's end of the pipe closes however the driver ends, SIGKILL included; nobody
    // is left to signal this process then, so a close that hangs must not keep it alive.
    const ownerGone = () => {
      if (stopping) return;
      setTimeout(() => process.exit(0), 5000).unref();
      stop();
    };
    process.stdin.once('end', ownerGone).once('close', ownerGone).resume();
  }
  return undefined;
});
