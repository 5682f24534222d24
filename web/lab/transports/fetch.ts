/** `fetch`: one endless response per connection, its messages cut and decoded by the stream's decoder as they arrive. */
import { answerText, bodyChunks, reconnecting, type Attempt, type ConnectionHandlers, type OpenConnection } from './connection.js';

/** `fetch`: one endless response, read as it arrives (NDJSON lines, or another encoding's messages back to back). */
function fetchAttempt(url: Promise<string>, h: ConnectionHandlers): Attempt {
  return (up, down) => {
    const abort = new AbortController();
    const read = async () => {
      const decoder = await h.decoder();
      const r = await fetch(await url, { signal: abort.signal, cache: 'no-store' });
      if (!r.ok || !r.body) return down(await answerText(r));
      up();
      await decoder.stream(bodyChunks(r.body.getReader()));
      down('the response ended');
    };
    read().catch((err: unknown) => down(err instanceof Error ? err.message : String(err)));
    return () => abort.abort();
  };
}

export const openFetch: OpenConnection = (r) => reconnecting(r.name, r.handlers, fetchAttempt(r.url, r.handlers));
