/**
 * `npm run report`: the views of a finished (or interrupted) run, from its report.json.
 *
 *   npm run report -- <run>                 regenerate <run>/report.html (path on stdout)
 *   npm run report -- --serve [A [B]]       the viewer on a loopback port: every run, one, or B against A
 *   npm run report -- --compare A B         B against A as a terminal table; exit 1 on a regression
 *   npm run report -- --compare R --scenarios a,b   scenario b against scenario a of one run
 *   npm run report -- --csv R / --csv-repeats R    CSV on stdout
 *   npm run report -- --reference R         the run beside the reference's published figures (markdown)
 *   npm run report -- --format benchmark-action-bigger|benchmark-action-smaller R
 *                                           github-action-benchmark's custom JSON, one direction a file
 *   npm run report -- --wide R              the run's summary table with every column (the sweep's fits the terminal)
 *
 * <run> is a run id under --reports, a run directory, or a report.json path. Machines read
 * stdout; people read stderr.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EXIT, PushlabError, type ErrorCode } from '../../protocol/errors.js';
import { commandLineFlags, runCommand } from '../../cli/command.js';
import { listenOr } from '../../cli/listen.js';
import { onStopRequest } from '../../cli/stop.js';
import { ROOT } from '../../cli/root.js';
import { logLine, toStdout } from '../../cli/terminal.js';
import { checkMarginFlag, REPORT_FLAGS } from '../options.js';
import { readReport, resolveReportFile, serveReports, splitArgs } from './runs.js';
import type { ViewAnswer } from './view-worker.js';
import type { ViewRequest } from './views.js';

const badFlag = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);
// Every view prints strings from report files, which anyone may have made: through cli/terminal.ts.
const log = logLine;
const out = (text: string) => toStdout(text.endsWith('\n') ? text : `${text}\n`);

async function main(argv: readonly string[]): Promise<number> {
  // Ctrl-C, SIGTERM, SIGHUP, or npm (or its shell) gone: the viewer closes; any other mode,
  // with nothing to save, exits. Installed first: a signal that came between the URL printed
  // and a handler installed would meet Node's default and skip the close.
  let serving: (() => void) | null = null;
  onStopRequest({ stop: () => (serving ? serving() : process.exit(EXIT.interrupted)) });
  const { flags: flagArgs, positionals } = splitArgs(REPORT_FLAGS, argv);
  const flags = commandLineFlags(REPORT_FLAGS, 'report', flagArgs);
  const reportsDir = path.resolve(ROOT, flags.reports);
  const modes = (['serve', 'compare', 'csv', 'csv-repeats', 'reference', 'format', 'wide'] as const).filter((m) => flags[m]);
  if (modes.length > 1) throw badFlag(`--${modes.join(', --')} cannot be combined; pick one`);
  if (flags.margin !== '' && modes[0] !== 'compare') throw badFlag('--margin sets what --compare reads a regression against; give it with --compare');
  const margins = checkMarginFlag(flags.margin);

  if (modes[0] === 'serve') {
    if (positionals.length > 2) throw badFlag(`--serve takes at most two runs (B compared against A: --serve A B); got ${positionals.length}`);
    const names: string[] = [];
    for (const p of positionals) {
      const file = await resolveReportFile(p, reportsDir);
      await readReport(file);
      if (path.dirname(path.dirname(file)) !== reportsDir) throw badFlag(`--serve shows runs under ${reportsDir} (see --reports); ${file} is not there`);
      names.push(path.basename(path.dirname(file)));
    }
    const served = new Promise<void>((resolve) => (serving = resolve));
    const server = await listenOr('--port', '127.0.0.1', flags.port, () => serveReports(reportsDir, flags.port));
    const query =
      names.length === 2
        ? `?${new URLSearchParams({ run: names[1], compare: names[0] })}`
        : names.length === 1
          ? `?${new URLSearchParams({ run: names[0] })}`
          : '';
    log(`pushlab report: serving ${reportsDir} on 127.0.0.1 only; Ctrl-C stops it`);
    out(`${server.url}${query}`);
    await served;
    await server.close();
    return EXIT.interrupted;
  }
  const answer = await inWorker({ mode: modes[0], positionals, reportsDir, scenarios: flags.scenarios, format: flags.format, margins });
  if (!answer.ok) {
    if (answer.code !== null) throw new PushlabError(answer.code as ErrorCode, answer.message);
    const bug = new Error(answer.message);
    bug.stack = answer.stack;
    throw bug;
  }
  for (const line of answer.stderr) log(line);
  if (answer.stdout) toStdout(answer.stdout);
  return answer.exit;
}

/** The worker's module beside this one: `.js` in a build, `.ts` from source. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const VIEW_WORKER = new URL(`./view-worker.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url);
/**
 * The worker's first lines: a worker thread does not inherit the parent's `--import tsx` loader,
 * so from source it registers tsx itself before importing the TypeScript entry.
 */
const WORKER_SOURCE = FROM_SOURCE
  ? `
const { workerData } = require('node:worker_threads');
import('tsx/esm/api').then((tsx) => { tsx.register(); return import(workerData.entry); });
`
  : `
const { workerData } = require('node:worker_threads');
import(workerData.entry);
`;

/**
 * A view, laid out in a worker thread (view-worker.ts): this thread stays free to answer a
 * signal, which stops the command at once (the stop handler exits 130, ending the worker)
 * however long the view takes.
 */
function inWorker(request: ViewRequest): Promise<ViewAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { entry: VIEW_WORKER.href, request } });
    worker.once('message', (answer: ViewAnswer) => resolve(answer));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the view's worker exited with code ${code} before it answered`)));
  });
}

runCommand('report', () => main(process.argv.slice(2)));
