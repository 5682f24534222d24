/**
 * `npm run bench:server`: what the server can offer without a browser. The server and the
 * load clients run in separate processes so each one's CPU is its own. Prints a table:
 * EPS offered, generated, sent and received; server CPU per million events and per batch;
 * tick lateness; RSS. Then a stall test: connections whose clients stop reading, and how
 * far the server's RSS grows meanwhile.
 *
 * On a 2-core machine the clients compete with the server for CPU (and must decrypt and
 * frame everything it sends), so a cell where the clients fell behind says so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import { entryArgv } from '../cli/entry.js';
import { checkOutputDir } from '../cli/output.js';
import { ROOT } from '../cli/root.js';
import { PushlabError } from '../protocol/errors.js';
import type { FlagSpec } from '../protocol/flags.js';
import type { ServerStats } from '../protocol/server-stats.js';
import { LIMITS } from '../protocol/limits.js';
import type { Transport } from '../protocol/wire.js';
import { remoteServer, startServer, type ServerHandle } from '../puppeteer/measure/server-process.js';
import { newestProfile, selfTimes } from './cpu-profile.js';

/** What bench/clients.ts speaks: WS, and SSE and fetch's NDJSON over one HTTP/2 session. */
const BENCH_TRANSPORTS = ['ws', 'sse', 'fetch'] as const satisfies readonly Transport[];

const FLAGS = {
  transport: {
    type: 'list',
    default: BENCH_TRANSPORTS,
    choices: BENCH_TRANSPORTS,
    help: 'transports the load clients speak (the others need a browser: npm run sweep)',
  },
  batch: { type: 'list', default: ['1', '50', '100', '400', '1000'], integers: LIMITS.batch, help: 'batch sizes' },
  connections: { type: 'list', default: ['1', '10', '100'], integers: { min: 1, max: 1000 }, help: 'connection counts' },
  seconds: { type: 'number', default: 4, min: 1, max: 120, help: 'measured window per cell' },
  'stall-seconds': { type: 'number', default: 30, min: 0, max: 600, help: 'stall test length (0 skips it)' },
  'stall-only': { type: 'boolean', default: false, help: 'run only the stall test' },
  'server-args': { type: 'string', default: '', help: 'extra flags for the server, space-separated' },
  server: { type: 'string', default: '', help: 'URL of a running pushlab server', defaultText: 'start one' },
  'cpu-prof': { type: 'string', default: '', help: 'run the server under node --cpu-prof, write the profile to this folder and print its top self times' },
} as const satisfies Record<string, FlagSpec>;

interface ClientReport {
  messages: number;
  bytes: number;
  cpuUs: number;
  atMs: number;
}

class Clients {
  private readonly lines: Interface;
  private readonly waiting: ((line: string) => void)[] = [];
  private constructor(private readonly child: ChildProcess) {
    this.lines = createInterface({ input: child.stdout! });
    this.lines.on('line', (l) => this.waiting.shift()?.(l));
  }

