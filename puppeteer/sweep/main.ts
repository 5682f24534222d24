/**
 * `npm run sweep`: runs scenarios from scenarios.json in headless Chrome, round by round, and
 * rewrites reports/<run-id>/report.json after every repeat. Progress goes to stderr; stdout
 * gets the report's path as its last line (or with --json the report itself). Ctrl-C stops
 * after saving what was measured and prints the command that finishes the sweep.
 */
import { rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { MAX_REPORT_REPEATS } from '../../protocol/limits.js';
import { readInputFile } from '../../cli/input-file.js';
import { parseReportText } from '../../protocol/report-check.js';
import { commandLineFlags, resumeCommandLine, runCommand } from '../../cli/command.js';
import { checkOutputDir } from '../../cli/output.js';
import { ROOT } from '../../cli/root.js';
import { logLine, toStdout } from '../../cli/terminal.js';
import type { BrowserHost, Report } from '../../protocol/report.js';
import { environmentOf, remoteEnvironment } from '../browser/environment.js';
import { parseBrowserList, type BrowserEndpoint } from '../browser/endpoint.js';
import { GridSessions, parseGridUrl } from '../browser/grid.js';
import { markSharedHosts, sharedHostNote, describeBrowser } from '../browser/host.js';
import { RemoteBrowser } from '../browser/remote.js';
import {
  BUILTIN_DEFAULTS,
  checkFirefoxFields,
  checkPointCount,
  expandScenario,
  parseScenarioText,
  scenarioMargins,
  scenarioChartField,
  scenarioRows,
  searchesFor,
  selectScenarios,
  type Point,
  type ScenarioFile,
  type ScenarioInput,
  type SearchSpec,
} from '../../protocol/scenario.js';
import { WallWatch } from '../measure/wall-watch.js';
import { wallLine } from '../../results/wall-account.js';
import { measureCeilings } from '../measure/ceiling.js';
import { durationText, repeatSec, roundsSec, searchSec, SETUP_SEC } from './estimate.js';
import { DEFAULT_TABLE_WIDTH, formatTable, tableWidth, type TableLayout } from '../../results/views/terminal.js';
import { findChrome } from '../browser/chrome.js';
import { DisplayBrowsers } from '../browser/display.js';
import { TabStateBrowsers } from '../browser/tab-state.js';
import { checkTabConditions } from '../../protocol/tab-state.js';
import { FirefoxBrowsers } from '../browser/engines.js';
import { FIREFOX_HOST_ID } from '../browser/firefox.js';
import type { Engine } from '../../protocol/engine.js';
import { checkSweepFlags, SWEEP_FLAGS, type SweepFlags } from '../options.js';
import { Progress } from './progress.js';
import { RepeatMeasurer } from '../measure/repeat.js';
import { checkDeviceConditions, DeviceEmulator } from '../device/emulator.js';
import { cleanUpKilledRuns } from '../device/cgroup.js';
import { checkLinkConditions, cleanUpKilledLinks, namespaceLinks, NetworkLink } from '../link/link.js';
import { THROTTLE_CAVEATS, THROTTLES } from '../../protocol/device.js';
import { BrowserLost } from '../browser/slot.js';
import { createRunDir, newReportDraft, runIdFor, type ReportDraft } from '../report/file.js';
import { reportFilesBytes } from '../report/html.js';
import { emptyResult, ReportRecorder } from '../report/recorder.js';
import { Runner, type Lane } from './runner.js';
import { checkPacePayload, checkPaceRows, checkRowsCarried, checkRowsWithServer, connectServer, serverPayload } from '../measure/server-process.js';
import { startServerAndBrowsers } from '../browser/start.js';
import { scenarioRenderModules, withRenderModule } from '../render-module.js';
import { commandChildren } from '../children.js';

// Lines carry browsers' and servers' words and, resuming, a report's: through cli/terminal.ts.
const log = logLine;

/** A scenario file (relative to the project root) read and checked once, here; `label` says who named it. */
async function loadScenarioFile(file: string, label = `--file ${file}`): Promise<ScenarioFile> {
  return parseScenarioText(await readInputFile(path.resolve(ROOT, file), label, 'PUSHLAB_BAD_SCENARIO', 'give a scenario file (JSON)'), file);
}

/** A report before Chrome has started: a new sweep's has no environment yet. */
type Draft = ReportDraft;

interface Plan {
  report: Draft;
  searches: SearchSpec[];
  /** Where report.json goes. */
  file: string;
  /** The rows file the started server streams (`--rows`, else the scenario file's `defaults.rows`); '' for the car rows. */
  rows: string;
  /** The field the page's chart plots (`--chart-field`, or on resume the one the payload names); '' for the first numeric one. */
  chartField: string;
}

/** A new sweep: the scenarios' points, every one with its repeats, in a report with no rounds yet. */
async function newPlan(flags: ReturnType<typeof commandLineFlags<typeof SWEEP_FLAGS>>, checked: SweepFlags, out: string): Promise<Plan> {
  const scenarioFile = await loadScenarioFile(flags.file);
  const scenarios = withDevice(withEngine(selectScenarios(scenarioFile, flags.scenario), checked.engine), checked);
  checkPointCount(scenarios, scenarioFile.defaults, flags.file);
  // Built (or refused) before anything starts, as a bad scenario is.
  const modules = await scenarioRenderModules(scenarios, scenarioFile.defaults, flags['render-module'], flags.file);
  const points = scenarios
    .flatMap((s) => expandScenario(s, scenarioFile.defaults))
    .map((p): Point => withRenderModule({ ...p, repeats: checked.repeats ?? p.repeats }, modules));
  checkRepeatCount(points, flags, checked, flags.file);
  const searches = searchesFor(scenarioFile, scenarios, flags['find-max']).map((s) => ({ ...s, base: withRenderModule(s.base, modules) }));
  if (!points.length && !searches.length)
    throw new PushlabError('PUSHLAB_BAD_SCENARIO', `--scenario ${flags.scenario.join(',')}: no points and no searches to run`);
  if (checked.inputDelayBoundMs !== undefined && !searches.length)
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--input-delay ${flags['input-delay']} bounds a find-max search's input delay, and this sweep runs none: add --find-max (or a scenario with findMax)`,
    );
  const started = new Date();
  const runId = runIdFor(started);
  const options: Report['options'] = {
    // The fixed rounds; a search alone confirms with this many repeats too.
    repeats: points.length ? Math.max(...points.map((p) => p.repeats)) : (checked.repeats ?? BUILTIN_DEFAULTS.repeats),
    seed: checked.seed ?? Date.now() % 2 ** 32,
    auto: flags.auto,
    maxRepeats: flags['max-repeats'],
    timeBudgetSec: checked.timeBudgetSec,
    findMax: flags['find-max'],
    retries: flags.retries,
    file: flags.file,
    ...(flags['spread-repeats'] ? { spreadRepeats: true } : {}),
    margins: checked.margins ?? scenarioMargins(scenarioFile),
    ...(checked.inputDelayBoundMs !== undefined ? { inputDelayBoundMs: checked.inputDelayBoundMs } : {}),
  };
  const report: Draft = {
    ...newReportDraft(
      runId,
      started,
      scenarios.map((s) => s.id),
      options,
    ),
    points: points.map(emptyResult),
  };
  return {
    report,
    searches,
    file: path.join(out, runId, 'report.json'),
    rows: flags.rows || scenarioRows(scenarioFile, flags.file),
    chartField: scenarioChartField(scenarioFile, flags['chart-field'], flags.rows),
  };
}

