/**
 * Every file a command reads because someone named it (the scenario file, the report `--resume`
 * finishes, the runs `npm run report` shows, compares or prints) is read here, so each gets the
 * same answer. Only a regular file is read: a FIFO would block the read until some writer came
 * (the sweep hung with no output), a directory or a device is not a report, and "cannot read it
 * (does it exist?)" says nothing about either.
 *
 * The file is opened with O_NONBLOCK, which opens a FIFO at once instead of waiting for a writer,
 * and its type is taken from that open descriptor (fstat), so nothing can swap the path between
 * the check and the read.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { PushlabError, type ErrorCode } from '../protocol/errors.js';

/**
 * The largest file read, bytes: about the longest string Node makes (2^29 − 24 characters); a
 * larger one failed mid-read with "Cannot create a string longer than …" after taking its memory.
 */
export const MAX_INPUT_BYTES = 512 * 1024 * 1024;

/** What a path that is not a regular file is, in words. */
function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

const mib = (bytes: number) => `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;

/** Why a path could not be opened, in words. */
const OPEN_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  // open(2) of a Unix socket.
  ENXIO: 'a socket',
};

/**
 * The text of `file` (UTF-8). Anything but a readable regular file is refused at once with
 * `code`, one line: `<label>: <what it is>, not a file pushlab reads; <allowed>`. `label` names
 * where the path came from (`--file scenarios.json`, `--resume 20261122-013000: reports/…`).
 */
export async function readInputFile(file: string, label: string, code: ErrorCode, allowed = 'give a JSON file', maxBytes = MAX_INPUT_BYTES): Promise<string> {
  const refuse = (what: string) => new PushlabError(code, `${label}: ${what}, not a file pushlab reads; ${allowed}`);
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code ?? '';
    const reason = OPEN_REASONS[errno];
    if (errno === 'ENXIO') throw refuse(reason);
    throw new PushlabError(code, `${label}: cannot read it: ${reason ? `${reason} (${errno})` : err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw refuse(kindOf(stats));
    if (stats.size > maxBytes)
      throw new PushlabError(code, `${label}: ${stats.size} bytes, above the ${maxBytes} (${mib(maxBytes)}) pushlab reads; ${allowed}`);
    return await handle.readFile('utf8');
  } catch (err) {
    if (err instanceof PushlabError) throw err;
    throw new PushlabError(code, `${label}: cannot read it: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await handle.close();
  }
}
