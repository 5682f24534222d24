/**
 * `npm run sweep`: runs scenarios from scenarios.json in headless Chrome, round by round, and
 * rewrites reports/<run-id>/report.json after every repeat. Progress goes to stderr; stdout
 * gets the report's path as its last line (or with --json the report itself). Ctrl-C stops
 * after saving what was measured and prints the command that finishes the sweep.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EXIT, PushlabError } from '../protocol/errors.js';
import { parseJsonText, syntaxErrorText } from '../protocol/json-text.js';
import { commandLineFlags, runCommand } from '../cli/command.js';
import { checkOutputDir } from '../cli/output.js';
import { ROOT } from '../cli/root.js';
import { SCHEMA_VERSION, type Environment, type Report } from '../protocol/report.js';
import { environmentOf } from './environment.js';
import { BUILTIN_DEFAULTS, checkPointCount, expandScenario, parseScenarioFile, searchesFor, selectScenarios, type Point, type ScenarioFile, type SearchSpec } from '../protocol/scenario.js';
import { measureCeilings } from './ceiling.js';
import { durationText, repeatSec, roundsSec, searchSec, SETUP_SEC } from './estimate.js';
import { formatTable } from './format.js';
import { findChrome } from './chrome.js';
import { LocalBrowser } from './local-browser.js';
import { DisplayBrowsers } from './display.js';
import { checkSweepFlags, SWEEP_FLAGS, type SweepFlags } from './options.js';
import { Progress } from './progress.js';
import { RepeatMeasurer } from './repeat.js';
import { runIdFor, writeReport } from './report-file.js';
import { writeReportHtml } from './report-html.js';
import { emptyResult, Runner } from './runner.js';
import { connectServer, startServer, type ServerHandle } from './server-process.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function readJson(file: string, code: 'PUSHLAB_BAD_SCENARIO' | 'PUSHLAB_BAD_REPORT', what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new PushlabError(code, `${what} ${file}: cannot read it (does it exist?)`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new PushlabError(code, `${file}: not valid JSON: ${syntaxErrorText(parsed.error)}`);
  return parsed.value;
}

async function loadScenarioFile(file: string): Promise<ScenarioFile> {
  const abs = path.resolve(ROOT, file);
  return parseScenarioFile(await readJson(abs, 'PUSHLAB_BAD_SCENARIO', '--file'), file);
}

/** A report before Chrome has started: a new sweep's has no environment yet. */
type Draft = Omit<Report, 'environment'> & { environment?: Environment };

interface Plan {
  report: Draft;
  searches: SearchSpec[];
  /** Where report.json goes. */
  file: string;
}

/** A new sweep: the scenarios' points, every one with its repeats, in a report with no rounds yet. */
async function newPlan(flags: ReturnType<typeof commandLineFlags<typeof SWEEP_FLAGS>>, checked: SweepFlags, out: string): Promise<Plan> {
  const scenarioFile = await loadScenarioFile(flags.file);
  const scenarios = selectScenarios(scenarioFile, flags.scenario);
  checkPointCount(scenarios, scenarioFile.defaults, flags.file);
  const points = scenarios
    .flatMap((s) => expandScenario(s, scenarioFile.defaults))
    .map((p): Point => ({ ...p, repeats: checked.repeats ?? p.repeats }));
  const searches = searchesFor(scenarioFile, scenarios, flags['find-max']);
  if (!points.length && !searches.length) throw new PushlabError('PUSHLAB_BAD_SCENARIO', `--scenario ${flags.scenario.join(',')}: no points and no searches to run`);
  const started = new Date();
  const runId = runIdFor(started);
  const report: Draft = {
    schemaVersion: SCHEMA_VERSION,
    runId,
    startedAt: started.toISOString(),
    finishedAt: null,
    interrupted: false,
    resumeCommand: null,
    scenarios: scenarios.map((s) => s.id),
    options: {
      // The fixed rounds; a search alone confirms with this many repeats too.
      repeats: points.length ? Math.max(...points.map((p) => p.repeats)) : (checked.repeats ?? BUILTIN_DEFAULTS.repeats),
      seed: checked.seed ?? Date.now() % 2 ** 32,
      auto: flags.auto,
      maxRepeats: flags['max-repeats'],
      timeBudgetSec: checked.timeBudgetSec,
      findMax: flags['find-max'],
      retries: flags.retries,
      file: flags.file,
    },
    rounds: [],
    points: points.map(emptyResult),
    comparisons: [],
    saturation: [],
  };
  return { report, searches, file: path.join(out, runId, 'report.json') };
}

