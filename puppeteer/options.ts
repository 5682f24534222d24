/** The driver's command-line flags, declared once: they drive parsing, --help and the README test. */
import { rangeFlag, type FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../protocol/wire.js';

export const SWEEP_FLAGS = {
  scenario: { type: 'list', default: [], help: 'scenario ids to run, comma-separated', defaultText: "the file's `default` list" },
  file: { type: 'string', default: 'scenarios.json', help: 'scenario file' },
  out: { type: 'string', default: 'reports', help: 'directory that receives <run-id>/report.json' },
  headful: { type: 'boolean', default: false, help: 'show the browser window (headless otherwise)' },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
  retries: { type: 'integer', default: 1, min: 0, max: 5, help: 'extra attempts for a failed point' },
  list: { type: 'boolean', default: false, help: 'print the points the sweep would run, and exit' },
} as const satisfies Record<string, FlagSpec>;

export const LAB_FLAGS = {
  transport: { type: 'string', default: 'sse', choices: TRANSPORTS, help: 'transport the form starts with' },
  batch: rangeFlag(LIMITS.batch, 50, 'rows per batch'),
  concurrency: rangeFlag(LIMITS.concurrency, 10, 'connections'),
  'interval-ms': rangeFlag(LIMITS.intervalMs, 1, 'ms between batches per connection'),
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'what the page draws' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse on the main thread or in Workers' },
  workers: rangeFlag(LIMITS.workers, 1, 'Workers for --parse worker'),
  autostart: { type: 'boolean', default: false, help: 'start streaming as soon as the page loads' },
  headless: { type: 'boolean', default: false, help: 'run Chrome headless (for machines without a display)' },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
} as const satisfies Record<string, FlagSpec>;
