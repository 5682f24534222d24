/** The viewer's colours: one hue per transport, one per verdict, one per CPU process. */
import type { Verdict } from '../../../protocol/report.js';
import type { Transport } from './views.js';

// One hue per transport; further lines of the same transport (another concurrency, say) get
// another shade of it, so colour alone still says which transport a line is.
const TRANSPORT_SHADES: Record<Transport, string[]> = {
  ws: ['#1f5fbf', '#5b9be6', '#0e3470', '#9cc3f2'],
  sse: ['#d0590b', '#f29a4b', '#7a3206', '#f7c48f'],
  // The other transports: hues apart from ws's blue and sse's orange, and from the verdicts'.
  'ws-h2': ['#6a3fb5', '#a385d9', '#3b1f6e', '#cdbdec'],
  'sse-h1': ['#b8860b', '#e0b94a', '#6b4e06', '#f0dc9a'],
  fetch: ['#0f8a8a', '#52c2c2', '#074d4d', '#a3e0e0'],
  'grpc-web': ['#a0306e', '#d77aa9', '#5c1a3e', '#eec1d8'],
  poll: ['#6b6b6b', '#a0a0a0', '#3a3a3a', '#d0d0d0'],
};

export function transportColor(t: Transport, shade = 0): string {
  const shades = TRANSPORT_SHADES[t];
  return shades[shade % shades.length];
}

/** The ring around every chart point and the verdict cell's colour; the CSS uses the same. */
// Chosen to stand apart from both transport hues (blue, orange) as a ring around a point.
export const VERDICT_COLORS: Record<Verdict, string> = {
  ok: '#1d7a3a',
  'client-bound': '#b0188f',
  'server-bound': '#0e8a9e',
  'host-bound': '#3f3f46',
  failed: '#dc2626',
};

export const VERDICT_MEANING: Record<Verdict, string> = {
  ok: 'ok: ≥ 97 % of the offered rate delivered',
  'client-bound': 'client-bound: the page fell behind',
  'server-bound': 'server-bound: the server fell behind its schedule',
  'host-bound': 'host-bound: every core was busy',
  failed: 'failed: no repeat measured',
};

export const CPU_COLORS = ['#2b6cb0', '#38a169', '#a0aec0', '#d69e2e', '#805ad5'] as const;

export const REFERENCE_COLOR = '#6b4fbb';
export const GRID_COLOR = '#e6e8eb';
