/**
 * A Chromium started by a test the way a remote browser host would run one: its own process
 * with `--remote-debugging-port` bound to 127.0.0.1, not owned by the sweep under test. Not a
 * test file itself. Each one runs in its own process group, so `kill()` ends it with every
 * child it forked, whatever the test did to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHROME_ARGS, findSystemChrome } from '../puppeteer/browser/chrome.js';

export interface RemoteChrome {
  /** The DevTools HTTP endpoint, `http://127.0.0.1:<port>`. */
  http: string;
  /** The browser's CDP WebSocket, `ws://127.0.0.1:<port>/devtools/browser/<id>`. */
  ws: string;
  port: number;
  /** The browser process (its children are in its process group). */
  pid: number;
  /** SIGKILL to the browser process alone: a host whose browser dies. */
  crash(): void;
  /** Ends the whole process group and removes the profile. */
  kill(): Promise<void>;
}

/** `wrap`: a command the browser runs under (`ip netns exec <ns>`: a browser in a network namespace of its own). */
export async function startRemoteChrome(wrap: readonly string[] = []): Promise<RemoteChrome> {
  const found = await findSystemChrome();
  if (!found) throw new Error('no Chromium found for the remote-browser tests');
  const profile = await mkdtemp(path.join(os.tmpdir(), 'pushlab-remote-chrome-'));
  // The sweep's launch flags, except that the certificate is left to the connecting driver
  // (Security.setIgnoreCertificateErrors): a remote browser is not started for pushlab.
  const args = [
    ...CHROME_ARGS.filter((a) => a !== '--ignore-certificate-errors'),
    '--headless',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${profile}`,
    'about:blank',
  ];
  const child: ChildProcess = wrap.length
    ? spawn(wrap[0], [...wrap.slice(1), found.path, ...args], { stdio: 'ignore', detached: true })
    : spawn(found.path, args, { stdio: 'ignore', detached: true });
  const kill = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 200));
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    // Chrome writes the port it picked and the browser's WebSocket path to DevToolsActivePort.
    const file = path.join(profile, 'DevToolsActivePort');
    const until = Date.now() + 20_000;
    while (!existsSync(file) || readFileSync(file, 'utf8').split('\n').length < 2) {
      if (Date.now() > until) throw new Error('Chromium did not write DevToolsActivePort within 20 s');
      if (child.exitCode !== null) throw new Error(`Chromium exited with code ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const [portText, wsPath] = readFileSync(file, 'utf8').trim().split('\n');
    const port = Number(portText);
    return {
      http: `http://127.0.0.1:${port}`,
      ws: `ws://127.0.0.1:${port}${wsPath}`,
      port,
      pid: child.pid!,
      crash: () => child.kill('SIGKILL'),
      kill,
    };
  } catch (err) {
    await kill();
    throw err;
  }
}
