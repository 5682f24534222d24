/**
 * A checked description of a JSON document's type, for report.json (protocol/report-check.ts).
 * Each shape is written against the TypeScript type it checks: `obj<Round>()({ … })` must name
 * every key of `Round`, optional ones through `opt`, and each key's shape must check exactly that
 * key's type (a shape is invariant in its type). So the check cannot drift from the types the
 * readers are compiled against: a field added to a type is a compile error here until it is
 * checked, and what the check accepts is what the readers' types promise them.
 *
 * Hand-written rather than a JSON Schema with ajv: ajv compiles with `new Function`, which the
 * self-contained report.html would need a CSP exception for, and its errors for unions are a
 * list of every branch; here a refusal is one line naming the path, the value and what is
 * allowed. Checking is iterative over the document's fields and recursive only over the type's
 * depth (a dozen levels), so a deeply nested document cannot overflow the stack here.
 *
 * Pure: no Node or DOM.
 */

/** Where a value is: ['points', 3, 'point', 'batch']. Pushed and popped as the check descends. */
export type Path = (string | number)[];

/** Why a value was refused: where, what was there, what is allowed. */
export class ShapeRefusal {
  constructor(
    readonly path: readonly (string | number)[],
    readonly value: unknown,
    readonly allowed: string,
  ) {}
}

export interface Shape<T> {
  /** What it allows, in words: "a number", "'ok' or 'failed'". */
  readonly allowed: string;
  /** Throws a ShapeRefusal when `v`, found at `at`, is not a T. */
  check(v: unknown, at: Path): void;
  /** Never set: makes a shape invariant in T, so a shape for `number` does not pass for `number | null`. */
  readonly _type?: (t: T) => T;
}

/** An optional key's shape (the key may be absent; when present, it must be a T). */
export interface Opt<T> {
  readonly optional: Shape<T>;
}

const refuse = (at: Path, v: unknown, allowed: string): never => {
  throw new ShapeRefusal([...at], v, allowed);
};

const shape = <T>(allowed: string, test: (v: unknown) => boolean): Shape<T> => ({
  allowed,
  check: (v, at) => {
    if (!test(v)) refuse(at, v, allowed);
  },
});

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A finite number: JSON has no NaN or Infinity, but `1e999` parses to Infinity. */
export const num: Shape<number> = shape('a number', (v) => typeof v === 'number' && Number.isFinite(v));
export const str: Shape<string> = shape('a string', (v) => typeof v === 'string');
export const bool: Shape<boolean> = shape('true or false', (v) => typeof v === 'boolean');

/** A number in [min, max], whole when `integer`: for figures readers index with or plan from. */
export const numIn = (min: number, max: number, integer = false): Shape<number> =>
  shape(
    `${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!integer || Number.isInteger(v)),
  );

/** `s` with its refusal worded as `allowed` (a unit, a range in words). */
export const named = <T>(s: Shape<T>, allowed: string): Shape<T> => ({
  allowed,
  check: (v, at) => {
    try {
      s.check(v, at);
    } catch (err) {
      if (err instanceof ShapeRefusal && err.path.length === at.length) refuse(at, v, allowed);
      throw err;
    }
  },
});

/** One of the given values. */
export function lit<const V extends readonly (string | number)[]>(...values: V): Shape<V[number]> {
  const words = values.map((x) => (typeof x === 'string' ? `'${x}'` : String(x)));
  const allowed = words.length === 1 ? words[0] : `one of ${words.join(', ')}`;
  return shape(allowed, (v) => values.includes(v as V[number]));
}

/** A string matching a pattern (a JSON Schema `pattern`, anchored by its own ^…$). */
export const matching = <T extends string = string>(pattern: string): Shape<T> => {
  const re = new RegExp(pattern);
  return shape(`a string matching ${pattern}`, (v) => typeof v === 'string' && re.test(v)) as Shape<T>;
};

/** One of the values of a list the code keeps elsewhere (TRANSPORTS, ENCODINGS). */
export const oneOf = <T extends string>(values: readonly T[]): Shape<T> => lit(...values) as Shape<T>;

export const nullable = <T>(s: Shape<T>): Shape<T | null> => ({
  allowed: `${s.allowed} or null`,
  check: (v, at) => {
    if (v === null) return;
    try {
      s.check(v, at);
    } catch (err) {
      // Refused here, not deeper down: null was allowed too.
      if (err instanceof ShapeRefusal && err.path.length === at.length) throw new ShapeRefusal(err.path, err.value, `${err.allowed} or null`);
      throw err;
    }
  },
});

export const opt = <T>(s: Shape<T>): Opt<T> => ({ optional: s });

export const arr = <T>(s: Shape<T>): Shape<T[]> => ({
  // `an array of strings`; of objects, just `an array` (a refusal inside names the item).
  allowed: s.allowed === 'an object' ? 'an array' : `an array of ${s.allowed.replace(/^an? /, '')}s`.replace(/ss$/, 'ses'),
  check(v, at) {
    if (!Array.isArray(v)) refuse(at, v, this.allowed);
    const items = v as unknown[];
    for (let i = 0; i < items.length; i++) {
      at.push(i);
      s.check(items[i], at);
      at.pop();
    }
  },
});

/** The same shape with a further rule: `(v) => null` when it holds, else what is allowed, in words. */
export const refine = <T>(s: Shape<T>, rule: (v: T) => string | null): Shape<T> => ({
  allowed: s.allowed,
  check: (v, at) => {
    s.check(v, at);
    const why = rule(v as T);
    if (why !== null) refuse(at, v, why);
  },
});

type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];

/** A shape for every key of T: `opt(shape)` for an optional key, the shape for a required one. */
export type Props<T> = { [K in keyof T]-?: K extends OptionalKeys<T> ? Opt<Exclude<T[K], undefined>> : Shape<T[K]> };

/**
 * An object with every key of T, each checked. Keys T does not name are let through unchecked
 * (a report written by a build with a field this one dropped still opens); the document's depth
 * and size are bounded before any shape runs (report-check.ts), so they cannot hurt a writer.
 * Curried, `obj<T>()({…})`, so T is given and the props are checked against it.
 */
export const obj =
  <T>() =>
  (props: Props<T>): Shape<T> => {
    const entries = Object.entries(props as Record<string, Shape<unknown> | Opt<unknown>>);
    return {
      allowed: 'an object',
      check: (v, at) => {
        if (!isObject(v)) refuse(at, v, 'an object');
        const o = v as Record<string, unknown>;
        for (const [key, p] of entries) {
          const value = Object.hasOwn(o, key) ? o[key] : undefined;
          at.push(key);
          if ('optional' in p) {
            if (value !== undefined) p.optional.check(value, at);
          } else if (value === undefined) refuse(at, value, p.allowed);
          else p.check(value, at);
          at.pop();
        }
      },
    };
  };

/** A union told apart by one key's value (`status: 'ok' | 'failed'`): the shape of each member. */
export const byKey =
  <T extends Record<K, string>, K extends string>(key: K) =>
  (members: { [V in T[K]]: Shape<Extract<T, Record<K, V>>> }): Shape<T> => {
    const tags = Object.keys(members);
    const tagShape = lit(...tags);
    return {
      allowed: 'an object',
      check: (v, at) => {
        if (!isObject(v)) refuse(at, v, 'an object');
        const o = v as Record<string, unknown>;
        at.push(key);
        tagShape.check(Object.hasOwn(o, key) ? o[key] : undefined, at);
        at.pop();
        (members as Record<string, Shape<unknown>>)[o[key] as string].check(v, at);
      },
    };
  };
