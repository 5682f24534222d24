/**
 * A chart.js plugin that draws a vertical whisker (the 95% CI) through each plotted value. A
 * few lines of canvas instead of a dependency: it needs only each element's pixel position,
 * which chart.js has already laid out for points and bars alike.
 */
import type { Chart, Plugin } from 'chart.js';

/** [low, high] in data units, or null where there is no interval (fewer than 2 repeats). */
export type Range = readonly [number, number] | null;

/** `ranges[datasetIndex][valueIndex]`; datasets without ranges are skipped. */
export function whiskers(ranges: readonly (readonly Range[] | undefined)[]): Plugin {
  return {
    id: 'pushlabWhiskers',
    afterDatasetsDraw(chart: Chart) {
      const y = chart.scales.y;
      const ctx = chart.ctx;
      const area = chart.chartArea;
      ranges.forEach((rs, i) => {
        if (!rs || !chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i);
        const color = chart.data.datasets[i]?.borderColor;
        ctx.save();
        // A CI can reach below zero (t on three noisy repeats); it is cut at the plot's edge.
        ctx.beginPath();
        ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
        ctx.clip();
        ctx.strokeStyle = typeof color === 'string' ? color : '#333';
        ctx.lineWidth = 1.5;
        rs.forEach((r, j) => {
          const el = meta.data[j];
          if (!r || !el || !Number.isFinite(el.x)) return;
          const top = y.getPixelForValue(r[1]);
          const bottom = y.getPixelForValue(r[0]);
          ctx.beginPath();
          ctx.moveTo(el.x, top);
          ctx.lineTo(el.x, bottom);
          ctx.moveTo(el.x - 4, top);
          ctx.lineTo(el.x + 4, top);
          ctx.moveTo(el.x - 4, bottom);
          ctx.lineTo(el.x + 4, bottom);
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };
}

/** The highest whisker, so the y axis can make room for it. */
export function highestWhisker(ranges: readonly (readonly Range[] | undefined)[]): number | undefined {
  // One pass, no spread: a spread of every value as arguments overflowed the stack at 20,000 points.
  let highest: number | undefined;
  for (const rs of ranges) for (const r of rs ?? []) if (r && (highest === undefined || r[1] > highest)) highest = r[1];
  return highest;
}