/** `--resume <run-id>`: the recorded report, and its searches from the scenario file it names. */
async function resumePlan(runId: string, out: string): Promise<Plan> {
  const file = path.join(out, runId, 'report.json');
  const data = (await readJson(file, 'PUSHLAB_BAD_REPORT', '--resume')) as Partial<Report> | null;
  if (!data || typeof data !== 'object' || data.schemaVersion !== SCHEMA_VERSION) {
    throw new PushlabError('PUSHLAB_BAD_REPORT', `${file}: schemaVersion is ${JSON.stringify(data?.schemaVersion)}; --resume finishes schemaVersion ${SCHEMA_VERSION} reports only`);
  }
  const report = data as Report;
  if (report.finishedAt !== null && !report.interrupted) throw new PushlabError('PUSHLAB_BAD_REPORT', `${file}: that sweep finished at ${report.finishedAt}; nothing to resume`);
  const scenarioFile = await loadScenarioFile(report.options.file);
  const searches = searchesFor(scenarioFile, selectScenarios(scenarioFile, report.scenarios), report.options.findMax);
  return { report, searches, file };
}

/** The estimated time of the whole plan, s. */
function planSec(plan: Plan): number {
  const points = plan.report.points.map((p) => p.point);
  return SETUP_SEC + roundsSec(points, 0, plan.report.options.repeats) + plan.searches.reduce((a, q) => a + searchSec(q.base, q, plan.report.options.repeats), 0);
}

/** `--list`: one point (or search) a line on stdout, as data; the summary for people on stderr. */
function listPlan(plan: Plan): void {
  const write = (line: string) => process.stdout.write(`${line}\n`);
  for (const r of plan.report.points) {
    const p = r.point;
    write(`${p.id}\t${p.offeredEventsPerSec} EPS offered\t${p.repeats} × ~${repeatSec(p).toFixed(1)} s`);
  }
  for (const q of plan.searches) write(`find-max ${q.scenario} ${q.transport}: ${q.vary} ${q.min}…${q.max}, p99 ≤ ${q.p99BoundMs} ms\t~${durationText(searchSec(q.base, q, plan.report.options.repeats))}`);
  const repeats = plan.report.points.reduce((a, r) => a + r.point.repeats, 0);
  const auto = plan.report.options.auto ? `; --auto may add rounds up to ${plan.report.options.maxRepeats} repeats a point` : '';
  log(
    `${plan.report.points.length} points, ${repeats} repeats in ${plan.report.options.repeats} rounds${plan.searches.length ? `, ${plan.searches.length} find-max searches` : ''}: about ${durationText(planSec(plan))} (estimated, build not included)${auto}`,
  );
}

/** The exact command that finishes this sweep. */
function resumeCommandFor(runId: string, out: string): string {
  const quote = (s: string) => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
  return `npm run sweep -- --resume ${runId}${out === SWEEP_FLAGS.out.default ? '' : ` --out ${quote(out)}`}`;
}

/**
 * Ctrl-C (or SIGTERM): the first stops the sweep after saving; a second one stops at once,
 * still ending the server and Chrome. Kept in one place so a process owner can take it over.
 */
