/**
 * Security facts docs/reliability.md ("Security") states: the private key is written owner-only, the server refuses
 * to listen anywhere but loopback, and no route runs anything a request names.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../protocol/errors.js';
import { loadOrCreateCert } from '../../server/cert.js';
import { checkListenHost } from '../../server/options.js';
import { nodeArgs } from '../helpers/node-command.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('the TLS key', () => {
  it('is written with mode 0600, the certificate beside it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pushlab-cert-'));
    try {
      const files = await loadOrCreateCert(dir);
      expect((await stat(path.join(dir, 'localhost.key'))).mode & 0o777).toBe(0o600);
      expect(await readFile(path.join(dir, 'localhost.key'), 'utf8')).toBe(files.key);
      expect(files.cert).toContain('BEGIN CERTIFICATE');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the server binds loopback only', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.com'])(
    'refuses --host %s with exit code 2 and says why',
    (host) => {
      const r = spawnSync(process.execPath, [...nodeArgs('server/main.ts'), '--host', host, '--port', '0'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.status).toBe(EXIT.badInput);
      expect(r.stderr).toContain(`--host must be a loopback address`);
      expect(r.stderr).toContain(`'${host}'`);
      expect(r.stdout).not.toContain('listening');
    },
    35_000,
  );
});

describe('--allow-remote: a server for browsers on other hosts', () => {
  it('is what lets --host name a non-loopback address, with a warning; loopback needs neither', () => {
    expect(checkListenHost('127.0.0.1', false)).toEqual({ warning: null });
    expect(checkListenHost('::1', true)).toEqual({ warning: null });
    expect(() => checkListenHost('0.0.0.0', false)).toThrow(/--host must be a loopback address .* unless --allow-remote is given; got '0\.0\.0\.0'/);
    expect(checkListenHost('0.0.0.0', true).warning).toMatch(
      /listening on 0\.0\.0\.0, not loopback: this server has no authentication and streams to anyone who can reach/,
    );
  });

  // 127.0.0.2 is not in the loopback list the flag accepts, yet only this machine reaches it:
  // the real server takes the non-loopback path while the test stays on loopback.
  it('listens with --host 127.0.0.2 --allow-remote, after printing the warning on stderr', async () => {
    const child = spawn(process.execPath, [...nodeArgs('server/main.ts'), '--host', '127.0.0.2', '--allow-remote', '--port', '0'], {
      cwd: ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no 'listening' line within 30 s; stderr: ${stderr}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`server exited with ${code}; stderr: ${stderr}`));
        });
      });
      expect(stdout).toMatch(/^pushlab server listening on https:\/\/127\.0\.0\.2:\d+\/$/m);
      expect(stderr).toContain('warning: listening on 127.0.0.2, not loopback');
    } finally {
      child.kill('SIGKILL');
    }
  }, 35_000);
});

describe('no endpoint runs anything a request names', () => {
  // A review in code form: routes are /sse, /ws, /stats, /reports/ and the built page, none of
  // which takes a command, a path to run or code. (clock.ts starts a Worker from a fixed
  // source string with `eval: true`; nothing from a request reaches it.)
  it('the server code never spawns, execs or evaluates request text', async () => {
    const files = (await readdir(path.join(ROOT, 'server'))).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = await readFile(path.join(ROOT, 'server', file), 'utf8');
      expect(text, file).not.toMatch(/child_process|\beval\(|new Function\(|\bvm\b['"]|execSync|spawn\(/);
    }
  });
});
