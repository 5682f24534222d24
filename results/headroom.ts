/**
 * What a finalist's headroom search showed (protocol/advice.ts Headroom), read once for every view
 * of it: the answer's Headroom lines (advice-words.ts) and the finalists' costs table's cell
 * (costs.ts). Pure.
 */
import { EARLIER_MESSAGE_LIMIT, type Headroom, type HeadroomLimit } from '../protocol/advice.js';

/** The most rows per message the server sent when the search ran: recorded, or for reports written before it was, the limit then. */
export function messageLimitOf(h: Headroom): number {
  return h.messageLimit ?? EARLIER_MESSAGE_LIMIT;
}

/** What ended a headroom search: recorded, or for reports written before it was, read from its other fields. */
export function headroomLimitOf(h: Headroom): HeadroomLimit {
  if (h.limit) return h.limit;
  if (h.batch === null || (h.firstPast && h.firstPast.batch <= h.batch)) return 'not-held';
  if (h.stopped) return h.stopped;
  if (h.atLeast) return h.batch >= messageLimitOf(h) ? 'message-limit' : 'search-range';
  return 'setup';
}

/** A headroom the search showed: the highest batch sustained, its rate, and what ended the search. */
export interface HeadroomShown {
  batch: number;
  eventsPerSec: number;
  limit: Exclude<HeadroomLimit, 'not-held'>;
  /**
   * True when something other than the setup ended the search (the server's largest message, the
   * search's range, the budget, its confirmations, an interruption): the setup's own limit lies
   * at or above the rate (`≥`).
   */
  atLeast: boolean;
}

/**
 * The headroom shown, or null when none was: the setup, measured again at its own batch, did not
 * sustain, or the search confirmed no batch at all.
 */
export function headroomShown(h: Headroom): HeadroomShown | null {
  const limit = headroomLimitOf(h);
  if (limit === 'not-held' || h.batch === null || h.eventsPerSec === null) return null;
  return { batch: h.batch, eventsPerSec: h.eventsPerSec, limit, atLeast: limit !== 'setup' };
}
