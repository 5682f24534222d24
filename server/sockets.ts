/**
 * A number per TCP connection, so `/stats` can say how many TCP connections a page's streams
 * shared: every HTTP/2 stream of one session shares its socket, every WebSocket over an
 * HTTP/1.1 upgrade has its own.
 */
const ids = new WeakMap<object, number>();
let next = 1;

/** The connection's number (assigned on first sight); 0 when the socket is already gone. */
export function socketId(socket: object | null | undefined): number {
  if (!socket) return 0;
  let id = ids.get(socket);
  if (id === undefined) {
    id = next++;
    ids.set(socket, id);
  }
  return id;
}
