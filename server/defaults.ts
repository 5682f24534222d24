/** The server's defaults: buildServer (tests, benches) and `npm run server`'s flags both take them from here. */
import type { ClockKind } from './clock.js';
import type { SseWriter } from './sse.js';

export const MIB = 1024 * 1024;

export const SERVER_DEFAULTS: { sendBufferLimitBytes: number; clock: ClockKind; sseWriter: SseWriter } = {
  /** Shed batches for a client once this much is queued for it. */
  sendBufferLimitBytes: 4 * MIB,
  /** Node timers: the cheaper wake-up (see clock.ts). */
  clock: 'timer',
  /** Pre-encoded bytes measured fastest (see sse.ts). */
  sseWriter: 'bytes',
};
