/**
 * Command-line flags, declared once as a table (name, type, default, help) that drives
 * parsing, validation and `--help`. Errors name the flag, the value and what is allowed.
 */

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

export class FlagError extends Error {
  override name = 'FlagError';
}

export function helpText<T extends Record<string, FlagSpec>>(specs: T, usage: string): string {
  const lines = Object.entries(specs).map(([name, s]) => {
    const arg = s.type === 'boolean' ? '' : s.type === 'list' ? ' <a,b,…>' : ` <${s.type}>`;
    const described = s.type === 'string' || s.type === 'list' ? s.defaultText : undefined;
    const def = described ?? (s.type === 'list' ? (s.default.length ? s.default.join(',') : 'none') : s.default === '' ? 'none' : String(s.default));
    const range = s.type === 'integer' || s.type === 'number' ? `, ${s.min}…${s.max}` : s.type === 'list' && s.integers ? `, each ${s.integers.min}…${s.integers.max}` : '';
    const choices = (s.type === 'string' || s.type === 'list') && s.choices ? `, ${s.type === 'list' ? 'each' : ''} one of ${s.choices.join(', ')}`.replace(',  ', ', ') : '';
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
    if (!m) throw new FlagError(`unexpected argument '${arg}'; flags look like --name value (see --help)`);
    const name = m[1];
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) {
      throw new FlagError(`unknown flag --${name}; known flags: ${Object.keys(specs).map((k) => `--${k}`).join(', ')}`);
    }
    if (spec.type === 'boolean') {
      if (m[2] === undefined) out[name] = true;
      else if (m[2] === 'true' || m[2] === 'false') out[name] = m[2] === 'true';
      else throw new FlagError(`--${name} takes no value or true/false; got '${m[2]}'`);
      continue;
    }
    const raw = m[2] ?? argv[++i];
    if (raw === undefined || (m[2] === undefined && raw.startsWith('--'))) {
      throw new FlagError(`--${name} needs a value (${spec.type})`);
    }
    if (spec.type === 'string') {
      if (spec.choices && !spec.choices.includes(raw)) {
        throw new FlagError(`--${name} must be one of ${spec.choices.join(', ')}; got '${raw}'`);
      }
      out[name] = raw;
    } else if (spec.type === 'list') {
      const items = raw.split(',').map((x) => x.trim()).filter(Boolean);
      if (!items.length) throw new FlagError(`--${name} needs at least one value; got '${raw}'`);
      for (const item of items) {
        if (spec.choices && !spec.choices.includes(item)) {
          throw new FlagError(`--${name} takes a comma-separated list of ${spec.choices.join(', ')}; got '${item}'`);
        }
        const bounds = spec.integers;
        if (bounds && !(/^\d+$/.test(item) && Number(item) >= bounds.min && Number(item) <= bounds.max)) {
          throw new FlagError(`--${name} takes a comma-separated list of integers from ${bounds.min} to ${bounds.max}; got '${item}'`);
        }
      }
      out[name] = items;
    } else {
      // Plain decimal only: Number() would also take '0x10' and ''.
      const n = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw) ? Number(raw) : Number.NaN;
      const ok = Number.isFinite(n) && (spec.type === 'number' || Number.isInteger(n));
      if (!ok || n < spec.min || n > spec.max) {
        throw new FlagError(`--${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'} from ${spec.min} to ${spec.max}; got '${raw}'`);
      }
      out[name] = n;
    }
  }
  return out as Flags<T>;
}

/**
 * For a command's entry point: parses `process.argv`, and on `--help` prints the help and
 * exits 0, on bad input prints the error and exits 2, so no command starts work on flags
 * it did not understand.
 */
export function commandLineFlags<T extends Record<string, FlagSpec>>(specs: T, command: string): Flags<T> {
  const usage = `npm run ${command} --`;
  try {
    const flags = parseFlags(specs, process.argv.slice(2), usage);
    if (flags.help) {
      process.stdout.write(helpText(specs, usage));
      process.exit(0);
    }
    return flags;
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`pushlab ${command}: ${err.message}\n`);
    process.exit(2);
  }
}
