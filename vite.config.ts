import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The lab page the driver measures, the report viewer, and the bench's bare page.
export default defineConfig({
  root: 'web',
  base: './',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: {
        lab: resolve(import.meta.dirname, 'web/index.html'),
        report: resolve(import.meta.dirname, 'web/report.html'),
        // The bare reference page for `npm run bench:page`.
        bare: resolve(import.meta.dirname, 'web/bench/bare.html'),
      },
    },
  },
});
