/**
 * `npm run advise -- --rate 300k --p99 100ms`: the cheapest configuration that takes an event
 * rate under a latency bound on this machine, found by the advisor's search (search.ts) measuring
 * in headless Chrome with the sweep's repeat measurer (measurer.ts), within a time budget for the
 * whole command. reports/advise-<run-id>/report.json holds every candidate's repeats as points
 * and the answer as `advice`, saved after every repeat; progress goes to stderr, the answer in
 * words last; stdout gets the report's path (or with --json the report). Ctrl-C stops after
 * saving what was measured and prints the command that goes on with the search. With `--soak
 * 10m` the winner is then streamed for that long (puppeteer/soak/), in its own time, and the
 * report gets the soak: whether it held is said after the answer.
 */
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PREFER, type Advice, type SimplicityCriterion } from '../../protocol/advice.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseReportText } from '../../protocol/report-check.js';
import type { Report } from '../../protocol/report.js';
import type { RenderModuleRef } from '../../protocol/render-module.js';
import { rateText, targetText, type Target } from '../../protocol/target.js';
import type { Transport } from '../../protocol/wire.js';
import { printedAnswer } from '../../results/advice-words.js';
import { anchorLine, readingLine, yardstickTexts } from '../../results/machine-drift.js';
import { DEFAULT_INPUT_DELAY_BOUND_MS } from '../../results/sustains.js';
import { marginsText } from '../../protocol/margins.js';
import { npmCommand } from '../../protocol/shell.js';
import { MAX_REPORT_REPEATS } from '../../protocol/limits.js';
import { commandLineFlags, resumeCommandLine, runCommand } from '../../cli/command.js';
import { readInputFile } from '../../cli/input-file.js';
import { checkOutputDir } from '../../cli/output.js';
import { ROOT } from '../../cli/root.js';
import { CONFIRM_ROUNDS, CONFIRM_SCENARIOS, confirmScenarioFile } from './confirm.js';
import { logLine, toStdout } from '../../cli/terminal.js';
import { findChrome } from '../browser/chrome.js';
import { parseBrowserList } from '../browser/endpoint.js';
import { environmentOf, remoteEnvironment } from '../browser/environment.js';
import { startServerAndBrowsers } from '../browser/start.js';
import { commandChildren } from '../children.js';
import { WallWatch } from '../measure/wall-watch.js';
import { wallLine } from '../../results/wall-account.js';
import { DEFAULT_TABLE_WIDTH } from '../../results/views/terminal.js';
import { measureCeilings } from '../measure/ceiling.js';
import { checkDeviceConditions, DeviceEmulator } from '../device/emulator.js';
import { checkLinkConditions, cleanUpKilledLinks, namespaceLinks, NetworkLink } from '../link/link.js';
import { RepeatMeasurer } from '../measure/repeat.js';
import { checkPacePayload, checkPaceRows, checkRowsWithServer, connectServer, serverPayload } from '../measure/server-process.js';
import { createRunDir, newReportDraft, runIdFor, writeAtomically, type ReportDraft } from '../report/file.js';
import { reportFilesBytes } from '../report/html.js';
import { dropUnfinishedRounds, ReportRecorder } from '../report/recorder.js';
import { durationText, repeatSec } from '../sweep/estimate.js';
import { candidateSpace, DEFAULT_SPACE, spaceFor, type CandidateSpace } from './candidates.js';
import { buildRenderModule, recordedRenderModule } from '../render-module.js';
import { BrowserAdviseMeasurer, conditionsOf, CONFIRM_TIMING, confirmPoint, probePoint } from './measurer.js';
import { TabStateBrowsers } from '../browser/tab-state.js';
import { checkTabConditions, tabOf } from '../../protocol/tab-state.js';
import type { Point } from '../../protocol/scenario.js';
import { soakAndSave } from '../soak/session.js';
import { soakLines } from '../../results/soak.js';
import { ADVISE_FLAGS, checkAdviseFlags, type AdviseRequest } from './options.js';
import { AdviseProgress } from './progress.js';
import { AdviseRecord } from './record.js';
import { Replay } from './replay.js';
import { advise, adviceBeforeSearch, DEFAULT_MAX_CONFIRM_ROUNDS, type AdviseOptions } from './search.js';

