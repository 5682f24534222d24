import type { FastifyReply, FastifyRequest } from 'fastify';
import { BINARY_TRANSPORTS, compressionMismatch, paramError, parseStreamParams, type ParamError, type StreamParams, type Transport } from '../protocol/wire.js';

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

/** The refusal of `encoding=msgpack` on a route that speaks only JSON text, naming where it works. */
export function textOnlyEncoding(value: string): ParamError {
  const allowed = `json here; msgpack on ${BINARY_TRANSPORTS.join(', ')}`;
  return paramError('encoding', value, allowed, () => `encoding must be ${allowed}`);
}

/** preValidation for routes that only speak JSON text (`/sse`). */
export async function validateTextStreamQuery(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await validateStreamQuery(request, reply);
  if (reply.sent || request.stream?.encoding === undefined) return;
  await reply.code(400).send({ error: 'bad-parameter', ...textOnlyEncoding(request.stream.encoding) });
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
