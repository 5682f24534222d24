/**
 * How the server encodes each encoding (protocol/encodings.ts says what each is). A
 * Record<EncodingName, …>, so an encoding the server cannot encode is a compile error; the
 * transports take a stream's encoder from here and never name an encoding.
 */
import { ENCODING_INFO, encodingOf, type Carriage, type EncodingInfo, type EncodingName } from '../../protocol/encodings.js';
import type { StreamParams } from '../../protocol/wire.js';
import { arrowCodec } from './arrow.js';
import type { ServerCodec, StreamEncoder } from './codec.js';
import { jsonCodec } from './json.js';
import { msgpackCodec } from './msgpack.js';

export type { SendMessage, ServerCodec, StreamEncoder } from './codec.js';
export { StreamBusy } from './codec.js';

export const SERVER_CODECS: Record<EncodingName, ServerCodec> = {
  json: jsonCodec,
  msgpack: msgpackCodec,
  arrow: arrowCodec,
};

/** A stream's encoder for a transport of `carriage`, with what the registry says of its encoding (text or binary, content type). */
export function streamEncoder(params: Pick<StreamParams, 'encoding'>, carriage: Carriage): StreamEncoder & { info: EncodingInfo } {
  const encoder = SERVER_CODECS[encodingOf(params)].open(carriage);
  return { write: encoder.write.bind(encoder), info: ENCODING_INFO[encodingOf(params)] };
}
