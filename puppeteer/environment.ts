/** The environment a report records: Chrome, Node, the host, and how Chrome was launched. */
import os from 'node:os';
import type { Environment } from '../protocol/report.js';
import type { LaunchedChrome } from './chrome.js';
import type { ServerHandle } from './server-process.js';

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
  };
}
