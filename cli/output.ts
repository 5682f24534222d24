/**
 * Output locations are checked before a command starts any work (a server, Chrome, a bench):
 * a sweep that can only fail when it writes its first report should fail in its first second.
 */
import { lstatSync, mkdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PushlabError } from '../protocol/errors.js';

/** What an errno means for a directory someone asked pushlab to write into. */
const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is not a directory',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  // mkdir answers ENOENT when the parent exists but takes no new directories (/proc, /sys).
  ENOENT: 'this file system does not allow creating it',
};

function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Makes sure `dir` is a directory this process can write into: creates what is missing one
 * level at a time, writes a probe file and removes it. Throws PUSHLAB_BAD_OUTPUT naming the
 * flag, the path and the reason; directories it created before failing are removed again.
 *
 * Each missing level is made with a plain mkdir, never `{ recursive: true }`: Node 20's
 * recursive mkdir loops forever on a parent that answers ENOENT to mkdir (anything under /proc).
 */
export function checkOutputDir(flag: string, dir: string): void {
  const abs = path.resolve(dir);
  const fail = (what: string, err: unknown): never => {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `${flag} ${dir}: ${what}: ${reasonOf(err)}`);
  };
  // From the path itself up to the first ancestor that exists.
  const missing: string[] = [];
  let existing = abs;
  for (;;) {
    try {
      statSync(existing);
      break;
    } catch (err) {
      // ENOTDIR: some ancestor is a file; walk on up to name it.
      if (errnoOf(err) !== 'ENOENT' && errnoOf(err) !== 'ENOTDIR') fail(`cannot use ${existing}`, err);
      missing.unshift(existing);
      const parent = path.dirname(existing);
      // The root always exists; reaching it means stat failed on it, which the branch above reports.
      if (parent === existing) fail(`cannot use ${existing}`, err);
      existing = parent;
    }
  }
  if (!statSync(existing).isDirectory()) {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `${flag} ${dir}: ${existing} exists and is not a directory`);
  }
  const created: string[] = [];
  const undo = () => {
    for (const d of created.reverse()) {
      try {
        rmdirSync(d);
      } catch {
        // Not empty any more, or gone: either way it is no longer ours to remove.
      }
    }
  };
  const probe = path.join(abs, `.pushlab-probe-${process.pid}`);
  try {
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (err) {
        fail(d === abs ? 'cannot create it' : `cannot create ${d}`, err);
      }
      created.push(d);
    }
    try {
      writeFileSync(probe, '', { flag: 'wx' });
    } catch (err) {
      fail('cannot write a file in it', err);
    }
  } catch (err) {
    undo();
    throw err;
  }
  try {
    // lstat first: never unlink something this call did not create.
    if (lstatSync(probe).isFile()) unlinkSync(probe);
  } catch (err) {
    fail(`wrote ${probe} but cannot remove it`, err);
  }
}
