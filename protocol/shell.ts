/**
 * Commands printed for a person to paste (a resume command, advise's check, the table's
 * `npm run report` hint) are built here and only here, so each argument reaches the command as
 * the one word it was: an `--out` holding `;`, `$(…)`, quotes, spaces or a line break must not
 * run anything when pasted. Pure: no Node imports (results/ and protocol/ use it too).
 */

/** What a terminal would act on (results/printable.ts's set) and what a single-quoted word cannot hold on one line. */
const NOT_ON_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * `s` as one POSIX shell word: as is when it is plain; else single-quoted, where nothing is
 * special but the quote itself (`'` → `'\''`); and when it holds a line break or another control,
 * as an ANSI-C `$'…'` word (bash, zsh, ksh, busybox sh) with every such character escaped, so the
 * printed command stays one printable line that a terminal shows as is.
 */
export function shellWord(s: string): string {
  if (/^[\w./:@=,+-]+$/.test(s)) return s;
  if (!NOT_ON_ONE_LINE.test(s)) return `'${s.replaceAll("'", `'\\''`)}'`;
  const escaped = [...s]
    .map((c) => {
      if (c === '\\' || c === "'") return `\\${c}`;
      // `!`: some shells expand history even here.
      if (c === '!') return '\\x21';
      if (!NOT_ON_ONE_LINE.test(c)) return c;
      // Its UTF-8 bytes, each `\xHH`: `\u` would depend on the pasting shell's locale.
      return [...new TextEncoder().encode(c)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
    })
    .join('');
  return `$'${escaped}'`;
}

/** `npm run <script> -- <args…>`, each argument one shell word: the one way a command for pasting is written. */
export function npmCommand(script: string, args: readonly string[]): string {
  return [`npm run ${script} --`, ...args.map(shellWord)].join(' ');
}
