/**
 * What a command writes to stdout and stderr goes out through here, made printable on the way
 * (results/printable.ts): a line may carry a string from a report file (ids, notes, labels,
 * errors) or from the network (a browser's version or error, a server's message), and a
 * terminal must show it, not run it. Tabs and line breaks are kept: these are whole outputs
 * laid out in lines. JSON stays valid JSON with the same value (printable writes `\uXXXX`).
 * The only control sequences a command sends on purpose, the progress line's redraw, are
 * written by Progress around text it makes printable itself.
 */
import { printable } from '../results/printable.js';

/** Writes `text` to stdout, printable. */
export function toStdout(text: string): void {
  process.stdout.write(printable(text, true));
}

/** Writes `text` to stderr, printable. */
export function toStderr(text: string): void {
  process.stderr.write(printable(text, true));
}

/** One line for people on stderr. */
export function logLine(line: string): void {
  toStderr(`${line}\n`);
}
