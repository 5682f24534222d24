/**
 * Who counts as "this machine" and "a page of this server", as one rule for both local servers:
 * the main server (server/own-origins.ts: CORS, WebSocket upgrades, CONNECT, stream starts)
 * and the report viewer's own server (`npm run report -- --serve`, puppeteer/report/runs.ts).
 * It lives in cli/, the Node-side code every command shares, because the server and the driver
 * do not import each other. Nothing here reads the network: it judges request headers.
 *
 * The attacks it answers (issue 31): a page on another origin that the browser lets send
 * requests to a loopback server (a WebSocket, an EventSource, a `fetch` the server answers
 * with CORS), and DNS rebinding, where a name the attacker owns is pointed at 127.0.0.1 so that
 * the browser treats the server as the attacker's own origin. The browser always tells the
 * server which origin a script request comes from (`Origin`, and `Sec-Fetch-Site` where no
 * Origin is sent), and which name it addressed (`Host` / `:authority`): a rebinding page can
 * only address the server by the attacker's name.
 */

/** The host name of a Host header or :authority (`a:1`, `[::1]:2`), lower case and normalised as a browser would (`0x7f.1` is 127.0.0.1); null if it is not one. */
export function hostnameOf(authority: string | undefined): string | null {
  const url = urlOf(authority);
  return url === null ? null : url.hostname;
}

function urlOf(authority: string | undefined): URL | null {
  if (!authority || /[/?#@\\\s]/.test(authority)) return null;
  try {
    return new URL(`https://${authority}`);
  } catch {
    return null;
  }
}

/**
 * A name only this machine answers to, whatever DNS says: `localhost`, any 127.x.y.z, `[::1]`.
 * (Browsers resolve `localhost` themselves; no DNS answer can make a page's own name one of these.)
 */
export function isLoopbackName(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const quad = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return quad !== null && quad.slice(1).every((n) => Number(n) <= 255);
}

/** What a request says of the page that made it. */
export type OriginVerdict =
  /** A page of this server (its origin is `origin`): it gets CORS and streams. */
  | { kind: 'own'; origin: string }
  /** No browser page on another site made it (a navigation, a Node client, a bench, curl): as before. */
  | { kind: 'none' }
  /** A page on another origin: refused, with why (one line). */
  | { kind: 'foreign'; why: string };

/** The request headers the verdict reads (node:http's and node:http2's header objects both fit). */
export interface OriginHeaders {
  origin?: string | string[];
  host?: string | string[];
  ':authority'?: string | string[];
  'sec-fetch-site'?: string | string[];
  'sec-fetch-mode'?: string | string[];
  'sec-fetch-dest'?: string | string[];
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The page's origin, cut for an error line (an Origin header is the client's text). */
const shown = (origin: string) => (origin.length > 80 ? `${origin.slice(0, 80)}…` : origin);

/**
 * Judges a request by its `Origin`, or by `Sec-Fetch-Site` when it has none:
 * - An `Origin` is own when it is the very origin the request was addressed to (`scheme://Host`:
 *   same-origin, which also holds behind a tunnel that maps the port), or when `ownPort(port)`
 *   says its port is one of this server's, its scheme is `scheme`, and its host name is the
 *   one the request addressed, or both are loopback names (the page at `localhost` reaching a
 *   replica it was told of as `localhost` too, never a page served by some other name).
 *   Anything else is foreign, `null` (a sandboxed or file: page) included.
 * - Without `Origin`, a browser that says `Sec-Fetch-Site: cross-site` is reporting a page on
 *   another site (an `<img>`, `<iframe>` or `<script>` pointing here): foreign, unless it is a
 *   top-level navigation (a link the user followed: `navigate` to a `document`).
 * - Otherwise nothing says a foreign page is behind it: Node clients, benches, tests and curl
 *   send no `Origin`, and a browser sends none for a same-origin GET or a navigation.
 */
export function judgeOrigin(headers: OriginHeaders, scheme: 'https' | 'http', ownPort: (port: number) => boolean): OriginVerdict {
  const origin = one(headers.origin);
  if (origin === undefined) {
    const site = one(headers['sec-fetch-site']);
    const navigation = one(headers['sec-fetch-mode']) === 'navigate' && one(headers['sec-fetch-dest']) === 'document';
    if (site === 'cross-site' && !navigation) return { kind: 'foreign', why: 'the browser says a page on another site made it (sec-fetch-site: cross-site)' };
    return { kind: 'none' };
  }
  const foreign = { kind: 'foreign', why: `its Origin '${shown(origin)}' is not a page of this server` } as const;
  const addressed = urlOf(one(headers[':authority']) ?? one(headers.host));
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return foreign;
  }
  // An origin is exactly scheme://host[:port]; anything else (a path, credentials) is not one a browser sends.
  if (addressed === null || page.protocol !== `${scheme}:` || page.origin !== origin.toLowerCase()) return foreign;
  if (page.host === addressed.host) return { kind: 'own', origin: page.origin };
  const port = Number(page.port || (scheme === 'https' ? 443 : 80));
  const sameName = page.hostname === addressed.hostname || (isLoopbackName(page.hostname) && isLoopbackName(addressed.hostname));
  return ownPort(port) && sameName ? { kind: 'own', origin: page.origin } : foreign;
}
