/**
 * Text from a report file or from the network, made safe to show on a terminal. Reports travel
 * (report.html is mailed, `npm run report` reads other people's runs) and a browser, a server or
 * a page can put anything in an error message, so a string from either may hold what a terminal
 * acts on instead of showing: ESC sequences (CSI: colours, clearing the screen, moving the cursor;
 * OSC: setting the window title, hyperlinks, clipboard writes), BEL, a bare CR that writes over
 * the line, the 8-bit C1 controls (0x9b is CSI on terminals that read them) and the bidi
 * overrides that show text in an order other than the bytes'.
 *
 * Each such character becomes its `\uXXXX` escape, visible and unambiguous. The same spelling is
 * a JSON string escape, so JSON text stays valid JSON with the same value after passing through
 * here (JSON has these characters only inside strings), and passing text through twice changes
 * nothing more: the escape is plain ASCII.
 */

/**
 * C0 controls, DEL, C1 controls, and the Unicode format characters that reorder or hide text:
 * ALM (061C), LRM/RLM (200E-200F), the line and paragraph separators (2028-2029), the embeddings
 * and overrides LRE..RLO (202A-202E) and the isolates LRI..PDI (2066-2069).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same set, but line layout kept: tab, line feed, and a carriage return just before a line feed. */
const UNPRINTABLE_KEEPING_LINES = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every character a terminal would act on written as its `\uXXXX` escape.
 * `lines: false` (a field: an id, a note, an error): one line, so tab and line breaks are escaped
 * too and a value cannot start a row of its own in a table. `lines: true` (a whole output we laid
 * out: a table, a CSV, a stack): tab, `\n` and `\r\n` are kept.
 */
export function printable(text: string, lines = false): string {
  return text.replace(lines ? UNPRINTABLE_KEEPING_LINES : UNPRINTABLE, escape);
}
