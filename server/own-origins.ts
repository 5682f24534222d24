/**
 * The origins of this server's own pages, as one rule for every door into it: CORS and every
 * route of the main app (cors.ts, which the h1 origin and the replicas route into), WebSocket
 * upgrades (handed from the replicas too: they go through the same routing), and the connect
 * origin's warm-up fetch and extended CONNECT (origins.ts). The rule itself is
 * cli/local-origins.ts judgeOrigin; what this server adds is its ports: the main one and those
 * of the h1, connect and replica origins (origins.ts), each added as it listens.
 *
 * A page of this server is served over HTTPS from one of these ports, by the name the request
 * addressed (`/origins` answers with that name). Every other page is foreign: it gets no CORS
 * grant and no stream, whatever it asks (403).
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { judgeOrigin, type OriginVerdict } from '../cli/local-origins.js';

export class OwnOrigins {
  private readonly ports = new Set<number>();

  /** A port this server listens on (main, h1, connect or a replica). */
  addPort(port: number): void {
    this.ports.add(port);
  }

  judge(headers: IncomingHttpHeaders): OriginVerdict {
    return judgeOrigin(headers, 'https', (port) => this.ports.has(port));
  }
}

/** The one refusal of a foreign page, on every origin and route (a short JSON body). */
export function foreignRefusal(why: string): { error: 'foreign-origin'; message: string } {
  return { error: 'foreign-origin', message: `refused: ${why}; pushlab's servers answer only their own pages (see docs/reliability.md, Security)` };
}
