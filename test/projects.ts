/**
 * Which project each test file runs in (vitest.config.ts): the class of every file in test/.
 * Not a test file. test/projects.test.ts fails when a test file is in no list or in two.
 * - measures: run alone, one at a time: an assertion needs the machine to itself (a
 *   delivered-events ratio, a rate band, CPU agreement, real-clock pacing).
 * - behaviour: starts servers, processes or browsers, and every assertion holds with another
 *   file running beside it (exact outputs, exit codes and counts; generous bounds).
 * - pure: starts nothing: in-process code, fakes and fixtures.
 * Names are relative to the repository root.
 */
/** A throughput, CPU or pacing assertion needs both cores: run alone. */
export const MEASURES = [
  'remote-browser-smoke',
  'advise-e2e',
  'e2e-transports',
  'grid',
  'e2e-firefox',
  'e2e-arrow',
  'e2e-factors',
  'firefox-cpu',
  'e2e',
  'remote-firefox',
  'netns',
  'e2e-page',
  'hub',
].map(file);

/** Start servers, processes or browsers; hold beside another file. Slowest first: they start in this order. */
export const BEHAVIOUR = [
  'remote-browser',
  'signals',
  'report-readers',
  'sweep-crash-find-max',
  'advise-interrupt',
  'ownership',
  'concurrent-runs',
  'lab',
  'input-files',
  'sweep-resume',
  'report-cli',
  'firefox-crash',
  'viewer-hostile',
  'fail-early',
  'bad-browser',
  'no-space',
  'advise-cli',
  'hostile-report',
  'foreign-origin',
  'server-memory',
  'flag-bounds',
  'port-in-use',
  'cdp-protocol',
  'security',
  'e2e-restart',
  'server',
  'cli',
  'chrome-path',
  'clock-offset',
  'arrow',
  'report-html',
  'grid-hostile',
  'faults',
  'compression-server',
  'transports-server',
  'plain-server',
  'liveness',
  'reports-route',
  'session-cap',
  'report-servers',
  'echo-cut',
  'proto',
  'error-line',
  'shell-quote',
  'browser-endpoint',
].map(file);

/** Start nothing: in-process code, fakes and fixtures. */
export const PURE = [
  'advice-view',
  'advise-resume',
  'advise-search',
  'chrome',
  'cpu',
  'cpu-profile',
  'docs',
  'drift',
  'engine',
  'equivalence',
  'find-max',
  'flags',
  'histogram',
  'json-text',
  'knobs',
  'layers',
  'factors',
  'comment-paths',
  'machine-speed',
  'msgpack',
  'pacer',
  'point-summary',
  'progress-options',
  'projects',
  'readme',
  'reconnect',
  'reference-table',
  'report-benchmark-action',
  'report-schema',
  'report-views',
  'rounds',
  'rows',
  'runner',
  'scenario',
  'scenario-schema',
  'settle',
  'sse-resume',
  'stats',
  'summarise',
  'sustains',
  'target',
  'threads',
  'web-health',
  'web-page-parts',
  'wire',
  'ws-frame',
].map(file);

function file(name: string): string {
  return `test/${name}.test.ts`;
}