/** The repeats a point may get: its own, or with --auto up to --max-repeats. */
function plannedRepeats(p: Point, auto: boolean, maxRepeats: number): number {
  return auto ? Math.max(p.repeats, maxRepeats) : p.repeats;
}

/**
 * Refuses a plan whose report would hold more than MAX_REPORT_REPEATS repeats, before anything
 * runs: the flag that sets the repeats when one was given, else the scenario file.
 */
function checkRepeatCount(points: readonly Point[], flags: ReturnType<typeof commandLineFlags<typeof SWEEP_FLAGS>>, checked: SweepFlags, source: string): void {
  const total = points.reduce((a, p) => a + plannedRepeats(p, flags.auto, flags['max-repeats']), 0);
  if (total <= MAX_REPORT_REPEATS) return;
  const n = (x: number) => x.toLocaleString('en-US');
  const by = flags.auto ? `--max-repeats ${flags['max-repeats']}` : checked.repeats !== null ? `--repeats ${checked.repeats}` : `${source}'s repeats`;
  throw new PushlabError(
    flags.auto || checked.repeats !== null ? 'PUSHLAB_BAD_FLAG' : 'PUSHLAB_BAD_SCENARIO',
    `${by}: ${n(points.length)} points would measure up to ${n(total)} repeats; a sweep's report holds at most ${n(MAX_REPORT_REPEATS)}: give fewer repeats, or select fewer points with --scenario`,
  );
}

