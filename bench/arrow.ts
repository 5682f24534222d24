/**
 * `npm run bench:arrow`: apache-arrow and @uwdata/flechette side by side in the page
 * (web/bench/arrow.ts), on the server's own Arrow messages, at 400- and 4,000-row batches (or
 * `--batch`): rows per second each decodes doing per batch what the count-only page does plus
 * the chart's aggregate (decode, row count, `sentAt`, max of the speed column), on one main
 * thread with no network. The libraries alternate, `--repeats` times, in one fresh tab, and
 * each figure is the median. The page keeps the faster (apache-arrow, see docs/transports.md).
 */
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import type { FlagSpec } from '../protocol/flags.js';
import { LIMITS } from '../protocol/limits.js';
import { median } from '../results/stats.js';
import { launchChrome } from '../puppeteer/browser/chrome.js';
import { startServer } from '../puppeteer/measure/server-process.js';

const FLAGS = {
  batch: { type: 'list', default: ['400', '4000'], integers: LIMITS.batch, help: 'batch sizes' },
  repeats: { type: 'integer', default: 3, min: 1, max: 20, help: 'timed runs per library and batch size, alternating' },
  'run-ms': { type: 'integer', default: 1000, min: 100, max: 10_000, help: 'ms each timed run decodes for' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:arrow');
exitOnStopRequest('bench:arrow');
const flags = commandLineFlags(FLAGS, 'bench:arrow');

interface DecoderFigures {
  library: string;
  batch: number;
  rowsPerSec: number;
  check: number;
}

const server = await startServer();
try {
  const chrome = await launchChrome({ headless: true });
  try {
    const page = await chrome.browser.newPage();
    await page.goto(new URL('bench/arrow.html', server.url).href);
    await page.waitForFunction(() => 'arrowBench' in globalThis);
    const rows: string[] = [];
    for (const batch of flags.batch.map(Number)) {
      const runs: DecoderFigures[] = [];
      for (let r = 0; r < flags.repeats; r++) {
        const run = await page.evaluate(
          (b, ms) => (globalThis as unknown as { arrowBench(b: number, ms: number): Promise<DecoderFigures[]> }).arrowBench(b, ms),
          batch,
          flags['run-ms'],
        );
        // Each run decodes its own messages (their speeds depend on the second they were sent in): the libraries must agree within it.
        const checks = new Set(run.map((x) => x.check));
        if (checks.size !== 1) throw new Error(`batch ${batch}: the libraries disagree on the speed aggregate (${[...checks].join(', ')})`);
        runs.push(...run);
      }
      const libraries = [...new Set(runs.map((x) => x.library))];
      for (const library of libraries) {
        const rps = runs.filter((x) => x.library === library).map((x) => x.rowsPerSec);
        rows.push(
          `${String(batch).padStart(6)}  ${library.padEnd(13)} ${(median(rps) / 1e6).toFixed(2).padStart(7)} M rows/s  (runs: ${rps.map((v) => (v / 1e6).toFixed(2)).join(', ')})`,
        );
      }
    }
    console.log(` batch  library       rows/s (median of ${flags.repeats}, ${flags['run-ms']} ms each)`);
    for (const line of rows) console.log(line);
  } finally {
    await chrome.browser.close();
  }
} finally {
  await server.stop();
}
