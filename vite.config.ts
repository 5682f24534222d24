import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// Two pages: the lab page the driver measures, and the report viewer.
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
      },
    },
  },
});