/**
 * `--engine`: every selected scenario in that one engine, whatever its own `engine` says (a
 * scenario that cannot run in Firefox is refused as the file's own `engine` would be).
 */
function withEngine(scenarios: ScenarioInput[], engine: Engine | null): ScenarioInput[] {
  if (engine === null) return scenarios;
  return scenarios.map((s) => {
    if (engine === 'firefox') checkFirefoxFields(s, `--engine firefox: scenario '${s.id}'`);
    return { ...s, engine };
  });
}

/**
 * `--device`, `--throttle`, `--pace`, `--tab` and `--link`: every selected scenario as that class,
 * slowed that way, at that pace, in that tab state, across that link (refused for Firefox as a
 * scenario's own would be).
 */
function withDevice(scenarios: ScenarioInput[], o: Pick<SweepFlags, 'device' | 'throttle' | 'pace' | 'tab' | 'link'>): ScenarioInput[] {
  return scenarios.map((s) => {
    const out = {
      ...s,
      ...(o.device !== null ? { device: o.device } : {}),
      ...(o.throttle !== null ? { throttle: o.throttle } : {}),
      ...(o.pace !== null ? { pace: o.pace } : {}),
      ...(o.tab !== null ? { tab: o.tab } : {}),
      ...(o.link !== null ? { link: o.link } : {}),
    };
    if (o.link !== null && o.link !== 'off' && out.engine === 'firefox') checkFirefoxFields(out, `--link ${o.link}: scenario '${s.id}'`);
    if (o.throttle !== null && out.engine === 'firefox') checkFirefoxFields(out, `--throttle ${o.throttle}: scenario '${s.id}'`);
    if (o.tab !== null && out.engine === 'firefox') checkFirefoxFields(out, `--tab ${o.tab}: scenario '${s.id}'`);
    return out;
  });
}

/** `--resume <run-id>`: the recorded report, and its searches from the scenario file it names. */
async function resumePlan(runId: string, out: string): Promise<Plan> {
  const file = path.join(out, runId, 'report.json');
  // The same check every reader of a report makes (protocol/report-check.ts), so a report
  // missing its options or with points that are not a list is refused with its path, not a TypeError.
  const report = parseReportText(await readInputFile(file, `--resume ${runId}: ${file}`, 'PUSHLAB_BAD_REPORT', 'give the run id of a sweep under --out'), file);
  if (report.finishedAt !== null && !report.interrupted)
    throw new PushlabError('PUSHLAB_BAD_REPORT', `${file}: that sweep finished at ${report.finishedAt}; nothing to resume`);
  const scenarioFile = await loadScenarioFile(report.options.file, `${file}: options.file ${report.options.file}`);
  const searches = searchesFor(scenarioFile, selectScenarios(scenarioFile, report.scenarios), report.options.findMax);
  // The same events as before: the server it started was given the file's absolute path, which the payload keeps.
  return { report, searches, file, rows: report.payload?.source ?? '', chartField: report.payload?.chartField ?? '' };
}

/** Disk space the sweep's files need at the plan's full size, bytes. */
function reportSpaceFor(plan: Plan): Promise<number> {
  const { auto, maxRepeats } = plan.report.options;
  return reportFilesBytes(plan.report.points.reduce((a, p) => a + plannedRepeats(p.point, auto, maxRepeats), 0));
}

/** The estimated time of the whole plan, s. */
function planSec(plan: Plan): number {
  const points = plan.report.points.map((p) => p.point);
  return (
    SETUP_SEC + roundsSec(points, 0, plan.report.options.repeats) + plan.searches.reduce((a, q) => a + searchSec(q.base, q, plan.report.options.repeats), 0)
  );
}

