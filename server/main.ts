/** `npm run server`: listens on loopback, prints its URL on stdout. Flags: see server/options.ts. */
import path from 'node:path';
import { commandLineFlags, runCommand } from '../cli/command.js';
import { ROOT } from '../cli/root.js';
import { buildServer } from './app.js';
import { loadOrCreateCert } from './cert.js';
import type { ClockKind } from './clock.js';
import { MIB } from './defaults.js';
import { checkListenHost, SERVER_FLAGS } from './options.js';
import type { SseWriter } from './sse.js';

runCommand('server', async () => {
  const flags = commandLineFlags(SERVER_FLAGS, 'server');
  // Refused unless asked for; said out loud when asked for (before listening, on stderr).
  const { warning } = checkListenHost(flags.host, flags['allow-remote']);
  if (warning) process.stderr.write(`pushlab server: ${warning}\n`);
  const app = await buildServer({
    tls: await loadOrCreateCert(path.join(ROOT, '.cert')),
    webRoot: path.join(ROOT, 'dist/web'),
    reportsRoot: path.join(ROOT, 'reports'),
    sendBufferLimitBytes: Math.round(flags['send-buffer-mib'] * MIB),
    sseWriter: flags['sse-writer'] as SseWriter,
    clock: flags.clock as ClockKind,
    originPorts: flags.port === 0 ? 'any' : 'next',
  });
  await app.listen({ host: flags.host, port: flags.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : flags.port;
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  // The driver reads this line to find the server; keep its shape.
  process.stdout.write(`pushlab server listening on https://${host}:${port}/\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
