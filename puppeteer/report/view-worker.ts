/**
 * The thread `npm run report` lays a view out in (puppeteer/report/views.ts): it answers its
 * parent with what to print, or with the error to print (a PushlabError's code and message, or
 * an unexpected error's stack), as one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PushlabError } from '../../protocol/errors.js';
import { renderView, type ViewRequest } from './views.js';

export type ViewAnswer =
  { ok: true; stdout: string; stderr: string[]; exit: number } | { ok: false; code: string | null; message: string; stack: string | undefined };

renderView((workerData as { request: ViewRequest }).request).then(
  (result) => parentPort!.postMessage({ ok: true, ...result } satisfies ViewAnswer),
  (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort!.postMessage({ ok: false, code: err instanceof PushlabError ? err.code : null, message: e.message, stack: e.stack } satisfies ViewAnswer);
  },
);