/** `--list`: one point (or search) a line on stdout, as data; the summary for people on stderr. */
function listPlan(plan: Plan): void {
  const write = (line: string) => toStdout(`${line}\n`);
  for (const r of plan.report.points) {
    const p = r.point;
    write(`${p.id}\t${p.offeredEventsPerSec} EPS offered\t${p.repeats} × ~${repeatSec(p).toFixed(1)} s`);
  }
  for (const q of plan.searches)
    write(
      `find-max ${q.scenario} ${q.transport}: ${q.vary} ${q.min}…${q.max}, p99 ≤ ${q.p99BoundMs} ms\t~${durationText(searchSec(q.base, q, plan.report.options.repeats))}`,
    );
  const repeats = plan.report.points.reduce((a, r) => a + r.point.repeats, 0);
  const auto = plan.report.options.auto ? `; --auto may add rounds up to ${plan.report.options.maxRepeats} repeats a point` : '';
  log(
    `${plan.report.points.length} points, ${repeats} repeats in ${plan.report.options.repeats} rounds${plan.searches.length ? `, ${plan.searches.length} find-max searches` : ''}: about ${durationText(planSec(plan))} (estimated, build not included)${auto}`,
  );
}

/**
 * The exact command that finishes this sweep. Browsers given with --browser are named as
 * recorded, without credentials or tokens (those must be given again by hand); a lost one
 * stays in the list, since where to measure is the caller's to say again (restarted, or
 * replaced by another).
 */
function resumeCommandFor(
  runId: string,
  out: string,
  browsers: readonly string[],
  server: string,
  grid: GridSessions | null = null,
  flags?: { 'grid-sessions': number; 'grid-binary': string },
): string {
  // A Grid's sessions end with this sweep: the resumed one opens new ones.
  const where: [string, string][] =
    grid && flags
      ? [
          ['--grid', grid.given],
          ['--grid-sessions', String(flags['grid-sessions'])],
          ['--grid-binary', flags['grid-binary']],
        ]
      : [['--browser', browsers.join(',')]];
  // The server it measured against: a resumed sweep must not quietly start its own instead.
  return resumeCommandLine('sweep', runId, [['--out', out === SWEEP_FLAGS.out.default ? '' : out], ...where, ['--server', server]]);
}

/**
 * The summary table's layout: `--wide`, or fitted to stderr's width (the terminal's, else 120),
 * naming the run as `npm run report` finds it (its directory when --out is not the default).
 */
function tableLayout(wide: boolean, runId: string, out: string): TableLayout {
  if (wide) return { wide: true };
  const run = out === SWEEP_FLAGS.out.default ? runId : path.join(out, runId);
  return { width: tableWidth({ isTTY: process.stderr.isTTY === true, columns: process.stderr.columns }), run };
}

