/** Writes report.json atomically (temp file + rename), so a crash never leaves half a report. */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Report } from '../protocol/report.js';

export async function writeReport(file: string, report: Report): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(report, null, 2)}\n`);
  await rename(tmp, file);
}

/** `20261122-013000`: sortable, and safe as a directory name. */
export function runIdFor(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}
