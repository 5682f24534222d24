/** The environment a report records: Chrome, Node, the host, and how Chrome was launched. */
import os from 'node:os';
import type { BrowserHost, Environment } from '../../protocol/report.js';
import type { LaunchedChrome } from './chrome.js';
import type { LocalFirefox } from './firefox.js';
import type { ServerHandle } from '../measure/server-process.js';

export function environmentOf(chrome: LaunchedChrome, server: ServerHandle): Environment {
  const cpus = os.cpus();
  return {
    chromeVersion: chrome.version,
    chromePath: chrome.path,
    nodeVersion: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    headless: chrome.headless,
    launchArgs: chrome.args,
    networkEnabled: chrome.networkEnabled,
    serverUrl: server.url,
    // The sweep's own browser; a Firefox it launches for engine firefox points is added as `firefox`.
    engine: 'chrome',
  };
}

/** The lab's environment when it runs in Firefox: its build in `firefox`, and `engine` firefox. */
export function firefoxEnvironment(ff: LocalFirefox, server: ServerHandle): Environment {
  const cpus = os.cpus();
  const l = ff.launched;
  return {
    // No Chrome ran; the field every reader needs says which browser did.
    chromeVersion: l.version,
    chromePath: l.path,
    nodeVersion: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    headless: l.headless,
    launchArgs: [],
    networkEnabled: false,
    serverUrl: server.url,
    engine: 'firefox',
    firefox: { version: l.version, path: l.path, source: l.source, headless: l.headless },
  };
}

/**
 * The environment of a sweep in remote browsers: Node, platform, CPU, cores and memory are the
 * driver's machine (where this ran); the browsers, each with its own host, are in the
 * report's `hosts`. Their launch flags are theirs to choose and not known here.
 */
export function remoteEnvironment(hosts: readonly BrowserHost[], server: ServerHandle): Environment {
  const cpus = os.cpus();
  return {
    chromeVersion: [...new Set(hosts.map((h) => h.version))].join(', '),
    chromePath: hosts.map((h) => `${h.id}: ${h.endpoint ?? 'launched'}`).join(', '),
    nodeVersion: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    headless: hosts.every((h) => h.headless),
    launchArgs: [],
    networkEnabled: false,
    serverUrl: server.url,
    // The first browser's engine: a CDP endpoint is a Chrome, a WebDriver BiDi one a Firefox.
    engine: hosts[0]?.engine ?? 'chrome',
  };
}
