/**
 * A network link between the server and the tab, made for a run whose points ask for one
 * (protocol/link.ts, docs/network.md):
 *
 *   driver ── 127.0.0.1:P ── unix socket ── relay ── server (pl-srv-<pid>, 10.77.0.1:P…P+9)
 *                                                      │ veth, tbf each way
 *   Chrome (pl-br-<pid>) ── 127.0.0.1:P…P+9 ── delaying relay ── 10.77.0.2
 *
 * The page and the driver both address the server as https://127.0.0.1:P/, as on loopback, so
 * the certificate, the origins the server answers (`/origins`: the name a request addressed)
 * and every URL stay as they are. The driver's requests skip the link (unix sockets are not
 * network-namespaced); every port the page uses (the h2 origin, the HTTP/1.1 origin for
 * WebSockets, the connect origin and the replicas) crosses it. The namespaces and relays are
 * made once per run; a new link value only re-shapes them (tbf's rate, the relay's delay).
 *
 * Delay and jitter: netem on both veth ends where the kernel has it, else the relay in the
 * browser's namespace (relay.ts); the cap: tbf. Everything made here is removed on every exit
 * path: `close`, `kill` (an exit that cannot wait), and at the next run's start after a SIGKILL
 * (names carry the pid: netns.ts removeKilledNamespaces, and `pushlab-link-<pid>-*` folders).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { entryArgv } from '../../cli/entry.js';
import { deadPidEntries } from '../../cli/pid.js';
import { ROOT } from '../../cli/root.js';
import { PushlabError } from '../../protocol/errors.js';
import { EXTRA_ORIGIN_PORTS } from '../../protocol/limits.js';
import { linkOf, linkText, type LinkFigures, type LinkSpec } from '../../protocol/link.js';
import type { Point } from '../../protocol/scenario.js';
import { createLink, hasNetem, netnsMissing, removeKilledNamespaces, type Link } from './netns.js';

/** Folders of a run's link (the relay's socket, Chrome's wrapper) are `<tmp>/pushlab-link-<pid>-XXXXXX`. */
const DIR_PREFIX = 'pushlab-link-';

/** The links of these points that need namespaces (not `cdp:`), distinct. */
export function namespaceLinks(points: readonly Pick<Point, 'link'>[]): string[] {
  return [...new Set(points.map((p) => p.link).filter((l): l is string => l !== undefined && linkOf(l).via === 'netns'))];
}

/**
 * Refuses, before anything is launched, a run whose links cannot be made: namespaces need root
 * and `ip`; a remote browser or server is not on this machine's namespaces; loopback points
 * cannot share a run with namespace links (the server and the browser sit in the namespaces for
 * the whole run: a 0ms link is the baseline across the same path); another display's browser
 * would launch outside them. Firefox is refused by the factor (protocol/factors.ts).
 */
export function checkLinkConditions(
  points: readonly Pick<Point, 'id' | 'link' | 'display' | 'tab'>[],
  o: { browsers: 'local' | 'remote'; server: string },
): void {
  const links = namespaceLinks(points);
  // CDP's emulation (`cdp:`) works on any Chrome: only namespace links are checked.
  if (!links.length) return;
  const what = `link ${links.join(', ')}`;
  const refuse = (why: string) => {
    throw new PushlabError('PUSHLAB_NO_NETNS', `${what}: ${why}`);
  };
  const missing = netnsMissing();
  if (missing)
    refuse(
      `the server and the browser run in two network namespaces, and ${missing}: run as root with iproute2, or use cdp:<link> (Chrome's emulation, docs/network.md)`,
    );
  if (o.browsers === 'remote')
    refuse("the browser runs in a namespace on this machine, and this run's browsers are elsewhere (--browser, --grid): drop them, or use cdp:<link>");
  if (o.server) refuse(`the server runs in a namespace this run makes, and --server ${o.server} is already running: drop --server`);
  const loop = points.find((p) => p.link === undefined);
  if (loop)
    refuse(
      `${loop.id} is on loopback, and a run with a link keeps its server and browser in the namespaces throughout: give it link 0ms (the same path, no delay, no cap) as the baseline, or run it apart`,
    );
  const shown = points.find((p) => p.display !== undefined);
  if (shown) refuse(`${shown.id} names a display, whose browser would launch outside the link's namespace: leave display out`);
}