const log = logLine;
const COMMAND = 'advise';
/** An advise run's directory is `advise-<run id>`. */
const RUN_PREFIX = 'advise-';

/** A report before the browser has started: a new search's has no environment yet. */
type Draft = ReportDraft & { advice: Advice };

interface Plan {
  report: Draft;
  target: Target;
  transports: Transport[];
  budgetSec: number;
  /** The order of simplicity (`--prefer`; a resume's from its report). */
  prefer: SimplicityCriterion[];
  file: string;
  /** Measurements recorded by the sessions before (a resume). */
  recordedRounds: number;
}

/** A new search: the request as the report's first answer (nothing measured), so a resume knows what was asked. */
function newPlan(req: AdviseRequest & { target: Target }, out: string): Plan {
  const started = new Date();
  const runId = `${RUN_PREFIX}${runIdFor(started)}`;
  const budgetSec = req.budgetSec!;
  const advice = adviceBeforeSearch({ target: req.target, transports: req.transports, margins: req.margins, budgetSec, prefer: req.prefer });
  if (!advice.notTried.length) {
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--rate ${req.target.eventsPerSec}: no configuration of ${req.transports.join(', ')} offers that rate within the server's limits`,
    );
  }
  const options: Report['options'] = {
    // A confirmation's paired rounds, and at most this many while a CPU comparison is unclear.
    repeats: CONFIRM_TIMING.repeats,
    seed: req.seed ?? Date.now() % 2 ** 32,
    auto: false,
    maxRepeats: DEFAULT_MAX_CONFIRM_ROUNDS,
    timeBudgetSec: budgetSec,
    findMax: false,
    retries: 1,
    file: '',
    margins: req.margins,
  };
  const report: Draft = { ...newReportDraft(runId, started, [], options), advice };
  return {
    report,
    target: req.target,
    transports: req.transports,
    budgetSec,
    prefer: req.prefer,
    file: path.join(out, runId, 'report.json'),
    recordedRounds: 0,
  };
}

/** `--resume <run-id>`: the recorded search, its request from its answer (the last one saved). */
async function resumePlan(runId: string, out: string, budgetSec: number | null): Promise<Plan> {
  const file = path.join(out, runId, 'report.json');
  const report = parseReportText(
    await readInputFile(file, `--resume ${runId}: ${file}`, 'PUSHLAB_BAD_REPORT', 'give the run id of an advise run under --out'),
    file,
  );
  const advice = report.advice;
  if (!advice)
    throw new PushlabError(
      'PUSHLAB_BAD_REPORT',
      `${file}: not an advise run (it has no advice); a sweep resumes with ${npmCommand('sweep', ['--resume', runId])}`,
    );
  if (report.finishedAt !== null && !report.interrupted)
    throw new PushlabError(
      'PUSHLAB_BAD_REPORT',
      `${file}: that search finished at ${report.finishedAt}; nothing to resume (ask again: npm run advise -- --rate … --p99 …)`,
    );
  const dropped = dropUnfinishedRounds(report);
  if (dropped) log(`${file}: the round the last session left unfinished is measured again (${dropped} repeat(s) of it dropped)`);
  const budget = budgetSec ?? report.options.timeBudgetSec ?? advice.budgetSec;
  return {
    report: { ...report, options: { ...report.options, timeBudgetSec: budget }, advice },
    target: advice.target,
    transports: advice.transports,
    budgetSec: budget,
    // A report written before --prefer chose by the default order.
    prefer: [...(advice.prefer ?? DEFAULT_PREFER)],
    file,
    recordedRounds: report.rounds.length,
  };
}

/**
 * The target with `--render-module` built into it (before anything starts: a module that cannot
 * be used is refused here, with no run directory made), or as it is without one.
 */
