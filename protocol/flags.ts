/**
 * Command-line flags, declared once as a table (name, type, default, help) that drives
 * parsing, validation and `--help`. Errors are PushlabError PUSHLAB_BAD_FLAG naming the flag,
 * the value and what is allowed. Pure: printing and exiting live in cli/command.ts.
 */
import { PushlabError } from './errors.js';
import { inRange, parseDecimal, type Range } from './limits.js';

export type FlagSpec =
  | {
      type: 'string';
      default: string;
      help: string;
      choices?: readonly string[];
      /** What the default means, for --help, when the value alone says nothing ('' = "start one"). */
      defaultText?: string;
    }
  | {
      type: 'list';
      default: readonly string[];
      help: string;
      defaultText?: string;
      /** Every item must be one of these. */
      choices?: readonly string[];
      /** Every item must be an integer within these bounds. */
      integers?: { min: number; max: number };
    }
  | { type: 'integer' | 'number'; default: number; help: string; min: number; max: number }
  | { type: 'boolean'; default: boolean; help: string };

type ValueOf<S extends FlagSpec> = S extends { type: 'string' }
  ? string
  : S extends { type: 'list' }
    ? string[]
    : S extends { type: 'boolean' }
      ? boolean
      : number;

export type Flags<T extends Record<string, FlagSpec>> = { [K in keyof T]: ValueOf<T[K]> } & { help: boolean };

/** A numeric flag whose range is one of protocol/limits.ts's, so the two cannot drift. */
export function rangeFlag(
  range: Range,
  defaultValue: number,
  help: string,
): { type: 'integer' | 'number'; default: number; help: string; min: number; max: number } {
  return { type: range.integer ? 'integer' : 'number', default: defaultValue, help, min: range.min, max: range.max };
}

const badFlag = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);

export function helpText<T extends Record<string, FlagSpec>>(specs: T, usage: string): string {
  const lines = Object.entries(specs).map(([name, s]) => {
    const arg = s.type === 'boolean' ? '' : s.type === 'list' ? ' <a,b,…>' : ` <${s.type}>`;
    const described = s.type === 'string' || s.type === 'list' ? s.defaultText : undefined;
    const def = described ?? (s.type === 'list' ? (s.default.length ? s.default.join(',') : 'none') : s.default === '' ? 'none' : String(s.default));
    const range =
      s.type === 'integer' || s.type === 'number' ? `, ${s.min}…${s.max}` : s.type === 'list' && s.integers ? `, each ${s.integers.min}…${s.integers.max}` : '';
    const choices =
      (s.type === 'string' || s.type === 'list') && s.choices ? `, ${s.type === 'list' ? 'each' : ''} one of ${s.choices.join(', ')}`.replace(',  ', ', ') : '';
    return `  --${name}${arg}\n      ${s.help} (default: ${def}${range}${choices})`;
  });
  return `usage: ${usage} [flags]\n\n${lines.join('\n')}\n  --help\n      print this help\n`;
}

export function parseFlags<T extends Record<string, FlagSpec>>(specs: T, argv: readonly string[], usage: string): Flags<T> {
  const out: Record<string, unknown> = { help: false };
  for (const [name, s] of Object.entries(specs)) out[name] = s.type === 'list' ? [...s.default] : s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      out.help = true;
      continue;
    }
    const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg);
    if (!m) throw badFlag(`unexpected argument '${arg}'; flags look like --name value (see --help)`);
    const name = m[1];
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) {
      throw badFlag(
        `unknown flag --${name}; known flags: ${Object.keys(specs)
          .map((k) => `--${k}`)
          .join(', ')}`,
      );
    }
    if (spec.type === 'boolean') {
      if (m[2] === undefined) out[name] = true;
      else if (m[2] === 'true' || m[2] === 'false') out[name] = m[2] === 'true';
      else throw badFlag(`--${name} takes no value or true/false; got '${m[2]}'`);
      continue;
    }
    const raw = m[2] ?? argv[++i];
    if (raw === undefined || (m[2] === undefined && raw.startsWith('--'))) {
      throw badFlag(`--${name} needs a value (${spec.type})`);
    }
    if (spec.type === 'string') {
      if (spec.choices && !spec.choices.includes(raw)) {
        throw badFlag(`--${name} must be one of ${spec.choices.join(', ')}; got '${raw}'`);
      }
      out[name] = raw;
    } else if (spec.type === 'list') {
      const items = raw
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (!items.length) throw badFlag(`--${name} needs at least one value; got '${raw}'`);
      for (const item of items) {
        if (spec.choices && !spec.choices.includes(item)) {
          throw badFlag(`--${name} takes a comma-separated list of ${spec.choices.join(', ')}; got '${item}'`);
        }
        const bounds = spec.integers;
        if (bounds && !inRange(parseDecimal(item), { ...bounds, integer: true })) {
          throw badFlag(`--${name} takes a comma-separated list of integers from ${bounds.min} to ${bounds.max}; got '${item}'`);
        }
      }
      out[name] = items;
    } else {
      const n = parseDecimal(raw);
      if (!inRange(n, { min: spec.min, max: spec.max, integer: spec.type === 'integer' })) {
        throw badFlag(`--${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}; got '${raw}'`);
      }
      out[name] = n;
    }
  }
  return out as Flags<T>;
}
