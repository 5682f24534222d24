/**
 * Heartbeats that find dead peers. A client that dies while the server has nothing it may
 * send (its HTTP/2 flow-control windows are closed, or every batch is being shed) can leave
 * a connection nobody reads or writes: bench:server saw an HTTP/2 session outlive its client
 * process with no close, error or end event, its streams shed forever. A PING every few
 * seconds, answered by the peer's network stack even when its page is busy, settles it: no
 * answer within the deadline and the connection is destroyed, which closes its streams.
 */
import type { Http2Session } from 'node:http2';
import type { WebSocket } from 'ws';

export interface Heartbeat {
  /** How often to PING. */
  everyMs: number;
  /** Drop the connection when the last answer is older than this. */
  deadlineMs: number;
}

export const DEFAULT_HEARTBEAT: Heartbeat = { everyMs: 5_000, deadlineMs: 15_000 };

const watched = new WeakSet<Http2Session>();

/** Connections this process destroyed for not answering heartbeats (reported in /stats). */
export const deadPeers = { dropped: 0 };

export function watchHttp2Session(session: Http2Session, { everyMs, deadlineMs }: Heartbeat = DEFAULT_HEARTBEAT): void {
  if (watched.has(session)) return;
  watched.add(session);
  let lastAnswer = performance.now();
  // Watched until destroyed, not merely closed: a session the client is closing (GOAWAY) still
  // carries our streams, which never end by themselves, so its graceful close never completes;
  // and a closing session cannot be pinged (Node cancels the PING), so it gets the deadline and
  // then goes. Stopping at `closed` left such sessions, in CLOSE-WAIT, paced for good.
  const timer = setInterval(() => {
    if (session.destroyed) return clearInterval(timer);
    if (performance.now() - lastAnswer > deadlineMs) {
      clearInterval(timer);
      deadPeers.dropped++;
      session.destroy(new Error(`no PING answer in ${deadlineMs} ms`));
      return;
    }
    try {
      session.ping((err) => {
        if (!err) lastAnswer = performance.now();
      });
    } catch {
      // Too many unanswered pings queue up only on a dead peer; the deadline handles it.
    }
  }, everyMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}

export function watchWebSocket(socket: WebSocket, { everyMs, deadlineMs }: Heartbeat = DEFAULT_HEARTBEAT): void {
  let lastAnswer = performance.now();
  socket.on('pong', () => (lastAnswer = performance.now()));
  const timer = setInterval(() => {
    if (performance.now() - lastAnswer > deadlineMs) {
      clearInterval(timer);
      deadPeers.dropped++;
      socket.terminate();
      return;
    }
    socket.ping();
  }, everyMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}
