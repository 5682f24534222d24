/**
 * Load clients for `npm run bench:server`, run as a separate process so their CPU is not
 * the server's. Opens N WS (HTTP/1.1), SSE or fetch (NDJSON) streams (the HTTP/2 ones on one
 * session, as Chrome does), counts messages and bytes without parsing JSON, and reports when
 * asked. The other transports need what only a browser does here (RFC 8441 CONNECT, gRPC-web's
 * framing, poll's request loop, a second origin): bench:server refuses them.
 *
 * argv: <ws|sse|fetch> <base-url> <batch> <interval> <connections> [stall]
 * stdout: `open` once every stream is open; then, for each line `report` on stdin, one JSON
 * line of counters; `stall` pauses reading on every stream, `quit` exits.
 */
import http2 from 'node:http2';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { TRANSPORT_INFO, type Transport } from '../protocol/wire.js';

const [transport, base, batch, interval, connections] = process.argv.slice(2);
/**
 * Chrome's TLS 1.3 preference on CPUs with AES instructions. Node's own client puts
 * AES-256-GCM first, and the server follows the client's order, so without this the bench
 * would charge the server for a cipher Chrome never negotiates.
 */
const CHROME_CIPHERS = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';
const n = Number(connections);
const path = `${TRANSPORT_INFO[transport as Transport].path}?batch=${batch}&interval=${interval}`;
/** A message's last bytes: SSE events end with a blank line, NDJSON lines with a newline. */
const endsWithBlankLine = transport === 'sse';
let messages = 0;
let bytes = 0;
const pausers: (() => void)[] = [];
const opened: Promise<void>[] = [];

if (transport === 'ws') {
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(`${base.replace(/^https/, 'wss').replace(/\/$/, '')}${path}`, {
      rejectUnauthorized: false,
      perMessageDeflate: false,
      ciphers: CHROME_CIPHERS,
    });
    ws.on('message', (data: Buffer) => {
      messages++;
      bytes += data.length;
    });
    opened.push(new Promise((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject))));
    pausers.push(() => ws.pause());
  }
} else {
  const session = http2.connect(base, { rejectUnauthorized: false, ciphers: CHROME_CIPHERS, settings: { initialWindowSize: 6 * 1024 * 1024 } });
  // Chrome's windows: 6 MiB per stream, 15 MiB per session.
  session.once('connect', () => session.setLocalWindowSize(15 * 1024 * 1024));
  for (let i = 0; i < n; i++) {
    const req = session.request({ ':path': path, accept: endsWithBlankLine ? 'text/event-stream' : 'application/x-ndjson' });
    let last = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (!endsWithBlankLine) {
        // NDJSON: one message a line.
        for (let k = chunk.indexOf(10); k !== -1; k = chunk.indexOf(10, k + 1)) messages++;
        return;
      }
      // Events end with a blank line; count "\n\n", including one split across chunks.
      if (last === 10 && chunk[0] === 10) messages++;
      for (let k = chunk.indexOf(10); k !== -1 && k < chunk.length - 1; k = chunk.indexOf(10, k + 1)) if (chunk[k + 1] === 10) messages++;
      last = chunk[chunk.length - 1];
    });
    opened.push(new Promise((resolve, reject) => (req.once('response', () => resolve()), req.once('error', reject))));
    pausers.push(() => req.pause());
  }
}

await Promise.all(opened);
process.stdout.write('open\n');
const t0 = performance.now();
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line === 'report') {
      const cpu = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ messages, bytes, cpuUs: cpu.user + cpu.system, atMs: performance.now() - t0 })}\n`);
    } else if (line === 'stall') {
      for (const p of pausers) p();
    } else if (line === 'quit') {
      process.exit(0);
    }
  })
  .on('close', () => process.exit(0)); // bench:server is gone (stdin closed however it ended): so are its clients
