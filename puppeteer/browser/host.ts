/**
 * Which browser ran a point, and on what: the `hosts` entries of a report. A remote browser
 * is described by what CDP and the browser's own page give (version, user agent, cores,
 * architecture, the machine model where the platform has one); the CPU model only a launched
 * Chrome's host can say, from this machine's OS.
 */
import os from 'node:os';
import type { ClockOffset } from '../../protocol/repeat-figures.js';
import type { BrowserHost } from '../../protocol/report.js';
import { clockOffset } from '../measure/clock-offset.js';
import { PushlabError } from '../../protocol/errors.js';
import { isThisMachine, machineOf, safeUrl, type BrowserEndpoint } from './endpoint.js';
import type { BrowserSlot } from './slot.js';

/** Where the server runs, as far as the driver can tell. */
export interface ServerPlace {
  url: string;
  /** The sweep started it on this machine. */
  startedHere: boolean;
}

/** Where a browser came from. */
export type BrowserOrigin = { origin: 'launched' } | { origin: 'remote'; endpoint: BrowserEndpoint };

/** What the browser's own page says about its host. */
interface PageFacts {
  cores: number | null;
  architecture: string | null;
  clock: ClockOffset | null;
}

/**
 * Loads the server's `/stats` in the browser (a secure context, so `navigator.userAgentData`
 * answers) and reads the host's cores and architecture. It also proves the browser can reach
 * the server before any point is measured: a remote browser often cannot reach a loopback one.
 */
async function pageFacts(slot: BrowserSlot, server: ServerPlace, name: string): Promise<PageFacts> {
  const page = await slot.newPage();
  try {
    try {
      await page.goto(new URL('stats', server.url).href, { timeout: 15_000 });
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw new PushlabError(
        'PUSHLAB_BAD_BROWSER',
        `browser ${name} cannot load the server at ${server.url} (${why}): a browser on another host needs a server it can reach (--server, see docs/remote.md, "Outgrowing one machine")`,
      );
    }
    // The page is the server's: its clock against the server's, as the sweep first meets it.
    const clock = await clockOffset(page).catch(() => null);
    // Runs in the page; this project's Node tsconfig has no DOM types, hence the shape spelled out.
    const facts = await page.evaluate(async () => {
      type Nav = { hardwareConcurrency?: number; userAgentData?: { getHighEntropyValues(h: string[]): Promise<{ architecture?: string; bitness?: string }> } };
      const nav = (globalThis as unknown as { navigator: Nav }).navigator;
      const high = nav.userAgentData ? await nav.userAgentData.getHighEntropyValues(['architecture', 'bitness']).catch(() => null) : null;
      return {
        cores: typeof nav.hardwareConcurrency === 'number' ? nav.hardwareConcurrency : null,
        architecture: high?.architecture ? `${high.architecture}${high.bitness ? `-${high.bitness}` : ''}` : null,
      };
    });
    return { ...facts, clock };
  } finally {
    await page.close().catch(() => undefined);
  }
}

/** `X11; Linux x86_64` from a user agent: the platform part. */
export function uaPlatform(userAgent: string): string {
  return /\(([^)]*)\)/.exec(userAgent)?.[1] ?? 'unknown platform';
}

/** The kind of host: figures from two browsers of different kinds are never pooled. */
export function hostKind(h: Pick<BrowserHost, 'userAgent' | 'architecture' | 'cores' | 'cpuModel' | 'machineModel' | 'version'>): string {
  return [
    uaPlatform(h.userAgent),
    h.architecture ?? '',
    h.cores === null ? '? cores' : `${h.cores} cores`,
    h.cpuModel ?? '',
    h.machineModel ?? '',
    h.version.replace(/^HeadlessChrome/, 'Chrome'),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Describes one browser; `id` must be unique in the sweep. */
export async function describeBrowser(slot: BrowserSlot, from: BrowserOrigin, id: string, server: ServerPlace): Promise<BrowserHost> {
  const browser = slot.browser();
  // Side by side: the tab's load does not wait on the browser's answers.
  const [version, userAgent, info, facts] = await Promise.all([
    browser.version(),
    browser.userAgent(),
    // Firefox has no CDP, and no SystemInfo: its machine model stays unknown.
    slot
      .session()
      ?.send('SystemInfo.getInfo')
      .catch(() => null) ?? null,
    pageFacts(slot, server, id),
  ]);
  const model = [info?.modelName, info?.modelVersion].filter(Boolean).join(' ').trim();
  const remote = from.origin === 'remote';
  const base = {
    version,
    userAgent,
    architecture: facts.architecture,
    // A launched Chrome shares this machine, whose OS says what the page cannot.
    cores: remote ? facts.cores : os.cpus().length,
    cpuModel: remote ? null : (os.cpus()[0]?.model.trim() ?? null),
    machineModel: model || null,
  };
  const serverMachine = server.startedHere ? 'localhost' : machineOf(new URL(server.url));
  let host: string;
  let serverSharesHost: boolean | null;
  if (from.origin === 'launched') {
    host = 'localhost';
    serverSharesHost = server.startedHere || isThisMachine(new URL(server.url).hostname);
  } else {
    // A Grid session runs on its node; the se:cdp URL names the hub.
    const node = from.endpoint.gridNode;
    const machine = machineOf(node ? new URL(node.uri) : from.endpoint.url);
    host = from.endpoint.machine ?? from.endpoint.label ?? machine;
    // A labelled loopback endpoint is most likely a tunnel to another machine: cannot tell.
    serverSharesHost = host !== machine && machine === 'localhost' ? null : machine === serverMachine;
  }
  return {
    id,
    origin: from.origin,
    ...(slot.engine === 'firefox' ? { engine: 'firefox' as const } : {}),
    endpoint: remote ? safeUrl(from.endpoint.url) : null,
    host,
    headless: /Headless/.test(version) || /Headless/.test(userAgent),
    ...base,
    kind: hostKind(base),
    procfs: !remote,
    serverSharesHost,
    sharesHostWith: [],
    ...(remote && from.endpoint.gridNode ? { gridNode: from.endpoint.gridNode } : {}),
    ...(facts.clock
      ? { clock: { offsetMs: Math.round(facts.clock.offsetMs * 1000) / 1000, uncertaintyMs: Math.round(facts.clock.uncertaintyMs * 1000) / 1000 } }
      : {}),
  };
}

/** Ids for the browsers: the label, else host:port, made unique with `#2`, `#3`. */
export function browserIds(endpoints: readonly BrowserEndpoint[]): string[] {
  const used = new Map<string, number>();
  return endpoints.map((e) => {
    const base = e.label ?? (e.url.host || e.url.href);
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  });
}

/** Fills `sharesHostWith`: browsers on one machine compete for its CPU. */
export function markSharedHosts(hosts: BrowserHost[]): void {
  for (const h of hosts) h.sharesHostWith = hosts.filter((o) => o !== h && o.host === h.host).map((o) => o.id);
}

/** The note every repeat of a browser that shared its host carries. */
export function sharedHostNote(h: BrowserHost): string | null {
  return h.sharesHostWith.length
    ? `measured on ${h.id}, which shared its host (${h.host}) with ${h.sharesHostWith.join(', ')}: sharded points there competed for CPU`
    : null;
}