/** Removes what killed runs left: their namespaces and folders. Logs what it removed. */
export function cleanUpKilledLinks(log: (line: string) => void): void {
  const removed = removeKilledNamespaces();
  for (const dir of deadPidEntries(DIR_PREFIX)) {
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Another user's (a root run's, seen by one that is not): left to a run that may remove it.
    }
  }
  if (removed.length) log(`removed what a killed run's link left: ${removed.join(', ')}`);
}

/** A relay process (relay.ts) in a namespace: started, ready, re-shaped by a line on its stdin. */
class Relay {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  private stderr = '';

  private constructor(readonly child: ChildProcess) {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr = (this.stderr + d).slice(-2000)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
  }

  static async start(exec: string[], config: object): Promise<Relay> {
    const child = spawn(exec[0], [...exec.slice(1), process.execPath, ...entryArgv('puppeteer/link/relay.ts'), JSON.stringify(config)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const relay = new Relay(child);
    const line = await relay.next(30_000);
    if (line !== 'ready') throw new Error(`the link's relay did not start: ${line} ${relay.stderr.trim()}`);
    return relay;
  }

  private next(timeoutMs: number): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`(no answer in ${timeoutMs} ms)`), timeoutMs);
      const onExit = (code: number | null) => resolve(`(exited with ${code})`);
      this.child.once('exit', onExit);
      this.waiting = (line) => {
        clearTimeout(timer);
        this.child.off('exit', onExit);
        resolve(line);
      };
    });
  }

  async shape(rttMs: number, jitterMs: number): Promise<void> {
    this.child.stdin!.write(`${JSON.stringify({ rttMs, jitterMs })}\n`);
    const line = await this.next(10_000);
    if (line !== 'shaped') throw new Error(`the link's relay did not take the new delay: ${line} ${this.stderr.trim()}`);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** What the server's start needs to run behind the link (measure/server-process.ts startServer). */
export interface ServerPlacement {
  /** The command prefix that runs it in the server's namespace. */
  prefix: string[];
  /** Its flags: the address on the veth, the fixed port. */
  args: string[];
  port: number;
  /** The URL the driver and the page reach it at. */
  url: string;
}

export class NetworkLink {
  private applied: string | null = null;
  private relays: Relay[] = [];
  private forward: net.Server | null = null;
  private txAtStart: number | null = null;
  private startedAt = 0;

  private constructor(
    private readonly link: Link,
    private readonly dir: string,
    private readonly port: number,
    readonly delayBy: 'netem' | 'relay',
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Makes the namespaces and the veth, and takes the port the driver reaches the server at (a
   * free one in this namespace: the server takes the same number, and the 9 after it, in its own).
   */
  static async open(log: (line: string) => void): Promise<NetworkLink> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
    let link: Link | null = null;
    try {
      link = createLink();
      const forward = net.createServer();
      await new Promise<void>((resolve, reject) => {
        forward.once('error', reject);
        forward.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
      });
      const port = (forward.address() as net.AddressInfo).port;
      const made = new NetworkLink(link, dir, port, hasNetem(link.browser.ns) ? 'netem' : 'relay', log);
      made.forward = forward;
      return made;
    } catch (err) {
      link?.teardown();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Where the server starts: in its namespace, on the veth's address, at the run's port. */
  get server(): ServerPlacement {
    return {
      prefix: this.link.exec(this.link.server.ns),
      args: ['--host', this.link.server.addr, '--allow-remote'],
      port: this.port,
      url: `https://127.0.0.1:${this.port}/`,
    };
  }

  /**
   * Chrome's launcher: a script that runs it in the browser's namespace. `ip netns exec` execs
   * the browser in place, so it keeps this process's pipe to it (fds 3 and 4, CDP) and its pid.
   */
  chromeWrapper(chromePath: string): string {
    const file = path.join(this.dir, 'chrome');
    const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
    writeFileSync(file, `#!/bin/sh\nexec ${this.link.exec(this.link.browser.ns).map(q).join(' ')} ${q(chromePath)} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }

  /** Once the server listens: the driver's forwarder, the relay beside the server, the delaying relay beside the browser. */
  async connect(): Promise<void> {
    const socket = path.join(this.dir, 'api.sock');
    this.relays.push(await Relay.start(this.link.exec(this.link.server.ns), { kind: 'unix', socket, host: this.link.server.addr, port: this.port }));
    this.forward!.on('connection', (c) => {
      const s = net.connect({ path: socket });
      for (const x of [c, s]) x.on('error', () => (c.destroy(), s.destroy()));
      c.pipe(s).pipe(c);
    });
    const ports = Array.from({ length: 1 + EXTRA_ORIGIN_PORTS }, (_, i) => this.port + i);
    this.relays.push(await Relay.start(this.link.exec(this.link.browser.ns), { kind: 'delay', host: this.link.server.addr, ports, listenHost: '127.0.0.1' }));
  }

  /** How the link is made, for the run's header and each repeat's notes. */
  describe(): string {
    return `${this.link.describe()}; delay ${
      this.delayBy === 'netem'
        ? 'by netem on both ends'
        : "by a relay in the browser's namespace (no netem in this kernel: no loss or reordering, and the server's TCP does not see the delay)"
    }`;
  }

  /** Shapes the link as the point asks (nothing when it already is). */
  async apply(point: Pick<Point, 'link' | 'id'>): Promise<void> {
    if (point.link === undefined) throw new PushlabError('PUSHLAB_NO_NETNS', `${point.id}: a run with a link has no loopback points`);
    if (this.applied === point.link) return;
    const l = linkOf(point.link);
    this.link.limit(l.mbit);
    if (this.delayBy === 'netem') this.netem(l);
    await this.relays.at(-1)!.shape(this.delayBy === 'relay' ? l.rttMs : 0, this.delayBy === 'relay' ? l.jitterMs : 0);
    this.applied = point.link;
    this.log(`link ${linkText(l)}: ${this.describe()}`);
  }

  /** netem's delay on each end (half the round trip each way), the tbf cap under it. */
  private netem(l: LinkSpec): void {
    for (const side of [this.link.server, this.link.browser]) {
      const tc = (...args: string[]) => execFileSync('ip', ['netns', 'exec', side.ns, 'tc', ...args], { stdio: 'ignore' });
      try {
        tc('qdisc', 'del', 'dev', side.dev, 'root');
      } catch {
        // none yet
      }
      tc('qdisc', 'add', 'dev', side.dev, 'root', 'handle', '1:', 'netem', 'delay', `${l.rttMs / 2}ms`, `${l.jitterMs / 2}ms`);
      if (l.mbit !== null)
        tc('qdisc', 'add', 'dev', side.dev, 'parent', '1:1', 'handle', '10:', 'tbf', 'rate', `${l.mbit}mbit`, 'burst', '64kb', 'latency', '100ms');
    }
  }

  /** The window opens: the server's end's byte counter now. */
  windowStart(): void {
    this.txAtStart = this.link.serverTxBytes();
    this.startedAt = performance.now();
  }

  /** The window closes: what the link carried over it, beside its cap. */
  windowEnd(): LinkFigures | null {
    if (this.txAtStart === null || this.applied === null) return null;
    const sec = (performance.now() - this.startedAt) / 1000;
    const carriedMbit = Math.round((((this.link.serverTxBytes() - this.txAtStart) * 8) / 1e6 / sec) * 1000) / 1000;
    this.txAtStart = null;
    const { mbit } = linkOf(this.applied);
    return { link: this.applied, carriedMbit, mbit, atRate: mbit === null ? null : Math.round((carriedMbit / mbit) * 1000) / 1000 };
  }

  /** For an exit that cannot wait: the relays and the namespaces, at once. */
  kill(): void {
    for (const r of this.relays) r.kill();
    this.forward?.close();
    this.link.teardown();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    this.kill();
  }
}
