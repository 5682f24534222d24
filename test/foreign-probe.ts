/**
 * Before/after figures for the foreign-origin class (issue 31): what a page on another origin
 * gets from the real server on loopback. `npx tsx test/foreign-probe.ts`; prints one JSON line.
 */
import http2 from 'node:http2';
import WebSocket from 'ws';
import { startServerSession } from './test-server.js';
import { h2get } from './h2-get.js';

const FOREIGN = 'https://evil.example';
const running = await startServerSession();
const { server, session } = running;
try {
  const cors = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const req = session.request({ ':path': '/stats', origin: FOREIGN });
    req.on('response', (h) => resolve({ status: h[':status'], allowOrigin: h['access-control-allow-origin'] ?? null }));
    req.on('error', reject);
    req.resume();
  });
  // A WebSocket as a foreign page opens it: bytes pulled in 3 s.
  const ws = await new Promise<{ opened: boolean; bytes: number; status: number | null }>((resolve) => {
    let bytes = 0;
    let opened = false;
    const sock = new WebSocket(`wss://127.0.0.1:${server.port}/ws?batch=2000&interval=1&client=foreign`, { rejectUnauthorized: false, origin: FOREIGN });
    sock.on('open', () => (opened = true));
    sock.on('message', (d: Buffer) => (bytes += d.length));
    sock.on('unexpected-response', (_req, res) => {
      resolve({ opened, bytes, status: res.statusCode ?? null });
      sock.terminate();
    });
    sock.on('error', () => undefined);
    setTimeout(() => {
      resolve({ opened, bytes, status: opened ? 101 : null });
      sock.terminate();
    }, 3000);
  });
  // Someone's poll, and another connection asking for ids 1…3 and for the real one.
  const owner = await new Promise<string>((resolve, reject) => {
    const req = session.request({ ':path': '/poll?batch=2&interval=5&client=owner' });
    req.on('response', (h) => resolve(String(h['pushlab-poll-id'])));
    req.on('error', reject);
    req.resume();
  });
  await new Promise((r) => setTimeout(r, 200));
  const other = http2.connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
  const guessed = [];
  for (const id of ['1', '2', '3', owner]) {
    const r = await h2get(other, `/poll?id=${encodeURIComponent(id)}`);
    guessed.push({ id: id === owner ? `owner's (${id})` : id, status: r.status, bytes: r.body.length });
  }
  other.close();
  console.log(JSON.stringify({ corsForeignStats: cors, foreignWs: ws, ownerPollId: owner, otherConnectionPolls: guessed }));
} finally {
  await running.close();
}
