/**
 * Output locations are checked before a command starts any work (a server, Chrome, a bench):
 * a sweep that can only fail when it writes its first report should fail in its first second.
 */
import { lstatSync, mkdirSync, rmdirSync, statfsSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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

/** Bytes as people read them: `196 KiB`, `1.5 MiB`. */
function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Whether an errno says the file system is full (or the user's quota is). */
export function isNoSpace(err: unknown): boolean {
  const code = errnoOf(err);
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * A write that failed, as one coded line (PUSHLAB_BAD_OUTPUT): `no space left on <dir>
 * (ENOSPC)` when the disk is full, else the file and the reason.
 */
export function writeError(file: string, err: unknown): PushlabError {
  const out = isNoSpace(err)
    ? new PushlabError('PUSHLAB_BAD_OUTPUT', `no space left on ${path.dirname(file)} (${errnoOf(err)}): cannot write ${path.basename(file)}`)
    : new PushlabError('PUSHLAB_BAD_OUTPUT', `cannot write ${file}: ${reasonOf(err)}`);
  // The errno stays readable (isNoSpace(e.cause)) for a caller that can make room.
  return Object.assign(out, { cause: err });
}

/** What a probe writes when the caller names no size: enough that a full disk refuses it. */
export const PROBE_BYTES = 64 * 1024;

/**
 * The most a probe file writes, whatever the need: statfs is asked about the whole need, and the
 * probe finds what statfs does not see (a quota, a disk that fills) at this size. A probe of the
 * whole need would be one Buffer of a report's size, which Node refuses past 2 GiB
 * (ERR_OUT_OF_RANGE, which reached the user blamed on --out), and gigabytes written for nothing.
 */
export const MAX_PROBE_BYTES = 16 * 1024 * 1024;

/**
 * Makes sure `dir` is a directory this process can write `needBytes` into: creates what is
 * missing one level at a time, asks the file system how much space is free (statfs), then
 * writes a probe file of that size (at most MAX_PROBE_BYTES) and removes it (an empty probe succeeds on a full disk, and
 * statfs does not see quotas). Throws PUSHLAB_BAD_OUTPUT naming the flag, the path and the
 * reason (`no space left on <dir>` with what is free and what is needed); directories it
 * created before failing are removed again.
 *
 * Each missing level is made with a plain mkdir, never `{ recursive: true }`: Node 20's
 * recursive mkdir loops forever on a parent that answers ENOENT to mkdir (anything under /proc).
 */
export function checkOutputDir(flag: string, dir: string, needBytes = PROBE_BYTES): void {
  // A caller's estimate, never input: a bad one is a bug, said as one (not Node's Buffer error blamed on the flag).
  if (!Number.isSafeInteger(needBytes) || needBytes < 0) throw new RangeError(`checkOutputDir: needBytes must be a whole number of bytes; got ${needBytes}`);
  const probeBytes = Math.min(needBytes, MAX_PROBE_BYTES);
  const abs = path.resolve(dir);
  const fail = (what: string, err: unknown): never => {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `${flag} ${dir}: ${what}: ${reasonOf(err)}`);
  };
  const noSpace = (detail: string): never => {
    throw new PushlabError('PUSHLAB_BAD_OUTPUT', `${flag} ${dir}: no space left on ${abs}: ${detail}`);
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
  let probeMade = false;
  const removeProbe = () => {
    // lstat first: never unlink something this call did not create.
    if (probeMade && lstatSync(probe).isFile()) unlinkSync(probe);
  };
  try {
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (err) {
        if (isNoSpace(err)) noSpace(`cannot create ${d} (${errnoOf(err)})`);
        fail(d === abs ? 'cannot create it' : `cannot create ${d}`, err);
      }
      created.push(d);
    }
    let free: number | null = null;
    try {
      const fs = statfsSync(abs);
      free = fs.bavail * fs.bsize;
    } catch {
      // A file system that cannot say: the probe below still finds out.
    }
    if (free !== null && free < needBytes) noSpace(`${sizeText(free)} free, and a report here needs about ${sizeText(needBytes)}`);
    try {
      writeFileSync(probe, '', { flag: 'wx' });
      probeMade = true;
      writeFileSync(probe, Buffer.alloc(probeBytes));
    } catch (err) {
      if (isNoSpace(err)) noSpace(`a ${sizeText(probeBytes)} test file did not fit (${errnoOf(err)})`);
      fail('cannot write a file in it', err);
    }
  } catch (err) {
    try {
      removeProbe();
    } catch {
      // The error that stopped the check is the one to report.
    }
    undo();
    throw err;
  }
  try {
    removeProbe();
  } catch (err) {
    fail(`wrote ${probe} but cannot remove it`, err);
  }
}
