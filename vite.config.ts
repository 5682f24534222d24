import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The lab page the driver measures, the report viewer, and the bench's bare page.
export default defineConfig({
  root: 'web',
  base: './',
  // ES-module Workers (sources.ts opens them with type: 'module') can split chunks: the stream
  // Worker then loads apache-arrow only for an Arrow stream, as the page does, instead of
  // carrying it inlined (an iife Worker cannot split).
  worker: { format: 'es' },
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
        // The Arrow decoders side by side for `npm run bench:arrow`.
        arrow: resolve(import.meta.dirname, 'web/bench/arrow.html'),
      },
    },
  },
});
