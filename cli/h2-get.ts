/** A whole GET over HTTP/2 (status and body text): one helper for the benches and the tests, which may not import each other's. */
import type http2 from 'node:http2';

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
