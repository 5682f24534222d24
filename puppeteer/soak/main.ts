/**
 * `npm run soak -- --file reports/advise-<run>/confirm.json`: the advised setup (or any one-point
 * scenario) streamed for `--duration` in headless Chrome, sampled every few seconds, with one
 * forced reconnect half-way (runner.ts); reports/soak-<run-id>/report.json holds the soak, saved
 * after every sample, and the viewer plots it. Progress and the judgement (results/soak.ts) go
 * to stderr; stdout gets the report's path (or with --json the report). Ctrl-C stops it with the
 * samples so far saved. Exit 0 when it held, 1 when it did not or could not be judged whole.
 */
import os from 'node:os';
import path from 'node:path';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { parseScenarioText, scenarioChartField, scenarioRows, selectPoints, type Point } from '../../protocol/scenario.js';
import { judgeSoak, soakLines } from '../../results/soak.js';
import { commandLineFlags, runCommand } from '../../cli/command.js';
import { readInputFile } from '../../cli/input-file.js';
import { checkOutputDir } from '../../cli/output.js';
import { ROOT } from '../../cli/root.js';
import { logLine, toStdout } from '../../cli/terminal.js';
import { findChrome } from '../browser/chrome.js';
import { environmentOf } from '../browser/environment.js';
import { startServerAndBrowsers } from '../browser/start.js';
import { TabStateBrowsers } from '../browser/tab-state.js';
import { checkLinkConditions, cleanUpKilledLinks, namespaceLinks, NetworkLink } from '../link/link.js';
import { commandChildren } from '../children.js';
import { DeviceEmulator } from '../device/emulator.js';
import { RepeatMeasurer } from '../measure/repeat.js';
import { checkPacePayload, checkPaceRows, serverPayload } from '../measure/server-process.js';
import { createRunDir, newReportDraft } from '../report/file.js';
import { ReportRecorder } from '../report/recorder.js';
import { parseSoakDuration, SOAK_FLAGS } from '../options.js';
import { soakAndSave } from './session.js';

const COMMAND = 'soak';
const log = logLine;
/** The scenario a confirm.json names the advised setup (advise/confirm.ts CONFIRM_SCENARIOS.advised). */
const ADVISED = 'advised';

/**
 * The one point to soak: `--scenario`'s, else `advised`, else the file's only scenario's; and the
 * events the file streams (`defaults.rows` and its chart field, as a sweep of it would: an
 * advise run's confirm.json names the search's own; '' for the car rows).
 */
async function pointOf(file: string, scenario: string): Promise<{ point: Point; rows: string; chartField: string }> {
  const scenarios = parseScenarioText(
    await readInputFile(path.resolve(ROOT, file), `--file ${file}`, 'PUSHLAB_BAD_SCENARIO', 'give a scenario file (JSON)'),
    file,
  );
  const ids = scenarios.scenarios.map((s) => s.id);
  const id = scenario !== '' ? scenario : ids.includes(ADVISED) ? ADVISED : ids.length === 1 ? ids[0] : null;
  if (id === null)
    throw new PushlabError('PUSHLAB_BAD_FLAG', `--scenario is needed: ${file} has ${ids.length} scenarios (${ids.join(', ')}) and none is '${ADVISED}'`);
  const points = selectPoints(scenarios, [id]);
  if (points.length !== 1)
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--scenario ${id}: a soak streams one setup, and ${id} in ${file} expands to ${points.length} points; pick a scenario with one`,
    );
  return { point: points[0], rows: scenarioRows(scenarios, file), chartField: scenarioChartField(scenarios, '', '') };
}

async function main(): Promise<number> {
  const flags = commandLineFlags(SOAK_FLAGS, COMMAND);
  const owner = commandChildren(log);
  const { children } = owner;
  if (flags.file === '')
    throw new PushlabError('PUSHLAB_BAD_FLAG', `--file is required: ${SOAK_FLAGS.file.help}; e.g. --file reports/advise-<run>/confirm.json`);
  const durationSec = parseSoakDuration('duration', flags.duration);
  const { point, rows, chartField } = await pointOf(flags.file, flags.scenario);
  checkPaceRows([point], rows, '');
  // A link point streams across the link a sweep of it would make (puppeteer/link/): refused here as there when this machine cannot.
  cleanUpKilledLinks(log);
  checkLinkConditions([point], { browsers: 'local', server: '' });
  const out = path.resolve(ROOT, flags.out);
  checkOutputDir('--out', out);
  await findChrome(log);
  const started = new Date();
  const run = await createRunDir(out, `${COMMAND}-`, started);
  owner.launching();
  try {
    // The setup's conditions as a sweep of it makes them: its link (server and Chrome in the link's
    // namespaces) and, for a hidden tab, a Chrome that throttles background tabs.
    const link = namespaceLinks([point]).length ? owner.own(await NetworkLink.open(log), { after: true }) : null;
    const { server, slots } = await startServerAndBrowsers(children, {
      remoteServer: null,
      endpoints: [],
      headless: !flags.headful,
      log,
      rows,
      chartField,
      link,
    });
    const [{ slot, host }] = slots;
    const local = children.local!;
    const hiders = point.tab !== undefined ? owner.own(TabStateBrowsers.beside(local, log, link)) : null;
    log(`server ${server.url}, Chrome ${local.launched.version}`);
    if (link) log(`link: ${link.describe()}`);
    const options = { repeats: 1, seed: 0, auto: false, maxRepeats: 1, timeBudgetSec: null, findMax: false, retries: 0, file: flags.file };
    const draft = newReportDraft(run.runId, started, [], options);
    const recorder = ReportRecorder.toFile({ ...draft, environment: environmentOf(local.launched, server) }, { file: run.file, log });
    recorder.putHosts([host]);
    // Which events it streamed, in the report as a sweep's; a recorded pace needs a file's times.
    const payload = await serverPayload(server);
    if (payload) recorder.setPayload(payload);
    checkPacePayload([point], payload);
    const devices = owner.own(new DeviceEmulator({ onCalibrated: (c) => recorder.addDevice(c), log, signal: owner.signal }), { after: true });
    const repeats = new RepeatMeasurer({
      browser: slot,
      ...(hiders ? { browserFor: (p: Point) => hiders.for(p) } : {}),
      link,
      server,
      cores: host.cores ?? os.cpus().length,
      procfs: host.procfs,
      browserId: host.id,
      retries: 0,
      devices,
    });
    const soak = await soakAndSave({
      repeats,
      server,
      cores: host.cores ?? os.cpus().length,
      procfs: host.procfs,
      point,
      source: `${flags.file}: ${point.scenario}`,
      durationSec,
      signal: owner.signal,
      recorder,
      log,
    });
    if (soak.stopped === 'interrupted') recorder.interrupt(null);
    recorder.finish();
    await recorder.save();
    for (const line of soakLines(soak)) log(line);
    toStdout(flags.json ? `${JSON.stringify(recorder.report, null, 2)}\n` : `${run.file}\n`);
    if (soak.stopped === 'interrupted') return EXIT.interrupted;
    return judgeSoak(soak).held === true ? EXIT.ok : EXIT.failed;
  } finally {
    await owner.close();
  }
}

runCommand(COMMAND, main);
