/**
 * A network link between the server and the tab (issue 36): a round trip, its jitter and a
 * bandwidth cap, as a scenario, a flag and a point name it. A file of its own because the
 * scenario (the text a point asks for), the point id, the report and the words of an answer each
 * read it. How a link is made is puppeteer/link/ (docs/network.md). Pure: no Node, no DOM.
 *
 * Written as text, one grammar for the scenario file and `--link`:
 * `off` (loopback, the default), or `[cdp:]<rtt>ms[±<jitter>ms][,<rate>mbit]` (`+-` may stand for
 * `±`; a rate alone is a 0 ms link). `cdp:` asks for Chrome's own network emulation instead of
 * the two namespaces: a separate, labelled kind kept for comparison.
 */
import { inRange, rangeText, type Range } from './limits.js';
import { echoValue } from './wire.js';

/** How the link is made: two network namespaces (tbf, and a delaying proxy or netem), or CDP's Network.emulateNetworkConditions. */
export type LinkVia = 'netns' | 'cdp';

/** A link as the driver makes it. */
export interface LinkSpec {
  via: LinkVia;
  /** Round trip added, ms: half of it each way. */
  rttMs: number;
  /** Each way's delay varies by up to ± half of this, ms (so the round trip by up to ± jitterMs); at most rttMs / 2. */
  jitterMs: number;
  /** The cap each way, Mbit/s; null: unlimited. */
  mbit: number | null;
}

/** As a scenario or a flag gives it: `off`, or a link's text. */
export type LinkSetting = string;

/** What a link may be (also where it is said: the messages, docs/network.md). */
export const LINK_LIMITS = {
  rttMs: { min: 0, max: 1000, integer: false },
  mbit: { min: 0.1, max: 10_000, integer: false },
} as const satisfies Record<string, Range>;

const NUM = '[0-9]+(\\.[0-9]+)?';
/** A link's text or `off`, as a JSON Schema pattern: the shape; `parseLink` checks the numbers. */
export const LINK_SETTING_PATTERN = `^(off|(cdp:)?(${NUM}ms((±|\\+-)${NUM}ms)?(,${NUM}mbit)?|${NUM}mbit))$`;
/** What a recorded point's link may be: the canonical text (`off` is left out of a point). */
export const LINK_PATTERN = `^(cdp:)?${NUM}ms(±${NUM}ms)?(,${NUM}mbit)?$`;

export const LINK_SETTING_TEXT = `off (loopback), or <rtt>ms[±<jitter>ms][,<rate>mbit] (80ms, 80ms±10ms,20mbit; rtt ${LINK_LIMITS.rttMs.min}–${LINK_LIMITS.rttMs.max} ms, jitter at most rtt/2, rate ${LINK_LIMITS.mbit.min}–${LINK_LIMITS.mbit.max} Mbit/s or left out for unlimited), prefixed cdp: for Chrome's network emulation instead of namespaces`;

