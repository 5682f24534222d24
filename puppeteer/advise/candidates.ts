/**
 * The advisor's candidate space: every configuration that offers the target's rate, over
 * transport × message size (batch and tick together) × connections × parsing × origins ×
 * encoding, and the one-setting moves between them the search takes. Pure: no Node, no browser.
 */
import type { Candidate, Knob } from '../../protocol/advice.js';
import { LIMITS } from '../../protocol/limits.js';
import { windowSecFor } from '../../results/advice-figures.js';
import { pointId, type Point } from '../../protocol/scenario.js';
import { pointFactors } from '../../protocol/factors.js';
import { tabOf } from '../../protocol/tab-state.js';
import { ADVISE_CONNECTIONS, ADVISE_TICKS_MS, adviseTicksMs, type Target } from '../../protocol/target.js';
import {
  arrowBatchMismatch,
  carries,
  carriesFileEvents,
  compressionOf,
  DEFAULT_POLL_MS,
  ENCODING_TAGS,
  ENCODINGS,
  TRANSPORT_INFO,
  type Encoding,
  type RenderMode,
  type Transport,
} from '../../protocol/wire.js';

/** What the space spans besides transports; the defaults are protocol/target.ts's ticks and connections. */
export interface CandidateSpace {
  /** Ticks it may try: a target takes those up to half its p99 bound (protocol/target.ts adviseTicksMs). */
  ticksMs: readonly number[];
  connections: readonly number[];
  /** Parsing Worker counts tried beside the main thread: two cores make more than 2 pointless here. */
  workers: readonly number[];
  /** Origin counts tried where they matter (HTTP/2 on the main origin, with at least that many connections). */
  origins: readonly number[];
  /** Encodings tried where the transport carries them (the encoding's carriages, protocol/encodings.ts). */
  encodings: readonly Encoding[];
  /** Whether a compressed stream is tried beside the plain one, where the transport carries compression (its own kind). */
  compression: boolean;
  /** The events are a `--rows` file's: encodings that cannot carry them (grpc-web's protobuf rows) are left out (carriesFileEvents). */
  fileEvents?: boolean;
  /**
   * The largest batch the server sends of these events (its /payload `maxBatch`: fewer than
   * LIMITS.batch.max for a `--rows` file of large events); absent: LIMITS.batch.max.
   */
  maxBatch?: number;
}

export const DEFAULT_SPACE: CandidateSpace = {
  ticksMs: ADVISE_TICKS_MS,
  connections: ADVISE_CONNECTIONS,
  workers: [1, 2],
  origins: [1, 2],
  // Every encoding the build has, Arrow too (from its minimum batch, see candidates below): the
  // search measures which one pays on this machine.
  encodings: ENCODINGS,
  compression: true,
};

/**
 * The space a target leaves of `space`: with a render module (`--render-module`), main-thread
 * parsing only. A module draws each batch where it is decoded, so the page takes it only with
 * `parse: main` (web/lab/config.ts), and a Worker candidate could never run; the space's Worker
 * counts are dropped, its other lists kept.
 */
export function spaceFor(target: Pick<Target, 'renderModule'>, space: CandidateSpace = DEFAULT_SPACE): CandidateSpace {
  return target.renderModule ? { ...space, workers: [] } : space;
}

/** A candidate's message size may overshoot the rate by at most this share (a batch is whole rows). */
export const MAX_OVERSHOOT = 0.05;

/**
 * `poll`'s request interval for a latency bound: a poll collects what is due since the last one,
 * so a row waits up to pollMs before it is even asked for; a quarter of the bound leaves the
 * rest to the network and the page, and more than DEFAULT_POLL_MS is never needed.
 */
export function advisePollMs(p99BoundMs: number): number {
  return Math.max(LIMITS.pollMs.min, Math.min(DEFAULT_POLL_MS, Math.floor(p99BoundMs / 4)));
}

/** The knobs a candidate has, and what sets each (the batch follows the tick and connections at a rate). */
export const KNOBS: readonly Knob[] = ['tick', 'connections', 'parsing', 'origins', 'encoding', 'compression'];

const knobValue: Record<Knob, (c: Candidate) => string> = {
  tick: (c) => String(c.intervalMs),
  connections: (c) => String(c.concurrency),
  parsing: (c) => `${c.parse}${c.workers}`,
  origins: (c) => String(c.origins),
  encoding: (c) => c.encoding,
  compression: (c) => c.compression ?? 'off',
};

