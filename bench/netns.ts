/**
 * Two hosts on one machine: two network namespaces joined by a veth pair with addresses of
 * their own (10.77.0.1 and 10.77.0.2), for the tests and the link bench that put the server on
 * one side and the browser on the other. Root only. Only the namespaces and devices made here
 * are touched, and `teardown()` removes them (deleting a namespace removes its end of the pair).
 * Used by test/browser/netns.test.ts and bench/link.ts.
 */
import { execFileSync } from 'node:child_process';

export const ADDR_SERVER = '10.77.0.1';
export const ADDR_BROWSER = '10.77.0.2';

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
  /** Limits the rate both ways (tbf on each end's egress), e.g. `100mbit`; null takes the limit off. */
  limit(rate: string | null): void;
  /** The link as a report names it: `veth 10.77.0.1 ↔ 10.77.0.2, tbf 100mbit` or `…, unlimited`. */
  describe(): string;
  teardown(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Makes the two namespaces and the link; on any failure, removes what it made. */
export function createLink(tag = String(process.pid)): Link {
  const server = { ns: `pl-srv-${tag}`, dev: `pls${tag}`.slice(0, 15), addr: ADDR_SERVER };
  const browser = { ns: `pl-br-${tag}`, dev: `plb${tag}`.slice(0, 15), addr: ADDR_BROWSER };
  let rate: string | null = null;
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
    ip('link', 'add', server.dev, 'type', 'veth', 'peer', 'name', browser.dev);
    for (const side of [server, browser]) {
      ip('link', 'set', side.dev, 'netns', side.ns);
      ip('-n', side.ns, 'addr', 'add', `${side.addr}/24`, 'dev', side.dev);
      ip('-n', side.ns, 'link', 'set', side.dev, 'up');
      ip('-n', side.ns, 'link', 'set', 'lo', 'up');
    }
  } catch (err) {
    teardown();
    throw err;
  }
  return {
    server,
    browser,
    exec: (ns) => ['ip', 'netns', 'exec', ns],
    limit: (r) => {
      for (const side of [server, browser]) {
        try {
          execFileSync('ip', ['netns', 'exec', side.ns, 'tc', 'qdisc', 'del', 'dev', side.dev, 'root'], { stdio: 'ignore' });
        } catch {
          // none yet
        }
        // tbf: the burst must hold at least one rate-interval's bytes (rate / HZ); 256 kbit is ample at 100 Mbit/s.
        if (r !== null)
          execFileSync('ip', [
            'netns',
            'exec',
            side.ns,
            'tc',
            'qdisc',
            'add',
            'dev',
            side.dev,
            'root',
            'tbf',
            'rate',
            r,
            'burst',
            '256kbit',
            'latency',
            '50ms',
          ]);
      }
      rate = r;
    },
    describe: () => `veth ${server.addr} ↔ ${browser.addr}, ${rate === null ? 'unlimited' : `tbf ${rate}`}`,
    teardown,
  };
}
