/** The viewer's colours: each transport's (TransportInfo.shades in protocol/wire.ts), one per verdict, one per CPU process. */
import type { Verdict } from '../../protocol/repeat-figures.js';
import { TRANSPORT_INFO } from '../../protocol/wire.js';
import type { Transport } from './views.js';

/** A transport this build does not know (a newer build's, or an edited report): grey, still drawn. */
export const UNKNOWN_TRANSPORT_COLOR = '#8a8f98';

/** Line `shade` of a transport: its hue first, then shades of it (TransportInfo.shades in protocol/wire.ts). */
export function transportColor(t: Transport, shade = 0): string {
  const shades = Object.hasOwn(TRANSPORT_INFO, t) ? TRANSPORT_INFO[t].shades : [UNKNOWN_TRANSPORT_COLOR];
  return shades[shade % shades.length];
}

/** The ring around every chart point and the verdict cell's colour; the CSS uses the same. */
// Chosen to stand apart from both transport hues (blue, orange) as a ring around a point.
export const VERDICT_COLORS: Record<Verdict, string> = {
  ok: '#1d7a3a',
  'client-bound': '#b0188f',
  'server-bound': '#0e8a9e',
  'host-bound': '#3f3f46',
  'network-bound': '#b45309',
  failed: '#dc2626',
};

export const VERDICT_MEANING: Record<Verdict, string> = {
  ok: 'ok: ≥ 97 % of the offered rate delivered',
  'client-bound': 'client-bound: the page fell behind',
  'server-bound': 'server-bound: the server fell behind its schedule',
  'host-bound': 'host-bound: every core was busy',
  'network-bound': 'network-bound: the link ran at its cap while the server shed',
  failed: 'failed: no repeat measured',
};

export const CPU_COLORS = ['#2b6cb0', '#38a169', '#a0aec0', '#d69e2e', '#805ad5'] as const;

export const REFERENCE_COLOR = '#6b4fbb';
export const GRID_COLOR = '#e6e8eb';
