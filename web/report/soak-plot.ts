/**
 * A soak drawn as SVG (soak-view.ts says what): four panels over one time axis, the start and end
 * windows shaded, the heap's trend dashed, the reconnect a red dashed line across them all.
 */
import type { Soak } from '../../protocol/soak.js';
import { formatCompact } from '../../results/format.js';
import { inert } from './inert.js';
import { niceCeil, soakPanels } from './soak-view.js';

// Geometry, in SVG user units; the SVG scales to its container's width.
const G = { width: 1180, left: 170, right: 30, top: 26, panel: 120, gap: 22, bottom: 40 } as const;
const SVG_NS = 'http://www.w3.org/2000/svg';

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = inert(text);
  return node;
}

/** Whole minutes, or seconds for a soak under two minutes. */
function timeTicks(xMax: number): { at: number; label: string }[] {
  const inSec = xMax < 2;
  const span = inSec ? xMax * 60 : xMax;
  const step = niceCeil(span / 8);
  const ticks: { at: number; label: string }[] = [];
  for (let v = 0; v <= span + 1e-9; v += step) ticks.push({ at: inSec ? v / 60 : v, label: inSec ? `${v} s` : `${v} min` });
  return ticks;
}

/** The soak drawn: four panels over one time axis. */
export function soakPlot(soak: Soak): SVGSVGElement {
  const v = soakPanels(soak);
  const plotW = G.width - G.left - G.right;
  const height = G.top + v.panels.length * (G.panel + G.gap) + G.bottom;
  const X = (m: number) => G.left + (v.xMax > 0 ? (m / v.xMax) * plotW : 0);
  const svg = el('svg', { viewBox: `0 0 ${G.width} ${height}`, class: 'soak-plot', role: 'img' });
  svg.append(el('title', {}, 'The soak over time: heap, event age p99, input delay p99, events/s'));
  const bottom = G.top + v.panels.length * (G.panel + G.gap) - G.gap;
  if (v.windows) {
    for (const [a, b] of [v.windows.start, v.windows.end]) {
      svg.append(el('rect', { x: X(a), y: G.top, width: Math.max(1, X(b) - X(a)), height: bottom - G.top, class: 'window' }));
    }
  }
  for (const t of timeTicks(v.xMax)) {
    svg.append(el('line', { x1: X(t.at), x2: X(t.at), y1: G.top, y2: bottom, class: 'grid' }));
    svg.append(el('text', { x: X(t.at), y: bottom + 16, class: 'tick' }, t.label));
  }
  svg.append(
    el('text', { x: G.left + plotW / 2, y: bottom + 34, class: 'axis-title' }, 'time since the first sample (shaded: the start and end windows compared)'),
  );
  v.panels.forEach((p, i) => {
    const y0 = G.top + i * (G.panel + G.gap);
    const Y = (y: number) => y0 + G.panel - (y / p.yMax) * G.panel;
    const g = el('g', { class: `panel panel-${i}` });
    g.append(el('rect', { x: G.left, y: y0, width: plotW, height: G.panel, class: 'frame' }));
    g.append(el('text', { x: 0, y: y0 + 46, class: 'panel-title' }, p.title));
    g.append(el('text', { x: 0, y: y0 + 62, class: 'panel-unit' }, p.unit));
    g.append(el('text', { x: G.left - 6, y: y0 + G.panel, class: 'ytick' }, '0'));
    g.append(el('text', { x: G.left - 6, y: y0 + 10, class: 'ytick' }, formatCompact(p.yMax)));
    // A line per run of present figures: a null breaks it.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) g.append(el('polyline', { points: run.join(' '), class: 'line' }));
      if (run.length === 1) {
        const [x, y] = run[0].split(',');
        g.append(el('circle', { cx: x, cy: y, r: 2, class: 'dot' }));
      }
      run = [];
    };
    for (const pt of p.points) {
      if (pt.y === null) flush();
      else run.push(`${X(pt.x).toFixed(1)},${Y(pt.y).toFixed(1)}`);
    }
    flush();
    if (p.trend) {
      const t = p.trend;
      g.append(el('line', { x1: X(t.x0), y1: Y(t.y0), x2: X(t.x1), y2: Y(t.y1), class: 'trend' }));
    }
    svg.append(g);
  });
  if (v.reconnect) {
    const x = X(v.reconnect.x);
    svg.append(el('line', { x1: x, x2: x, y1: G.top - 6, y2: bottom, class: 'reconnect' }));
    svg.append(el('text', { x: x + 6, y: G.top - 10, class: 'reconnect-label' }, v.reconnect.label));
  }
  return svg;
}