  static async start(args: string[]): Promise<Clients> {
    const child = spawn(process.execPath, [...entryArgv('bench/clients.ts'), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    const c = new Clients(child);
    const first = await c.next(30_000);
    if (first !== 'open') throw new Error(`clients: ${first}`);
    return c;
  }

  private next(timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('clients did not answer')), timeoutMs);
      this.waiting.push((l) => (clearTimeout(timer), resolve(l)));
    });
  }

  async report(): Promise<ClientReport> {
    this.child.stdin!.write('report\n');
    return JSON.parse(await this.next()) as ClientReport;
  }

  stall(): void {
    this.child.stdin!.write('stall\n');
  }

  async quit(): Promise<void> {
    this.child.stdin!.write('quit\n');
    await new Promise((r) => this.child.once('exit', r));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let deadSeen = 0;

/** Each cell must start from a server with no streams left over, or its figures mix cells. */
async function waitUntilIdle(server: ServerHandle, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await server.stats();
    if (s.connectionsOpen === 0) {
      if (s.deadPeersDropped > deadSeen)
        process.stderr.write(`note: the server dropped ${s.deadPeersDropped - deadSeen} dead peer(s) by heartbeat after a cell\n`);
      deadSeen = s.deadPeersDropped;
      return;
    }
    if (Date.now() > end) throw new Error(`the server still has ${s.connectionsOpen} streams open ${timeoutMs / 1000} s after their clients exited`);
    await sleep(250);
  }
}
const maxOf = (xs: (number | null)[]) => Math.max(0, ...xs.filter((x): x is number => x !== null));
const fmtM = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(1)} k`);

async function cell(server: ServerHandle, transport: string, batch: number, conns: number, seconds: number): Promise<string> {
  const clients = await Clients.start([transport, server.url, String(batch), '1', String(conns)]);
  try {
    await sleep(1000); // warm-up: connection set-up and JIT out of the window
    const [a, ca] = await Promise.all([server.stats(true), clients.report()]);
    await sleep(seconds * 1000);
    const [b, cb] = await Promise.all([server.stats(), clients.report()]);
    const wall = (b.nowMs - a.nowMs) / 1000;
    const sent = b.eventsSent - a.eventsSent;
    const batchesSent = b.batchesSent - a.batchesSent;
    const generated = batchesSent + b.batchesShed - a.batchesShed;
    const cpuMs = (b.cpuUserUs + b.cpuSystemUs - a.cpuUserUs - a.cpuSystemUs) / 1000;
    // Kernel time is the TCP stack; on loopback it includes the receiving side's softirq work.
    const sysShare = cpuMs > 0 ? (b.cpuSystemUs - a.cpuSystemUs) / 1000 / cpuMs : 0;
    const received = ((cb.messages - ca.messages) * batch) / ((cb.atMs - ca.atMs) / 1000);
    const clientCpu = ((cb.cpuUs - ca.cpuUs) / 1000 / (cb.atMs - ca.atMs)) * 100;
    const pacing = generated / ((conns * wall * 1000) / 1);
    const ownConns = b.connections.filter((c) => c.transport === transport);
    return [
      transport,
      batch,
      conns,
      fmtM(batch * conns * 1000),
      `${(pacing * 100).toFixed(1)}%`,
      fmtM(sent / wall),
      fmtM(received),
      String(b.batchesShed - a.batchesShed),
      `${(cpuMs / wall / 10).toFixed(0)}% (${(sysShare * 100).toFixed(0)}% kernel)`,
      sent ? (cpuMs / (sent / 1e6)).toFixed(0) : '–',
      batchesSent ? ((cpuMs * 1000) / batchesSent).toFixed(2) : '–',
      `${b.latenessMs.p99?.toFixed(2)} / ${maxOf(ownConns.map((c) => c.latenessMs.p99)).toFixed(2)}`,
      `${(b.rssBytes / 2 ** 20).toFixed(0)}`,
      `${clientCpu.toFixed(0)}%`,
    ].join(' | ');
  } finally {
    await clients.quit();
    await waitUntilIdle(server);
  }
}

async function stallTest(server: ServerHandle, transport: string, seconds: number): Promise<string> {
  const clients = await Clients.start([transport, server.url, '400', '1', '10']);
  try {
    await sleep(1000);
    const a: ServerStats = await server.stats();
    clients.stall();
    // Sample RSS every second: the peak is what a stalled client costs, even if the heartbeat
    // later drops it (a client that reads nothing also reads no PING).
    let peak = a.rssBytes;
    let maxQueued = 0;
    for (let t = 0; t < seconds; t++) {
      await sleep(1000);
      const s = await server.stats();
      peak = Math.max(peak, s.rssBytes);
      for (const c of s.connections) if (c.transport === transport) maxQueued = Math.max(maxQueued, c.bufferedBytes);
    }
    const b: ServerStats = await server.stats();
    const mib = (n: number) => (n / 2 ** 20).toFixed(1);
    return `${transport}: 10 connections stop reading at batch 400 for ${seconds} s: RSS ${mib(a.rssBytes)} MiB before, peak ${mib(peak)} MiB (growth ${mib(peak - a.rssBytes)} MiB); shed ${b.batchesShed - a.batchesShed} batches; largest queue ${mib(maxQueued)} MiB (bound ${mib(b.sendBufferLimitBytes)} MiB); dropped by heartbeat: ${b.deadPeersDropped - a.deadPeersDropped}`;
  } finally {
    await clients.quit();
  }
}

reportErrorsAs('bench:server');
exitOnStopRequest('bench:server');
const flags = commandLineFlags(FLAGS, 'bench:server');
if (flags['cpu-prof'] && flags.server) {
  throw new PushlabError('PUSHLAB_BAD_FLAG', '--cpu-prof profiles a server this bench starts; it cannot be used with --server');
}
const profileDir = flags['cpu-prof'] ? path.resolve(flags['cpu-prof']) : '';
// Checked before the server starts: node --cpu-prof only finds out when the server exits.
if (profileDir) checkOutputDir('--cpu-prof', profileDir);
const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const server = flags.server ? remoteServer(flags.server) : await startServer(flags['server-args'].split(' ').filter(Boolean), 30_000, nodeArgs);
const header = [
  'transport',
  'batch',
  'conns',
  'offered EPS',
  'pacing',
  'sent EPS',
  'received EPS',
  'shed',
  'server CPU (kernel share)',
  'CPU ms / 1M events',
  'CPU µs / batch',
  'lateness p99 ms (all / worst conn)',
  'RSS MiB',
  'clients CPU',
];
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
try {
  for (const transport of flags['stall-only'] ? [] : flags.transport)
    for (const conns of flags.connections.map(Number))
      for (const batch of flags.batch.map(Number)) {
        try {
          process.stdout.write(`| ${await cell(server, transport, batch, conns, flags.seconds)} |\n`);
        } catch (err) {
          process.stdout.write(`| ${transport} | ${batch} | ${conns} | failed: ${err instanceof Error ? err.message : String(err)} |\n`);
        }
      }
  if (flags['stall-seconds'] > 0) {
    // The table above is data (stdout); the stall test's findings are sentences, for people (stderr).
    for (const transport of flags.transport) process.stderr.write(`${await stallTest(server, transport, flags['stall-seconds'])}\n`);
  }
} finally {
  await server.stop();
}
if (profileDir) {
  // The profile spans the server's whole life, idle time left out; profile one cell for a clean answer.
  const { busyMs, top } = selfTimes(await newestProfile(profileDir));
  process.stderr.write(`\nserver CPU profile (${profileDir}): ${Math.round(busyMs)} ms busy; top self time:\n`);
  for (const t of top.slice(0, 12)) process.stderr.write(`${(t.share * 100).toFixed(1).padStart(6)}%  ${t.frame}\n`);
}