/** The link this text asks for, null for `off`, or why not (the caller names the field). */
export function parseLink(text: string): { ok: true; value: LinkSpec | null } | { ok: false; error: string } {
  if (!new RegExp(LINK_SETTING_PATTERN).test(text)) return { ok: false, error: `must be ${LINK_SETTING_TEXT}; got '${echoValue(text)}'` };
  if (text === 'off') return { ok: true, value: null };
  const via: LinkVia = text.startsWith('cdp:') ? 'cdp' : 'netns';
  const body = via === 'cdp' ? text.slice('cdp:'.length) : text;
  const m = new RegExp(`^(?:(${NUM})ms(?:(?:±|\\+-)(${NUM})ms)?)?,?(?:(${NUM})mbit)?$`).exec(body)!;
  const rttMs = m[1] !== undefined ? Number(m[1]) : 0;
  const jitterMs = m[3] !== undefined ? Number(m[3]) : 0;
  const mbit = m[5] !== undefined ? Number(m[5]) : null;
  if (!inRange(rttMs, LINK_LIMITS.rttMs)) return { ok: false, error: `rtt must be ${rangeText(LINK_LIMITS.rttMs)} ms; got ${rttMs} (in '${echoValue(text)}')` };
  if (jitterMs > rttMs / 2)
    return {
      ok: false,
      error: `jitter must be at most half the rtt (${rttMs / 2} ms for ${rttMs}ms), so no delay goes below 0; got ${jitterMs} (in '${echoValue(text)}')`,
    };
  if (via === 'cdp' && jitterMs > 0)
    return {
      ok: false,
      error: `cdp: emulation has no jitter (CDP's Network.emulateNetworkConditions takes one latency); leave out ±${jitterMs}ms, or drop cdp: for the namespaces (in '${echoValue(text)}')`,
    };
  if (mbit !== null && !inRange(mbit, LINK_LIMITS.mbit))
    return { ok: false, error: `rate must be ${rangeText(LINK_LIMITS.mbit)} mbit, or left out for unlimited; got ${mbit} (in '${echoValue(text)}')` };
  return { ok: true, value: { via, rttMs, jitterMs, mbit } };
}

/** The link a point records: its canonical text (`parseLink` reads it back). */
export function linkText(l: LinkSpec): string {
  return `${l.via === 'cdp' ? 'cdp:' : ''}${l.rttMs}ms${l.jitterMs ? `±${l.jitterMs}ms` : ''}${l.mbit !== null ? `,${l.mbit}mbit` : ''}`;
}

/** The link a recorded point's text names (it was checked when the point was made or read). */
export function linkOf(text: string): LinkSpec {
  const r = parseLink(text);
  if (!r.ok || r.value === null) throw new Error(`not a link: '${text}'`);
  return r.value;
}

/** A setting's canonical text, or undefined for `off` (and for text that is not a link: refused where it was read). */
export function canonicalLink(setting: LinkSetting | undefined): string | undefined {
  if (setting === undefined) return undefined;
  const r = parseLink(setting);
  return r.ok && r.value !== null ? linkText(r.value) : undefined;
}

/** Its part of a point id: `-l80ms10j20mbit` (rtt, jitter, rate), `-cdp80ms20mbit` for CDP's emulation. */
export function linkTag(text: string): string {
  const l = linkOf(text);
  return `-${l.via === 'cdp' ? 'cdp' : 'l'}${l.rttMs}ms${l.jitterMs ? `${l.jitterMs}j` : ''}${l.mbit !== null ? `${l.mbit}mbit` : ''}`;
}

/** The link in words: "a 50 ms ± 10 ms, 5 Mbit/s link" (", CDP emulation" for that kind). */
export function linkWords(text: string): string {
  const l = linkOf(text);
  const rate = l.mbit !== null ? `${l.mbit} Mbit/s` : 'unlimited';
  return `a ${l.rttMs} ms${l.jitterMs ? ` ± ${l.jitterMs} ms` : ''} round trip, ${rate} link${l.via === 'cdp' ? ' (CDP emulation)' : ''}`;
}

/**
 * How close to its cap a link must have carried for a point to be called network-bound: the
 * veth's byte counter counts every frame's headers, which tbf counts too, and a window that
 * opens or closes within one tbf burst reads a little under the rate.
 */
export const LINK_AT_RATE = 0.9;

/** What a link carried over a repeat's window (puppeteer/link/): beside the cap it was made with. */
export interface LinkFigures {
  /** The link's text (`Point.link`). */
  link: string;
  /** Bytes the server's side sent into the link over the window, Mbit/s (its veth's tx counter; frames with their headers). */
  carriedMbit: number;
  /** The cap, Mbit/s; null: unlimited. */
  mbit: number | null;
  /** carriedMbit ÷ mbit; null when unlimited. */
  atRate: number | null;
}
