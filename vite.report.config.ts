import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

// The report viewer as ONE file: scripts, styles and chart.js inlined, so the report.html a
// sweep writes next to report.json opens from file:// with no server and no network.
// puppeteer/report/html.ts fills its empty <script id="report-data"> with the report.
export default defineConfig({
  root: 'web',
  base: './',
  plugins: [viteSingleFile()],
  build: {
    outDir: '../dist/report',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: resolve(import.meta.dirname, 'web/report.html') },
  },
});
