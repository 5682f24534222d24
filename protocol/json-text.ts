/**
 * JSON.parse with a syntax error a person can find: line and column, and what was expected.
 * V8 reports a character offset, and for some errors none at all ("Unexpected token 'x', …"),
 * so the position comes from a scan of our own, which follows RFC 8259's grammar.
 */

export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in characters. */
  column: number;
  /** What is wrong there, e.g. "expected ',' or '}' after a property value". */
  message: string;
}

export type JsonText = { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError };

export function parseJsonText(text: string): JsonText {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const found = firstSyntaxError(text);
    // The scan found nothing wrong, yet JSON.parse failed: report V8's own words, at the start.
    const at = found ?? { offset: 0, message: err instanceof Error ? err.message : String(err) };
    return { ok: false, error: { ...lineColumn(text, at.offset), message: at.message } };
  }
}

/** `line 3, column 5: expected ':' after a property name` */
export function syntaxErrorText(e: JsonSyntaxError): string {
  return `line ${e.line}, column ${e.column}: ${e.message}`;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

class Stop {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** The first syntax error in `text` by the JSON grammar, or null if there is none. */
export function firstSyntaxError(text: string): { offset: number; message: string } | null {
  let i = 0;
  const what = (at: number) =>
    at >= text.length ? 'the end of the text' : text[at] === '\uFEFF' ? 'a byte-order mark (save the file as UTF-8 without one)' : JSON.stringify(text[at]);
  const stop = (message: string): never => {
    throw new Stop(i, message);
  };
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) stop(`expected ${word}, found ${what(i)}`);
  };
  const digits = () => {
    const start = i;
    while (i < text.length && text[i] >= '0' && text[i] <= '9') i++;
    if (i === start) stop(`expected a digit, found ${what(i)}`);
  };
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) stop('a string is not closed (missing ")');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) stop(`a raw control character in a string (${c === 0x0a ? 'a line break' : `code ${c}`}); escape it`);
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) stop('\\u must be followed by 4 hex digits');
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else stop(`a bad escape \\${e ?? ''} in a string`);
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    stop(`expected a value, found ${what(i)}`);
  };
  const object = () => {
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"')
        stop(text[i] === '}' ? "a comma before '}' (JSON allows no trailing comma)" : `expected a property name in double quotes, found ${what(i)}`);
      string();
      ws();
      if (text[i] !== ':') stop(`expected ':' after a property name, found ${what(i)}`);
      i++;
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      stop(`expected ',' or '}' after a property value, found ${what(i)}`);
    }
  };
  const array = () => {
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] === ']') stop("a comma before ']' (JSON allows no trailing comma)");
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      stop(`expected ',' or ']' after an array element, found ${what(i)}`);
    }
  };
  try {
    value();
    ws();
    if (i < text.length) stop(`unexpected ${what(i)} after the JSON value`);
    return null;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, message: err.message };
    // Nested too deep for this recursive scan: the caller falls back to V8's message.
    if (err instanceof RangeError) return null;
    throw err;
  }
}

/**
 * The text of the value at `path` (object keys and array indexes, as strings) as it is written
 * in `text`, which must be valid JSON; undefined when there is no value there. A message about
 * a value shows this rather than the parsed value: JSON.parse reads `1e999` as Infinity, which
 * JSON.stringify writes as `null`, and "got null" is not what the file says. A key given twice
 * is read as JSON.parse reads it: the last one.
 */
export function sourceAt(text: string, path: readonly string[]): string | undefined {
  let i = 0;
  let found: string | undefined;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  /** `onPath`: every key or index above this value matched `path`, `depth` of them. */
  const value = (depth: number, onPath: boolean): void => {
    ws();
    const start = i;
    const below = (part: string) => onPath && depth < path.length && path[depth] === part;
    if (text[i] === '{') {
      i++;
      ws();
      if (text[i] === '}') i++;
      else {
        for (;;) {
          ws();
          const key = string();
          ws();
          i++; // ':'
          value(depth + 1, below(key));
          ws();
          if (text[i++] === '}') break;
        }
      }
    } else if (text[i] === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else {
        for (let k = 0; ; k++) {
          value(depth + 1, below(String(k)));
          ws();
          if (text[i++] === ']') break;
        }
      }
    } else if (text[i] === '"') string();
    else while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++;
    if (onPath && depth === path.length) found = text.slice(start, i);
  };
  try {
    value(0, true);
    return found;
  } catch {
    // Not valid JSON after all, or nested past the stack: the caller shows the parsed value instead.
    return undefined;
  }
}

/**
 * A value from an input file for a message: a number, string, true, false or null as written in
 * the file when `written` is given (see sourceAt), anything else as compact JSON (a number as
 * `String` gives it, so Infinity is not `null`); `nothing` for a missing one; cut to `max`
 * characters.
 */
export function describeJsonValue(v: unknown, written?: string, max = 60): string {
  if (v === undefined) return 'nothing';
  const scalar = v === null || typeof v !== 'object';
  const text = written !== undefined && scalar ? written.slice(0, max + 1) : typeof v === 'number' ? String(v) : briefJson(v, max + 1);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * Compact JSON of `v`, cut once it passes `budget` characters: a refused value may be a whole
 * 500 MB document, or nested 10,000 deep (JSON.stringify would overflow the stack), and a
 * message shows its first few dozen characters only. Descends at most `budget` levels, since
 * each level writes at least one character.
 */
function briefJson(v: unknown, budget: number): string {
  let out = '';
  const write = (x: unknown): void => {
    if (out.length >= budget) return;
    if (x === null || typeof x !== 'object') {
      const s = typeof x === 'string' ? JSON.stringify(x.slice(0, budget)) : typeof x === 'number' ? String(x) : (JSON.stringify(x) ?? 'null');
      out += s;
      return;
    }
    if (Array.isArray(x)) {
      out += '[';
      for (let i = 0; i < x.length && out.length < budget; i++) {
        if (i) out += ',';
        write(x[i]);
      }
      out += ']';
      return;
    }
    out += '{';
    let first = true;
    for (const key in x) {
      if (out.length >= budget) return;
      if (!Object.hasOwn(x, key)) continue;
      if (!first) out += ',';
      first = false;
      out += `${JSON.stringify(key.slice(0, budget))}:`;
      write((x as Record<string, unknown>)[key]);
    }
    out += '}';
  };
  write(v);
  return out;
}
