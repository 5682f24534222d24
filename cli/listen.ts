/**
 * Why a port cannot be listened on, in words, for every listener a command opens (the
 * server's origins, the report viewer's): one coded line instead of Node's stack.
 */
import { PushlabError } from '../protocol/errors.js';

/** What went wrong, `port 8443 on 127.0.0.1 is in use (EADDRINUSE)`; Node's message for anything else. */
export function listenErrorText(err: unknown, host: string, port: number): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is in use (EADDRINUSE)`;
  if (code === 'EACCES') return `port ${port} on ${host} is not open to this user (EACCES; ports below 1024 need privileges)`;
  if (code === 'EADDRNOTAVAIL') return `${host} is not an address of this machine (EADDRNOTAVAIL)`;
  return err instanceof Error ? err.message : String(err);
}

/** Whether `err` is an errno a listen() gives for its address or port. */
export function isListenError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL';
}

/**
 * Listens through `listen`; a port in use (or refused, or an address not here) becomes
 * PUSHLAB_CANNOT_LISTEN naming the flag, the address and what to do.
 */
export async function listenOr<T>(flag: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    if (!isListenError(err)) throw err;
    throw new PushlabError(
      'PUSHLAB_CANNOT_LISTEN',
      `${flag} ${port}: ${listenErrorText(err, host, port)}; stop what holds it or pick another ${flag} (0 takes a free one)`,
    );
  }
}
