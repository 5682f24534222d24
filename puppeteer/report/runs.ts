/**
 * The runs under reports/ and the small server `npm run report -- --serve` uses: finding a
 * run by id or path, reading its report.json through the one check, listing runs, serving
 * the one-file viewer. Kept apart from main.ts so the tests can use them.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { readInputFile } from '../../cli/input-file.js';
import { hostnameOf, isLoopbackName, judgeOrigin } from '../../cli/local-origins.js';
import { openServableFile, REPORTS_PREFIX, RUN_REPORT, servableRuns } from '../../cli/reports-dir.js';
import { PushlabError } from '../../protocol/errors.js';
import type { FlagSpec } from '../../protocol/flags.js';
import { parseReportText } from '../../protocol/report-check.js';
import { isRunId, type Report } from '../../protocol/report.js';
import { VIEWER_TEMPLATE } from './html.js';

/** Splits argv into flags (and their values) and positional run names, by the flag table. */
export function splitArgs(specs: Record<string, FlagSpec>, argv: readonly string[]): { flags: string[]; positionals: string[] } {
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    flags.push(arg);
    const name = /^--([a-z][a-z0-9-]*)$/.exec(arg)?.[1];
    const spec = name !== undefined && Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec && spec.type !== 'boolean' && i + 1 < argv.length) flags.push(argv[++i]);
  }
  return { flags, positionals };
}

/** Run ids under the reports directory that hold a report.json (the ones the viewer servers list), newest first. */
export async function listRuns(reportsDir: string): Promise<string[]> {
  const runs = await servableRuns(reportsDir);
  const stamped = runs
    .filter((n) => /^\d/.test(n))
    .sort()
    .reverse();
  return [...stamped, ...runs.filter((n) => !/^\d/.test(n))];
}

/**
 * A run id, a run directory or a report.json path → the report.json file. A path that exists
 * but is not a directory is returned as it is: readReport says what it is, if not a file.
 */
export async function resolveReportFile(arg: string, reportsDir: string): Promise<string> {
  const direct = await stat(arg).catch(() => null);
  if (direct?.isDirectory()) return path.resolve(arg, RUN_REPORT);
  if (direct) return path.resolve(arg);
  if (isRunId(arg)) {
    const file = path.join(reportsDir, arg, RUN_REPORT);
    if (await stat(file).catch(() => null)) return file;
  }
  const runs = await listRuns(reportsDir);
  const known = runs.length ? `runs in ${reportsDir}: ${runs.slice(0, 8).join(', ')}${runs.length > 8 ? ', …' : ''}` : `${reportsDir} holds no runs`;
  throw new PushlabError('PUSHLAB_BAD_REPORT', `no run '${arg}': not a file, not a directory, and no ${path.join(reportsDir, arg, RUN_REPORT)}; ${known}`);
}

/** A report file through the one reading of input files and the one check of reports. */
export async function readReport(file: string): Promise<Report> {
  return parseReportText(await readInputFile(file, file, 'PUSHLAB_BAD_REPORT', 'give a run id, a run directory or a report.json'), file);
}

/**
 * A viewer server of its own, plain HTTP on 127.0.0.1 only: the one-file viewer at
 * /report.html, the listing of runs at /reports/ and the .json files of each run, by the rule
 * the main server's /reports/ route follows (cli/reports-dir.ts). Chosen over the
 * main server's route because it needs no TLS certificate, no build of the lab page and no
 * stream endpoints, and serves nothing but those three things.
 *
 * Plain HTTP on loopback is reachable from any page the user's browser opens, and after a DNS
 * rebinding such a page's own origin is this server. So it answers only requests addressed to
 * a loopback name (`Host`: localhost, 127.x.y.z, [::1]: names no DNS answer can give a foreign
 * page), others 421; and a request a foreign page made (a foreign `Origin`, or a cross-site
 * request that is not a navigation; cli/local-origins.ts) 403.
 */
export async function serveReports(reportsDir: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const template = await readFile(VIEWER_TEMPLATE, 'utf8').catch(() => {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `the viewer is not built (${VIEWER_TEMPLATE} is missing); run \`npm run build\``);
  });
  const send = (res: ServerResponse, code: number, type: string, body: string) => {
    res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(body);
  };
  let bound = port;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const host = hostnameOf(req.headers.host);
    if (host === null || !isLoopbackName(host)) {
      const given = String(req.headers.host ?? '');
      return send(
        res,
        421,
        'text/plain',
        `misdirected: this viewer answers only loopback host names (localhost, 127.x.y.z, [::1]); got host '${given.length > 80 ? `${given.slice(0, 80)}…` : given}'\n`,
      );
    }
    const verdict = judgeOrigin(req.headers, 'http', (p) => p === bound);
    if (verdict.kind === 'foreign') return send(res, 403, 'text/plain', `refused: ${verdict.why}; this viewer answers only its own page\n`);
    // Routed on the raw path, never a normalised one (`/reports/../` is not `/`), as the main
    // server routes: a segment is decoded once, by the rule below.
    const raw = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'GET only\n');
    if (raw === '/' || raw === '/report.html') return send(res, 200, 'text/html; charset=utf-8', template);
    // Browsers ask for it on their own; an empty answer keeps a 404 out of the console.
    if (raw === '/favicon.ico') return send(res, 204, 'image/x-icon', '');
    if (raw === REPORTS_PREFIX) return send(res, 200, 'application/json', JSON.stringify(await listRuns(reportsDir)));
    // The rest of /reports/ by the rule the main server follows too (cli/reports-dir.ts): no
    // dot segments or dotfiles, no symlink out, regular .json files only.
    const opened = raw.startsWith(REPORTS_PREFIX) ? await openServableFile(reportsDir, raw.slice(REPORTS_PREFIX.length)) : null;
    const text =
      opened === null
        ? null
        : await opened.handle
            .readFile('utf8')
            .catch(() => null)
            .finally(() => opened.handle.close());
    return text === null ? send(res, 404, 'text/plain', 'not found\n') : send(res, 200, 'application/json', text);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, 'text/plain', `${err instanceof Error ? err.message : String(err)}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}/report.html`,
    // A browser keeps sockets open after its tab closes (kept alive, or opened ahead and never
    // used); close() alone waits for them, for minutes. Nothing is served once we close.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
