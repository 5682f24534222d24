/**
 * Text from a report, made safe to lay out and to read, pure (no DOM): render.ts passes every
 * string it shows (text, tooltips, SVG labels) and chart-configs.ts every chart label through
 * `inert`. A report is input from whoever made it (report.html is mailed), and two kinds of
 * string once did harm in the page:
 * - bidi controls (embeddings, overrides, isolates, marks: U+202A–202E, U+2066–2069,
 *   U+200E/200F, U+061C) display text in another order than its characters', so one point's id
 *   read as another's. Each becomes its visible `\uXXXX` escape, as on the terminal
 *   (results/printable.ts); the CSS isolates each value too (unicode-bidi: isolate), so a
 *   right-to-left id cannot reorder the text beside it;
 * - a 10 MB unbroken string hung layout (and as a tooltip, the page). A string is shown to
 *   SHOWN_CHARS characters, with its full length said; the CSV buttons keep every character.
 */
import { formatCount } from '../../results/format.js';
import { printable } from '../../results/printable.js';

/** The longest report string shown whole: a long error or note reads in full; a 10 MB one does not reach layout. */
export const SHOWN_CHARS = 2_000;

/** `text` with its controls visible, cut to `limit` characters with a note of its full length. */
export function inert(text: string, limit = SHOWN_CHARS): string {
  if (text.length <= limit) return printable(text, true);
  // Cut between characters, not inside a surrogate pair.
  const end = /[\ud800-\udbff]/.test(text[limit - 1]) ? limit - 1 : limit;
  return `${printable(text.slice(0, end), true)}… (${formatCount(text.length)} characters; the first ${formatCount(end)} shown)`;
}
