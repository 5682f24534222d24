/**
 * `npm run bench:faults`: the fault suite at full length, with figures. test/server/faults.test.ts
 * runs short versions of the same faults and asserts their outcome; this prints what they
 * cost, against a server in its own process (so its CPU and RSS are its own).
 *
 * - `churn`: connect/abort cycles (bench/churn.ts), `--parallel` at a time, mixing WS, SSE
 *   over HTTP/2 and SSE over HTTP/1.1 with every way a client goes away. Then: streams the
 *   server still counts open, batches behind, sockets left in CLOSE-WAIT, the idle server's
 *   CPU over 5 s, and RSS against before the cycles, also after a forced full GC (through the
 *   server's V8 inspector, bench/inspector.ts) with a verdict: within 10% passes.
 * - `stall`: clients that stop reading (WS, SSE) beside clients that keep reading: the
 *   server's RSS, the shedding it counts, and the rate the readers still get.
 * - `foreign`: what a page on another origin gets (bench/foreign.ts): CORS, the bytes its
 *   WebSocket pulls, its stream starts and CONNECT, someone else's poll id.
 * - `arrow`: many new Arrow batch sizes (bench/memory.ts): the server's RSS and its longest
 *   event-loop stall, and how many sizes were served, refused or busy.
 * - `zero-window`: many streams on one HTTP/2 connection that never open their window
 *   (bench/memory.ts): the bytes queued for them, the server's RSS, what was shed.
 */
import { execFileSync } from 'node:child_process';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import type { FlagSpec } from '../protocol/flags.js';
import type { ServerStats } from '../protocol/server-stats.js';
import { startServer, type ServerHandle } from '../puppeteer/measure/server-process.js';
import { attachInspector, freePort, type Inspector } from './inspector.js';
import { runChurn } from './churn.js';
import { describeStall, runStall } from './stall.js';
import { describeForeign, runForeign } from './foreign.js';
import { arrowSizes, zeroWindow } from './memory.js';

const SECTIONS = ['churn', 'stall', 'foreign', 'arrow', 'zero-window'] as const;

const FLAGS = {
  only: { type: 'list', default: [...SECTIONS], choices: SECTIONS, help: 'sections to run' },
  cycles: { type: 'integer', default: 1000, min: 1, max: 100_000, help: 'connect/abort cycles' },
  parallel: { type: 'integer', default: 10, min: 1, max: 200, help: 'cycles in flight at once' },
  seed: { type: 'integer', default: 1, min: 0, max: 2 ** 31, help: 'seeds the mix of transports, endings and hold times' },
  'settle-sec': { type: 'number', default: 3, min: 0, max: 120, help: 'wait after the last cycle before counting what is left open' },
  'stall-seconds': { type: 'number', default: 20, min: 2, max: 600, help: 'how long the stalled clients stop reading' },
  'arrow-sizes': { type: 'integer', default: 12, min: 1, max: 1000, help: 'new Arrow batch sizes asked for, from the Arrow minimum (16) up in steps of 3' },
  'zero-window-streams': { type: 'integer', default: 250, min: 1, max: 1000, help: 'zero-window streams on one HTTP/2 connection' },
  'zero-window-batch': {
    type: 'integer',
    default: 10,
    min: 1,
    max: 10_000,
    help: "their batch: below about 15 rows each message is its own copy (write-message.ts), so what is queued is the server's memory",
  },
  'server-args': { type: 'string', default: '', help: 'extra flags for the server, space-separated' },
} as const satisfies Record<string, FlagSpec>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
const cpuUs = (s: ServerStats) => s.cpuUserUs + s.cpuSystemUs;
/** Past the server's default heartbeat deadline (15 s), so only what the heartbeat missed is left. */
const HEARTBEAT_PAST_MS = 20_000;

/** Server CPU over `ms` of wall time, % of one core, from its own process.cpuUsage(). */
async function idleCpu(server: ServerHandle, ms: number): Promise<number> {
  const a = await server.stats();
  await sleep(ms);
  const b = await server.stats();
  return ((cpuUs(b) - cpuUs(a)) / 1000 / (b.nowMs - a.nowMs)) * 100;
}

/** Sockets of the server's port in CLOSE-WAIT (the peer closed, the server did not); null off Linux. */
function closeWait(port: string): number | null {
  try {
    const out = execFileSync('ss', ['-Htan', 'state', 'close-wait', `( sport = :${port} )`], { encoding: 'utf8' });
    return out.split('\n').filter((l) => l.trim() !== '').length;
  } catch {
    return null;
  }
}

/** Streams still open, by transport/http, e.g. '3 sse/h2'. */
function openBy(stats: ServerStats): string {
  const left = stats.connections.map((c) => `${c.transport}/${c.http}`);
  return [...new Set(left)].map((k) => `${left.filter((x) => x === k).length} ${k}`).join(', ');
}

/** The server's memory after two forced full GCs (the second collects what the first's finalizers freed). */
async function settledMemory(server: ServerHandle, inspector: Inspector): Promise<{ rssBytes: number; heapBytes: number }> {
  await inspector.collectGarbage();
  await inspector.collectGarbage();
  const heapBytes = await inspector.heapUsedBytes();
  return { rssBytes: (await server.stats()).rssBytes, heapBytes };
}

/** RSS may grow by this much over a churn round and still count as returned. */
const RSS_BOUND = 0.1;

