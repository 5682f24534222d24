/**
 * Two hosts on one machine: two network namespaces joined by a veth pair with addresses of
 * their own (10.77.0.1 and 10.77.0.2), the server on one side and the browser on the other.
 * Root only. Only the namespaces and devices made here are touched: nothing is added to the
 * root namespace, and `teardown()` removes both (deleting a namespace removes its end of the
 * pair). Names carry the pid of the process that made them (`pl-srv-<pid>`, `pl-br-<pid>`), so
 * a run that was killed is cleaned up by the next one (`removeKilledNamespaces`), as Chrome
 * profiles are (browser/chrome.ts). Used by a sweep's link (link.ts), bench/link.ts and
 * test/browser/netns.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { pidRuns } from '../../cli/pid.js';

export const ADDR_SERVER = '10.77.0.1';
export const ADDR_BROWSER = '10.77.0.2';

/** Every namespace made here is named `pl-<side>-<pid>`. */
const NS_NAME = /^pl-(srv|br)-(\d+)\b/;

/** Why namespaces cannot be made here, or null when they can. */
export function netnsMissing(): string | null {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'no `ip` command (iproute2)';
  }
  return null;
}

export interface Link {
  /** The server's namespace and its device. */
  server: { ns: string; dev: string; addr: string };
  browser: { ns: string; dev: string; addr: string };
  /** `ip netns exec <ns>`: the prefix a command runs under to be in that namespace. */
  exec(ns: string): string[];
  /** Caps the rate both ways (tbf on each end's egress), Mbit/s; null takes the cap off. */
  limit(mbit: number | null): void;
  /** Bytes the server's end has sent into the link since it was made (its sysfs counter). */
  serverTxBytes(): number;
  /** The link as a report names it: `veth 10.77.0.1 ↔ 10.77.0.2, tbf 100 Mbit/s` or `…, unlimited`. */
  describe(): string;
  teardown(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * tbf's bucket: at least one timer tick's bytes at the rate (the kernel refills per tick) and
 * one 64 KiB GSO segment, which veth passes whole; 10 ms of the rate above that.
 */
const burstBytes = (mbit: number) => Math.max(64 * 1024, Math.ceil((mbit * 1e6) / 8 / 100));

/** Names of the namespaces this machine has. */
function namespaces(): string[] {
  try {
    return execFileSync('ip', ['netns', 'list'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Removes the namespaces of runs whose process no longer runs (a SIGKILL leaves them): what
 * ran inside them ended with their owner (the server and the relays hold its pipes, Chrome
 * its CDP pipe), so the namespace goes when its name does. Returns the names removed.
 */
export function removeKilledNamespaces(): string[] {
  if (netnsMissing() !== null) return [];
  const removed: string[] = [];
  for (const name of namespaces()) {
    const m = NS_NAME.exec(name);
    if (!m || pidRuns(Number(m[2]))) continue;
    try {
      ip('netns', 'del', name);
      removed.push(name);
    } catch {
      // Gone meanwhile.
    }
  }
  return removed;
}

/** The namespaces made by the process `pid` (or by any pushlab process) that still exist. */
export function namespacesOf(pid?: number): string[] {
  return namespaces().filter((n) => {
    const m = NS_NAME.exec(n);
    return m !== null && (pid === undefined || Number(m[2]) === pid);
  });
}

/** Makes the two namespaces and the link; on any failure, removes what it made. */
export function createLink(tag = String(process.pid)): Link {
  const server = { ns: `pl-srv-${tag}`, dev: `pls${tag}`.slice(0, 15), addr: ADDR_SERVER };
  const browser = { ns: `pl-br-${tag}`, dev: `plb${tag}`.slice(0, 15), addr: ADDR_BROWSER };
  let rate: number | null = null;
  const teardown = () => {
    for (const ns of [server.ns, browser.ns]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // not made, or gone
      }
    }
  };
  try {
    ip('netns', 'add', server.ns);
    ip('netns', 'add', browser.ns);
    // Made inside the server's namespace, so no device of it ever appears in the root namespace.
    ip('-n', server.ns, 'link', 'add', server.dev, 'type', 'veth', 'peer', 'name', browser.dev, 'netns', browser.ns);
    for (const side of [server, browser]) {
      // IPv4 only: an IPv6 link-local address becomes valid a second or two after the link is
      // up (duplicate address detection), and Chrome, seeing an address change, fails what it
      // is loading with ERR_NETWORK_CHANGED (the lab page right after launch, here).
      execFileSync('ip', ['netns', 'exec', side.ns, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      ip('-n', side.ns, 'addr', 'add', `${side.addr}/24`, 'dev', side.dev);
      ip('-n', side.ns, 'link', 'set', side.dev, 'up');
      ip('-n', side.ns, 'link', 'set', 'lo', 'up');
    }
  } catch (err) {
    teardown();
    throw err;
  }
  const tc = (ns: string, args: string[], quiet = false) =>
    execFileSync('ip', ['netns', 'exec', ns, 'tc', ...args], { stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'pipe'] });
  return {
    server,
    browser,
    exec: (ns) => ['ip', 'netns', 'exec', ns],
    limit: (mbit) => {
      for (const side of [server, browser]) {
        try {
          tc(side.ns, ['qdisc', 'del', 'dev', side.dev, 'root'], true);
        } catch {
          // none yet
        }
        // latency 100 ms: the queue tbf keeps before it drops, as a router's buffer would.
        if (mbit !== null)
          tc(side.ns, ['qdisc', 'add', 'dev', side.dev, 'root', 'tbf', 'rate', `${mbit}mbit`, 'burst', String(burstBytes(mbit)), 'latency', '100ms']);
      }
      rate = mbit;
    },
    serverTxBytes: () =>
      Number(execFileSync('ip', ['netns', 'exec', server.ns, 'cat', `/sys/class/net/${server.dev}/statistics/tx_bytes`], { encoding: 'utf8' }).trim()),
    describe: () => `veth ${server.addr} ↔ ${browser.addr}, ${rate === null ? 'unlimited' : `tbf ${rate} Mbit/s`}`,
    teardown,
  };
}

/** Whether this kernel has netem (delay and jitter in the kernel): tried on a namespace's loopback, which is then left as it was. */
export function hasNetem(ns: string): boolean {
  try {
    execFileSync('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'], { stdio: 'ignore' });
  } catch {
    return false;
  }
  try {
    execFileSync('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'del', 'dev', 'lo', 'root'], { stdio: 'ignore' });
  } catch {
    // The namespace goes with the run.
  }
  return true;
}
