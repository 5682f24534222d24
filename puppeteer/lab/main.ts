/**
 * `npm run lab`: the server plus a headful Chrome on the lab page, for poking at by hand.
 * Flags pre-fill the page's form; --autostart starts streaming at once. Once a second it reads
 * CPU from Chrome and the OS and pushes it into the page (`pushlab.cpuReadings`), or with
 * --headless prints it to stderr; the page's "Record this point" measures through this
 * process, as a sweep does (lab/record.ts). With --device the browser runs as that class:
 * calibrated once at start and kept slowed while the person streams (puppeteer/device/).
 * Runs until the browser window closes or Ctrl-C.
 */
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { commandLineFlags, runCommand } from '../../cli/command.js';
import { checkOutputDir } from '../../cli/output.js';
import { onStopRequest } from '../../cli/stop.js';
import { ROOT } from '../../cli/root.js';
import { logLine } from '../../cli/terminal.js';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import type { CpuReading, PageConfig, PushlabApi } from '../../protocol/page-api.js';
import { environmentOf, firefoxEnvironment } from '../browser/environment.js';
import { LabCpuReader, readingLine } from './cpu-readings.js';
import { LabRecorder } from './record.js';
import { findChrome } from '../browser/chrome.js';
import { LocalBrowser } from '../browser/local.js';
import { findFirefox, LocalFirefox } from '../browser/firefox.js';
import { checkDeviceFlag, checkLinkFlag, LAB_FLAGS } from '../options.js';
import { buildRenderModule } from '../render-module.js';
import { renderModuleUrl } from '../../protocol/render-module.js';
import { checkLinkConditions, cleanUpKilledLinks, namespaceLinks, NetworkLink } from '../link/link.js';
import { emulateLink } from '../link/cdp.js';
import { linkOf } from '../../protocol/link.js';
import { FACTORS } from '../../protocol/factors.js';
import { checkDeviceConditions, DeviceEmulator, type AppliedDevice, type DeviceCondition } from '../device/emulator.js';
import { isDeviceClass, type Throttle } from '../../protocol/device.js';
import { opensIn, TRANSPORT_INFO, type Transport } from '../../protocol/wire.js';
import type { Flags } from '../../protocol/flags.js';
import {
  checkPacePayload,
  checkPaceRows,
  checkRowsWithServer,
  connectServer,
  serverArgs,
  serverPayload,
  startServer,
  type ServerHandle,
} from '../measure/server-process.js';

// Lines carry the browser's and the server's words: through cli/terminal.ts.
const log = logLine;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

