/**
 * A byte relay started inside a network namespace (`ip netns exec <ns> node relay.js <json>`)
 * by a sweep's link (link.ts). Two kinds:
 * - `unix`: listens on a unix socket (not network-namespaced, so the driver in the root
 *   namespace reaches it) and connects each connection to the server in this namespace: how the
 *   driver's /stats, /payload and /drop reach a server behind the link. TLS passes untouched.
 * - `delay`: listens on 127.0.0.1 at each of the server's ports, inside the browser's namespace,
 *   and connects each connection across the veth to the server: the page's every origin goes
 *   through it. Each chunk is released at max(the previous release, its arrival + half the round
 *   trip ± half the jitter), in each direction, so TCP's byte order is kept while the delay varies.
 *
 * stdin: one JSON line per change (`{"rttMs":50,"jitterMs":10}`), each answered `shaped` on
 * stdout once it applies to every chunk that arrives after it. `ready` on stdout once listening.
 * It exits when stdin ends: its owner's end of the pipe closes however the owner ends.
 */
import net from 'node:net';
import { createInterface } from 'node:readline';

type Config = { kind: 'unix'; socket: string; host: string; port: number } | { kind: 'delay'; host: string; ports: number[]; listenHost: string };

/**
 * Above this many bytes held for release in one direction, the sending side is paused: the bytes
 * in flight on a real path are bounded too (by the window the receiver grants), and without a
 * bound a capped link's backlog would pile up here instead of in the server's send queue.
 */
const MAX_HELD_BYTES = 4 * 1024 * 1024;

let rttMs = 0;
let jitterMs = 0;

/** One direction of a delayed connection: chunks in arrival order, each with its release time. */
function delayedPipe(from: net.Socket, to: net.Socket): void {
  const held: { at: number; chunk: Buffer }[] = [];
  let heldBytes = 0;
  let lastRelease = 0;
  let timer: NodeJS.Timeout | null = null;
  let ended = false;
  const flush = () => {
    timer = null;
    const now = performance.now();
    while (held.length && held[0].at <= now) {
      const { chunk } = held.shift()!;
      heldBytes -= chunk.length;
      to.write(chunk);
    }
    if (heldBytes < MAX_HELD_BYTES && from.isPaused() && to.writableLength < MAX_HELD_BYTES) from.resume();
    if (held.length) timer = setTimeout(flush, Math.max(0, held[0].at - performance.now()));
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    const oneWay = rttMs / 2 + (jitterMs ? (Math.random() - 0.5) * jitterMs : 0);
    const at = Math.max(lastRelease, performance.now() + oneWay);
    lastRelease = at;
    held.push({ at, chunk });
    heldBytes += chunk.length;
    if (heldBytes >= MAX_HELD_BYTES || to.writableLength >= MAX_HELD_BYTES) from.pause();
    if (timer === null) timer = setTimeout(flush, Math.max(0, held[0].at - performance.now()));
  });
  to.on('drain', () => {
    if (heldBytes < MAX_HELD_BYTES && from.isPaused()) from.resume();
  });
  from.on('end', () => {
    ended = true;
    if (!held.length && timer === null) to.end();
  });
}

function join(a: net.Socket, b: net.Socket, delayed: boolean): void {
  for (const s of [a, b]) {
    s.setNoDelay(true);
    s.on('error', () => {
      a.destroy();
      b.destroy();
    });
    s.on('close', () => (s === a ? b : a).destroy());
  }
  if (delayed) {
    delayedPipe(a, b);
    delayedPipe(b, a);
  } else {
    a.pipe(b);
    b.pipe(a);
  }
}

function listen(server: net.Server, at: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, () => resolve());
  });
}

async function main(config: Config): Promise<void> {
  if (config.kind === 'unix') {
    const server = net.createServer((c) => join(c, net.connect({ host: config.host, port: config.port }), false));
    await listen(server, { path: config.socket });
  } else {
    for (const port of config.ports) {
      const server = net.createServer((c) => join(c, net.connect({ host: config.host, port }), true));
      await listen(server, { host: config.listenHost, port });
    }
  }
  createInterface({ input: process.stdin })
    .on('line', (line) => {
      const o = JSON.parse(line) as { rttMs: number; jitterMs: number };
      rttMs = o.rttMs;
      jitterMs = o.jitterMs;
      process.stdout.write('shaped\n');
    })
    .on('close', () => process.exit(0));
  process.stdout.write('ready\n');
}

main(JSON.parse(process.argv[2]) as Config).catch((err: unknown) => {
  process.stderr.write(`pushlab link relay: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