async function withPage(target: Target, file: string): Promise<Target> {
  if (file === '') return target;
  return { ...target, renderModule: await buildRenderModule(file, `--render-module ${file}`) };
}

/** The run header's line for a render module: which page, and why the space has no Worker parsing. */
function pageModuleLine(m: RenderModuleRef): string {
  return `render module ${m.path} (sha256 ${m.sha256.slice(0, 12)}…): every candidate draws with it; Worker parsing is left out, as a module draws each batch on the main thread where it is decoded (parse main only)`;
}

/** Disk space the run's files need at about the most repeats the budget allows, bytes. */
function reportSpaceFor(plan: Plan): Promise<number> {
  // Probes are the shortest measurements: the budget holds at most this many more repeats.
  const probeSec = Math.min(...candidateSpace(plan.target, plan.transports, spaceFor(plan.target)).map((c) => repeatSec(probePoint(c, plan.target))));
  const repeats = plan.report.points.reduce((a, p) => a + p.repeats.length, 0) + Math.ceil(plan.budgetSec / probeSec);
  // A search stops long before a week's budget of probes (it probes each candidate once and
  // confirms a few): past what a report holds, the estimate would only refuse a disk that fits.
  return reportFilesBytes(Math.min(repeats, MAX_REPORT_REPEATS));
}

/** The command that goes on with this search: where it measured (without credentials) and where it writes. */
function resumeCommandFor(runId: string, out: string, browser: readonly string[], server: string): string {
  return resumeCommandLine(COMMAND, runId, [
    ['--out', out === ADVISE_FLAGS.out.default ? '' : out],
    ['--browser', browser.join(',')],
    ['--server', server],
  ]);
}

