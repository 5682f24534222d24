/**
 * `--grid` against a Grid that misbehaves: a fake Grid on loopback (a Node HTTP server, port 0),
 * as a hostile or broken peer is one pushlab does not control (test/browser/grid.test.ts runs the real
 * Selenium Grid for everything else).
 * - `/status` of the wrong shape (a null node, and every field pushlab reads, wrong in turn):
 *   PUSHLAB_BAD_GRID naming the field, not a TypeError stack.
 * - A huge `/status`, streamed or declared: refused at MAX_GRID_ANSWER_BYTES, the driver's memory
 *   bounded, the rest never read; a huge or control-laden answer is quoted cut and printable.
 * - A session granted after the wait gave up is deleted as soon as it arrives.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, PushlabError } from '../../protocol/errors.js';
import { GridSessions, MAX_GRID_ANSWER_BYTES, parseGridUrl } from '../../puppeteer/browser/grid.js';
import { runSweep } from '../helpers/sweep-process.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const CHROME_SLOT = { session: null, stereotype: { browserName: 'chrome' } };
const NODE = { id: 'n1', uri: 'http://127.0.0.1:5555', availability: 'UP', slots: [CHROME_SLOT] };
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A fake Grid answering with `handler`, and what it was asked. */
class FakeGrid {
  server: Server;
  url = '';
  requests: string[] = [];
  /** Bytes a streaming answer wrote before its client went away. */
  streamed = 0;
  constructor(public handler: Handler) {
    this.server = createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      req.resume();
      this.handler(req, res);
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/`;
    return this;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

async function refusal(grid: FakeGrid, sessions = 1): Promise<PushlabError> {
  const err = await new GridSessions(parseGridUrl(grid.url), () => undefined).open(sessions, null).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, String(err)).toBeInstanceOf(PushlabError);
  expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
  return err as PushlabError;
}

describe('a /status of the wrong shape: PUSHLAB_BAD_GRID naming the field', () => {
  const status = (value: unknown) => ({ value });
  const CASES: [string, unknown, string][] = [
    ['a null node', status({ ready: true, nodes: [NODE, null] }), 'value.nodes[1] must be an object, got null'],
    ['no value', {}, 'value must be an object, got nothing'],
    ['value null', status(null), 'value must be an object, got null'],
    ['ready as text', status({ ready: 'yes', nodes: [] }), 'value.ready must be true or false, got "yes"'],
    ['nodes an object', status({ ready: true, nodes: {} }), 'value.nodes must be an array, got {}'],
    ['a node a number', status({ ready: true, nodes: [7] }), 'value.nodes[0] must be an object, got 7'],
    ['slots null', status({ ready: true, nodes: [{ ...NODE, slots: null }] }), 'value.nodes[0].slots must be an array, got null'],
    ['a null slot', status({ ready: true, nodes: [{ ...NODE, slots: [CHROME_SLOT, null] }] }), 'value.nodes[0].slots[1] must be an object, got null'],
    [
      'a session that is text',
      status({ ready: true, nodes: [{ ...NODE, slots: [{ ...CHROME_SLOT, session: 'x' }] }] }),
      'value.nodes[0].slots[0].session must be an object or null',
    ],
    [
      'a stereotype null',
      status({ ready: true, nodes: [{ ...NODE, slots: [{ session: null, stereotype: null }] }] }),
      'value.nodes[0].slots[0].stereotype must be an object',
    ],
    [
      'a browserName number',
      status({ ready: true, nodes: [{ ...NODE, slots: [{ session: null, stereotype: { browserName: 1 } }] }] }),
      'value.nodes[0].slots[0].stereotype.browserName must be a string, got 1',
    ],
    ['a uri that is no URL', status({ ready: true, nodes: [{ ...NODE, uri: 'not a url' }] }), 'value.nodes[0].uri must be a URL'],
    ['availability a number', status({ ready: true, nodes: [{ ...NODE, availability: 1 }] }), 'value.nodes[0].availability must be a string'],
    ['a message object', status({ ready: false, message: { a: 1 }, nodes: [] }), 'value.message must be a string'],
    ['a top-level array', [1, 2], 'value must be an object, got nothing'],
  ];
  const grids: FakeGrid[] = [];
  afterAll(async () => Promise.all(grids.map((g) => g.stop())));

  it.each(CASES)('%s', async (_, body, says) => {
    const grid = await new FakeGrid((req, res) => json(res, 200, body)).start();
    grids.push(grid);
    const err = await refusal(grid);
    expect(err.message).toContain(`--grid ${grid.url}: /status is not a Selenium Grid 4 status: ${says}`);
    expect(err.message).not.toMatch(/TypeError|Cannot read/);
    // Nothing was asked of a Grid whose status cannot be read.
    expect(grid.requests).toEqual(['GET /status']);
  });
});

describe('a huge answer', () => {
  let grid: FakeGrid;
  let mode: 'stream' | 'declared' | 'text-error' | 'controls' = 'stream';
  beforeAll(async () => {
    grid = await new FakeGrid((req, res) => {
      if (mode === 'declared') {
        // Says 400 MB up front, sends a little, then waits.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 2 ** 20) });
        res.write('{"value":');
        return;
      }
      if (mode === 'text-error') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('x'.repeat(3 * 2 ** 20));
        return;
      }
      if (mode === 'controls') {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`\u001b]0;pwned\u0007\u001b[2J<html>\n${'y'.repeat(5000)}`);
        return;
      }
      // 400 MB of a JSON string, streamed in 64 KiB chunks as fast as the client reads, until it goes.
      res.writeHead(200, { 'content-type': 'application/json' });
      // Not ready, with its message: what pushlab would quote.
      res.write('{"value":{"ready":false,"nodes":[],"message":"');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const total = 400 * 2 ** 20;
      const pump = () => {
        while (grid.streamed < total && !res.destroyed) {
          grid.streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"}}');
      };
      pump();
    }).start();
  });
  afterAll(() => grid.stop());

  it(`a 400 MB /status streamed: refused past ${MAX_GRID_ANSWER_BYTES} bytes, the rest never read, memory bounded`, async () => {
    mode = 'stream';
    global.gc?.();
    const before = process.memoryUsage().rss;
    const err = await refusal(grid);
    const grew = process.memoryUsage().rss - before;
    expect(err.message).toMatch(new RegExp(`reading /status: its answer is more than the ${MAX_GRID_ANSWER_BYTES} bytes a Grid answer may be`));
    expect(err.message.length).toBeLessThan(400);
    // Generous bounds: what the socket had buffered past the limit, and this process's own noise.
    expect(grid.streamed).toBeLessThan(64 * 2 ** 20);
    expect(grew).toBeLessThan(200 * 2 ** 20);
  }, 60_000);

  it('a 400 MB content-length: refused before reading', async () => {
    mode = 'declared';
    const err = await refusal(grid);
    expect(err.message).toContain(
      `reading /status: its answer is ${400 * 2 ** 20} bytes (content-length), more than the ${MAX_GRID_ANSWER_BYTES} a Grid answer may be`,
    );
  });

  it('3 MB of text in an error answer: quoted cut, saying how long it was', async () => {
    mode = 'text-error';
    const err = await refusal(grid);
    expect(err.message).toMatch(/reading \/status: HTTP 500, not a WebDriver answer \("x{500}… \(3145728 characters\)"\): is it a Selenium Grid 4\?$/);
  });

  it('terminal controls and line breaks in an answer are quoted printable, on one line', async () => {
    mode = 'controls';
    const err = await refusal(grid);
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
    expect(err.message).toContain('\\\\u001b]0;pwned\\\\u0007');
    expect(err.message.length).toBeLessThan(800);
  });
});

describe('a session the Grid grants after the wait gave up', () => {
  let grid: FakeGrid;
  let granted = 0;
  const ANSWER_MS = 1500;
  beforeAll(async () => {
    grid = await new FakeGrid((req, res) => {
      if (req.url === '/status') return json(res, 200, { value: { ready: true, message: 'ok', nodes: [{ ...NODE, slots: [CHROME_SLOT, CHROME_SLOT] }] } });
      if (req.method === 'POST' && req.url === '/session') {
        const id = `late-${++granted}`;
        setTimeout(() => json(res, 200, { value: { sessionId: id, capabilities: { 'se:cdp': 'ws://127.0.0.1:1/cdp' } } }), ANSWER_MS);
        return;
      }
      json(res, 200, { value: null });
    }).start();
  });
  afterAll(() => grid.stop());

  const deleted = () => grid.requests.filter((r) => r.startsWith('DELETE '));

  it("is deleted as soon as it arrives, with the wait's error unchanged", async () => {
    const logged: string[] = [];
    const sessions = new GridSessions(parseGridUrl(grid.url), (l) => logged.push(l), 300);
    const err = await sessions.open(1, null).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_GRID');
    expect((err as Error).message).toMatch(/new Chrome session: no answer within 0\.3 s/);
    expect(deleted()).toEqual([]);
    const until = Date.now() + 15_000;
    while (!deleted().length && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(deleted()).toEqual(['DELETE /session/late-1']);
    expect(logged.join('\n')).toContain('the Grid granted session "late-1" after the 0.3 s wait gave up: ending it');
  }, 30_000);

  it('close() right after the refusal waits for it, and deletes it before it returns', async () => {
    const sessions = new GridSessions(parseGridUrl(grid.url), () => undefined, 300);
    const err = await sessions.open(1, null).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/new Chrome session: no answer within 0\.3 s/);
    const seen = deleted().length;
    expect(deleted().slice(seen)).toEqual([]);
    await sessions.close();
    expect(deleted().slice(seen)).toEqual([`DELETE /session/late-${granted}`]);
  }, 30_000);
});

describe('the sweep, against a /status with a null node', () => {
  let grid: FakeGrid;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pushlab-grid-hostile-'));
    grid = await new FakeGrid((req, res) => json(res, 200, { value: { ready: true, nodes: [null] } })).start();
  });
  afterAll(async () => {
    await grid.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 with one line naming the field, no TypeError stack', async () => {
    const r = await runSweep(['--scenario', 'smoke', '--repeats', '1', '--grid', grid.url, '--out', dir], 120_000);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    const last = r.stderr.trimEnd().split('\n').at(-1);
    expect(last).toBe(
      `pushlab sweep: PUSHLAB_BAD_GRID: --grid ${grid.url}: /status is not a Selenium Grid 4 status: value.nodes[0] must be an object, got null`,
    );
    expect(r.stderr).not.toMatch(/TypeError|\n\s+at /);
  }, 150_000);
});
