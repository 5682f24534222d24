/**
 * The views `npm run report` prints (every mode but --serve), as one function of the command
 * line: the report is read, checked and laid out here, and what is to be printed comes back as
 * text. puppeteer/report/main.ts runs it in a worker thread (view-worker.ts), so that a view of
 * a large run, which is synchronous work of seconds, never keeps the command from answering a
 * signal: Ctrl-C or SIGTERM stops it at once with exit 130, as any other command.
 */
import path from 'node:path';
import { benchmarkActionJson, type BenchmarkActionFormat } from '../../results/views/benchmark-action.js';
import { compareReports, compareScenarios } from '../../results/compare.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import type { Margins } from '../../protocol/margins.js';
import type { Report } from '../../protocol/report.js';
import { formatComparison, formatTable } from '../../results/views/terminal.js';
import { knobComparisons } from '../../results/knobs.js';
import { referenceTable } from '../../results/views/reference-table.js';
import { soakLines } from '../../results/soak.js';
import { writeReportHtml } from './html.js';
import { readReport, resolveReportFile } from './runs.js';

/** What a view asks for: the mode (undefined: write report.html), its runs and flags. */
export interface ViewRequest {
  mode: 'compare' | 'csv' | 'csv-repeats' | 'reference' | 'format' | 'wide' | undefined;
  positionals: string[];
  reportsDir: string;
  scenarios: string[];
  format: string;
  margins: Margins | null;
}

/** What it prints: stdout as is, stderr lines (cli/terminal makes both printable), and the exit code. */
export interface ViewResult {
  stdout: string;
  stderr: string[];
  exit: number;
}

const badFlag = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);

/** Knob comparisons are derived from the repeats: a run recorded before them gets them here. */
const withKnobs = (report: Report): Report => ({ ...report, knobs: report.knobs ?? knobComparisons(report.points, report.hosts, report.options.margins) });

/** A soak's judgement, in the lines `npm run soak` and `npm run advise -- --soak` print (results/soak.ts); none without one. */
const soakNote = (report: Report): string[] => (report.soak ? soakLines(report.soak) : []);

export async function renderView(req: ViewRequest): Promise<ViewResult> {
  const { positionals, reportsDir, margins } = req;
  const flags = { scenarios: req.scenarios, format: req.format };
  const modes = req.mode === undefined ? [] : [req.mode];
  let stdout = '';
  const stderr: string[] = [];
  const log = (line: string) => stderr.push(line);
  const out = (text: string) => (stdout += text.endsWith('\n') ? text : `${text}\n`);
  const toStdout = (text: string) => (stdout += text);
  const want = (n: number, what: string) => {
    if (positionals.length !== n) throw badFlag(`${what}; got ${positionals.length ? positionals.map((p) => `'${p}'`).join(' ') : 'none'}`);
  };
  const load = async (arg: string) => readReport(await resolveReportFile(arg, reportsDir));
  const exit = await (async (): Promise<number> => {
    switch (modes[0]) {
      case 'compare': {
        if (flags.scenarios.length) {
          if (flags.scenarios.length !== 2) throw badFlag(`--scenarios takes two scenario ids, a,b; got '${flags.scenarios.join(',')}'`);
          want(1, '--compare --scenarios a,b takes one run');
          const report = await load(positionals[0]);
          for (const s of flags.scenarios) {
            if (!report.points.some((p) => p.point.scenario === s))
              throw badFlag(`--scenarios: run ${report.runId} has no scenario '${s}'; it has ${report.scenarios.join(', ')}`);
          }
          const cmp = compareScenarios(report, flags.scenarios[0], flags.scenarios[1], margins ?? undefined);
          out(formatComparison(cmp));
          return cmp.regressions ? EXIT.failed : EXIT.ok;
        }
        want(2, '--compare takes two runs, A (the baseline) then B');
        const cmp = compareReports(await load(positionals[0]), await load(positionals[1]), margins ?? undefined);
        if (!cmp.points.length)
          throw new PushlabError('PUSHLAB_BAD_REPORT', `runs ${cmp.labelA} and ${cmp.labelB} have no point in common; nothing to compare`);
        out(formatComparison(cmp));
        return cmp.regressions ? EXIT.failed : EXIT.ok;
      }
      case 'csv':
      case 'csv-repeats': {
        want(1, `--${modes[0]} takes one run`);
        const report = await load(positionals[0]);
        toStdout(modes[0] === 'csv' ? pointsCsv(report) : repeatsCsv(report));
        return EXIT.ok;
      }
      case 'reference': {
        want(1, '--reference takes one run');
        out(referenceTable(await load(positionals[0])));
        return EXIT.ok;
      }
      case 'format': {
        want(1, `--format ${flags.format} takes one run`);
        // The flag table allows only the formats' names (its choices).
        const { text, skipped } = benchmarkActionJson(await load(positionals[0]), flags.format as BenchmarkActionFormat);
        if (skipped.length) log(`pushlab report: no entry for ${skipped.length} figure(s): ${skipped.join('; ')}`);
        toStdout(text);
        return EXIT.ok;
      }
      case 'wide': {
        want(1, '--wide takes one run');
        const report = await load(positionals[0]);
        out(formatTable(withKnobs(report), { wide: true }));
        for (const line of soakNote(report)) log(line);
        return EXIT.ok;
      }
      case undefined: {
        want(1, 'give one run to write its report.html (a run id, a run directory or a report.json), or a mode (see --help)');
        const file = await resolveReportFile(positionals[0], reportsDir);
        const report = await readReport(file);
        out(await writeReportHtml(path.dirname(file), withKnobs(report)));
        for (const line of soakNote(report)) log(line);
        return EXIT.ok;
      }
    }
  })();
  return { stdout, stderr, exit };
}
