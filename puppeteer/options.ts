/** The driver's command-line flags, declared once: they drive parsing, --help and the README test. */
import type { FlagSpec } from '../protocol/flags.js';
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
  batch: { type: 'integer', default: 50, min: 1, max: 10_000, help: 'rows per batch' },
  concurrency: { type: 'integer', default: 10, min: 1, max: 500, help: 'connections' },
  'interval-ms': { type: 'number', default: 1, min: 0.05, max: 60_000, help: 'ms between batches per connection' },
  render: { type: 'string', default: 'full', choices: RENDER_MODES, help: 'full, chart or none' },
  parse: { type: 'string', default: 'main', choices: PARSE_MODES, help: 'parse on the main thread or in Workers' },
  workers: { type: 'integer', default: 1, min: 1, max: 16, help: 'Workers for --parse worker' },
  autostart: { type: 'boolean', default: false, help: 'start streaming as soon as the page loads' },
  headless: { type: 'boolean', default: false, help: 'run Chrome headless (for machines without a display)' },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
} as const satisfies Record<string, FlagSpec>;
