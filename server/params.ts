import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseStreamParams, type StreamParams } from '../protocol/wire.js';

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
