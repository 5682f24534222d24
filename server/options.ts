/** The server's command-line flags, declared once: they drive parsing, --help and the docs test (test/unit/readme.test.ts). */
import { PushlabError } from '../protocol/errors.js';
import type { FlagSpec } from '../protocol/flags.js';
import { CHART_FIELD_FLAG } from '../protocol/event-view.js';
import { ROWS_FLAG } from '../protocol/rows-file.js';
import { CLOCKS } from './clock.js';
import { MIB, SERVER_DEFAULTS, SSE_WRITERS } from './defaults.js';

export const SERVER_FLAGS = {
  host: { type: 'string', default: '127.0.0.1', help: 'address to bind: loopback (127.0.0.1, ::1, localhost) unless --allow-remote' },
  'allow-remote': {
    type: 'boolean',
    default: false,
    help: 'let --host name a non-loopback address (for browsers on other hosts): the server then streams to anyone who can reach it',
  },
  port: { type: 'integer', default: 8443, min: 0, max: 65535, help: 'TCP port (0 picks a free one)' },
  'send-buffer-mib': {
    type: 'number',
    default: SERVER_DEFAULTS.sendBufferLimitBytes / MIB,
    min: 0.0625,
    max: 1024,
    help: 'shed batches for a client once this many MiB are queued for it',
  },
  clock: {
    type: 'string',
    default: SERVER_DEFAULTS.clock,
    choices: CLOCKS,
    help: 'what wakes the pacing loop: Node timers (whole ms), or a Worker on Atomics.wait (sub-ms, more CPU)',
  },
  'sse-writer': {
    type: 'string',
    default: SERVER_DEFAULTS.sseWriter,
    choices: SSE_WRITERS,
    help: 'how SSE batches are written: pre-encoded bytes, or better-sse push or batch',
  },
  rows: ROWS_FLAG,
  'chart-field': CHART_FIELD_FLAG,
  'exit-with-stdin': {
    type: 'boolean',
    default: false,
    help: 'exit when stdin closes: a driver that starts the server holds its stdin, so the server ends with the driver however that ends (SIGKILL too)',
  },
} as const satisfies Record<string, FlagSpec>;

/** Addresses only this machine can reach. */
export const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'];

/**
 * Whether the server may listen on `host`. Loopback always; anything else only with
 * `--allow-remote`, and then with a warning to print: the server has no authentication, so
 * whoever reaches the address gets the streams (and /stats, and the reports listing).
 */
export function checkListenHost(host: string, allowRemote: boolean): { warning: string | null } {
  if (LOOPBACK_HOSTS.includes(host)) return { warning: null };
  if (!allowRemote) {
    throw new PushlabError(
      'PUSHLAB_BAD_HOST',
      `--host must be a loopback address (${LOOPBACK_HOSTS.join(', ')}) unless --allow-remote is given; got '${host}'`,
    );
  }
  return {
    warning: `warning: listening on ${host}, not loopback: this server has no authentication and streams to anyone who can reach ${host} (its page, /stats and the reports listing too). Prefer an SSH tunnel; if you must, allow only the browser hosts in a firewall.`,
  };
}
