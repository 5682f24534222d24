/**
 * The self-contained report.html: the single-file viewer build (dist/report/report.html,
 * scripts, styles and chart.js inlined by vite-plugin-singlefile) with the report embedded in
 * its empty `<script type="application/json" id="report-data">`. Opens from file:// with no
 * server and no network, so it can be mailed or attached to a ticket.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PushlabError } from '../../protocol/errors.js';
import type { Report } from '../../protocol/report.js';
import { ROOT } from '../../cli/root.js';
import { reportBytesFor, writeAtomically } from './file.js';

/** The viewer build the sweep's `npm run build` makes. */
export const VIEWER_TEMPLATE = path.join(ROOT, 'dist/report/report.html');

/**
 * Disk space a run's files need at `repeats` repeats, bytes: report.json and report.html (the
 * viewer with the report inside), each twice, as the new one is written beside the old before
 * the rename.
 */
export async function reportFilesBytes(repeats: number): Promise<number> {
  const json = reportBytesFor(repeats);
  const viewer = await stat(VIEWER_TEMPLATE).then(
    (s) => s.size,
    () => 0,
  );
  return 2 * (json + viewer + json);
}

const SLOT = '<script type="application/json" id="report-data"></script>';

/**
 * JSON that cannot end the script element it sits in: `<`, `>` and `&` are written as
 * \u escapes (a JSON string may hold `</script>`; as `\u003c/script>` the HTML parser never
 * sees a tag), and U+2028/2029 too, as older engines choke on them in script text.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The viewer template with the report in its data slot. */
export function reportHtml(template: string, report: Report): string {
  const at = template.indexOf(SLOT);
  if (at < 0 || template.indexOf(SLOT, at + 1) >= 0) {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `the viewer build ${VIEWER_TEMPLATE} has no single empty ${SLOT}; rebuild it with \`npm run build\``);
  }
  // Sliced, not String.replace: a report string holding `$&` must not be expanded.
  return `${template.slice(0, at)}<script type="application/json" id="report-data">${scriptSafeJson(report)}</script>${template.slice(at + SLOT.length)}`;
}

async function readTemplate(): Promise<string> {
  try {
    return await readFile(VIEWER_TEMPLATE, 'utf8');
  } catch {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `cannot write report.html: the viewer is not built (${VIEWER_TEMPLATE} is missing); run \`npm run build\``);
  }
}

/** Writes `<dir>/report.html` atomically (temp file + rename), as report.json is. Returns its path. */
export async function writeReportHtml(dir: string, report: Report): Promise<string> {
  const file = path.join(dir, 'report.html');
  await writeAtomically(file, reportHtml(await readTemplate(), report));
  return file;
}
