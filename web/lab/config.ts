/** Validates `pushlab.start()` config and URL parameters: errors name the field, value and range. */
import { inRange, LIMITS, parseDecimal, rangeText, type Range } from '../../protocol/limits.js';
import type { PageConfig } from '../../protocol/page-api.js';
import { RENDER_MODULE_URL_PATTERN } from '../../protocol/render-module.js';
import { PACES } from '../../protocol/pace.js';
import {
  carries,
  COMPRESSIONS,
  compressionMismatch,
  DEFAULT_POLL_MS,
  ENCODINGS,
  PARSE_MODES,
  RENDER_MODES,
  TRANSPORTS,
  transportsCarrying,
  type Compression,
  type Encoding,
  type Transport,
} from '../../protocol/wire.js';

export const DEFAULT_RENDER_EVERY_MS = 200;
export const DEFAULT_TABLE_ROWS = 1000;
export const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

/** The page's own knobs, which no scenario or query sets. */
const PAGE_LIMITS = {
  tableRows: { min: 1, max: 100_000, integer: true },
  renderEveryMs: { min: 16, max: 10_000, integer: false },
  openTimeoutMs: { min: 100, max: 600_000, integer: false },
} as const satisfies Record<string, Range>;

/** A number, or a form/URL string read as a plain decimal (the same rule as flags and the stream query). */
function num(field: string, v: unknown, range: Range): number {
  const n = typeof v === 'string' ? parseDecimal(v.trim()) : v;
  if (typeof n !== 'number' || !inRange(n, range)) throw new Error(`${field} must be ${rangeText(range)}; got ${JSON.stringify(v)}`);
  return n;
}

/** A boolean, or a form/URL string `true`/`false`. */
function bool(field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new Error(`${field} must be true or false; got ${JSON.stringify(v)}`);
}

function oneOf<T extends string>(field: string, v: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(v as T)) throw new Error(`${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`);
  return v as T;
}

/** A binary encoding only where the transport carries it (TransportInfo.encodings). */
function binaryEncoding(transport: unknown, encoding: Encoding): Encoding {
  if (TRANSPORTS.includes(transport as Transport) && !carries(transport as Transport, encoding)) {
    throw new Error(`encoding ${encoding} needs transport ${transportsCarrying(encoding).join(', ')}; got ${JSON.stringify(transport)}`);
  }
  return encoding;
}

/** A compression only where the transport carries that kind (TRANSPORT_INFO); `off` as absent. */
function streamCompression(transport: unknown, compression: Compression): PageConfig['compression'] {
  if (compression === 'off') return undefined;
  const mismatch = TRANSPORTS.includes(transport as Transport) ? compressionMismatch(transport as Transport, compression) : null;
  if (mismatch) throw new Error(mismatch.message);
  return compression;
}

/**
 * A render module's URL (`renderModuleUrl`'s shape only: the page imports nothing else), and the
 * settings it needs: it takes the place of what render mode `full` draws, on the main thread,
 * where the batches are decoded.
 */
function renderModule(c: Partial<Record<keyof PageConfig, unknown>>): string | undefined {
  const url = c.renderModule;
  if (url === undefined || url === '') return undefined;
  if (typeof url !== 'string' || !RENDER_MODULE_URL_PATTERN.test(url)) {
    throw new Error(
      `renderModule must be a built module's URL, ./render-modules/<sha256>/module.js (the driver builds it from --render-module); got ${JSON.stringify(url)}`,
    );
  }
  if ((c.render ?? 'full') !== 'full') throw new Error(`renderModule replaces what render full draws, so render must be full; got ${JSON.stringify(c.render)}`);
  if ((c.parse ?? 'main') !== 'main')
    throw new Error(`renderModule needs parse main (the module draws each batch where it is decoded); got ${JSON.stringify(c.parse)}`);
  return url;
}

export function validatePageConfig(
  c: Partial<Record<keyof PageConfig, unknown>>,
): Required<Omit<PageConfig, 'compression' | 'renderModule' | 'pace'>> & Pick<PageConfig, 'compression' | 'renderModule' | 'pace'> {
  return {
    transport: oneOf('transport', c.transport, TRANSPORTS),
    batch: num('batch', c.batch, LIMITS.batch),
    intervalMs: num('intervalMs', c.intervalMs ?? 1, LIMITS.intervalMs),
    concurrency: num('concurrency', c.concurrency ?? 1, LIMITS.concurrency),
    render: oneOf('render', c.render ?? 'full', RENDER_MODES),
    parse: oneOf('parse', c.parse ?? 'main', PARSE_MODES),
    workers: num('workers', c.workers ?? 1, LIMITS.workers),
    tableRows: num('tableRows', c.tableRows ?? DEFAULT_TABLE_ROWS, PAGE_LIMITS.tableRows),
    renderEveryMs: num('renderEveryMs', c.renderEveryMs ?? DEFAULT_RENDER_EVERY_MS, PAGE_LIMITS.renderEveryMs),
    openTimeoutMs: num('openTimeoutMs', c.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS, PAGE_LIMITS.openTimeoutMs),
    pollMs: num('pollMs', c.pollMs ?? DEFAULT_POLL_MS, LIMITS.pollMs),
    origins: num('origins', c.origins ?? 1, LIMITS.origins),
    encoding: binaryEncoding(c.transport, oneOf('encoding', c.encoding ?? 'json', ENCODINGS)),
    compression: streamCompression(c.transport, oneOf('compression', c.compression ?? 'off', COMPRESSIONS)),
    // `steady` as absent, as `off` is for compression.
    pace: oneOf('pace', c.pace ?? 'steady', PACES) === 'recorded' ? 'recorded' : undefined,
    inputProbe: bool('inputProbe', c.inputProbe ?? true),
    renderModule: renderModule(c),
  };
}