async function main(): Promise<number> {
  const flags = commandLineFlags(SWEEP_FLAGS, 'sweep');
  // Ctrl-C, SIGTERM, SIGHUP, or npm (or its shell, or tsx) gone: see children.ts.
  const owner = commandChildren(log);
  const { children } = owner;
  // The Firefox of the engine firefox points, launched when one first asks for it (a launched Chrome's sweep only).
  let firefox: FirefoxBrowsers | null = null;
  // Sessions opened on --grid: ours to end, whichever way the sweep ends.
  let grid: GridSessions | null = null;
  const checked = checkSweepFlags(flags);
  const out = path.resolve(ROOT, flags.out);
  const plan = checked.resume ? await resumePlan(checked.resume, out) : await newPlan(flags, checked, out);
  const draft = plan.report;
  if (flags.list) {
    listPlan(plan);
    return EXIT.ok;
  }
  // Before anything is launched: where the report goes must take files, a --server must
  // answer, and there must be a Chrome to run (or browsers to connect to).
  checkOutputDir('--out', checked.resume ? path.dirname(plan.file) : out, await reportSpaceFor(plan));
  let endpoints: BrowserEndpoint[] = parseBrowserList(flags.browser);
  const gridUrl = flags.grid ? parseGridUrl(flags.grid) : null;
  checkRowsWithServer(plan.rows, flags.server, plan.chartField);
  const allPoints = [...draft.points.map((p) => p.point), ...plan.searches.map((s) => s.base)];
  checkPaceRows(allPoints, plan.rows, flags.server);
  checkRowsCarried(allPoints, plan.rows);
  const remote = flags.server ? await connectServer('--server', flags.server) : null;
  if (!endpoints.length && !gridUrl) await findChrome(log);
  await cleanUpKilledRuns(log);
  cleanUpKilledLinks(log);
  checkLinkConditions(allPoints, { browsers: endpoints.length || gridUrl ? 'remote' : 'local', server: flags.server });
  checkDeviceConditions([...draft.points.map((p) => p.point), ...plan.searches.map((s) => s.base)], endpoints.length || gridUrl ? 'remote' : 'local');
  checkTabConditions(allPoints, endpoints.length || gridUrl ? 'remote' : 'local');
  // The run's id: its directory's, once made (a suffix when another run took the second).
  let runId = draft.runId;
  if (!checked.resume) {
    // The directory is this run's alone, made once every check has passed; its id gains a
    // suffix when another run took the second.
    const run = await createRunDir(out, '', new Date(draft.startedAt));
    runId = run.runId;
    plan.file = run.file;
  }
  const browserCount = gridUrl ? flags['grid-sessions'] : endpoints.length;
  const done = draft.points.reduce((a, p) => a + p.repeats.length, 0);
  log(
    checked.resume
      ? `pushlab sweep: resuming ${runId} (${done} repeats measured, ${draft.rounds.length} rounds started), seed ${draft.options.seed}`
      : `pushlab sweep: ${draft.scenarios.join(', ')}: ${draft.points.length} points × ${draft.options.repeats} rounds${plan.searches.length ? ` + ${plan.searches.length} find-max searches` : ''}, seed ${draft.options.seed}, about ${durationText(planSec(plan))}${browserCount > 1 ? `, sharded over ${browserCount} browsers` : ''}`,
  );
  // Each way of slowing the points use, with what it is not faithful to (docs/devices.md).
  const throttles = new Set(
    [...draft.points.map((p) => p.point), ...plan.searches.map((s) => s.base)].filter((p) => p.device !== undefined).map((p) => p.throttle ?? 'browser'),
  );
  for (const t of THROTTLES) if (throttles.has(t)) log(THROTTLE_CAVEATS[t]);
  owner.launching();
  try {
    if (gridUrl) {
      const sessions = (grid = new GridSessions(gridUrl, log));
      // Closed after the remote browsers on its sessions; an exit that cannot wait hands them to an ender.
      owner.own({ close: () => sessions.close(), kill: () => sessions.closeDetached() }, { after: true });
      endpoints = await grid.open(flags['grid-sessions'], flags['grid-binary'] || null);
      log(
        `--grid ${grid.given}: ${grid.sessions.length} Chrome session(s): ${endpoints.map((e) => `${e.label} on ${e.gridNode?.uri ?? e.machine}`).join(', ')}`,
      );
    }
    // A network link between the server and the browser: both start in its namespaces (puppeteer/link/), removed at the end.
    const link = namespaceLinks(allPoints).length ? owner.own(await NetworkLink.open(log), { after: true }) : null;
    const { server: srv, slots } = await startServerAndBrowsers(children, {
      link,
      remoteServer: remote,
      endpoints,
      headless: !flags.headful,
      log,
      rows: plan.rows,
      chartField: plan.chartField,
    });
    const { local, remotes } = children;
    const hosts = slots.map((x) => x.host);
    // The other display mode's browser (and an Xvfb), launched when a point first asks for it (launched Chrome only).
    const others = local ? owner.own(new DisplayBrowsers(local, log)) : null;
    // Hidden-tab points' Chrome (background throttling on), launched when a point first asks for it (launched Chrome only).
    const hiders = local ? owner.own(TabStateBrowsers.beside(local, log, link)) : null;
    markSharedHosts(hosts);
    if (local) log(`server ${srv.url}, Chrome ${local.launched.version} (${local.launched.path}, ${local.launched.source})`);
    if (link) log(`link: ${link.describe()}`);
    else {
      log(`server ${srv.url}`);
      for (const h of hosts) {
        const shares =
          h.serverSharesHost === null
            ? "unknown whether it shares the server's host"
            : h.serverSharesHost
              ? "on the server's host"
              : "not on the server's host";
        log(`browser ${h.id}: ${h.version} on ${h.host}, ${h.cores ?? '?'} cores, ${shares}; per-thread and host CPU unavailable (remote)`);
      }
    }
    for (const h of hosts) {
      if (h.sharesHostWith.length && h.id < h.sharesHostWith[0]) {
        log(
          `warning: browsers ${[h.id, ...h.sharesHostWith].join(' and ')} are on the same host (${h.host}): sharded points will compete for its CPU; the report marks their repeats`,
        );
      }
    }
    const environment = draft.environment ?? (local ? environmentOf(local.launched, srv) : remoteEnvironment(hosts, srv));
    // report.json, then report.html beside it, each time (report/saver.ts: the viewer never costs the report).
    const record = ReportRecorder.toFile({ ...draft, runId, environment, interrupted: false, resumeCommand: null }, { file: plan.file, log });
    const { report } = record;
    // A resumed sweep keeps the browsers it measured in before, beside today's.
    record.putHosts(hosts);
    const payload = await serverPayload(srv);
    if (payload) record.setPayload(payload);
    checkPacePayload(allPoints, payload);
    // Its lines go through the progress display, which exists before the first point asks for a class.
    // The device classes' calibrations and CPU quota (puppeteer/device/): its cgroup is removed at the end.
    const runDevices = owner.own(new DeviceEmulator({ onCalibrated: (c) => record.addDevice(c), log: (line) => progress.line(line), signal: owner.signal }), {
      after: true,
    });
    const runDir = path.dirname(plan.file);
    const repeatsIn = (r: Readonly<Report>) => r.points.reduce((a, p) => a + p.repeats.length, 0);
    // A save that fails even so stops the sweep: the file keeps the report saved before,
    // which --resume finishes once there is space.
    const saveFailed = (err: unknown): never => {
      if (!(err instanceof PushlabError) || err.code !== 'PUSHLAB_BAD_OUTPUT') throw err;
      const savedRepeats = record.savedRepeats;
      if (savedRepeats === null && !checked.resume) {
        try {
          // The run's directory, made for the report that never fitted (empty, or rmdir refuses).
          rmdirSync(runDir);
        } catch {
          // Not empty: not ours to remove.
        }
        throw new PushlabError('PUSHLAB_BAD_OUTPUT', `${err.message}; nothing was saved`);
      }
      const kept = savedRepeats === null ? `${plan.file} keeps the report it had` : `${plan.file} keeps the ${savedRepeats} repeat(s) saved before`;
      const measured = repeatsIn(report);
      const lost = savedRepeats !== null && measured > savedRepeats ? `, ${measured - savedRepeats} measured since are not` : '';
      throw new PushlabError(
        'PUSHLAB_BAD_OUTPUT',
        `${err.message}; ${kept}${lost}; free space, then finish it: ${resumeCommandFor(
          report.runId,
          flags.out,
          endpoints.map((e) => e.given),
          flags.server,
          grid,
          flags,
        )}`,
      );
    };
    await record.save().catch(saveFailed);

    if (local) {
      firefox = owner.own(
        new FirefoxBrowsers({
          headless: !flags.headful,
          log: (line) => progress.line(line),
          onLaunch: async (ff) => {
            const host = {
              ...(await describeBrowser(ff, { origin: 'launched' }, FIREFOX_HOST_ID, { url: srv.url, startedHere: remote === null })),
              engine: 'firefox' as const,
            };
            record.putHosts([host]);
            const l = ff.launched;
            record.setEnvironment({ ...report.environment, firefox: { version: l.version, path: l.path, source: l.source, headless: l.headless } });
            await record.save().catch(saveFailed);
          },
        }),
      );
    }
    // Where the time goes, windows against the rest (issue 34); one browser only: sharded lanes' phases overlap.
    const wall = new WallWatch();
    const lanes = slots.map(({ slot, host }): Lane => {
      const note = sharedHostNote(host);
      const alive = () => !(slot instanceof RemoteBrowser && slot.lost !== null);
      return {
        id: host.id,
        alive,
        repeats: new RepeatMeasurer({
          browser: slot,
          // A launched Chrome can start the other display mode's, and Firefox; a remote browser runs in the mode and engine it was started in.
          browserFor: (point) =>
            point.engine === 'firefox' && firefox
              ? firefox.for()
              : point.tab !== undefined && hiders
                ? hiders.for(point)
                : others
                  ? others.for(point)
                  : remoteDisplay(point, host),
          ...(local ? { firefoxHostId: FIREFOX_HOST_ID } : {}),
          server: srv,
          cores: host.cores ?? os.cpus().length,
          procfs: host.procfs,
          // A browser not known to share the server's machine may read another clock.
          sameClock: host.serverSharesHost === true,
          browserId: host.id,
          notes: note ? [note] : [],
          retries: report.options.retries,
          devices: runDevices,
          link,
        }),
        engines: local ? ['chrome', 'firefox'] : [slot.engine ?? 'chrome'],
        ceilings: async (needs, signal, engine) => {
          // Firefox's ceiling in Firefox: a ratio to Chrome's JSON.parse would mix the engines.
          if (engine === 'firefox' && firefox) {
            const ff = await firefox.for();
            return wall.ceilings(() => measureCeilings(ff, srv.url, needs, signal, { emulator: runDevices, slot: ff, hostId: FIREFOX_HOST_ID }));
          }
          try {
            return await wall.ceilings(() => measureCeilings(slot, srv.url, needs, signal, { emulator: runDevices, slot, hostId: host.id }));
          } finally {
            if (!slot.browser().connected && !signal?.aborted) {
              // A remote browser that is gone stays gone: its lane ends, its points move on.
              await slot.relaunch().catch((err: unknown) => {
                if (!(err instanceof BrowserLost)) throw err;
              });
            }
          }
        },
      };
    });
    const runner = new Runner({ lanes });
    const progress = new Progress(runner, report, {
      // Raw: Progress makes its text printable and adds only its own redraw sequence.
      write: (text) => process.stderr.write(text),
      tty: process.stderr.isTTY === true,
      columns: process.stderr.columns,
      remainingSec: () => runner.remainingSec(report, plan.searches),
    });
    const recordLost = () => {
      for (const r of remotes) {
        const h = report.hosts!.find((x) => x.id === hosts[remotes.indexOf(r)].id)!;
        if (r.lost !== null && !h.lost) {
          record.hostLost(h.id, r.lost);
          progress.line(`browser ${h.id} lost: ${r.lost}${lanes.some((l) => l.alive()) ? '; its points go to the other browsers' : ''}`);
        }
      }
    };
    if (lanes.length === 1) {
      runner.on('repeat-start', () => wall.repeatStart());
      runner.on('phase', (_point, phase) => wall.phase(phase));
      runner.on('repeat-done', (_point, repeat) => wall.repeatDone(repeat));
      runner.on('search-repeat-done', (_search, _point, repeat) => wall.repeatDone(repeat));
    }
    runner.on('repeat-done', recordLost);
    runner.on('ceiling-failed', recordLost);
    const outcome = await runner
      .run(record, { searches: plan.searches, signal: owner.signal })
      .catch(saveFailed)
      .finally(() => progress.close());
    recordLost();
    const account = lanes.length === 1 ? wall.account() : null;
    if (account) record.setWall(account);
    if (outcome !== 'done') {
      record.interrupt(
        resumeCommandFor(
          report.runId,
          flags.out,
          endpoints.map((e) => e.given),
          flags.server,
          grid,
          flags,
        ),
      );
      await record.save().catch(saveFailed);
      const why = outcome === 'browsers-lost' ? 'every browser was lost' : 'interrupted';
      log(`${why}: ${plan.file} keeps what was measured. To finish it:\n  ${report.resumeCommand}`);
      if (outcome === 'browsers-lost') log(`\n${formatTable(report, tableLayout(flags.wide, report.runId, flags.out))}\n`);
      toStdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
      return outcome === 'interrupted' ? EXIT.interrupted : EXIT.failed;
    }
    record.finish();
    await record.save().catch(saveFailed);
    log(`\n${formatTable(report, tableLayout(flags.wide, report.runId, flags.out))}\n`);
    if (account) log(wallLine(account, DEFAULT_TABLE_WIDTH));
    toStdout(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${plan.file}\n`);
    const failed = report.points.some((p) => p.repeats.some((r) => r.status === 'failed'));
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    await owner.close();
  }
}

/**
 * A point's `display` on a remote browser: that browser runs in the mode it was started in, so
 * a point asking for the other mode fails (recorded, with why) rather than measure the wrong one.
 */
async function remoteDisplay(point: Point, host: BrowserHost): Promise<null> {
  const mode = host.headless ? 'headless' : 'headful';
  if (point.display !== undefined && point.display !== mode) {
    throw new Error(
      `display ${point.display}: browser ${host.id} is a remote ${mode} browser, and pushlab launches the other mode only for a Chrome it starts itself`,
    );
  }
  return null;
}

runCommand('sweep', main);
