/**
 * `--browser` endpoints before anything connects: what is accepted (Puppeteer's
 * browserWSEndpoint, a DevTools http URL, a Selenium Grid 4 session's se:cdp), what is refused
 * with the flag, the value and what is allowed, that credentials and tokens never reach what
 * is written down, and how browsers are named, compared and told to share a host. The one
 * network case (nothing listening) uses a port this test just closed on 127.0.0.1.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import type { BrowserHost } from '../../protocol/report.js';
import { commandLineFlags } from '../../cli/command.js';
import { isThisMachine, machineOf, parseBrowserItem, parseBrowserList, resolveEndpoint, safeUrl } from '../../puppeteer/browser/endpoint.js';
import { browserIds, hostKind, markSharedHosts, sharedHostNote } from '../../puppeteer/browser/host.js';
import { checkSweepFlags, SWEEP_FLAGS } from '../../puppeteer/options.js';

const refusal = (fn: () => unknown): PushlabError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PushlabError) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('--browser items', () => {
  it("accepts Puppeteer's browserWSEndpoint as is (browserless and --remote-debugging-port's webSocketDebuggerUrl)", () => {
    const e = parseBrowserItem('ws://127.0.0.1:9222/devtools/browser/4f1c-aa');
    expect(e).toMatchObject({ kind: 'ws', label: null, given: 'ws://127.0.0.1:9222/devtools/browser/4f1c-aa' });
    expect(e.url.href).toBe('ws://127.0.0.1:9222/devtools/browser/4f1c-aa');
  });

  it("accepts a Selenium Grid 4 session's CDP endpoint (se:cdp) as a WebSocket endpoint", () => {
    const e = parseBrowserItem('grid=ws://grid.example:4444/session/8d3a0c1e/se/cdp');
    expect(e).toMatchObject({ kind: 'ws', label: 'grid' });
    expect(e.url.pathname).toBe('/session/8d3a0c1e/se/cdp');
  });

  it('accepts a DevTools HTTP endpoint (resolved through /json/version later), with or without a label', () => {
    expect(parseBrowserItem('http://127.0.0.1:9222')).toMatchObject({ kind: 'http', label: null, given: 'http://127.0.0.1:9222/' });
    expect(parseBrowserItem('desk=https://desk.lan:9223/')).toMatchObject({ kind: 'http', label: 'desk', given: 'desk=https://desk.lan:9223/' });
  });

  it('keeps credentials and a token for connecting, and leaves them out of what is written down', () => {
    const e = parseBrowserItem('wss://user:s3cret@chrome.browserless.io/?token=t0k3n&stealth');
    expect(e.url.password).toBe('s3cret');
    expect(e.url.search).toBe('?token=t0k3n&stealth');
    expect(e.given).toBe('wss://chrome.browserless.io/');
    expect(safeUrl(e.url)).toBe('wss://chrome.browserless.io/');
  });

  it.each([
    ['not a url', /--browser takes \[label=\]url items, each a ws:\/\/, wss:\/\/, http:\/\/ or https:\/\/ URL .*; got 'not a url'/],
    ['ftp://127.0.0.1:9222', /--browser URL must be ws:\/\/, wss:\/\/, http:\/\/ or https:\/\/ \(a DevTools endpoint\); got 'ftp:\/\/127\.0\.0\.1:9222'/],
    ['file:///tmp/chrome', /--browser URL must be ws:\/\/, wss:\/\/, http:\/\/ or https:\/\/ .*; got 'file:\/\/\/tmp\/chrome'/],
    ['bad label!=ws://127.0.0.1:9222/x', /--browser label must be name=url or name@machine=url, each letters, digits, '\.', '_' or '-' .*; got 'bad label!'/],
    ['a@=ws://127.0.0.1:9222/x', /--browser label must be name=url or name@machine=url.*; got 'a@'/],
  ])('refuses %s, naming the flag, the value and what is allowed', (item, message) => {
    const err = refusal(() => parseBrowserItem(item));
    expect(err.code).toBe('PUSHLAB_BAD_FLAG');
    expect(err.message).toMatch(message);
  });

  it('does not repeat a secret in a refusal', () => {
    const err = refusal(() => parseBrowserItem('gopher://me:s3cret@host:9222/?token=t0k3n'));
    expect(err.message).not.toContain('s3cret');
    expect(err.message).not.toContain('t0k3n');
  });

  it('takes name@machine=url: two browsers named apart on one machine (two tunnels to it)', () => {
    const [a, b] = parseBrowserList(['a@desk=http://127.0.0.1:9222', 'b@desk=http://127.0.0.1:9223']);
    expect(a).toMatchObject({ label: 'a', machine: 'desk', given: 'a@desk=http://127.0.0.1:9222/' });
    expect(b).toMatchObject({ label: 'b', machine: 'desk' });
    expect(browserIds([a, b])).toEqual(['a', 'b']);
    expect(parseBrowserItem('desk=http://127.0.0.1:9222').machine).toBeNull();
  });

  it('refuses the same browser (or label) twice', () => {
    expect(refusal(() => parseBrowserList(['http://127.0.0.1:9222', 'http://127.0.0.1:9222'])).message).toMatch(
      /--browser names 'http:\/\/127\.0\.0\.1:9222\/' twice/,
    );
    expect(refusal(() => parseBrowserList(['a=http://127.0.0.1:9222', 'a=http://127.0.0.1:9223'])).message).toMatch(/--browser names label 'a' twice/);
    expect(parseBrowserList([])).toEqual([]);
  });

  it('names browsers by label, else host:port, made unique', () => {
    expect(browserIds(parseBrowserList(['http://127.0.0.1:9222', 'desk=ws://10.0.0.5:9222/x', 'http://127.0.0.1:9222/other']))).toEqual([
      '127.0.0.1:9222',
      'desk',
      '127.0.0.1:9222#2',
    ]);
  });

  it("calls this machine's addresses localhost, and others by name", () => {
    expect(isThisMachine('127.0.0.1')).toBe(true);
    expect(isThisMachine('[::1]')).toBe(true);
    expect(machineOf(new URL('http://localhost:9222'))).toBe('localhost');
    expect(machineOf(new URL('http://desk.example:9222'))).toBe('desk.example');
  });
});

describe('resolving a DevTools HTTP endpoint', () => {
  it('fails with PUSHLAB_BAD_BROWSER naming the endpoint when nothing listens there', async () => {
    // A port that was free a moment ago: bound, then closed.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const e = parseBrowserItem(`http://me:s3cret@127.0.0.1:${port}/?token=t0k3n`);
    const err = await resolveEndpoint(e, 5000).then(
      () => null,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_BROWSER');
    expect((err as PushlabError).message).toBe(
      `--browser http://127.0.0.1:${port}/: no DevTools answer from http://127.0.0.1:${port}/json/version (nothing is listening there)`,
    );
  });
});

describe('sweep flags with --browser', () => {
  const flags = (argv: string[]) => checkSweepFlags(commandLineFlags(SWEEP_FLAGS, 'sweep', argv));

  it('refuses --headful with --browser, and --spread-repeats without two browsers', () => {
    expect(refusal(() => flags(['--headful', '--browser', 'http://127.0.0.1:9222'])).message).toMatch(
      /--headful .* --browser connects to running ones: give one or the other/,
    );
    expect(refusal(() => flags(['--spread-repeats', '--browser', 'http://127.0.0.1:9222'])).message).toMatch(
      /--spread-repeats deals repeats over several browsers: give at least two with --browser/,
    );
    expect(refusal(() => flags(['--spread-repeats'])).code).toBe('PUSHLAB_BAD_FLAG');
    expect(() => flags(['--spread-repeats', '--browser', 'http://127.0.0.1:9222,http://127.0.0.1:9223'])).not.toThrow();
  });
});

describe('browser hosts', () => {
  const host = (over: Partial<BrowserHost>): BrowserHost => {
    const base = {
      version: 'HeadlessChrome/156.0.8078.79',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      architecture: 'x86-64',
      cores: 2,
      cpuModel: null,
      machineModel: null,
      ...over,
    };
    return {
      id: 'a',
      origin: 'remote',
      endpoint: 'http://127.0.0.1:9222/',
      host: 'localhost',
      headless: true,
      procfs: false,
      serverSharesHost: true,
      sharesHostWith: [],
      ...base,
      kind: hostKind(base),
      ...over,
    };
  };

  it('tells kinds apart by platform, architecture, cores, models and browser build, not by headless or not', () => {
    expect(host({}).kind).toBe('X11; Linux x86_64 · x86-64 · 2 cores · Chrome/156.0.8078.79');
    expect(host({ version: 'Chrome/156.0.8078.79' }).kind).toBe(host({}).kind);
    expect(host({ cores: 8 }).kind).not.toBe(host({}).kind);
    expect(host({ architecture: 'arm-64' }).kind).not.toBe(host({}).kind);
    expect(host({ cores: null }).kind).toContain('? cores');
  });

  it('marks browsers on one machine as sharing it, with the note their repeats carry', () => {
    const hosts = [host({ id: 'a' }), host({ id: 'b' }), host({ id: 'far', host: 'desk.example' })];
    markSharedHosts(hosts);
    expect(hosts.map((h) => h.sharesHostWith)).toEqual([['b'], ['a'], []]);
    expect(sharedHostNote(hosts[0])).toBe('measured on a, which shared its host (localhost) with b: sharded points there competed for CPU');
    expect(sharedHostNote(hosts[2])).toBeNull();
  });
});
