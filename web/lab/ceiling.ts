/**
 * The in-page decoding ceiling of an encoding: how many events per second this tab's main
 * thread can decode when nothing else happens, on the server's own bytes, doing per batch what
 * the count-only page does (decode, row count, `sentAt` and `dueAt`), in every encoding alike. EPS over
 * the network divided by it says how much of the decoding budget the transport and page leave;
 * `json`'s is the JSON.parse ceiling every point has always been related to.
 */
import type { ParseCeiling } from '../../protocol/page-api.js';
import { streamPath, type Encoding } from '../../protocol/wire.js';
import { DEFAULT_ENCODING } from '../../protocol/encodings.js';
import { wsUrl } from './transports/index.js';
import { PAGE_CODECS } from './codecs/index.js';

/**
 * Messages in the sample, up to batch 10,000 whatever their size. Not bounded by bytes there,
 * though at batch 10,000 the 200 messages are 260 MB and take 2.7 s to fetch: a 16 or 64 MiB
 * sample (13 or 51 messages) read that ceiling 12–17% lower than 200 messages in interleaved pairs
 * (2.5 against 3.0 M events/s in the pairs no other load disturbed), outside their spread.
 */
const SAMPLE_MESSAGES = 200;

/**
 * Events in the sample at most: batch 10,000's 200 messages. A larger batch (up to 100,000 rows,
 * 13 MB a message) takes fewer messages of the same 260 MB, so the tab holds and fetches no more
 * than it did at the largest batch measured above; 200 of them would be 2.6 GB. Whether a ceiling
 * read on 20 messages of 100,000 rows reads as one on 200 would is not measured.
 */
const SAMPLE_EVENTS = 2_000_000;

/** Messages in the sample at `batch` rows a message: SAMPLE_MESSAGES, or fewer where they would pass SAMPLE_EVENTS (at least 2, for a pass of more than the first). */
export const sampleMessages = (batch: number): number => Math.max(2, Math.min(SAMPLE_MESSAGES, Math.floor(SAMPLE_EVENTS / batch)));

/**
 * Passes before the timed loop, ms (at least one): at batch 20 one pass is ~1 ms, too short
 * for the decoder to reach its optimised code, and a 250 ms loop after a single pass read 4–10%
 * below the 1 s one (batch 20 and 100); after 200 ms of passes, 300 ms read within the pairs' spread (driver's CEILING_MS).
 */
const WARMUP_MS = 200;

/**
 * Timed passes, at least, whatever `durationMs`: at batch 10,000 a pass is 2 M events, ~0.7 s,
 * and a single one read 7–9% below the two the 1 s loop took (2.57–2.85 against 2.77–3.16 M
 * events/s in the undisturbed pairs); two keep that ceiling as it was measured.
 */
const MIN_TIMED_PASSES = 2;

/** The stream query's `encoding`: absent for the default. */
const named = (encoding: Encoding) => (encoding === DEFAULT_ENCODING ? {} : { encoding });

/** `count` messages of a `ws` stream: text for a text encoding, bytes otherwise. */
function fetchMessages(batch: number, count: number, encoding: Encoding): Promise<(string | ArrayBuffer)[]> {
  return new Promise((resolve, reject) => {
    const path = streamPath('ws', { batch, interval: 1, ...named(encoding) });
    const ws = new WebSocket(wsUrl(path));
    ws.binaryType = 'arraybuffer';
    const got: (string | ArrayBuffer)[] = [];
    const timer = setTimeout(() => (ws.close(), reject(new Error(`got ${got.length} of ${count} messages in 10 s`))), 10_000);
    ws.onmessage = (e: MessageEvent<string | ArrayBuffer>) => {
      got.push(e.data);
      if (got.length === count) {
        clearTimeout(timer);
        ws.close();
        resolve(got);
      }
    };
    ws.onerror = () => (clearTimeout(timer), reject(new Error(`WebSocket ${path} failed`)));
  });
}

/**
 * One pass over the messages as the count-only page takes them: rows counted, `sentAt` and `dueAt` read
 * (summed into `sink` so no engine can drop the read). Returns the rows.
 */
type Pass = (messages: (string | ArrayBuffer)[], sink: { sentAt: number }) => number;

async function passOf(encoding: Encoding): Promise<Pass> {
  const codec = await PAGE_CODECS[encoding]();
  return (messages, sink) => {
    let events = 0;
    // The messages are one stream from its start (Arrow's first holds the schema): a fresh decoder per pass.
    const decoder = codec.open({
      batch: (b) => {
        events += codec.count(b);
        sink.sentAt += codec.sentAt(b) + codec.dueAt(b);
      },
      bytes: () => undefined,
      undecodable: () => undefined,
    });
    for (const m of messages) decoder.message(m);
    return events;
  };
}

export async function parseCeiling(batch: number, durationMs: number, encoding: Encoding = 'json'): Promise<ParseCeiling> {
  const messages = await fetchMessages(batch, sampleMessages(batch), encoding);
  const pass = await passOf(encoding);
  const sink = { sentAt: 0 };
  // Warm the decoder up (JIT, string tables, the young generation's size) outside the timed loop.
  const warm0 = performance.now();
  do pass(messages, sink);
  while (performance.now() - warm0 < WARMUP_MS);
  let events = 0;
  let passes = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs || passes < MIN_TIMED_PASSES) {
    events += pass(messages, sink);
    passes++;
    elapsed = performance.now() - t0;
  }
  return {
    batch,
    ...named(encoding),
    eventsPerSec: Math.round((events * 1000) / elapsed),
    messages: messages.length,
    bytesPerMessage: Math.round(messages.reduce((n, m) => n + (typeof m === 'string' ? m.length : m.byteLength), 0) / messages.length),
    durationMs: Math.round(elapsed),
  };
}