async function churn(
  server: ServerHandle,
  inspector: Inspector,
  flags: { cycles: number; parallel: number; seed: number; 'settle-sec': number },
): Promise<void> {
  const port = new URL(server.url).port;
  const out = process.stdout;
  const cold = await server.stats();
  // A first round of the same size warms JIT, TLS and the allocator, so the measured round's RSS
  // is compared with a server that has already held this many connections: growth then means
  // something kept, not a first-use high-water mark. Its figures are printed too.
  await runChurn({ base: server.url, cycles: flags.cycles, parallel: flags.parallel, seed: flags.seed + 1 });
  await sleep(HEARTBEAT_PAST_MS);
  const before = await server.stats();
  const cpuBefore = await idleCpu(server, 5000);
  const memBefore = await settledMemory(server, inspector);
  out.write(
    `churn warm-up round: ${flags.cycles} cycles; 20 s later streams open ${before.connectionsOpen}; RSS ${mib(cold.rssBytes)} MiB cold, ${mib(before.rssBytes)} MiB after it\n`,
  );

  const r = await runChurn({ base: server.url, cycles: flags.cycles, parallel: flags.parallel, seed: flags.seed });
  await sleep(flags['settle-sec'] * 1000);
  const after = await server.stats();
  const closeWaitAfter = closeWait(port);
  const cpuAfter = await idleCpu(server, 5000);
  // Past the heartbeat's deadline (15 s): whatever is still open now, the heartbeat missed.
  await sleep(Math.max(0, HEARTBEAT_PAST_MS - (flags['settle-sec'] * 1000 + 5000)));
  const end = await server.stats();
  const closeWaitEnd = closeWait(port);
  const cpuEnd = await idleCpu(server, 5000);
  const memEnd = await settledMemory(server, inspector);
  const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)}%`;
  out.write(
    `churn: ${r.cycles} cycles, ${flags.parallel} in parallel, seed ${flags.seed}, in ${(r.wallMs / 1000).toFixed(1)} s (${r.streamed} saw events, ${r.failed} did not stream: a reset or a session another cycle ended can beat the first event)\n`,
  );
  out.write(
    `  mix: ${Object.entries(r.byKind)
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}\n`,
  );
  out.write(
    `  ${flags['settle-sec']} s after the last cycle: streams open ${after.connectionsOpen}${after.connectionsOpen ? ` (${openBy(after)})` : ''}, batches behind ${after.batchesBehind}, sockets in CLOSE-WAIT ${closeWaitAfter ?? 'n/a'}; idle server CPU over the next 5 s ${cpuAfter.toFixed(1)}% of a core\n`,
  );
  out.write(
    `  20 s after the last cycle: streams open ${end.connectionsOpen}${end.connectionsOpen ? ` (${openBy(end)})` : ''}, batches behind ${end.batchesBehind}, sockets in CLOSE-WAIT ${closeWaitEnd ?? 'n/a'}; idle server CPU over the next 5 s ${cpuEnd.toFixed(1)}% of a core (${cpuBefore.toFixed(1)}% before the round)\n`,
  );
  out.write(
    `  dropped: write errors ${end.writeErrors - before.writeErrors}, by heartbeat ${end.deadPeersDropped - before.deadPeersDropped}, found gone ${(end.goneStreamsDropped ?? 0) - (before.goneStreamsDropped ?? 0)}\n`,
  );
  out.write(
    `  server RSS: ${mib(before.rssBytes)} MiB before the round, ${mib(end.rssBytes)} MiB 20 s after (${pct(before.rssBytes, end.rssBytes)}; ${pct(cold.rssBytes, end.rssBytes)} against the cold server)\n`,
  );
  const rssChange = (memEnd.rssBytes - memBefore.rssBytes) / memBefore.rssBytes;
  out.write(
    `  after a forced full GC: server RSS ${mib(memBefore.rssBytes)} → ${mib(memEnd.rssBytes)} MiB (${pct(memBefore.rssBytes, memEnd.rssBytes)}), V8 heap used ${mib(memBefore.heapBytes)} → ${mib(memEnd.heapBytes)} MiB (${pct(memBefore.heapBytes, memEnd.heapBytes)}); RSS within ${RSS_BOUND * 100}%: ${Math.abs(rssChange) <= RSS_BOUND ? 'pass' : 'fail'}\n`,
  );
}

reportErrorsAs('bench:faults');
exitOnStopRequest('bench:faults');
const flags = commandLineFlags(FLAGS, 'bench:faults');
// Churn attaches to the server's V8 inspector (loopback, a port of its own) to force a full GC before each memory reading.
const inspectPort = flags.only.includes('churn') ? await freePort() : null;
const server = await startServer(flags['server-args'].split(' ').filter(Boolean), 30_000, inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []);
const inspector = inspectPort ? await attachInspector(inspectPort) : null;
try {
  if (inspector) await churn(server, inspector, flags);
  if (flags.only.includes('stall'))
    process.stdout.write(`${describeStall(await runStall(server.url, { seconds: flags['stall-seconds'], stats: () => server.stats() }))}\n`);
  if (flags.only.includes('foreign')) process.stdout.write(`${describeForeign(await runForeign(server.url, 3))}\n`);
  if (flags.only.includes('arrow'))
    process.stdout.write(
      `${await arrowSizes(
        server.url,
        Array.from({ length: flags['arrow-sizes'] }, (_, i) => 16 + 3 * i),
      )}\n`,
    );
  if (flags.only.includes('zero-window'))
    process.stdout.write(`${await zeroWindow(server.url, flags['zero-window-streams'], flags['zero-window-batch'], flags['stall-seconds'])}\n`);
} finally {
  inspector?.close();
  await server.stop();
}
// In some runs a load-client socket kept this process busy after the server had stopped (about
// half a core, 2 of 6 runs, cause not found). The figures are printed and the server is gone:
// exit rather than outlive the work.
process.exit(0);
