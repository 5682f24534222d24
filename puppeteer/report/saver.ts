/**
 * Saving a run as it goes, the one way both the sweep and advise do it: report.json atomically
 * (file.ts), then report.html beside it. report.html is a view of report.json that
 * `npm run report -- <run>` writes again, so it never costs the report: it is said once when it
 * cannot be written, and on a full disk it gives its space to report.json (removed, and not
 * written again this run). A save that fails even so throws writeReport's PUSHLAB_BAD_OUTPUT,
 * which each command words with what it kept and how to go on.
 */
import { npmCommand } from '../../protocol/shell.js';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isNoSpace } from '../../cli/output.js';
import type { Report } from '../../protocol/report.js';
import { writeReport } from './file.js';
import { writeReportHtml } from './html.js';

export function reportSaver(file: string, log: (line: string) => void): (report: Report) => Promise<void> {
  const runDir = path.dirname(file);
  const htmlFile = path.join(runDir, 'report.html');
  let htmlFailed = false;
  let htmlOff = false;
  return async (report) => {
    try {
      await writeReport(file, report);
    } catch (err) {
      if (!isNoSpace((err as Error).cause) || !existsSync(htmlFile)) throw err;
      await rm(htmlFile, { force: true });
      htmlOff = true;
      log(`${(err as Error).message}: removed report.html to keep report.json (write it again later: ${npmCommand('report', [runDir])})`);
      await writeReport(file, report);
    }
    if (htmlOff) return;
    await writeReportHtml(runDir, report).catch((err: unknown) => {
      if (!htmlFailed) log(`report.html not written: ${err instanceof Error ? err.message : String(err)}`);
      htmlFailed = true;
      // A full disk: the viewer's next copy would only take the space report.json needs.
      if (isNoSpace((err as Error).cause)) htmlOff = true;
    });
  };
}
