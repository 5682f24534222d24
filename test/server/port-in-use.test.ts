/**
 * A port already in use, with the real commands. The server's main port printed a 4-line
 * stack and no error code; a taken second port (the h1 origin, HTTP/1.1 only, at --port + 1)
 * was only reported inside `/origins`, so sse-h1 points failed one by one later. Each is now
 * one line on stderr (PUSHLAB_CANNOT_LISTEN), exit 2, naming the port and what to do, and the
 * server is gone; so is the report viewer's `--port`.
 */
import { createServer, type Server, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { EXTRA_ORIGIN_PORTS } from '../../server/origins.js';
import { leftRunning, sleep, startFaultRun } from '../helpers/fault-run.js';
import { nodeCommand } from '../helpers/node-command.js';

const held: Server[] = [];

/** Holds `port` on 127.0.0.1 (0: any free one); resolves with the port, or null when it is taken. */
function hold(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      held.push(s);
      resolve((s.address() as AddressInfo).port);
    });
  });
}

function release(port: number): Promise<void> {
  const s = held.find((x) => (x.address() as AddressInfo | null)?.port === port);
  held.splice(held.indexOf(s!), 1);
  return new Promise((resolve) => s!.close(() => resolve()));
}

afterAll(async () => {
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
});

/** Runs a command to its end: exit code and its one line of output. */
async function runToEnd(argv: string[]): Promise<{ code: number | null; lines: string[]; left: string[] }> {
  const r = startFaultRun([...nodeCommand(argv[0]), ...argv.slice(1)]);
  try {
    // A server that did start (the bug) never exits: the test fails rather than waits.
    const ended = await Promise.race([r.exit, sleep(30_000).then(() => ({ code: null }))]);
    return { code: ended.code, lines: r.output().trimEnd().split('\n'), left: await leftRunning(r.dir, 10_000) };
  } finally {
    r.cleanUp();
  }
}

describe('a port in use', () => {
  it("the server's --port: one coded line, exit 2", async () => {
    const port = (await hold(0))!;
    const r = await runToEnd(['server/main.ts', '--port', String(port)]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.lines).toEqual([
      `pushlab server: PUSHLAB_CANNOT_LISTEN: --port ${port}: port ${port} on 127.0.0.1 is in use (EADDRINUSE); stop what holds it or pick another --port (0 takes a free one)`,
    ]);
    expect(r.left).toEqual([]);
  }, 60_000);

  it("the h1 origin's port (--port + 1): one coded line, exit 2, not a server half up", async () => {
    // A free main port whose next port is held here.
    let main = 0;
    for (let tries = 0; tries < 20 && !main; tries++) {
      const next = (await hold(0))!;
      const free = await hold(next - 1);
      if (free !== null) {
        await release(free);
        main = free;
      }
    }
    expect(main, 'a free port next to a held one').toBeGreaterThan(0);
    const r = await runToEnd(['server/main.ts', '--port', String(main)]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.lines).toEqual([
      `pushlab server: PUSHLAB_CANNOT_LISTEN: the h1 origin cannot listen: port ${main + 1} on 127.0.0.1 is in use (EADDRINUSE); the server takes --port ${main} and the ${EXTRA_ORIGIN_PORTS} ports after it (${main}–${main + EXTRA_ORIGIN_PORTS}): free them or pick another --port (0 takes free ones)`,
    ]);
    expect(r.left).toEqual([]);
  }, 60_000);

  it("the report viewer's --port: one coded line, exit 2", async () => {
    const port = (await hold(0))!;
    const r = await runToEnd(['puppeteer/report/main.ts', '--serve', '--port', String(port)]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.lines).toEqual([
      `pushlab report: PUSHLAB_CANNOT_LISTEN: --port ${port}: port ${port} on 127.0.0.1 is in use (EADDRINUSE); stop what holds it or pick another --port (0 takes a free one)`,
    ]);
  }, 60_000);
});
