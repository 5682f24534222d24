/**
 * The server and the browsers a measuring command (sweep, advise) runs with, started side by
 * side: neither needs the other until the first page. Each one that starts lands in the
 * caller's `Children` at once, so a failure of another still leaves it to be stopped.
 */
import type { BrowserHost } from '../../protocol/report.js';
import type { BrowserSlot } from './slot.js';
import { serverArgs, startServer, type ServerHandle } from '../measure/server-process.js';
import type { BrowserEndpoint } from './endpoint.js';
import { browserIds, describeBrowser } from './host.js';
import { LocalBrowser } from './local.js';
import { RemoteBrowser } from './remote.js';
import type { NetworkLink } from '../link/link.js';

/** What the command started or connected to, as far as it got: the caller stops these. */
export interface Children {
  server: ServerHandle | null;
  local: LocalBrowser | null;
  remotes: RemoteBrowser[];
}

/**
 * Starts a server (unless `remoteServer`) and launches Chrome (or connects to every endpoint),
 * then describes each browser as the report's `hosts` entry.
 */
export async function startServerAndBrowsers(
  into: Children,
  o: {
    remoteServer: ServerHandle | null;
    endpoints: readonly BrowserEndpoint[];
    headless: boolean;
    log: (line: string) => void;
    /** `--rows`: the file whose events the started server streams (serverArgs); '' for the car rows. */
    rows?: string;
    /** `--chart-field`: the field the page's chart plots (serverArgs); '' for the first numeric one. */
    chartField?: string;
    /** A network link between the server and the browser (puppeteer/link/): both start in its namespaces. */
    link?: NetworkLink | null;
  },
): Promise<{ server: ServerHandle; slots: { slot: BrowserSlot; host: BrowserHost }[] }> {
  const [s, b] = await Promise.allSettled([
    o.remoteServer
      ? Promise.resolve(o.remoteServer)
      : startServer(serverArgs(o.rows ?? '', o.chartField ?? ''), undefined, undefined, undefined, o.link?.server),
    o.endpoints.length
      ? connectAll(o.endpoints, into.remotes, o.log)
      : LocalBrowser.launch(o.headless, o.log, o.link ? { wrap: (p) => o.link!.chromeWrapper(p) } : {}).then((l) => (into.local = l)),
  ]);
  if (s.status === 'fulfilled') into.server = s.value;
  if (s.status === 'rejected') throw s.reason;
  if (b.status === 'rejected') throw b.reason;
  const server = s.value;
  // The server listens: the relays that carry the driver's requests and the page's connections to it.
  await o.link?.connect();
  const place = { url: server.url, startedHere: o.remoteServer === null };
  const local = into.local;
  const slots = local
    ? [{ slot: local as BrowserSlot, host: await describeBrowser(local, { origin: 'launched' }, 'local', place) }]
    : await Promise.all(
        into.remotes.map(async (r, i) => ({
          slot: r as BrowserSlot,
          host: await describeBrowser(r, { origin: 'remote', endpoint: r.endpoint }, browserIds(o.endpoints)[i], place),
        })),
      );
  return { server, slots };
}

/** Connects to every endpoint, side by side; each one connected lands in `into` at once. */
async function connectAll(endpoints: readonly BrowserEndpoint[], into: RemoteBrowser[], log: (line: string) => void): Promise<void> {
  const settled = await Promise.allSettled(endpoints.map((e) => RemoteBrowser.connect(e, log)));
  for (const r of settled) if (r.status === 'fulfilled') into.push(r.value);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
