/**
 * Writes report.json atomically (temp file + rename), so a crash never leaves half a report.
 * A write that fails (a full disk) removes its temp file and leaves the report before it as
 * it was, and says so in one coded line.
 */
import { rmdirSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeError } from '../../cli/output.js';
import { pidRuns } from '../../cli/pid.js';
import { PushlabError } from '../../protocol/errors.js';
import { SCHEMA_VERSION, type Environment, type Report } from '../../protocol/report.js';

export async function writeReport(file: string, report: Report): Promise<void> {
  await writeAtomically(file, `${JSON.stringify(report, null, 2)}\n`);
}

/**
 * `text` into `file` through `<file>.<pid>.tmp` and a rename; PUSHLAB_BAD_OUTPUT when it
 * cannot. A temp file of `file` that a SIGKILLed writer left (its pid no longer runs) goes first.
 */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await removeStaleTemps(file);
    await writeFile(tmp, text);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw writeError(file, err);
  }
}

async function removeStaleTemps(file: string): Promise<void> {
  const base = path.basename(file);
  for (const name of await readdir(path.dirname(file))) {
    const m = name.startsWith(`${base}.`) ? /\.(\d+)\.tmp$/.exec(name) : null;
    if (!m || name !== `${base}.${m[1]}.tmp` || pidRuns(Number(m[1]))) continue;
    await rm(path.join(path.dirname(file), name), { force: true });
  }
}

/**
 * Bytes a report of `repeats` repeats takes, about: a repeat was 5.2 KB in reports/example
 * (24 repeats, 125 KB, indented), plus the plan and environment.
 */
export function reportBytesFor(repeats: number): number {
  return 16 * 1024 + repeats * 6 * 1024;
}

/** `20261122-013000`: sortable, and safe as a directory name. A run's id is createRunDir's, which may add a suffix. */
export function runIdFor(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/**
 * Most runs one reports directory takes for one prefix in one second: the first has no suffix,
 * the others `-02` … `-99`. Two digits keep the ids sortable as plain strings (`-10` would sort
 * before `-2`), and every one of them is a run id (RUN_ID_PATTERN).
 */
export const RUNS_PER_SECOND = 99;

/** A run's directory, made by this process and no other. */
export interface RunDir {
  runId: string;
  dir: string;
  /** `<dir>/report.json`. */
  file: string;
}

/** Run directories this process made; removed at exit when nothing was written into them. */
const madeHere = new Set<string>();

/**
 * The one way a new run gets its directory (sweep, advise, the lab's recorder): `<out>/<prefix>
 * <run id>` made with a plain mkdir, which fails with EEXIST when the name is taken, so two runs
 * started in the same second (two terminals, two scripts) never share a directory and neither
 * report overwrites the other. A taken name is tried again with `-02`, `-03`, … up to
 * RUNS_PER_SECOND, then refused (PUSHLAB_BAD_OUTPUT). Ids had one-second resolution and the
 * directory was made with `recursive: true` at the first save: both runs wrote the same file.
 *
 * `out` must exist (checkOutputDir made it). A directory made here that never receives a file
 * (the command failed before its first save) is removed when the process exits.
 */
export async function createRunDir(out: string, prefix: string, started: Date): Promise<RunDir> {
  const base = `${prefix}${runIdFor(started)}`;
  for (let n = 1; n <= RUNS_PER_SECOND; n++) {
    const runId = n === 1 ? base : `${base}-${String(n).padStart(2, '0')}`;
    const dir = path.join(out, runId);
    try {
      // Not recursive: only the leaf is made, and an existing one is an error, not a success.
      await mkdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw writeError(dir, err);
    }
    if (!madeHere.size) process.once('exit', removeEmptyRunDirs);
    madeHere.add(dir);
    return { runId, dir, file: path.join(dir, 'report.json') };
  }
  throw new PushlabError(
    'PUSHLAB_BAD_OUTPUT',
    `cannot make a run directory in ${out}: ${base} and its ${RUNS_PER_SECOND - 1} suffixes (-02 … -${RUNS_PER_SECOND}) are all taken; start the run again in a second`,
  );
}

function removeEmptyRunDirs(): void {
  for (const dir of madeHere) {
    try {
      // rmdir refuses a directory that holds anything: a run that saved keeps its directory.
      rmdirSync(dir);
    } catch {
      // Not empty, or gone: nothing to tidy.
    }
  }
}

/** A report before its browser has started: a new run's has no environment yet. */
export type ReportDraft = Omit<Report, 'environment'> & { environment?: Environment };

/** A new run's report, nothing measured yet: the one header the sweep and advise both write. */
export function newReportDraft(runId: string, started: Date, scenarios: string[], options: Report['options']): ReportDraft {
  return {
    schemaVersion: SCHEMA_VERSION,
    runId,
    startedAt: started.toISOString(),
    finishedAt: null,
    interrupted: false,
    resumeCommand: null,
    scenarios,
    options,
    rounds: [],
    points: [],
    comparisons: [],
    saturation: [],
  };
}
