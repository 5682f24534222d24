/**
 * Which project each test file runs in (vitest.config.ts). Not a test file.
 * test/unit/projects.test.ts fails when a test file is in no list or in two.
 * The folder says what a file starts: test/unit/ nothing (in-process code, fakes and fixtures),
 * test/server/ a real server, test/commands/ pushlab's commands as processes, test/browser/ a
 * real Chromium or Firefox; test/helpers/ holds what they share. The lists say how a file that
 * starts something runs:
 * - measures: alone, one at a time: an assertion needs the machine to itself (a
 *   delivered-events ratio, a rate band, CPU agreement, real-clock pacing).
 * - behaviour: beside others: every assertion holds with another file running beside it
 *   (exact outputs, exit codes and counts; generous bounds).
 * - pure: every file in test/unit/.
 * Names are the file's name without its test suffix; paths are relative to the repository root.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The folders of files that start something, where `file` looks a name up. */
const STARTING = ['server', 'commands', 'browser'];
/**
 * A throughput, CPU or pacing assertion needs both cores: run alone. `instrument` (a plain setup's
 * delivered rate read 0; also once alone while its own sweep test ran beside it, since made
 * sequential) and `lab` (a real click's input delay not shown within 10 s) each failed with
 * another behaviour file beside them, when those ran two at a time.
 */
export const MEASURES = [
  'grid',
  'remote-browser-smoke',
  'advise-e2e',
  'e2e-transports',
  'e2e-firefox',
  'e2e-arrow',
  'e2e-age',
  'firefox-cpu',
  'e2e',
  'remote-firefox',
  'netns',
  'link',
  'e2e-page',
  'instrument',
  'lab',
  'e2e-input',
  'e2e-render-module',
  'e2e-device',
  'hub',
  'pace',
].map(file);

/** Start servers, processes or browsers; hold beside another file. Slowest first: they start in this order. */
export const BEHAVIOUR = [
  'remote-browser',
  'e2e-tab',
  'e2e-rows',
  'signals',
  'report-readers',
  'sweep-crash-find-max',
  'advise-interrupt',
  'ownership',
  'concurrent-runs',
  'input-files',
  'render-module-build',
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
  'largest-batch',
  'flag-bounds',
  'port-in-use',
  'cdp-protocol',
  'security',
  'e2e-restart',
  'e2e-loss',
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
  'rows-server',
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
export const PURE = ['test/unit/**/*.test.ts'];

/** The file's path in the one starting folder that holds it (a name in none is kept as test/<name>, which the check reports). */
function file(name: string): string {
  const root = path.resolve(import.meta.dirname, '..', '..');
  const found = STARTING.map((d) => `test/${d}/${name}.test.ts`).filter((f) => existsSync(path.join(root, f)));
  return found.length === 1 ? found[0] : `test/${name}.test.ts`;
}
