/** `npm run server`: listens, prints its URL. Flags: --host, --port, --send-buffer-mib. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodeOf, PushlabError } from '../protocol/errors.js';
import { commandLineFlags } from '../protocol/flags.js';
import { buildServer } from './app.js';
import { loadOrCreateCert } from './cert.js';
import { SERVER_FLAGS } from './options.js';
import type { ClockKind } from './clock.js';
import type { SseWriter } from './sse.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');


async function main(): Promise<void> {
  const flags = commandLineFlags(SERVER_FLAGS, 'server');
  if (!['127.0.0.1', '::1', 'localhost'].includes(flags.host)) {
    throw new PushlabError('PUSHLAB_BAD_HOST', `--host must be a loopback address (127.0.0.1, ::1 or localhost); got '${flags.host}'`);
  }
  const app = await buildServer({
    tls: await loadOrCreateCert(path.join(ROOT, '.cert')),
    webRoot: path.join(ROOT, 'dist/web'),
    reportsRoot: path.join(ROOT, 'reports'),
    sendBufferLimitBytes: Math.round(flags['send-buffer-mib'] * 1024 * 1024),
    sseWriter: flags['sse-writer'] as SseWriter,
    clock: flags.clock as ClockKind,
  });
  await app.listen({ host: flags.host, port: flags.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : flags.port;
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  // The driver reads this line to find the server; keep its shape.
  process.stdout.write(`pushlab server listening on https://${host}:${port}/\n`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`pushlab server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(err instanceof PushlabError ? exitCodeOf(err) : 1);
});
