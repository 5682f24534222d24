/**
 * `--rows FILE` on the server: reads the file (cli/input-file.ts: a regular file, at most
 * ROWS_FILE_MAX_BYTES), parses its events and infers their Arrow columns (protocol/rows-file.ts),
 * all before the server listens, so a file that cannot serve is refused at start-up with one
 * PUSHLAB_BAD_ROWS line, never at the first Arrow stream.
 */
import { createHash } from 'node:crypto';
import { readInputFile } from '../cli/input-file.js';
import { eventColumns, parseRowsFile, ROWS_FILE_MAX_BYTES } from '../protocol/rows-file.js';
import type { PoolEvents } from './rows.js';

/** A rows file, read and checked: its events and what the report says of where they came from. */
export interface RowsSource extends PoolEvents {
  /** The path as given. */
  file: string;
  /** SHA-256 of the file's text (UTF-8), hex. */
  sha256: string;
}

export async function loadRows(file: string): Promise<RowsSource> {
  const text = await readInputFile(
    file,
    `--rows ${file}`,
    'PUSHLAB_BAD_ROWS',
    'give NDJSON, a JSON array of events, or a HAR (docs/your-stream.md)',
    ROWS_FILE_MAX_BYTES,
  );
  const rows = parseRowsFile(text, file);
  const columns = eventColumns(rows, file);
  return { file, sha256: createHash('sha256').update(text, 'utf8').digest('hex'), rows, columns };
}
