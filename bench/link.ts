/**
 * `npm run bench:link`: what each transport does when a network link, not the tab, is the
 * limit. The server in one network namespace, a headless Chromium in another, a veth pair
 * between them (puppeteer/link/netns.ts); the sweep runs beside the browser with `--server` across the
 * link. ws and sse at 20 rows × 4 and × 10 connections (about 80 and 200 Mbit/s of events), once
 * over the unlimited link and once through tbf at `--rate` (default 100mbit) both ways. Each
 * run's scenario id names its link (`link-unlimited`, `link-tbf-100mbit`), so its report does;
 * the table gives EPS, delivered share and p99 per point and link. The reports go to reports/.
 *
 * Root only (namespaces, tc). Flags: `--repeats N` (default 3), `--rate <tc rate>`,
 * `--measure-sec S` (default 5). Everything it makes is removed on every exit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { PushlabError } from '../protocol/errors.js';
import type { FlagSpec } from '../protocol/flags.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { entryArgv } from '../cli/entry.js';
import { parseReportText } from '../protocol/report-check.js';
import { startRemoteChrome, type RemoteChrome } from './remote-chrome.js';
import { createLink, netnsMissing, type Link } from '../puppeteer/link/netns.js';
import { ROOT } from '../cli/root.js';

reportErrorsAs('bench:link');

const PORT = 8443;
const FLAGS = {
  repeats: { type: 'integer', default: 3, min: 1, max: 20, help: 'rounds per link' },
  rate: { type: 'string', default: '100mbit', help: "the limited link's rate, as tc takes it (100mbit, 500kbit, 1gbit)" },
  'measure-sec': { type: 'integer', default: 5, min: 1, max: 60, help: "each repeat's window, s" },
} as const satisfies Record<string, FlagSpec>;
const values = commandLineFlags(FLAGS, 'bench:link');
const repeats = values.repeats;
const measureSec = values['measure-sec'];
if (!/^\d+(\.\d+)?[kmg]?bit$/.test(values.rate))
  throw new PushlabError('PUSHLAB_BAD_FLAG', `--rate must be a tc rate: digits, then kbit, mbit, gbit or bit (100mbit); got '${values.rate}'`);
/** The rate in Mbit/s, as the link caps it. */
const mbitOf = (rate: string) => {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)bit$/.exec(rate)!;
  return Number(m[1]) * { '': 1e-6, k: 1e-3, m: 1, g: 1e3 }[m[2] as '' | 'k' | 'm' | 'g'];
};
const missing = netnsMissing();
if (missing) throw new PushlabError('PUSHLAB_NO_NETNS', `bench:link needs network namespaces (root, ip netns, tc): ${missing}`);

let link: Link | null = null;
let server: ChildProcess | null = null;
let chrome: RemoteChrome | null = null;
const teardown = () => {
  server?.kill('SIGKILL');
  if (chrome) process.kill(-chrome.pid, 'SIGKILL');
  link?.teardown();
};
process.once('exit', teardown);
exitOnStopRequest('bench:link');

const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-link-'));
try {
  link = createLink();
  server = spawn(
    link.exec(link.server.ns)[0],
    [
      ...link.exec(link.server.ns).slice(1),
      process.execPath,
      ...entryArgv('server/main.ts'),
      '--host',
      link.server.addr,
      '--allow-remote',
      '--port',
      String(PORT),
      '--exit-with-stdin',
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  server.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  for (const until = Date.now() + 30_000; !out.includes('listening on');) {
    if (server.exitCode !== null || Date.now() > until) throw new Error('the server did not start in its namespace');
    await new Promise((r) => setTimeout(r, 100));
  }
  chrome = await startRemoteChrome(link.exec(link.browser.ns));
  const rows: string[][] = [];
  for (const rate of [null, values.rate]) {
    link.limit(rate === null ? null : mbitOf(rate));
    const id = rate === null ? 'link-unlimited' : `link-tbf-${rate}`;
    const file = path.join(dir, `${id}.json`);
    await writeFile(
      file,
      JSON.stringify({ scenarios: [{ id, transport: ['ws', 'sse'], batch: 20, concurrency: [4, 10], warmupSec: 2, measureSec, repeats }] }),
    );
    process.stderr.write(`bench:link: ${link.describe()}: ${id}, ${repeats} round(s)\n`);
    const reportFile = execFileSync(
      link.exec(link.browser.ns)[0],
      [
        ...link.exec(link.browser.ns).slice(1),
        process.execPath,
        ...entryArgv('puppeteer/sweep/main.ts'),
        '--file',
        file,
        '--scenario',
        id,
        '--server',
        `https://${link.server.addr}:${PORT}/`,
        '--browser',
        `far=${chrome.http}`,
      ],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    )
      .trim()
      .split('\n')
      .at(-1)!;
    const report = parseReportText(readFileSync(reportFile, 'utf8'), reportFile);
    for (const p of report.points) {
      const s = p.summary;
      rows.push([
        link.describe(),
        p.point.id,
        String(p.point.offeredEventsPerSec),
        s ? String(Math.round(s.eventsPerSec.median)) : '—',
        s ? `${(s.deliveredRatio.median * 100).toFixed(1)}%` : '—',
        s?.latencyP99Ms ? s.latencyP99Ms.median.toFixed(1) : '—',
        p.verdict,
      ]);
    }
    process.stderr.write(`bench:link: report ${reportFile}\n`);
  }
  const head = ['link', 'point', 'offered EPS', 'EPS median', 'delivered', 'p99 ms', 'verdict'];
  process.stdout.write([`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n') + '\n');
} finally {
  teardown();
  await rm(dir, { recursive: true, force: true });
}
