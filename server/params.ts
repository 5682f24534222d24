import type { FastifyReply, FastifyRequest } from 'fastify';
import { carries, compressionMismatch, ENCODINGS, paramError, parseStreamParams, transportsCarrying, type BinaryEncoding, type ParamError, type StreamParams, type Transport } from '../protocol/wire.js';

declare module 'fastify' {
  interface FastifyRequest {
    stream: StreamParams;
  }
}

/**
 * preValidation hook shared by the stream routes: a bad `batch` or `interval` gets a 400
 * naming the parameter, the value and the allowed range, before any upgrade or stream.
 */
export async function validateStreamQuery(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const parsed = parseStreamParams(request.query as Record<string, unknown>);
  if (!parsed.ok) {
    await reply.code(400).send({ error: 'bad-parameter', ...parsed.error });
    return;
  }
  request.stream = parsed.value;
}

/** The refusal of an encoding a route does not carry (`msgpack` on `/sse`), naming where it works. */
export function encodingNotCarried(transport: Transport, value: BinaryEncoding): ParamError {
  const others = ENCODINGS.filter((e) => e !== 'json').map((e) => `${e} on ${transportsCarrying(e).join(', ')}`);
  const own = ENCODINGS.filter((e) => carries(transport, e));
  const allowed = `${own.join(' or ')} here; ${others.join('; ')}`;
  return paramError('encoding', value, allowed, () => `encoding must be ${allowed}`);
}

/** preValidation for a route whose transport does not carry every encoding: the others get a 400 naming where they work. */
export function withEncodingsOf(transport: Transport): PreValidation {
  return async (request, reply) => {
    await validateStreamQuery(request, reply);
    const encoding = request.stream?.encoding;
    if (reply.sent || encoding === undefined || carries(transport, encoding)) return;
    await reply.code(400).send({ error: 'bad-parameter', ...encodingNotCarried(transport, encoding) });
  };
}

type PreValidation = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * `validate`, then `compression`: refused with a 400 naming it unless it is the kind
 * `transport` carries (gzip for the HTTP streams, deflate for WebSockets, none for poll).
 */
export function withCompressionOf(transport: Transport, validate: PreValidation): PreValidation {
  return async (request, reply) => {
    await validate(request, reply);
    if (reply.sent) return;
    const mismatch = compressionMismatch(transport, request.stream.compression);
    if (mismatch) await reply.code(400).send({ error: 'bad-parameter', ...mismatch });
  };
}
