/** `poll`: HTTP polling, the pull model push replaces. */
import { POLL_ID_HEADER } from '../../../protocol/wire.js';
import { answerText, reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** One chunk, as a stream. */
async function* once(chunk: Uint8Array): AsyncGenerator<Uint8Array> {
  yield chunk;
}

/** `poll`: a first request names the stream, then one request every `pollMs` takes what is due. */
function pollAttempt(url: Promise<string>, h: ConnectionHandlers, pollMs: number): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stream: string | null = null;
    const run = async () => {
      const first = await fetch(await url, { signal: abort.signal, cache: 'no-store' });
      const id = first.headers.get(POLL_ID_HEADER);
      if (!first.ok || !id) return down(first.ok ? `no ${POLL_ID_HEADER} header in the answer` : await answerText(first));
      await first.arrayBuffer();
      const decoder = await h.decoder();
      up();
      const next = new URL(`/poll?id=${id}`, await url).href;
      stream = next;
      let due = performance.now();
      for (;;) {
        // Fixed rate: a slow answer shortens the wait before the next request, never adds to it.
        due = Math.max(due + pollMs, performance.now());
        await new Promise((resolve) => (timer = setTimeout(resolve, due - performance.now())));
        const r = await fetch(next, { signal: abort.signal, cache: 'no-store' });
        if (!r.ok) return down(await answerText(r));
        // An answer is whole lines: a piece of the stream the decoder cuts into messages.
        await decoder.stream(once(new Uint8Array(await r.arrayBuffer())));
      }
    };
    run().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => {
      clearTimeout(timer);
      abort.abort();
      // Ends the stream on the server now; keepalive lets it outlive a closing page.
      if (stream) void fetch(stream, { method: 'DELETE', keepalive: true, cache: 'no-store' }).catch(() => undefined);
    };
  };
}

export const openPoll: OpenConnection = (r) => reconnecting(r.name, r.handlers, pollAttempt(r.url, r.handlers, r.options.pollMs));
