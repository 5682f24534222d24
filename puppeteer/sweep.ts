/**
 * `npm run sweep`: runs scenarios from scenarios.json in headless Chrome and writes
 * reports/<run-id>/report.json after every point. Progress goes to stderr; the report's
 * path is the last line on stdout.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandLineFlags, runCommand } from '../cli/command.js';
import { ROOT } from '../cli/root.js';
import { EXIT, PushlabError } from '../protocol/errors.js';
import { SCHEMA_VERSION, type Report } from '../protocol/report.js';
import { parseScenarioFile, selectPoints, type Point } from '../protocol/scenario.js';
import { measureCeilings } from './ceiling.js';
import { launchChrome } from './chrome.js';
import { formatPointLine, formatTable } from './format.js';
import { runIdFor, writeReport } from './report-file.js';
import { SWEEP_FLAGS } from './options.js';
import { Runner } from './runner.js';
import { remoteServer, startServer, type ServerHandle } from './server-process.js';


const log = (line: string) => process.stderr.write(`${line}\n`);

async function loadPoints(file: string, ids: string[]): Promise<Point[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new PushlabError('PUSHLAB_BAD_SCENARIO', `--file ${file}: cannot read it (does it exist?)`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new PushlabError('PUSHLAB_BAD_SCENARIO', `${file}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return selectPoints(parseScenarioFile(data, file), ids);
}

runCommand('sweep', async () => {
  const flags = commandLineFlags(SWEEP_FLAGS, 'sweep');
  const points = await loadPoints(path.resolve(ROOT, flags.file), flags.scenario);
  const seconds = points.reduce((s, p) => s + p.warmupSec + p.measureSec + 3, 0);
  if (flags.list) {
    // One point a line on stdout (data), the summary for people on stderr.
    for (const p of points) process.stdout.write(`${p.id}\t${p.offeredEventsPerSec} EPS offered\n`);
    log(`${points.length} points, about ${Math.ceil(seconds / 60)} min`);
    return EXIT.ok;
  }
  const scenarios = [...new Set(points.map((p) => p.scenario))];
  log(`pushlab sweep: ${scenarios.join(', ')}: ${points.length} points, about ${Math.ceil(seconds / 60)} min`);

  const server: ServerHandle = flags.server ? remoteServer(flags.server) : await startServer();
  let closeBrowser = async () => undefined as void;
  const started = new Date();
  const runId = runIdFor(started);
  const file = path.resolve(ROOT, flags.out, runId, 'report.json');
  try {
    // Fail early, with the server's own message, if it is not there.
    await server.stats().catch((err: unknown) => {
      if (!flags.server) throw err;
      throw new PushlabError('PUSHLAB_BAD_SERVER', `--server ${flags.server} does not answer: ${err instanceof Error ? err.message : String(err)}`);
    });
    const chrome = await launchChrome({ headless: !flags.headful, log });
    closeBrowser = () => chrome.browser.close();
    log(`server ${server.url}, Chrome ${chrome.version} (${chrome.path}, ${chrome.source})`);
    const browserSession = await chrome.browser.target().createCDPSession();
    const cpus = os.cpus();
    const report: Report = {
      schemaVersion: SCHEMA_VERSION,
      runId,
      startedAt: started.toISOString(),
      finishedAt: null,
      scenarios,
      environment: {
        chromeVersion: chrome.version,
        chromePath: chrome.path,
        nodeVersion: process.version,
        platform: `${os.platform()} ${os.release()} ${os.arch()}`,
        cpuModel: cpus[0]?.model ?? 'unknown',
        cores: cpus.length,
        memoryBytes: os.totalmem(),
        headless: chrome.headless,
        launchArgs: chrome.args,
        networkEnabled: chrome.networkEnabled,
        serverUrl: server.url,
      },
      parseCeilings: [],
      points: [],
    };
    await writeReport(file, report);
    log('measuring the in-page JSON.parse ceiling…');
    report.parseCeilings = await measureCeilings(chrome.browser, server.url, points.map((p) => p.batch));
    for (const c of report.parseCeilings) log(`  batch ${c.batch}: ${(c.eventsPerSec / 1e6).toFixed(2)} M events/s (${c.bytesPerMessage} B per message)`);
    await writeReport(file, report);
    const ceilings = new Map(report.parseCeilings.map((c) => [c.batch, c.eventsPerSec]));
    const runner = new Runner({ browser: chrome.browser, browserSession, server, cores: cpus.length, retries: flags.retries, ceilings });
    runner.on('point-start', (p, i, n) => log(`[${i + 1}/${n}] ${p.id} …`));
    runner.on('point-attempt-failed', (p, attempt, err) => log(`  attempt ${attempt} failed: ${err.message}`));
    runner.on('point-done', (r) => log(`  ${formatPointLine(r)}`));
    await runner.run(points, async (r) => {
      report.points.push(r);
      await writeReport(file, report);
    });
    report.finishedAt = new Date().toISOString();
    await writeReport(file, report);
    log(`\n${formatTable(report)}\n`);
    process.stdout.write(`${file}\n`);
    return report.points.some((r) => r.status === 'failed') ? EXIT.failed : EXIT.ok;
  } finally {
    await closeBrowser().catch(() => undefined);
    await server.stop();
  }
});
