/** Validates `pushlab.start()` config and URL parameters: errors name the field, value and range. */
import type { PageConfig } from '../../protocol/report.js';
import { PARSE_MODES, RENDER_MODES, STREAM_LIMITS, TRANSPORTS } from '../../protocol/wire.js';

export const DEFAULT_RENDER_EVERY_MS = 200;
export const DEFAULT_TABLE_ROWS = 1000;
export const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

export const CONCURRENCY_LIMIT = { min: 1, max: 500 };

function num(field: string, v: unknown, min: number, max: number, integer: boolean): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new Error(`${field} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}; got ${JSON.stringify(v)}`);
  }
  return n;
}

function oneOf<T extends string>(field: string, v: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(v as T)) throw new Error(`${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`);
  return v as T;
}

export function validatePageConfig(c: Partial<Record<keyof PageConfig, unknown>>): Required<PageConfig> {
  const b = STREAM_LIMITS.batch;
  const iv = STREAM_LIMITS.interval;
  return {
    transport: oneOf('transport', c.transport, TRANSPORTS),
    batch: num('batch', c.batch, b.min, b.max, true),
    intervalMs: num('intervalMs', c.intervalMs ?? 1, iv.min, iv.max, false),
    concurrency: num('concurrency', c.concurrency ?? 1, CONCURRENCY_LIMIT.min, CONCURRENCY_LIMIT.max, true),
    render: oneOf('render', c.render ?? 'full', RENDER_MODES),
    parse: oneOf('parse', c.parse ?? 'main', PARSE_MODES),
    workers: num('workers', c.workers ?? 1, 1, 16, true),
    tableRows: num('tableRows', c.tableRows ?? DEFAULT_TABLE_ROWS, 1, 100_000, true),
    renderEveryMs: num('renderEveryMs', c.renderEveryMs ?? DEFAULT_RENDER_EVERY_MS, 16, 10_000, false),
    openTimeoutMs: num('openTimeoutMs', c.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS, 100, 600_000, false),
  };
}