runCommand('lab', async () => {
  const flags = commandLineFlags(LAB_FLAGS, 'lab');
  let server: ServerHandle | null = null;
  let browser: LocalBrowser | LocalFirefox | null = null;
  let recorder: LabRecorder | null = null;
  // The device class's calibration and CPU quota: its cgroup is removed when the lab stops.
  let devices: DeviceEmulator | null = null;
  // The --link's namespaces and relays (puppeteer/link/): removed when the lab stops.
  let network: NetworkLink | null = null;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // A point being recorded is cut short: its report is saved marked interrupted first.
    await recorder?.interrupt().catch((err: unknown) => log(`the lab report was not saved: ${err instanceof Error ? err.message : String(err)}`));
    await browser?.close();
    await devices?.close();
    await network?.close();
    await server?.stop();
    process.exit(code);
  };
  // Ctrl-C, SIGTERM, SIGHUP, or npm (or its shell) gone: stop as on Ctrl-C; a second signal at once.
  onStopRequest({
    stop: (why) => {
      log(`${why}: stopping`);
      void stop(EXIT.interrupted);
    },
    now: () => {
      network?.kill();
      browser?.kill();
      void server?.stop();
      process.exit(EXIT.interrupted);
    },
  });
  if (!flags.headless && process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    throw new PushlabError(
      'PUSHLAB_NO_DISPLAY',
      `no display for a headful ${flags.engine === 'firefox' ? 'Firefox' : 'Chrome'} (DISPLAY is unset): run under a desktop, use \`xvfb-run npm run lab\`, or pass --headless`,
    );
  }
  const firefox = flags.engine === 'firefox';
  // A transport whose API Firefox lacks (ws-stream's WebSocketStream) is refused before Firefox starts.
  const transport = flags.transport as Transport;
  if (firefox && !opensIn(transport, 'firefox'))
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--transport ${transport} opens a ${TRANSPORT_INFO[transport].onlyIn?.api}, which --engine firefox does not have: give another --transport, or --engine chrome`,
    );
  const device = checkLabDevice(flags, firefox);
  const link = checkLinkFlag(flags.link);
  const linkPoint = { id: '--link', ...(link !== null && link !== 'off' ? { link } : {}) };
  if (firefox && linkPoint.link !== undefined)
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      `--link ${link} with --engine firefox: it must be ${FACTORS.link.firefox.mustBe}; drop --link, or use --engine chrome`,
    );
  // Before anything is launched: where recorded points go must take files, a --server must
  // answer, and there must be a browser to run.
  const outDir = path.resolve(ROOT, flags.out);
  checkOutputDir('--out', outDir);
  checkRowsWithServer(flags.rows, flags.server, flags['chart-field']);
  // The form's pace: refused as a sweep's point would be (the flag stands for the lab's points).
  const paced = [{ id: '--pace', pace: flags.pace === 'recorded' ? ('recorded' as const) : undefined }];
  checkPaceRows(paced, flags.rows, flags.server);
  const remote = flags.server ? await connectServer('--server', flags.server) : null;
  // Built (or refused) before anything is launched; the page imports it from the server.
  const renderModule = flags['render-module'] ? await buildRenderModule(flags['render-module'], `--render-module ${flags['render-module']}`) : null;
  if (firefox) findFirefox();
  else await findChrome(log);
  checkDeviceConditions([device], 'local');
  cleanUpKilledLinks(log);
  checkLinkConditions([linkPoint], { browsers: 'local', server: flags.server });
  try {
    if (namespaceLinks([linkPoint]).length) network = await NetworkLink.open(log);
    const net = network;
    server = remote ?? (await startServer(serverArgs(flags.rows, flags['chart-field']), undefined, undefined, undefined, net?.server));
    // PUSHLAB_LAB_DEVTOOLS=1 (the lab's test): a DevTools port to attach to, printed below.
    browser = firefox
      ? await LocalFirefox.launch({ headless: flags.headless, log, fitWindow: true })
      : await LocalBrowser.launch(flags.headless, log, {
          extraArgs: process.env.PUSHLAB_LAB_DEVTOOLS ? ['--remote-debugging-port=0'] : [],
          fitWindow: true,
          ...(net ? { wrap: (p: string) => net.chromeWrapper(p) } : {}),
        });
    if (net) {
      await net.connect();
      // apply() says what it made ("link 50ms: …"): the lab printed it a second time after it.
      await net.apply(linkPoint);
    }
    if (device.device !== undefined) devices = new DeviceEmulator({ onCalibrated: (c) => recorder?.addDevice(c), log });
  } catch (err) {
    await browser?.close();
    await network?.close();
    await server?.stop();
    throw err;
  }
  const srv = server;
  const chrome = browser;
  const query = new URLSearchParams({
    transport: flags.transport,
    batch: String(flags.batch),
    concurrency: String(flags.concurrency),
    intervalMs: String(flags['interval-ms']),
    render: flags.render,
    parse: flags.parse,
    workers: String(flags.workers),
    pace: flags.pace,
    ...(renderModule ? { renderModule: renderModuleUrl(renderModule.sha256) } : {}),
    ...(flags.autostart ? { autostart: '1' } : {}),
  });
  const url = `${srv.url}?${query}`;
  const page = (await chrome.browser().pages())[0] ?? (await chrome.browser().newPage());
  const lab = (recorder = new LabRecorder({
    browser: chrome,
    server: srv,
    environment: chrome instanceof LocalFirefox ? firefoxEnvironment(chrome, srv) : environmentOf(chrome.launched, srv),
    outDir,
    cores: os.cpus().length,
    warmupSec: flags['warmup-sec'],
    measureSec: flags['measure-sec'],
    repeats: flags.repeats,
    device,
    ...(devices ? { devices } : {}),
    ...(linkPoint.link !== undefined ? { link: linkPoint.link, network } : {}),
    ...(renderModule ? { renderModule } : {}),
  }));
  const payload = await serverPayload(srv);
  if (payload) lab.setPayload(payload);
  // Calibrated once, before the page streams; the quota (or the tab's throttling below) stays on.
  let applied: AppliedDevice = null;
  try {
    // Events with no pace to replay end the lab here, as a class it cannot reach does.
    checkPacePayload(paced, payload);
    if (devices) applied = await devices.enter(chrome, device, lab.hostId);
  } catch (err) {
    // A class this browser cannot reach (PUSHLAB_NO_DEVICE): nothing of the lab is left behind.
    await chrome.close();
    await devices?.close();
    await network?.close();
    await srv.stop();
    throw err;
  }
  let recording = false;
  // Exposed before the page loads, so the page sees it from its first script on.
  await page.exposeFunction('pushlabRecord', async (config: PageConfig) => {
    recording = true;
    log(`recording ${lab.pointOf(config).id}: ${flags.repeats} repeat(s) of ${flags['warmup-sec']} s warm-up + settle + ${flags['measure-sec']} s window…`);
    try {
      const r = await lab.record(config);
      log(`recorded ${r.line}\n  → ${r.reportPath}`);
      return r;
    } finally {
      recording = false;
      cpu.reset();
    }
  });
  // Firefox has no CDP: its readings come from /proc (cpu-readings.ts), the main thread's busy time excepted.
  const pageSession = chrome instanceof LocalFirefox ? null : await page.createCDPSession();
  await pageSession?.send('Performance.enable');
  await page.goto(url);
  // A main-thread class is set on the lab's own tab (each recorded point's tabs get it from the measurer).
  await DeviceEmulator.onTab(pageSession, applied);
  // A cdp: link on the lab's own tab (recorded points' tabs get it from the measurer).
  if (linkPoint.link !== undefined && linkOf(linkPoint.link).via === 'cdp') await emulateLink(pageSession, linkPoint);
  log(`pushlab lab: ${url}\n${chrome instanceof LocalFirefox ? 'Firefox' : 'Chrome'} ${chrome.launched.version}; close the window or press Ctrl-C to stop.`);
  if (chrome instanceof LocalBrowser && chrome.launched.devtools) log(`devtools: ${chrome.launched.devtools}`);
  chrome.browser().on('disconnected', () => void stop(0));

  const cpu = new LabCpuReader({
    browserSession: chrome.session(),
    pageSession,
    ...(chrome instanceof LocalFirefox ? { firefoxPid: chrome.pid() } : {}),
    serverStats: () => srv.stats(),
    cores: os.cpus().length,
  });
  void pushReadings(page, cpu, flags.headless, () => recording || stopping);
  return undefined;
});

/**
 * About once a second: one CPU reading into the page and, headless, to stderr. Skipped while
 * a point is recorded, so the driver's own CDP traffic stays out of that measurement.
 */
async function pushReadings(page: Page, cpu: LabCpuReader, print: boolean, paused: () => boolean): Promise<void> {
  for (;;) {
    await sleep(1000);
    if (paused()) continue;
    let reading: CpuReading | null;
    try {
      reading = await cpu.read();
    } catch {
      return; // the browser is gone: the lab is stopping
    }
    if (!reading) continue;
    if (print) log(readingLine(reading));
    await page.evaluate((r) => (globalThis as unknown as { pushlab: PushlabApi }).pushlab.cpuReadings?.(r), reading).catch(() => undefined);
  }
}

/** `--device` and `--throttle`, checked: the class the lab's browser runs as (absent fields: full speed). */
function checkLabDevice(flags: Flags<typeof LAB_FLAGS>, firefox: boolean): DeviceCondition {
  const setting = checkDeviceFlag(flags.device) ?? undefined;
  const throttle = flags.throttle === '' ? null : (flags.throttle as Throttle);
  if (!isDeviceClass(setting)) {
    if (throttle !== null)
      throw new PushlabError(
        'PUSHLAB_BAD_FLAG',
        `--throttle ${throttle} says how a device class slows the browser; give --device mid-tier, low-tier or index=N with it, or drop it`,
      );
    return {};
  }
  if (firefox && throttle === 'main-thread')
    throw new PushlabError(
      'PUSHLAB_BAD_FLAG',
      "--throttle main-thread is Chrome's CDP CPU throttling, and --engine firefox has none: drop --throttle (the whole browser is slowed) or use --engine chrome",
    );
  return { device: setting, ...(throttle === 'main-thread' ? { throttle } : {}) };
}
