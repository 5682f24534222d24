/**
 * The in-page JSON.parse ceiling: how many events per second this tab's main thread can
 * parse when nothing else happens, on the server's own bytes. EPS over the network divided
 * by it says how much of the parse budget the transport and page leave.
 */
import type { ParseCeiling } from '../../protocol/report.js';
import { streamPath } from '../../protocol/wire.js';
import { wsUrl } from './transports/index.js';

const SAMPLE_MESSAGES = 200;

function fetchMessages(batch: number, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const path = streamPath('ws', { batch, interval: 1 });
    const ws = new WebSocket(wsUrl(path));
    const got: string[] = [];
    const timer = setTimeout(() => (ws.close(), reject(new Error(`got ${got.length} of ${count} messages in 10 s`))), 10_000);
    ws.onmessage = (e: MessageEvent<string>) => {
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

export async function parseCeiling(batch: number, durationMs: number): Promise<ParseCeiling> {
  const messages = await fetchMessages(batch, SAMPLE_MESSAGES);
  let events = 0;
  // Warm the parser up (JIT, string tables) outside the timed loop.
  for (const m of messages) events += (JSON.parse(m) as { rows: unknown[] }).rows.length;
  events = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    for (const m of messages) events += (JSON.parse(m) as { rows: unknown[] }).rows.length;
    elapsed = performance.now() - t0;
  }
  return {
    batch,
    eventsPerSec: Math.round((events * 1000) / elapsed),
    messages: messages.length,
    bytesPerMessage: Math.round(messages.reduce((n, m) => n + m.length, 0) / messages.length),
    durationMs: Math.round(elapsed),
  };
}
