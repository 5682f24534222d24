/**
 * `npm run bench:rows`: what a pool costs the server (docs/your-stream.md, "What a pool from a file
 * costs"; docs/limits.md, "The largest message"). Writes an NDJSON file of `--mb` MB of trade
 * objects (7 fields, one a nested array; `--event-bytes` pads each to about that size) unless
 * `--file` names one, or takes the lab's car rows with `--cars`, starts the server on it in its own
 * process, and reads its RSS and peak RSS (`VmRSS`, `VmHWM` of /proc/<pid>/status: the server runs
 * on this machine) at each stage: listening (file read, parsed, Arrow columns inferred), after
 * `GET /payload` (the pool's bytes built), and after the first message of an Arrow stream at each
 * `--arrow-batch` in turn (the Arrow table and that size's record batches built), with the time
 * each stage took. One run, no repeats: a size, not a benchmark.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { commandLineFlags, reportErrorsAs } from '../cli/command.js';
import { exitOnStopRequest } from '../cli/stop.js';
import type { FlagSpec } from '../protocol/flags.js';
import type { PayloadDescription } from '../protocol/payload.js';
import { LIMITS } from '../protocol/limits.js';
import { ROWS_FILE_MAX_BYTES } from '../protocol/rows-file.js';
import { getJson, startServer } from '../puppeteer/measure/server-process.js';

const FLAGS = {
  mb: { type: 'integer', default: 100, min: 1, max: Math.floor(ROWS_FILE_MAX_BYTES / 1e6), help: 'MB of NDJSON to write and load' },
  file: { type: 'string', default: '', defaultText: 'one written to a temporary folder', help: 'a rows file to load instead' },
  cars: { type: 'boolean', default: false, help: "the lab's car rows: no rows file" },
  'event-bytes': {
    type: 'integer',
    default: 0,
    min: 0,
    max: 1_000_000,
    help: 'pad each written trade object to about this many bytes (0: unpadded, about 97)',
  },
  'arrow-batch': { type: 'list', default: ['400'], integers: LIMITS.batch, help: 'Arrow batch sizes whose first message is taken, in turn' },
} as const satisfies Record<string, FlagSpec>;

reportErrorsAs('bench:rows');
exitOnStopRequest('bench:rows');
const flags = commandLineFlags(FLAGS, 'bench:rows');

/** `mb` MB of trade objects, one a line, each padded to about `eventBytes` (0: unpadded). */
async function writeTrades(file: string, mb: number, eventBytes: number): Promise<void> {
  const out = createWriteStream(file);
  const symbols = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];
  for (let i = 0, bytes = 0; bytes < mb * 1e6; i++) {
    const trade = {
      s: symbols[i % 3],
      p: (27000 + (i % 1000) / 7).toFixed(2),
      q: ((i % 97) / 13).toFixed(4),
      t: 1_700_000_000_000 + i,
      m: i % 2 === 0,
      id: i,
      lv: [[i % 50, i % 7]],
    };
    const plain = JSON.stringify(trade);
    const pad = Math.max(0, eventBytes - plain.length - 10);
    const line = `${pad ? JSON.stringify({ ...trade, pad: 'x'.repeat(pad) }) : plain}\n`;
    bytes += line.length;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
}

/** The server's RSS and peak RSS, MB. */
async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

/** The first message of an Arrow stream: its size's batches are built before it. */
function firstArrowMessage(url: string, batch: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^https:/, 'wss:')}ws?batch=${batch}&interval=1000&encoding=arrow`, { rejectUnauthorized: false });
    ws.once('message', () => {
      ws.close();
      resolve();
    });
    ws.once('error', reject);
  });
}

const written = !flags.file && !flags.cars;
const dir = written ? await mkdtemp(path.join(os.tmpdir(), 'pushlab-bench-rows-')) : null;
try {
  const file = flags.cars ? null : flags.file || path.join(dir!, 'trades.ndjson');
  if (written) await writeTrades(file!, flags.mb, flags['event-bytes']);
  const t0 = performance.now();
  const server = await startServer(file ? ['--rows', file] : [], 120_000);
  try {
    const stages: { stage: string; sec: number; rssMb: number; peakMb: number }[] = [];
    const { pid } = await server.stats();
    let last = t0;
    const mark = async (stage: string) => {
      const now = performance.now();
      stages.push({ stage, sec: (now - last) / 1000, ...(await memoryOf(pid)) });
      last = now;
    };
    await mark('listening');
    const payload = await getJson<PayloadDescription>(`${server.url}payload`, 300_000);
    await mark('/payload');
    for (const batch of flags['arrow-batch'].map(Number)) {
      await firstArrowMessage(server.url, batch);
      await mark(`first Arrow message, batch ${batch}`);
    }
    const what = file ? `${file}: ${((await stat(file)).size / 1e6).toFixed(1)} MB` : "the lab's car rows";
    process.stdout.write(`${what}, ${payload.events} events, bytes per event ${JSON.stringify(payload.bytesPerEvent)}\n`);
    process.stdout.write('stage\tseconds\tRSS MB\tpeak RSS MB\n');
    for (const s of stages) process.stdout.write(`${s.stage}\t${s.sec.toFixed(1)}\t${s.rssMb}\t${s.peakMb}\n`);
  } finally {
    await server.stop();
  }
} finally {
  if (dir) await rm(dir, { recursive: true, force: true });
}