async function main(): Promise<number> {
  const commandStart = performance.now();
  const flags = commandLineFlags(ADVISE_FLAGS, COMMAND);
  // Ctrl-C, SIGTERM, SIGHUP, or npm (or its shell, or tsx) gone: see children.ts.
  const owner = commandChildren(log);
  const { children } = owner;
  const req = checkAdviseFlags(flags);
  const out = path.resolve(ROOT, flags.out);
  const plan =
    req.resume !== null
      ? await resumePlan(req.resume, out, req.budgetSec)
      : newPlan({ ...req, target: await withPage(req.target!, flags['render-module']) }, out);
  // A resumed search draws with the module it began with, built again and checked unchanged.
  if (req.resume !== null) await recordedRenderModule(plan.target.renderModule, flags['render-module'], `the search ${plan.report.runId}`);
  const { target, transports, budgetSec, prefer } = plan;
  const draft = plan.report;
  checkOutputDir('--out', req.resume !== null ? path.dirname(plan.file) : out, await reportSpaceFor(plan));
  const endpoints = parseBrowserList(flags.browser);
  // A resumed search streams the events it measured (the payload keeps the absolute path the server was given).
  const rows = flags.rows || (req.resume !== null ? (draft.payload?.source ?? '') : '');
  const chartField = flags['chart-field'] || (req.resume !== null ? (draft.payload?.chartField ?? '') : '');
  checkRowsWithServer(rows, flags.server, chartField);
  // Every candidate runs at the target's pace: the flag stands for them in a refusal.
  const paced = [{ id: '--pace', pace: target.pace }];
  checkPaceRows(paced, rows, flags.server);
  const remoteServer = flags.server ? await connectServer('--server', flags.server) : null;
  if (!endpoints.length) await findChrome(log);
  // A class this machine cannot make is refused before anything is launched, as the sweep does
  // (without pointing to main-thread throttling, which advise refuses: options.ts).
  checkDeviceConditions([target], endpoints.length ? 'remote' : 'local', false);
  // A hidden tab needs a Chrome advise launches itself: the flag stands for every candidate.
  checkTabConditions([{ id: `--tab ${target.tab ?? 'visible'}`, ...tabOf(target) }], endpoints.length ? 'remote' : 'local');
  cleanUpKilledLinks(log);
  // Every candidate streams across the target's link: the flag stands for them in a refusal.
  checkLinkConditions([{ id: '--link', link: target.link }], { browsers: endpoints.length ? 'remote' : 'local', server: flags.server });
  // The run's id: its directory's, once made (a suffix when another run took the second).
  let runId = draft.runId;
  if (req.resume === null) {
    // The directory is this run's alone, made once every check has passed; its id gains a
    // suffix when another run took the second.
    const run = await createRunDir(out, RUN_PREFIX, new Date(draft.startedAt));
    runId = run.runId;
    plan.file = run.file;
  }
  // A file's events leave out the encodings that cannot carry them (grpc-web's protobuf rows).
  const spaceOptions: Partial<CandidateSpace> = { fileEvents: rows !== '' };
  const space = candidateSpace(target, transports, spaceFor(target, { ...DEFAULT_SPACE, ...spaceOptions })).length;
  const asked = targetText({ ...target, inputDelayBoundMs: target.inputDelayBoundMs ?? DEFAULT_INPUT_DELAY_BOUND_MS });
  log(
    req.resume !== null
      ? `pushlab advise: resuming ${runId}: ${asked}, ${plan.recordedRounds} measurements to replay, budget ${durationText(budgetSec)} for the whole search`
      : `pushlab advise: ${asked} over ${transports.join(', ')}: ${space} candidates, budget ${durationText(budgetSec)}, margins ${marginsText(draft.options.margins!)}, seed ${draft.options.seed}`,
  );
  if (target.renderModule) log(pageModuleLine(target.renderModule));
  owner.launching();
  try {
    // --browser takes one browser for advise (options.ts).
    // The target's link between the server and the browser: both start in its namespaces (puppeteer/link/), removed at the end.
    const link = namespaceLinks([target]).length ? owner.own(await NetworkLink.open(log), { after: true }) : null;
    const { server: srv, slots } = await startServerAndBrowsers(children, { remoteServer, endpoints, headless: !flags.headful, log, rows, chartField, link });
    const [{ slot, host }] = slots;
    const { local } = children;
    const remote = children.remotes[0] ?? null;
    log(
      local
        ? `server ${srv.url}, Chrome ${local.launched.version} (${local.launched.path}, ${local.launched.source})`
        : `server ${srv.url}; browser ${host.id}: ${host.version} on ${host.host}`,
    );
    const environment = draft.environment ?? (local ? environmentOf(local.launched, srv) : remoteEnvironment([host], srv));
    const resumeCommand = () =>
      resumeCommandFor(
        runId,
        flags.out,
        endpoints.map((e) => e.given),
        flags.server,
      );
    const recorder = ReportRecorder.toFile(
      { ...draft, runId, environment, interrupted: false, resumeCommand: null },
      {
        file: plan.file,
        log,
        failed: (err) => {
          if (!(err instanceof PushlabError) || err.code !== 'PUSHLAB_BAD_OUTPUT') throw err;
          throw new PushlabError(
            'PUSHLAB_BAD_OUTPUT',
            `${err.message}; ${plan.file} keeps the report saved before; free space, then go on: ${resumeCommand()}`,
          );
        },
      },
    );
    recorder.putHosts([host]);
    const payload = await serverPayload(srv);
    if (payload) recorder.setPayload(payload);
    // A --rows file of large events serves smaller batches than LIMITS.batch.max: the search asks for none past them.
    if (payload?.maxBatch !== undefined) spaceOptions.maxBatch = payload.maxBatch;
    checkPacePayload(paced, payload);
    const { report } = recorder;
    const record = new AdviseRecord(recorder);
    await record.save();
    // Its lines go to stderr until the progress display exists, then through it.
    let say = log;
    // The device class's calibration and CPU quota (puppeteer/device/): its cgroup is removed at the end.
    const runDevices = owner.own(new DeviceEmulator({ onCalibrated: (c) => recorder.addDevice(c), log: (line) => say(line), signal: owner.signal }), {
      after: true,
    });
    if (target.device !== undefined) {
      // Calibrated once, before the search: a class this browser cannot reach ends the command
      // here, coded, rather than failing every candidate; the report keeps its readings.
      try {
        await runDevices.enter(slot, target, host.id);
      } catch (err) {
        if (!owner.signal.aborted) throw err;
        // Ctrl-C while calibrating: nothing measured yet; the run can be resumed like any other.
        recorder.interrupt(resumeCommand());
        await record.save();
        log(`interrupted while calibrating: ${plan.file} keeps the plan. To start the search:\n  ${report.resumeCommand}`);
        toStdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
        return EXIT.interrupted;
      }
      await record.save();
    }

    // A report saved by an earlier session may hold yardstick readings before any round.
    const replay = plan.recordedRounds || plan.report.advice.drift?.readings.length ? new Replay(report) : null;
    // Every candidate's Chrome when the target's tab is hidden (background throttling on), launched on the first.
    const hiders = local && target.tab !== undefined ? owner.own(TabStateBrowsers.beside(local, log, link)) : null;
    const repeats = new RepeatMeasurer({
      browser: slot,
      ...(hiders ? { browserFor: (point: Point) => hiders.for(point) } : {}),
      server: srv,
      cores: host.cores ?? os.cpus().length,
      procfs: host.procfs,
      browserId: host.id,
      retries: report.options.retries,
      devices: runDevices,
      link,
    });
    // Where the search's time goes, windows against the rest (issue 34).
    const wall = new WallWatch();
    const measurer = new BrowserAdviseMeasurer({
      repeats,
      // Every candidate's point runs under the target's conditions (render, device, pace, module, tab, link).
      ...conditionsOf(target),
      record,
      replay,
      signal: owner.signal,
      alive: () => (remote?.lost ?? null) === null && (srv.gone?.() ?? null) === null,
      // The yardstick: the sweep's in-page decoding ceiling, in a fresh tab of the search's browser.
      // With the emulator, which lifts a device class's quota for the (full-speed) yardstick.
      ceilings: (needs, signal) => wall.ceilings(() => measureCeilings(slot, srv.url, needs, signal, { emulator: runDevices, slot, hostId: host.id })),
    });
    // The whole command's clock, and the time the replayed measurements took when they were made.
    const now = () => (replay?.replayedSec ?? 0) + (performance.now() - commandStart) / 1000;
    const progress = new AdviseProgress({
      write: (text) => process.stderr.write(text),
      tty: process.stderr.isTTY === true,
      columns: process.stderr.columns,
      budgetSec,
      now,
    });
    say = (line) => progress.line(line);
    repeats.on('phase', (point, phase, elapsedMs, plannedMs) => progress.phase(point, phase, elapsedMs, plannedMs));
    repeats.on('phase', (_point, phase) => wall.phase(phase));
    measurer.on('repeat-start', () => wall.repeatStart());
    measurer.on('repeat-done', (_point, _purpose, repeat) => wall.repeatDone(repeat));
    repeats.on('attempt-failed', (point, attempt, err) => progress.line(`  ${point.id}: attempt ${attempt} failed: ${err.message}`));
    measurer.on('repeat-start', (point, purpose, i, n) => progress.start(point, purpose, i, n));
    measurer.on('repeat-done', (point, purpose, repeat) => progress.done(point, purpose, repeat));
    let replayed = 0;
    measurer.on('replayed', (points, purpose) => {
      replayed++;
      progress.replayed(points, purpose);
    });
    measurer.on('reading-replayed', () => progress.line('  replayed the yardstick reading below from the report'));
    // Each unsteady-machine sentence once, as the readings bring it.
    const said = new Set<string>();
    const onDrift: AdviseOptions['onDrift'] = (drift, what) => {
      if (what === 'anchor') {
        progress.line(`  ${anchorLine(drift)}`);
        return;
      }
      progress.line(`  ${readingLine(drift.readings.at(-1)!)}`);
      for (const text of yardstickTexts(drift.readings)) {
        if (said.has(text)) continue;
        said.add(text);
        progress.line(`  ${text}`);
      }
    };

    const hooks = record.searchHooks();
    const advice = await advise({
      target,
      transports,
      space: spaceOptions,
      margins: report.options.margins,
      prefer,
      budgetSec,
      now,
      estimate: measurer.estimates(),
      measurer,
      onStart: hooks.onStart,
      onDrift,
      onMeasured: (e) => {
        hooks.onMeasured(e);
        // The search's judgement of what it just measured, from its answer so far.
        if (e.stage === 'screen' && record.snapshot) {
          const t = record.snapshot().tried.find((x) => x.candidate.id === e.candidates[0].id);
          if (t) progress.line(`    ${t.outcome}: ${t.why}`);
        }
      },
    }).finally(() => progress.close());
    recorder.setAdvice(advice);
    // The search's account, up to its answer: a --soak after it streams in its own time.
    const account = wall.account();
    recorder.setWall(account);
    record.snapshot = null;
    if (replay) log(`replayed ${replayed} of ${replay.size} recorded measurements`);
    const answer = printedAnswer(report, advice).join('\n');
    // Cut off by Ctrl-C or a lost browser (a signal after the search ended changes nothing: it is done).
    if (advice.stopped === 'interrupted') {
      recorder.interrupt(resumeCommand());
      await record.save();
      const why = !measurer.lost ? 'interrupted' : (srv.gone?.() ?? `the browser was lost (${remote?.lost ?? 'disconnected'})`);
      log(`\n${answer}\n\n${why}: ${plan.file} keeps what was measured. To go on with the search:\n  ${report.resumeCommand}`);
      toStdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
      return measurer.lost ? EXIT.failed : EXIT.interrupted;
    }
    recorder.finish();
    await record.save();
    // The claim, as a sweep can check it: before the answer, which stays the last thing said.
    // On the search's own events: the file as the server read it (server-process.ts resolves it the same way).
    const confirm = confirmScenarioFile(advice, { rows: rows ? path.resolve(rows) : '', chartField });
    if (confirm) {
      const confirmFile = path.join(path.dirname(plan.file), 'confirm.json');
      await writeAtomically(confirmFile, `${JSON.stringify(confirm, null, 2)}\n`);
      // npm runs the sweep from the project root: a path under it reads shorter, one outside it stays absolute.
      const rel = confirmFile.startsWith(ROOT + path.sep) ? path.relative(ROOT, confirmFile) : confirmFile;
      log(`\nTo check the answer in a plain sweep (${CONFIRM_ROUNDS} paired rounds of the advised setup and the runner-up), then read one against the other:`);
      log(`  ${npmCommand('sweep', ['--file', rel, '--repeats', String(CONFIRM_ROUNDS)])}`);
      // Constants only, and `<that run>` for the person to fill in with the run id the sweep prints.
      log(`  npm run report -- --compare <that run> --scenarios ${CONFIRM_SCENARIOS.runnerUp},${CONFIRM_SCENARIOS.advised}`);
    }
    // --soak: the winner streamed for that long, in its own time after the search's budget (puppeteer/soak/).
    const soak =
      req.soakSec !== null && advice.winner
        ? await soakAndSave({
            repeats,
            server: srv,
            cores: host.cores ?? os.cpus().length,
            procfs: host.procfs,
            point: confirmPoint(advice.winner.candidate, target),
            source: "the advised setup (this search's winner)",
            durationSec: req.soakSec,
            signal: owner.signal,
            recorder,
            log,
          })
        : null;
    if (req.soakSec !== null && !advice.winner) log('\nno soak: the search found no setup to advise');
    log(`\n${wallLine(account, DEFAULT_TABLE_WIDTH)}`);
    log(`\n${answer}`);
    if (soak) log(`\n${soakLines(soak).join('\n')}`);
    toStdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
    return soak?.stopped === 'interrupted' ? EXIT.interrupted : EXIT.ok;
  } finally {
    await owner.close();
  }
}

runCommand(COMMAND, main);
