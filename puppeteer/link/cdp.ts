/**
 * A `cdp:` link (protocol/link.ts): Chrome's own network emulation on a tab,
 * Network.emulateNetworkConditions, as DevTools' throttling presets use it. Kept beside the
 * namespaces for comparison, labelled in the point id (`-cdp…`): it shapes inside Chrome's network
 * stack, per request, and docs/network.md says what that reaches on each transport.
 */
import type { CDPSession } from 'puppeteer-core';
import { PushlabError } from '../../protocol/errors.js';
import { linkOf } from '../../protocol/link.js';
import type { Point } from '../../protocol/scenario.js';

/** Applies the point's `cdp:` link to one tab's session (no Firefox: refused by the factor). */
export async function emulateLink(session: CDPSession | null, point: Pick<Point, 'id' | 'link'>): Promise<void> {
  if (session === null) throw new PushlabError('PUSHLAB_NO_NETNS', `${point.id}: a cdp: link is Chrome's network emulation, and this tab has no CDP session`);
  const l = linkOf(point.link!);
  // Bytes per second each way; -1: no cap. The latency is the round trip Chrome adds per request.
  const throughput = l.mbit === null ? -1 : (l.mbit * 1e6) / 8;
  // Emulation lives in the Network domain, which DevTools has on while it throttles: enabled here
  // too, so the conditions apply, and its own cost (Chrome then ships every frame and message to
  // this driver) is part of what a cdp: point measures, as the devtools factor's `network` is.
  await session.send('Network.enable');
  await session.send('Network.emulateNetworkConditions', { offline: false, latency: l.rttMs, downloadThroughput: throughput, uploadThroughput: throughput });
}
