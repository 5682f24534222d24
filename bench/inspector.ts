/**
 * The V8 inspector of a server this bench started with `--inspect=127.0.0.1:<port>`: a full
 * garbage collection before a memory reading, so the reading says what the server keeps, not
 * what it has not yet collected. The server cannot be made to collect from outside otherwise,
 * and a GC route would be an endpoint that runs something a request names.
 */
import { createServer } from 'node:net';
import WebSocket from 'ws';

/** A free loopback port for `--inspect`, from the kernel (the one-moment race is a bench's to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Inspector {
  /** Runs a full, non-incremental GC (HeapProfiler.collectGarbage). */
  collectGarbage(): Promise<void>;
  /** V8 heap in use, bytes (Runtime.getHeapUsage). */
  heapUsedBytes(): Promise<number>;
  close(): void;
}

/** Attaches to the inspector on `port` (the process's one target). */
export async function attachInspector(port: number, timeoutMs = 5000): Promise<Inspector> {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(timeoutMs) });
  const [target] = (await res.json()) as { webSocketDebuggerUrl: string }[];
  if (!target) throw new Error(`the inspector on port ${port} lists no target`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const p = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id!);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  });
  const send = <T>(method: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: (r) => resolve(r as T), reject });
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    collectGarbage: () => send<void>('HeapProfiler.collectGarbage'),
    heapUsedBytes: async () => (await send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize,
    close: () => ws.close(),
  };
}
