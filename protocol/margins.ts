/**
 * The practical margins comparisons are read against (results/equivalence.ts reads them): their
 * defaults and the one text form `--margin`, a scenario file's `defaults.margin` and a report
 * share (`eps=3%,cpu=5%`). Input parsing, so it lives here with the other inputs' checks.
 * Pure, no Node or DOM.
 */
import { paramError, type ParamError } from './wire.js';

/** Practical margins as shares (0.03 = ±3%): results/equivalence.ts reads differences against them. */
export interface Margins {
  /** Events per second. */
  eventsPerSec: number;
  /** Renderer CPU per event (ms per million events). */
  cpuPerEvent: number;
}

/** ±3% on EPS, ±5% on CPU per event: about the spread of repeats on an idle 2-core machine. */
export const DEFAULT_MARGINS: Margins = { eventsPerSec: 0.03, cpuPerEvent: 0.05 };

/** The largest margin `--margin` takes, as a share: past ±50% "equivalent" says nothing. */
export const MAX_MARGIN = 0.5;

/** `eps=3%,cpu=5%`: the form `--margin` takes and a report records. */
export function marginsText(m: Margins): string {
  return `eps=${Number((m.eventsPerSec * 100).toFixed(2))}%,cpu=${Number((m.cpuPerEvent * 100).toFixed(2))}%`;
}

const MARGIN_KEYS = { eps: 'eventsPerSec', cpu: 'cpuPerEvent' } as const satisfies Record<string, keyof Margins>;
const MARGIN_ALLOWED = `eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to ${MAX_MARGIN * 100}, e.g. eps=3%,cpu=5%`;

/**
 * Parses `--margin eps=3%,cpu=5%`: either key or both (the other keeps its default), each a
 * percentage from 0 to 50 with or without `%`. Refusals name the flag, the value and what is
 * allowed (ParamError, as the server's refusals are).
 */
export function parseMargins(
  text: string,
  defaults: Margins = DEFAULT_MARGINS,
  flag = '--margin',
): { ok: true; value: Margins } | { ok: false; error: ParamError } {
  const refuse = (why: string) => ({
    ok: false as const,
    error: paramError(flag, text, MARGIN_ALLOWED, (v, p) => `${p} ${why}; it takes ${MARGIN_ALLOWED}; got '${v}'`),
  });
  const out: Margins = { ...defaults };
  const seen = new Set<string>();
  const parts = text.split(',').map((p) => p.trim());
  if (!text.trim() || parts.some((p) => !p)) return refuse('needs key=value pairs separated by commas');
  for (const part of parts) {
    const m = /^([a-z]+)\s*=\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/i.exec(part);
    if (!m) return refuse(`cannot read '${part}'`);
    const key = m[1].toLowerCase();
    if (!Object.hasOwn(MARGIN_KEYS, key)) return refuse(`has no key '${m[1]}' (keys: ${Object.keys(MARGIN_KEYS).join(', ')})`);
    if (seen.has(key)) return refuse(`gives ${key} twice`);
    seen.add(key);
    const share = Number(m[2]) / 100;
    if (!(share >= 0 && share <= MAX_MARGIN)) return refuse(`${key} must be from 0 to ${MAX_MARGIN * 100}%`);
    out[MARGIN_KEYS[key as keyof typeof MARGIN_KEYS]] = share;
  }
  return { ok: true, value: out };
}

/** How a comparison reads against its margin; results/equivalence.ts decides it. */
export type EquivalenceKind = 'both-kept-up' | 'equivalent' | 'different' | 'unclear';
