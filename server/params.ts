import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  carries,
  compressionMismatch,
  encodingBatchMismatch,
  ENCODINGS,
  paramError,
  parseStreamParams,
  transportsCarrying,
  type BinaryEncoding,
  type ParamError,
  type StreamParams,
  type Transport,
} from '../protocol/wire.js';
import { StreamBusy } from './codecs/index.js';
import { DEFAULT_ENCODING } from '../protocol/encodings.js';
import type { Hub } from './hub.js';

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
  const others = ENCODINGS.filter((e) => e !== DEFAULT_ENCODING).map((e) => `${e} on ${transportsCarrying(e).join(', ')}`);
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

/**
 * The refusal of a stream the hub's pool cannot serve: a `pace` it cannot keep (`recorded` over
 * rows with no recorded times), or a batch larger than its pool serves in one piece (a --rows file
 * of large events: Hub.batchRefusal); null when it can.
 */
export function poolMismatch(hub: Hub, params: StreamParams): ParamError | null {
  const tooLarge = hub.batchRefusal(params);
  if (tooLarge !== null) return paramError('batch', String(params.batch), `an integer from 1 to ${hub.maxBatch} with this --rows file`, () => tooLarge);
  const why = hub.paceRefusal(params);
  return why === null ? null : paramError('pace', params.pace ?? null, 'steady; recorded with a --rows file whose events carry times', () => why);
}

/** preValidation: `validate`, then what the pool serves (poolMismatch), for a route that does not go through prepareStream. */
export function withPoolOf(hub: Hub, validate: PreValidation): PreValidation {
  return async (request, reply) => {
    await validate(request, reply);
    if (reply.sent) return;
    const mismatch = poolMismatch(hub, request.stream);
    if (mismatch) await reply.code(400).send({ error: 'bad-parameter', ...mismatch });
  };
}

/** Why a stream cannot open yet, as the route answers it: a status and a body naming the parameter. */
export interface StreamRefusal {
  status: number;
  body: { error: string } & ParamError;
}

/**
 * What a stream waits for before it opens: a batch of at least its encoding's minimum
 * (EncodingInfo.minBatch: ARROW_BATCH for `encoding=arrow`; else a 400 naming `batch`) and what
 * its codec prepares (hub.prepare: Arrow builds its size's batches while other streams keep
 * flowing). A codec that cannot serve it now (StreamBusy: a size that does not fit the Arrow
 * cache beside the sizes in use) gets a 503. Null when the stream may open.
 */
export async function prepareStream(hub: Hub, params: StreamParams): Promise<StreamRefusal | null> {
  const small = encodingBatchMismatch(params) ?? poolMismatch(hub, params);
  if (small) return { status: 400, body: { error: 'bad-parameter', ...small } };
  try {
    await hub.prepare(params);
    return null;
  } catch (err) {
    if (!(err instanceof StreamBusy)) throw err;
    return { status: 503, body: { error: 'busy', ...paramError('batch', String(params.batch), err.allowed, () => err.message) } };
  }
}

/** preValidation: `validate`, then prepareStream (the encoding's minimum batch, and what its codec prepares). */
export function withStreamReady(hub: Hub, validate: PreValidation): PreValidation {
  return async (request, reply) => {
    await validate(request, reply);
    if (reply.sent) return;
    const refusal = await prepareStream(hub, request.stream);
    if (!refusal) return;
    // Every size held is in use, or being built (each build takes seconds): try again later.
    if (refusal.status === 503) void reply.header('retry-after', '10');
    await reply.code(refusal.status).send(refusal.body);
  };
}
