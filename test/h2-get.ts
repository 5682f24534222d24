/** Whole GETs (status and body text) over HTTP/2 and HTTP/1.1, shared by the server tests. */
import http from 'node:http';
import type http2 from 'node:http2';
import https from 'node:https';

export function h2get(session: http2.ClientHttp2Session, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': p });
    let status = 0;
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (d: string) => (body += d));
    req.on('end', () => resolve({ status, body }));
    req.on('error', reject);
  });
}

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
