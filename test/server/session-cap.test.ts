/**
 * An HTTP/2 session serves a bounded number of streams, then is closed gracefully (GOAWAY):
 * the streams it has go on, and the client's next request goes to a new connection. A sweep's
 * Chrome keeps one session per origin for its whole life, and one such session ended up
 * refusing every new page load in the last round of a 14-minute run.
 */
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h2get } from '../helpers/h2-get.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const CAP = 3;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ maxStreamsPerSession: CAP });
});
afterAll(() => server.close());

const connect = () => http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });

describe('HTTP/2 session stream cap', () => {
  it('answers the capped stream, then sends GOAWAY; a new session is served', async () => {
    const first = connect();
    const goaway = new Promise<number>((resolve) => first.once('goaway', (code: number) => resolve(code)));
    for (let i = 0; i < CAP; i++) expect((await h2get(first, '/stats')).status).toBe(200);
    // NGHTTP2_NO_ERROR: a graceful close, not a refusal.
    expect(await goaway).toBe(0);
    first.close();

    const second = connect();
    expect((await h2get(second, '/stats')).status).toBe(200);
    second.close();
  });

  it('keeps a stream that is open when the cap is reached', async () => {
    const session = connect();
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const sse = session.request({ ':path': '/sse?batch=1&interval=10' });
    let events = 0;
    sse.setEncoding('utf8');
    sse.on('data', (d: string) => (events += d.split('\n\n').length - 1));
    for (let i = 1; i < CAP; i++) await h2get(session, '/stats');
    await goaway;
    const atGoaway = events;
    await new Promise((r) => setTimeout(r, 300));
    expect(events).toBeGreaterThan(atGoaway);
    sse.close();
    session.close();
  });
});
