/**
 * Writes report.json atomically (temp file + rename), so a crash never leaves half a report.
 * A write that fails (a full disk) removes its temp file and leaves the report before it as
 * it was, and says so in one coded line.
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeError } from '../../cli/output.js';
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

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Bytes a report of `repeats` repeats takes, about: a repeat was 5.2 KB in reports/example
 * (24 repeats, 125 KB, indented), plus the plan and environment.
 */
export function reportBytesFor(repeats: number): number {
  return 16 * 1024 + repeats * 6 * 1024;
}

/** `20261122-013000`: sortable, and safe as a directory name. */
export function runIdFor(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
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
