/**
 * Lighthouse's BenchmarkIndex, run in a page: the score device classes are calibrated against.
 * `computeBenchmarkIndex` from GoogleChrome/lighthouse core/lib/page-functions.js (Apache License
 * 2.0), with the duration as a parameter as devtools-frontend's CalibrationController takes it
 * (Lighthouse runs 500 ms per half): a GC-heavy half (a 10,000-character string built again and
 * again) and a GC-free half (100,000 integers copied between two arrays), averaged. Higher is
 * faster; Lighthouse reads 1000+ as desktop-class, 125+ as a mid-tier Android phone of 2020.
 *
 * Kept as source text, not a function: the page runs it as written, and a bundler's helpers
 * (esbuild's keepNames wraps named functions in `__name`) do not exist there.
 */
import type { Page } from 'puppeteer-core';

export const BENCHMARK_INDEX_SOURCE = `function computeBenchmarkIndex(duration) {
  const halfTime = duration / 2;
  function benchmarkIndexGC() {
    const start = Date.now();
    let iterations = 0;
    while (Date.now() - start < halfTime) {
      let s = '';
      for (let j = 0; j < 10000; j++) s += 'a';
      if (s.length === 1) throw new Error('will never happen, but prevents compiler optimizations');
      iterations++;
    }
    const durationInSeconds = (Date.now() - start) / 1000;
    return Math.round(iterations / 10 / durationInSeconds);
  }
  function benchmarkIndexNoGC() {
    const arrA = [];
    const arrB = [];
    for (let i = 0; i < 100000; i++) arrA[i] = arrB[i] = i;
    const start = Date.now();
    let iterations = 0;
    while (iterations % 10 !== 0 || Date.now() - start < halfTime) {
      const src = iterations % 2 === 0 ? arrA : arrB;
      const tgt = iterations % 2 === 0 ? arrB : arrA;
      for (let j = 0; j < src.length; j++) tgt[j] = src[j];
      iterations++;
    }
    const durationInSeconds = (Date.now() - start) / 1000;
    return Math.round(iterations / 10 / durationInSeconds);
  }
  return (benchmarkIndexGC() + benchmarkIndexNoGC()) / 2;
}`;

/** One reading of the index in this page, over `durationMs` of running (half per half). */
export async function readBenchmarkIndex(page: Page, durationMs: number): Promise<number> {
  const value: unknown = await page.evaluate(`(${BENCHMARK_INDEX_SOURCE})(${durationMs})`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`the BenchmarkIndex read ${String(value)}, not a positive number`);
  return value;
}
