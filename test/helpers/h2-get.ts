/** Whole GETs (status and body text) over HTTP/2 and HTTP/1.1, shared by the server tests. */
import http from 'node:http';
import https from 'node:https';

export { h2get } from '../../cli/h2-get.js';

/**
 * An HTTP/1.1 GET of `p` on `origin` (http: or https:, any certificate), the path sent exactly
 * as given: Node's client does not normalise it, which the traversal probes rely on.
 */
export function h1get(origin: string, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(origin);
    const get = url.protocol === 'https:' ? https.request : http.request;
    const req = get({ host: url.hostname, port: url.port, path: p, rejectUnauthorized: false, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
