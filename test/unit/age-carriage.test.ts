/**
 * Every encoding carries a batch's due time to the page (issue 33): what the server's codec
 * (server/codecs/) writes, the page's codec (web/lab/codecs/) reads back with the same `seq`,
 * `sentAt` and `dueAt`, over each carriage the encoding fits where the page decodes whole
 * messages or a byte stream. An encoding added to the registry is in this test by being there.
 */
import { describe, expect, it } from 'vitest';
import { ENCODING_INFO, ENCODING_NAMES, type Carriage, type EncodingName } from '../../protocol/encodings.js';
import { SERVER_CODECS } from '../../server/codecs/index.js';
import { RowPool } from '../../server/rows.js';

/** What this test reads of a page codec (web/lab/codecs/codec.ts PageCodec). */
interface PageCodecShape {
  open(sink: { batch(b: unknown): void; bytes(n: number): void; undecodable(): void }): {
    message(data: string | ArrayBuffer): void;
    stream(chunks: AsyncIterable<Uint8Array>): Promise<void>;
  };
  seq(b: unknown): number;
  sentAt(b: unknown): number;
  dueAt(b: unknown): number;
  count(b: unknown): number;
}
/**
 * The page's codecs, loaded at run time: web/lab/ is compiled with the DOM's types
 * (web/tsconfig.json) and this file with Node's, so the compiler does not follow this import.
 */
const PAGE_CODECS_MODULE = new URL('../../web/lab/codecs/index.ts', import.meta.url).href;
const loadPageCodecs = async () => ((await import(PAGE_CODECS_MODULE)) as { PAGE_CODECS: Record<EncodingName, () => Promise<PageCodecShape>> }).PAGE_CODECS;

const BATCH = 20;
const STAMPS = [
  { seq: 0, sentAt: '1711745756581.125', dueAt: '1711745756580.5' },
  { seq: 1, sentAt: '1711745756632.25', dueAt: '1711745756630.5' },
  { seq: 2, sentAt: '1711745756690', dueAt: '1711745756680.5' },
];
/** The carriages whose messages the page's codec takes as whole messages or as a byte stream. */
const READ_AS: Partial<Record<Carriage, 'message' | 'stream'>> = { frames: 'message', events: 'message', stream: 'stream', lines: 'stream' };

async function messagesOf(encoding: EncodingName, carriage: Carriage): Promise<Buffer[]> {
  const pool = new RowPool(1000, undefined, 3);
  pool.useEpochAt(1711745756000);
  await SERVER_CODECS[encoding].prepare?.(pool, BATCH, () => new Set([BATCH]));
  const encoder = SERVER_CODECS[encoding].open(carriage);
  const out: Buffer[] = [];
  for (const s of STAMPS)
    encoder.write(s.seq, s.sentAt, s.dueAt, pool, BATCH, (head, body, tail) => {
      const h = typeof head === 'string' ? Buffer.from(head, 'latin1') : head;
      out.push(Buffer.concat([h, body, tail]));
      return h.length + body.length + tail.length;
    });
  return out;
}

const cases = ENCODING_NAMES.flatMap((e) => ENCODING_INFO[e].carriages.filter((c) => READ_AS[c] !== undefined).map((c) => [e, c] as [EncodingName, Carriage]));

describe('every encoding carries dueAt beside sentAt, server codec to page codec', () => {
  it('covers every encoding of the registry', () => {
    expect(new Set(cases.map(([e]) => e))).toEqual(new Set(ENCODING_NAMES));
  });

  it.each(cases)('%s over %s', async (encoding, carriage) => {
    const messages = await messagesOf(encoding, carriage);
    const codec = await (await loadPageCodecs())[encoding]();
    const got: { seq: number; sentAt: number; dueAt: number; count: number }[] = [];
    const decoder = codec.open({
      batch: (b) => got.push({ seq: codec.seq(b), sentAt: codec.sentAt(b), dueAt: codec.dueAt(b), count: codec.count(b) }),
      bytes: () => undefined,
      undecodable: () => {
        throw new Error(`${encoding} over ${carriage}: a message the page could not decode`);
      },
    });
    if (READ_AS[carriage] === 'message') {
      for (const m of messages) {
        const bytes = new Uint8Array(m).buffer;
        decoder.message(ENCODING_INFO[encoding].text ? m.toString('latin1') : bytes);
      }
    } else {
      // One chunk per message, and the whole stream cut in the middle of a message.
      const all = Buffer.concat(messages);
      const cut = Math.floor(all.length / 2) + 1;
      async function* chunks(): AsyncGenerator<Uint8Array> {
        yield new Uint8Array(all.subarray(0, cut));
        yield new Uint8Array(all.subarray(cut));
      }
      await decoder.stream(chunks());
    }
    expect(got).toEqual(STAMPS.map((s) => ({ seq: s.seq, sentAt: Number(s.sentAt), dueAt: Number(s.dueAt), count: BATCH })));
  });
});
