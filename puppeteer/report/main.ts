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
import { benchmarkActionJson, type BenchmarkActionFormat } from '../../results/views/benchmark-action.js';
import { compareReports, compareScenarios } from '../../results/compare.js';
import { pointsCsv, repeatsCsv } from '../../results/views/csv.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';
import { commandLineFlags, runCommand } from '../../cli/command.js';
import { listenOr } from '../../cli/listen.js';
import { onStopRequest } from '../../cli/stop.js';
import { ROOT } from '../../cli/root.js';
import { logLine, toStdout } from '../../cli/terminal.js';
import { formatComparison, formatTable } from '../../results/views/terminal.js';
import { knobComparisons } from '../../results/knobs.js';
import { checkMarginFlag, REPORT_FLAGS } from '../options.js';
import { referenceTable } from '../../results/views/reference-table.js';
import { writeReportHtml } from './html.js';
import { readReport, resolveReportFile, serveReports, splitArgs } from './runs.js';


const badFlag = (message: string) => new PushlabError('PUSHLAB_BAD_FLAG', message);
// Every view prints strings from report files, which anyone may have made: through cli/terminal.ts.
const log = logLine;
const out = (text: string) => toStdout(text.endsWith('\n') ? text : `${text}\n`);

/** Knob comparisons are derived from the repeats: a run recorded before them gets them here. */
const withKnobs = (report: Report): Report => ({ ...report, knobs: report.knobs ?? knobComparisons(report.points, report.hosts, report.options.margins) });

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
  const want = (n: number, what: string) => {
    if (positionals.length !== n) throw badFlag(`${what}; got ${positionals.length ? positionals.map((p) => `'${p}'`).join(' ') : 'none'}`);
  };
  const load = async (arg: string) => readReport(await resolveReportFile(arg, reportsDir));
  if (flags.margin !== '' && modes[0] !== 'compare') throw badFlag('--margin sets what --compare reads a regression against; give it with --compare');
  const margins = checkMarginFlag(flags.margin);

  switch (modes[0]) {
    case 'serve': {
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
      const query = names.length === 2 ? `?${new URLSearchParams({ run: names[1], compare: names[0] })}` : names.length === 1 ? `?${new URLSearchParams({ run: names[0] })}` : '';
      log(`pushlab report: serving ${reportsDir} on 127.0.0.1 only; Ctrl-C stops it`);
      out(`${server.url}${query}`);
      await served;
      await server.close();
      return EXIT.interrupted;
    }
    case 'compare': {
      if (flags.scenarios.length) {
        if (flags.scenarios.length !== 2) throw badFlag(`--scenarios takes two scenario ids, a,b; got '${flags.scenarios.join(',')}'`);
        want(1, '--compare --scenarios a,b takes one run');
        const report = await load(positionals[0]);
        for (const s of flags.scenarios) {
          if (!report.points.some((p) => p.point.scenario === s)) throw badFlag(`--scenarios: run ${report.runId} has no scenario '${s}'; it has ${report.scenarios.join(', ')}`);
        }
        const cmp = compareScenarios(report, flags.scenarios[0], flags.scenarios[1], margins ?? undefined);
        out(formatComparison(cmp));
        return cmp.regressions ? EXIT.failed : EXIT.ok;
      }
      want(2, '--compare takes two runs, A (the baseline) then B');
      const cmp = compareReports(await load(positionals[0]), await load(positionals[1]), margins ?? undefined);
      if (!cmp.points.length) throw new PushlabError('PUSHLAB_BAD_REPORT', `runs ${cmp.labelA} and ${cmp.labelB} have no point in common; nothing to compare`);
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
      out(formatTable(withKnobs(await load(positionals[0])), { wide: true }));
      return EXIT.ok;
    }
    case undefined: {
      want(1, 'give one run to write its report.html (a run id, a run directory or a report.json), or a mode (see --help)');
      const file = await resolveReportFile(positionals[0], reportsDir);
      const report = await readReport(file);
      out(await writeReportHtml(path.dirname(file), withKnobs(report)));
      return EXIT.ok;
    }
  }
}

runCommand('report', () => main(process.argv.slice(2)));
