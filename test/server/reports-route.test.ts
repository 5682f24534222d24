/**
 * The report viewer's view of `reports/` cannot reach anything outside it: traversal in every
 * encoding, against listings and files, over HTTP/2 and HTTP/1.1, with raw paths no client
 * normalised; symlinks that lead out; and the positive case the viewer depends on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type PushlabServer } from '../../server/app.js';
import { loadOrCreateCert } from '../../server/cert.js';
import { openServableFile, safeSegments } from '../../cli/reports-dir.js';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { LISTING_URL, runNamesFromListing, runReportUrl } from '../../web/report/load.js';
import { h1get, h2get } from '../helpers/h2-get.js';
import { makeProbeTree, PROBES, SECRET } from '../helpers/reports-probes.js';

let tmp: string;
let app: PushlabServer;
let port: number;
let h2: http2.ClientHttp2Session;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pushlab-reports-'));
  const reports = await makeProbeTree(tmp);

  const certDir = path.join(tmp, 'cert');
  app = await buildServer({ tls: await loadOrCreateCert(certDir), webRoot: path.join(tmp, 'web'), reportsRoot: reports });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
  h2 = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
});

afterAll(async () => {
  h2?.close();
  await app?.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
}

const getH2 = (p: string): Promise<Answer> => h2get(h2, p);

const getH1 = (p: string): Promise<Answer> => h1get(`https://127.0.0.1:${port}`, p);

describe('the reports route refuses every path out of reports/', () => {
  it.each(['h2', 'h1'] as const)('over %s: no listing and no file outside, in any encoding', async (proto) => {
    const get = proto === 'h2' ? getH2 : getH1;
    for (const p of PROBES) {
      const { status, body } = await get(p);
      expect([400, 403, 404], `${p} → ${status} ${body.slice(0, 200)}`).toContain(status);
      expect(body, p).not.toContain(SECRET);
      // A 404 may echo the path it was asked for; anything else naming these is a leak.
      const rest = body.split(p).join('');
      expect(rest, p).not.toMatch(/secret\.json|localhost\.key|\.cert|outside|root:|"dirs"|"files"/);
    }
  });

  it('checks segments after splitting and decodes each once', () => {
    expect(safeSegments('example/report.json')).toEqual(['example', 'report.json']);
    expect(safeSegments('ex%20ample/report.json')).toEqual(['ex ample', 'report.json']);
    for (const bad of ['..', '%2e%2e', '.%2E', 'a%2fb', 'a%5cb', 'a\\b', '%252e', '%E0%A4%A', 'a//b', '.hidden', 'a%00']) {
      expect(safeSegments(bad), bad).toBeNull();
    }
  });
});

describe('what the viewer depends on still works', () => {
  it.each(['h2', 'h1'] as const)('over %s: the listing names the runs that hold a report.json, and their report.json is served', async (proto) => {
    const get = proto === 'h2' ? getH2 : getH1;
    const listing = await get(LISTING_URL);
    expect(listing.status).toBe(200);
    // Not 'empty' (no report), '.hidden', nor the links whose report is outside.
    expect(JSON.parse(listing.body)).toEqual({ dirs: ['20261122-013000', 'example'], files: [] });
    const runs = runNamesFromListing(JSON.parse(listing.body));
    expect(runs).toEqual(['20261122-013000', 'example']);
    for (const run of runs) {
      const report = await get(runReportUrl(run));
      expect(report.status, run).toBe(200);
      expect(JSON.parse(report.body)).toEqual({ runId: run });
    }
    expect((await get('/reports/example/report.json?t=1')).status).toBe(200);
    expect((await get('/reports')).status).toBe(200);
    expect((await get('/')).body).toContain('<title>lab</title>');
  });
});

describe('a directory swapped for a symlink while a file is served', () => {
  it('never serves a file outside the root: what is served is what was opened, checked on its descriptor', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'pushlab-swap-'));
    const root = path.join(base, 'reports');
    const outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'run'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'run', 'report.json'), '{"inside":true}');
    writeFileSync(path.join(outside, 'report.json'), '{"outside":true}');
    // Another process swaps reports/run between the real directory and a symlink out, as fast
    // as it can, for at most 3 s (a bounded loop), while this one asks for run/report.json.
    const swapper = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); const [run, real, out] = process.argv.slice(1); const end = Date.now() + 3000;
       while (Date.now() < end) { fs.renameSync(run, real); fs.symlinkSync(out, run); fs.unlinkSync(run); fs.renameSync(real, run); }`,
      path.join(root, 'run'),
      path.join(root, 'run-real'),
      outside,
    ]);
    const served = { inside: 0, outside: 0, refused: 0 };
    try {
      for (let i = 0; i < 3000 && swapper.exitCode === null; i++) {
        const opened = await openServableFile(root, 'run/report.json');
        if (opened === null) {
          served.refused++;
          continue;
        }
        const text = await opened.handle.readFile('utf8').finally(() => opened.handle.close());
        served[text.includes('outside') ? 'outside' : 'inside']++;
      }
    } finally {
      swapper.kill();
      await rm(base, { recursive: true, force: true });
    }
    expect(served.outside, JSON.stringify(served)).toBe(0);
    expect(served.inside).toBeGreaterThan(0);
  }, 15_000);
});
