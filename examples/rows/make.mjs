// Three payload shapes for `--rows` (docs/your-stream.md), seeded (mulberry32), 1000 events each: node examples/rows/make.mjs, run in examples/rows/.
import { writeFileSync } from 'node:fs';
function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = mulberry32(42);
const pick = (a) => a[Math.floor(r() * a.length)];
const N = 1000,
  t0 = 1764374400000;
// flat objects, short keys, prices as strings (a trade feed)
let t = t0;
const flat = [];
for (let i = 0; i < N; i++) {
  t += Math.floor(-Math.log(1 - r()) * 2);
  const s = pick(['AAPL', 'MSFT', 'NVDA', 'AMZN', 'TSLA', 'META', 'GOOG']);
  flat.push({ s, p: (100 + r() * 400).toFixed(2), q: 1 + Math.floor(r() * 500), x: pick(['N', 'Q', 'P', 'Z']), c: pick(['@', 'F', 'I', 'T']), t });
}
// objects with nested arrays (order book updates)
const book = [];
t = t0;
for (let i = 0; i < N; i++) {
  t += Math.floor(-Math.log(1 - r()) * 5);
  const mid = 64000 + r() * 500;
  const side = (sgn) => Array.from({ length: 10 }, (_, k) => [(mid + sgn * (k + 1) * 0.5).toFixed(1), (r() * 3).toFixed(4)]);
  book.push({ sym: pick(['BTC-USD', 'ETH-USD', 'SOL-USD']), seq: 880000 + i, bids: side(-1), asks: side(1), t });
}
// long text (log records)
const words =
  'request handled upstream timeout retry cache miss user session token refreshed database query slow index scan payment gateway responded queue depth worker pool saturated connection reset by peer tls handshake completed'.split(
    ' ',
  );
const logs = [];
t = t0;
for (let i = 0; i < N; i++) {
  t += Math.floor(-Math.log(1 - r()) * 3);
  const len = 30 + Math.floor(r() * 40);
  const msg = Array.from({ length: len }, () => pick(words)).join(' ');
  logs.push({
    ts: new Date(t).toISOString(),
    level: pick(['INFO', 'INFO', 'INFO', 'WARN', 'ERROR', 'DEBUG']),
    service: pick(['api', 'billing', 'auth', 'search']),
    host: `node-${1 + Math.floor(r() * 24)}`,
    trace: Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join(''),
    msg,
    t,
  });
}
for (const [f, ev] of [
  ['flat-trades.ndjson', flat],
  ['order-book.ndjson', book],
  ['logs.ndjson', logs],
])
  writeFileSync(f, ev.map((e) => JSON.stringify(e)).join('\n') + '\n');
