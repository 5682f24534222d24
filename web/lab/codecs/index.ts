/**
 * How the page decodes each encoding (protocol/encodings.ts says what each is): a
 * Record<EncodingName, …> of loaders, so an encoding the page cannot decode is a compile error.
 * A loader may fetch its library on first use (Arrow's, arrow-batch.ts), so a page that never
 * streams it never loads it.
 */
import { encodingOf, type EncodingName } from '../../../protocol/encodings.js';
import type { StreamParams } from '../../../protocol/wire.js';
import { loadArrow } from '../arrow-batch.js';
import { arrowCodec } from './arrow.js';
import type { PageCodec } from './codec.js';
import { jsonCodec } from './json.js';
import { msgpackCodec } from './msgpack.js';

export type { BatchSink, PageCodec, StreamDecoder } from './codec.js';
export type { ChartColumn } from '../chart-column.js';

/** A codec whose batch type is its own business: the page hands its batches back only to it. */
export type AnyPageCodec = PageCodec<unknown>;

export const PAGE_CODECS: Record<EncodingName, () => Promise<AnyPageCodec>> = {
  json: () => Promise.resolve(jsonCodec),
  msgpack: () => Promise.resolve(msgpackCodec),
  arrow: () => loadArrow().then(arrowCodec),
};

/** The codec of a stream's encoding, loaded. */
export function loadCodec(params: Pick<StreamParams, 'encoding'>): Promise<AnyPageCodec> {
  return PAGE_CODECS[encodingOf(params)]();
}
