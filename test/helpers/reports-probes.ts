/**
 * Request paths that try to leave reports/, for both servers that serve it (the main server's
 * route, test/server/reports-route.test.ts, and the viewer's own, test/server/report-servers.test.ts). The
 * tree they probe: see `makeProbeTree`. Not a test file itself.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What a file outside reports/ holds: no answer may contain it. */
export const SECRET = 'TOPSECRET-do-not-serve';

export const PROBES: readonly string[] = [
  // plain ..
  '/reports/../secret.json',
  '/reports/../',
  '/reports/../.cert/',
  '/reports/../.cert/localhost.key',
  '/reports/example/../../secret.json',
  // %2e%2e, upper and lower case, whole and half encoded
  '/reports/%2e%2e/secret.json',
  '/reports/%2e%2e/',
  '/reports/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/root/',
  '/reports/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/reports/%2E%2E/.cert/localhost.key',
  '/reports/.%2e/secret.json',
  '/reports/%2e./secret.json',
  '/reports/example/%2e%2e/%2e%2e/secret.json',
  // %2f: a separator hidden in a segment
  '/reports/..%2fsecret.json',
  '/reports/%2e%2e%2fsecret.json',
  '/reports/..%2f.cert%2flocalhost.key',
  '/reports/%2e%2e%2f.cert%2f',
  '/reports%2f..%2fsecret.json',
  '/reports/%2fetc%2fpasswd',
  '/reports//etc/passwd',
  // double encoding: %25 is '%'
  '/reports/%252e%252e/secret.json',
  '/reports/%252e%252e%252fsecret.json',
  '/reports/%25252e%25252e/secret.json',
  // backslashes, raw and encoded, and mixed with the others
  '/reports/..\\secret.json',
  '/reports/..%5csecret.json',
  '/reports/%2e%2e%5c.cert%5c',
  '/reports/%2e%2e%5c%2e%2e%5csecret.json',
  '/reports/example\\..\\..\\secret.json',
  '/reports/.%2e%5c..%2fsecret.json',
  // NUL and a drive-ish colon
  '/reports/example%00/report.json',
  '/reports/c:%5csecret.json',
  // symlinks that lead out of reports/, a hidden directory, listings below the root
  '/reports/escape/secret.json',
  '/reports/escape/',
  '/reports/escape/.cert/localhost.key',
  '/reports/linked/report.json',
  '/reports/example/leak.json',
  '/reports/.hidden/report.json',
  '/reports/%2ehidden/report.json',
  '/reports/example/',
  '/reports/empty/',
  // the page's own static root, one level below the secret
  '/%2e%2e/secret.json',
  '/..%2fsecret.json',
  '/%2e%2e/',
  '/%2e%2e/.cert/',
  '/..%5csecret.json',
  '/%252e%252e/secret.json',
];

/**
 * Under `tmp`: outside reports/ a secret file, a key in a dot-directory, a run-shaped directory
 * and a web root; inside reports/ two runs, a directory without a report, a hidden one, and
 * symlinks that lead out (a run directory, the whole parent, a file inside a run). Returns
 * the reports directory.
 */
export async function makeProbeTree(tmp: string): Promise<string> {
  const reports = path.join(tmp, 'reports');
  await writeFile(path.join(tmp, 'secret.json'), JSON.stringify({ secret: SECRET }));
  await mkdir(path.join(tmp, '.cert'));
  await writeFile(path.join(tmp, '.cert', 'localhost.key'), SECRET);
  await mkdir(path.join(tmp, 'outside'));
  await writeFile(path.join(tmp, 'outside', 'report.json'), JSON.stringify({ secret: SECRET }));
  await mkdir(path.join(tmp, 'web'));
  await writeFile(path.join(tmp, 'web', 'index.html'), '<!doctype html><title>lab</title>');
  for (const run of ['20261122-013000', 'example', '.hidden']) {
    await mkdir(path.join(reports, run), { recursive: true });
    await writeFile(path.join(reports, run, 'report.json'), JSON.stringify({ runId: run }));
  }
  await mkdir(path.join(reports, 'empty'));
  await symlink(path.join(tmp, 'outside'), path.join(reports, 'linked'));
  await symlink(tmp, path.join(reports, 'escape'));
  await symlink(path.join(tmp, 'secret.json'), path.join(reports, 'example', 'leak.json'));
  return reports;
}
