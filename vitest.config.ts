import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tests measure throughput on a 2-core machine: never run files in parallel.
    fileParallelism: false,
    testTimeout: 20_000,
  },
});