function onInterrupt(stop: () => void, kill: () => void): void {
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      log(`\n${signal}: stopping after saving what was measured (again to stop at once)`);
      stop();
    } else {
      kill();
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function main(): Promise<number> {
  const flags = commandLineFlags(SWEEP_FLAGS, 'sweep');
  const checked = checkSweepFlags(flags);
  const out = path.resolve(ROOT, flags.out);
  const plan = checked.resume ? await resumePlan(checked.resume, out) : await newPlan(flags, checked, out);
  const draft = plan.report;
  if (flags.list) {
    listPlan(plan);
    return EXIT.ok;
  }
  // Before anything is launched: where the report goes must take files, a --server must
  // answer, and there must be a Chrome to run.
  checkOutputDir('--out', checked.resume ? path.dirname(plan.file) : out);
  const remote = flags.server ? await connectServer('--server', flags.server) : null;
  await findChrome(log);
  const done = draft.points.reduce((a, p) => a + p.repeats.length, 0);
  log(
    checked.resume
      ? `pushlab sweep: resuming ${draft.runId} (${done} repeats measured, ${draft.rounds.length} rounds started), seed ${draft.options.seed}`
      : `pushlab sweep: ${draft.scenarios.join(', ')}: ${draft.points.length} points × ${draft.options.repeats} rounds${plan.searches.length ? ` + ${plan.searches.length} find-max searches` : ''}, seed ${draft.options.seed}, about ${durationText(planSec(plan))}`,
  );

  const controller = new AbortController();
  let server: ServerHandle | null = null;
  let browser: LocalBrowser | null = null;
  // The other display mode's browser (and an Xvfb), launched when a point first asks for it.
  let displays: DisplayBrowsers | null = null;
  const killChildren = () => {
    displays?.kill();
    browser?.kill();
    // stop() signals the server synchronously; its promise only waits for the exit.
    void server?.stop();
  };
  onInterrupt(() => controller.abort(), killChildren);
  // However the process ends (an uncaught error, process.exit), it takes its children along.
  process.once('exit', killChildren);
  try {
    // The server and Chrome start side by side: neither needs the other until the first page.
    const [s, b] = await Promise.allSettled([remote ? Promise.resolve(remote) : startServer(), LocalBrowser.launch(!flags.headful, log)]);
    if (s.status === 'fulfilled') server = s.value;
    if (b.status === 'fulfilled') browser = b.value;
    if (s.status === 'rejected') throw s.reason;
    if (b.status === 'rejected') throw b.reason;
    const srv = server!;
    const chrome = browser!;
    const others = (displays = new DisplayBrowsers(chrome, log));
    log(`server ${srv.url}, Chrome ${chrome.launched.version} (${chrome.launched.path}, ${chrome.launched.source})`);
    const report: Report = { ...draft, environment: draft.environment ?? environmentOf(chrome.launched, srv) };
    report.interrupted = false;
    report.resumeCommand = null;
    // report.html (the one-file viewer with this data) is rewritten beside report.json each
    // time; a viewer that cannot be written is said once and never costs the measurements.
    let htmlFailed = false;
    const save = async (r: Report) => {
      await writeReport(plan.file, r);
      await writeReportHtml(path.dirname(plan.file), r).catch((err: unknown) => {
        if (!htmlFailed) log(`report.html not written: ${err instanceof Error ? err.message : String(err)}`);
        htmlFailed = true;
      });
    };
    await save(report);

    const runner = new Runner({
      repeats: new RepeatMeasurer({ browser: chrome, browserFor: (point) => others.for(point), server: srv, cores: os.cpus().length, retries: report.options.retries }),
      ceilings: async (batches, signal) => {
        try {
          return await measureCeilings(chrome.browser(), srv.url, batches, signal);
        } finally {
          if (!chrome.browser().connected && !signal?.aborted) await chrome.relaunch();
        }
      },
      save,
    });
    const progress = new Progress(runner, report, {
      write: (text) => process.stderr.write(text),
      tty: process.stderr.isTTY === true,
      columns: process.stderr.columns,
      remainingSec: () => runner.remainingSec(report, plan.searches),
    });
    const outcome = await runner.run(report, { searches: plan.searches, signal: controller.signal }).finally(() => progress.close());
    if (outcome === 'interrupted') {
      report.interrupted = true;
      report.resumeCommand = resumeCommandFor(report.runId, flags.out);
      await save(report);
      log(`interrupted: ${plan.file} keeps what was measured. To finish it:\n  ${report.resumeCommand}`);
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
      return EXIT.interrupted;
    }
    report.finishedAt = new Date().toISOString();
    await save(report);
    log(`\n${formatTable(report)}\n`);
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
    const failed = report.points.some((p) => p.repeats.some((r) => r.status === 'failed'));
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    await displays?.close();
    await browser?.close();
    await server?.stop();
  }
}

runCommand('sweep', main);