/** The knobs two candidates of one transport differ in (batch aside: it follows the tick and connections). */
export function knobsBetween(a: Candidate, b: Candidate): Knob[] {
  return KNOBS.filter((k) => knobValue[k](a) !== knobValue[k](b));
}

/**
 * Where a candidate stands on an ordered knob: a move on it steps to the nearest value either side,
 * so a transport's best climbs in one direction while it pays and stops where it does not (with
 * ticks up to 5 s and 8 connections, every value a move made the screen outgrow its budget).
 * Null for knobs whose values have no order (encoding, compression): every value is a move.
 */
const knobRank: Record<Knob, ((c: Candidate) => number) | null> = {
  tick: (c) => c.intervalMs,
  connections: (c) => c.concurrency,
  parsing: (c) => (c.parse === 'worker' ? c.workers : 0),
  origins: (c) => c.origins,
  encoding: null,
  compression: null,
};

/**
 * The one-setting moves from `from` among `cs` (its transport's candidates): on an ordered knob
 * the nearest value below and above only, on the others every value.
 */
export function stepsFrom(from: Candidate, cs: readonly Candidate[]): Candidate[] {
  const moves = cs.filter((c) => c.transport === from.transport && knobsBetween(from, c).length === 1);
  return moves.filter((c) => {
    const rank = knobRank[knobsBetween(from, c)[0]];
    if (!rank) return true;
    const [mine, own] = [rank(from), rank(c)];
    // Nearest on its side: no other move on this knob lies between `from` and it.
    return !moves.some((x) => x !== c && knobsBetween(from, x)[0] === knobsBetween(from, c)[0] && (rank(x) - mine) * (rank(x) - own) < 0);
  });
}

/** Whether the origins factor changes anything for a transport: HTTP/2 on the main origin spreads streams over TCP connections. */
export function originsMatter(t: Transport): boolean {
  return TRANSPORT_INFO[t].origin === 'main' && TRANSPORT_INFO[t].http === 'h2';
}

function candidateId(c: Omit<Candidate, 'id' | 'offeredEventsPerSec'>): string {
  return (
    `${c.transport}-b${c.batch}-c${c.concurrency}-i${c.intervalMs}` +
    `${c.parse === 'worker' ? `-w${c.workers}` : ''}${c.origins > 1 ? `-o${c.origins}` : ''}${c.encoding !== 'json' ? `-${ENCODING_TAGS[c.encoding]}` : ''}${c.compression ? `-${c.compression}` : ''}${c.pollMs !== undefined ? `-p${c.pollMs}` : ''}`
  );
}

/** A candidate from its settings, with its id and offered rate. */
export function makeCandidate(c: Omit<Candidate, 'id' | 'offeredEventsPerSec'>): Candidate {
  return { ...c, id: candidateId(c), offeredEventsPerSec: (c.batch * c.concurrency * 1000) / c.intervalMs };
}

/** The same candidate with another batch (the headroom search): same tick and connections. */
export function withBatch(c: Candidate, batch: number): Candidate {
  const { id: _id, offeredEventsPerSec: _offered, ...settings } = c;
  return makeCandidate({ ...settings, batch });
}

/**
 * The batch that offers `rate` at this tick on `connections`, or null when none does within
 * MAX_OVERSHOOT (a fraction of a row per message), or past the server's batch limit (`maxBatch`).
 */
export function batchFor(rate: number, tickMs: number, connections: number, maxBatch: number = LIMITS.batch.max): number | null {
  const exact = (rate * tickMs) / (1000 * connections);
  const batch = Math.ceil(exact - 1e-9);
  if (batch < LIMITS.batch.min || batch > maxBatch || batch / exact - 1 > MAX_OVERSHOOT) return null;
  return batch;
}

/**
 * Every candidate at the target's rate, each once: for each transport, tick and connection count
 * a batch that offers the rate (where one does; at rates too low for any tick's whole rows, one
 * row per message at the tick that offers the rate), then main thread or each Worker count, one
 * origin or more where origins matter, and each encoding the transport carries.
 */
export function candidateSpace(
  target: Pick<Target, 'eventsPerSec' | 'p99BoundMs'>,
  transports: readonly Transport[],
  space: CandidateSpace = DEFAULT_SPACE,
): Candidate[] {
  const out = new Map<string, Candidate>();
  const pollMs = advisePollMs(target.p99BoundMs);
  const ticks = adviseTicksMs(target.p99BoundMs, space.ticksMs);
  for (const transport of transports) {
    // More connections than the browser opens to one host would leave some waiting, never open.
    const cap = TRANSPORT_INFO[transport].perHostCap ?? Number.POSITIVE_INFINITY;
    for (const concurrency of space.connections.filter((n) => n <= cap)) {
      const shapes = ticks.flatMap((tick) => {
        const batch = batchFor(target.eventsPerSec, tick, concurrency, space.maxBatch);
        return batch === null ? [] : [{ intervalMs: tick, batch }];
      });
      if (!shapes.length) {
        // Too few events for whole rows at any tick: one row per message, at the tick that offers the rate.
        const tick = Math.floor(((1000 * concurrency) / target.eventsPerSec) * 20) / 20;
        if (tick >= LIMITS.intervalMs.min && tick <= LIMITS.intervalMs.max) shapes.push({ intervalMs: tick, batch: 1 });
      }
      for (const { intervalMs, batch } of shapes) {
        const parses = [{ parse: 'main' as const, workers: 0 }, ...space.workers.map((workers) => ({ parse: 'worker' as const, workers }))];
        const origins = originsMatter(transport) ? space.origins.filter((o) => o <= concurrency) : [1];
        // Arrow only from its minimum batch (ARROW_BATCH): below it the server refuses it, and a message is mostly Arrow metadata.
        const fits = (e: Encoding) => !space.fileEvents || carriesFileEvents(transport, e);
        const carried = space.encodings.filter(
          (e) => carries(transport, e) && fits(e) && arrowBatchMismatch({ batch, encoding: e === 'json' ? undefined : e }) === null,
        );
        // JSON when nothing else fits, unless it cannot carry a file's events either (grpc-web below Arrow's minimum batch): no candidate.
        const encodings = carried.length ? carried : (['json'] as const).filter(fits);
        const kind = compressionOf(transport);
        const compressions = space.compression && kind ? [undefined, kind] : [undefined];
        for (const p of parses)
          for (const o of origins.length ? origins : [1])
            for (const encoding of encodings)
              for (const compression of compressions) {
                const c = makeCandidate({
                  transport,
                  batch,
                  intervalMs,
                  concurrency,
                  ...p,
                  origins: o,
                  encoding,
                  ...(compression ? { compression } : {}),
                  ...(transport === 'poll' ? { pollMs } : {}),
                });
                out.set(c.id, c);
              }
      }
    }
  }
  return [...out.values()];
}

/**
 * A candidate as a sweep point (for the repeat measurer): `advise/<id>` with the target's render
 * mode, its device class (`-low`: the point runs as it), its pace (`-rec`), its tab state (`-hid`), its render module (not in
 * the id: every candidate of a search draws with the same one) and the given timing.
 */
export function candidatePoint(
  c: Candidate,
  render: RenderMode,
  timing: { warmupSec: number; measureSec: number; repeats: number },
  scenario = 'advise',
  on: Pick<Target, 'device' | 'throttle' | 'pace' | 'renderModule' | 'tab' | 'hiddenLongGraceSec' | 'link'> = {},
): Point {
  // A candidate's settings are scenario values (origins 1, encoding json): the point keeps what a sweep's would.
  const fields = { scenario, ...pointFactors({ ...c, render, device: on.device, throttle: on.throttle, pace: on.pace, tab: on.tab, link: on.link }) };
  // Slow ticks get a longer window, so one batch cannot move delivered across the rule's 1% (issue 33).
  const measureSec = windowSecFor((c.concurrency * 1000) / c.intervalMs, timing.measureSec);
  const page = on.renderModule ? { renderModule: on.renderModule } : {};
  // A hidden-long point's grace, as a sweep's point keeps it (protocol/scenario.ts).
  const grace = tabOf(on).hiddenLongGraceSec;
  const tab = grace !== undefined ? { hiddenLongGraceSec: grace } : {};
  return { ...fields, id: pointId(fields), ...timing, measureSec, offeredEventsPerSec: c.offeredEventsPerSec, ...page, ...tab };
}
