/**
 * protocol/rows-file.ts: each input format gives its events, and each refusal is one
 * PUSHLAB_BAD_ROWS line naming the file, the place and what is allowed. The HAR format's own
 * test records a HAR in headless Chromium (test/browser/e2e-rows.test.ts); the HARs here are
 * refusals only, each the least a HAR can be.
 */
import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { eventColumns, fieldNames, nestingDepth, parseRowsFile, ROWS_FILE_MAX_BYTES, ROWS_MAX_DEPTH } from '../../protocol/rows-file.js';
import { parseScenarioText, scenarioChartField, scenarioRows } from '../../protocol/scenario.js';
import { checkRowsWithServer, serverArgs } from '../../puppeteer/measure/server-process.js';

const F = 'feed.ndjson';

function refusal(text: string): string {
  try {
    const rows = parseRowsFile(text, F);
    eventColumns(rows, F);
  } catch (err) {
    expect(err).toBeInstanceOf(PushlabError);
    expect((err as PushlabError).code).toBe('PUSHLAB_BAD_ROWS');
    const message = (err as PushlabError).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain(`--rows ${F}: `);
    return message;
  }
  throw new Error('not refused');
}

describe('parseRowsFile: formats', () => {
  it('NDJSON of arrays: one event per line, blank lines skipped, each line sent verbatim', () => {
    const rows = parseRowsFile('[1, "a", 2.5]\n\n  [2,"b",3.5]  \n', F);
    expect(rows).toMatchObject({
      format: 'ndjson',
      shape: 'array',
      events: [
        [1, 'a', 2.5],
        [2, 'b', 3.5],
      ],
    });
    expect(rows.texts).toEqual(['[1, "a", 2.5]', '[2,"b",3.5]']);
    expect(rows.placeOf(1)).toBe('line 3');
  });

  it('NDJSON of objects, CRLF line ends too', () => {
    const rows = parseRowsFile('{"s":"BTC","p":"1.5"}\r\n{"s":"ETH","p":"2"}\r\n', F);
    expect(rows).toMatchObject({
      format: 'ndjson',
      shape: 'object',
      events: [
        { s: 'BTC', p: '1.5' },
        { s: 'ETH', p: '2' },
      ],
    });
    expect(fieldNames(rows, F)).toEqual(['s', 'p']);
  });

  it('a JSON array of events, pretty-printed', () => {
    const rows = parseRowsFile(JSON.stringify([{ a: 1 }, { a: 2, b: [1, 2] }], null, 2), F);
    expect(rows).toMatchObject({ format: 'json-array', shape: 'object', events: [{ a: 1 }, { a: 2, b: [1, 2] }] });
    expect(rows.texts).toEqual(['{"a":1}', '{"a":2,"b":[1,2]}']);
    expect(rows.placeOf(1)).toBe('element 1');
  });

  it('the batch rule: a one-line array holding a scalar is one event; one of arrays only is a list of events', () => {
    expect(parseRowsFile('[1,[2,3]]', F).events).toEqual([[1, [2, 3]]]);
    expect(parseRowsFile('[[1,2],[3,4]]', F).events).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('one object over several lines is one event', () => {
    expect(parseRowsFile('{\n  "a": 1\n}\n', F)).toMatchObject({ format: 'ndjson', events: [{ a: 1 }], texts: ['{"a":1}'] });
  });

  it('a HAR: received text messages only, a batch message unpacked into its events', () => {
    const har = {
      log: {
        entries: [
          { request: {} },
          {
            _webSocketMessages: [
              { type: 'send', opcode: 1, data: '{"subscribe":1}', time: 1 },
              { type: 'receive', opcode: 1, data: '{"p":1}', time: 2 },
              { type: 'receive', opcode: 2, data: 'AAEC', time: 3 },
              { type: 'receive', opcode: 1, data: '[{"p":2},{"p":3}]', time: 4 },
            ],
          },
        ],
      },
    };
    const rows = parseRowsFile(JSON.stringify(har), 'rec.har');
    expect(rows).toMatchObject({ format: 'har', shape: 'object', events: [{ p: 1 }, { p: 2 }, { p: 3 }] });
    expect(rows.placeOf(2)).toBe('entry 1 message 3 event 1');
  });
});

describe('eventColumns and the payload description', () => {
  it('infers a kind per field; nested values are JSON text; ints past int32 and mixed int/float are float64; a missing key is allowed', () => {
    const rows = parseRowsFile(
      ['{"i":1,"f":1.5,"b":true,"s":"x","n":{"a":[1]},"big":1,"z":null}', '{"i":2,"f":2,"b":false,"s":"y","n":[1],"big":4294967296}'].join('\n'),
      F,
    );
    expect(eventColumns(rows, F)).toEqual([
      { name: 'i', kind: 'int32' },
      { name: 'f', kind: 'float64' },
      { name: 'b', kind: 'bool' },
      { name: 's', kind: 'utf8' },
      { name: 'n', kind: 'json' },
      { name: 'big', kind: 'float64' },
      { name: 'z', kind: 'utf8' },
    ]);
  });

  it('array events name their columns by index', () => {
    expect(eventColumns(parseRowsFile('[1,"a"]\n[2,"b"]', F), F)).toEqual([
      { name: '0', kind: 'int32' },
      { name: '1', kind: 'utf8' },
    ]);
  });

  it('nesting depth: 1 for flat events, one more per level inside', () => {
    expect(nestingDepth(parseRowsFile('[1,2]', F).events)).toBe(1);
    expect(nestingDepth(parseRowsFile('{"a":[[1]]}\n{"b":2}', F).events)).toBe(3);
  });
});

describe('parseRowsFile: refusals', () => {
  it('an empty file, or one of blank lines', () => {
    expect(refusal('')).toContain('the file is empty');
    expect(refusal('\n  \n')).toContain('the file is empty');
  });

  it('a line that is not JSON, naming the line', () => {
    expect(refusal('{"a":1}\n{"a":\n')).toMatch(/line 2 is not JSON/);
  });

  it('a line that is neither an array nor an object', () => {
    expect(refusal('{"a":1}\n42\n')).toMatch(/line 2 is a number, not an event; each line must be a JSON array or object/);
    expect(refusal('"text"')).toMatch(/line 1 is a string/);
  });

  it('arrays and objects mixed', () => {
    expect(refusal('[1]\n{"a":1}')).toMatch(/line 2 is an object but line 1 is an array: mixed shapes; events must be all arrays or all objects/);
  });

  it('array events of different lengths', () => {
    expect(refusal('[1,2]\n[1,2,3]')).toMatch(/line 2 has 3 elements but line 1 has 2/);
  });

  it('a field Arrow cannot hold, naming the field and both places', () => {
    expect(refusal('{"p":1.5}\n{"p":"1.5"}')).toMatch(/field 'p' is a string at line 2 but a number at line 1: Arrow needs one type per field/);
    expect(refusal('[true]\n[1]')).toMatch(/field '0' is a number at line 2 but a boolean at line 1/);
  });

  it(`nesting deeper than ${ROWS_MAX_DEPTH} levels`, () => {
    const deep = '['.repeat(ROWS_MAX_DEPTH + 1) + ']'.repeat(ROWS_MAX_DEPTH + 1);
    expect(refusal(`{"a":${deep}}`)).toMatch(/line 1 nests deeper than 32 levels/);
  });

  it('above the size bound', () => {
    const text = `${' '.repeat(ROWS_FILE_MAX_BYTES)}[1]`;
    expect(refusal(text)).toMatch(/above the 134217728 bytes a rows file may hold/);
  });

  it('a HAR with no received text messages', () => {
    const har = { log: { entries: [{ _webSocketMessages: [{ type: 'send', opcode: 1, data: '{}' }] }, {}] } };
    expect(refusal(JSON.stringify(har))).toMatch(/a HAR with no received text WebSocket messages \(2 entries\)/);
  });

  it('a HAR message that is not JSON, or not an event, naming the entry and message', () => {
    const har = (data: string) => JSON.stringify({ log: { entries: [{ _webSocketMessages: [{ type: 'receive', opcode: 1, data }] }] } });
    expect(refusal(har('hello'))).toMatch(/entry 0 message 0 is not JSON/);
    expect(refusal(har('7'))).toMatch(/entry 0 message 0 is a number, not an event/);
  });
});

describe('where --rows comes from', () => {
  const file = (defaults: object) => parseScenarioText(JSON.stringify({ defaults, scenarios: [{ id: 'a', batch: 1, concurrency: 1 }] }), 'dir/scenarios.json');

  it("a scenario file's defaults.rows, resolved against the file's folder; absent: the car rows", () => {
    expect(scenarioRows(file({ rows: 'feeds/trades.ndjson' }), 'dir/scenarios.json')).toBe('dir/feeds/trades.ndjson');
    expect(scenarioRows(file({ rows: '/abs/t.har' }), 'dir/scenarios.json')).toBe('/abs/t.har');
    expect(scenarioRows(file({ rows: 't.json' }), 'scenarios.json')).toBe('t.json');
    expect(scenarioRows(file({}), 'dir/scenarios.json')).toBe('');
    // defaults.chartField goes with defaults.rows: --chart-field overrides it, --rows (another file) drops it.
    expect(scenarioChartField(file({ rows: 't.ndjson', chartField: 'q' }), '', '')).toBe('q');
    expect(scenarioChartField(file({ rows: 't.ndjson', chartField: 'q' }), 'f', '')).toBe('f');
    expect(scenarioChartField(file({ rows: 't.ndjson', chartField: 'q' }), '', 'other.ndjson')).toBe('');
    expect(scenarioChartField(file({}), '', '')).toBe('');
  });

  it('defaults.rows must be a non-empty string (the schema)', () => {
    expect(() => file({ rows: '' })).toThrow(PushlabError);
    expect(() => file({ rows: 3 })).toThrow(/rows/);
  });

  it('--rows beside --server is refused, naming both and the way out', () => {
    expect(() => checkRowsWithServer('t.ndjson', 'https://h:8443/')).toThrow(
      /^--rows t\.ndjson with --server https:\/\/h:8443\/: a running server streams the rows it was started with; start it with --rows/,
    );
    expect(() => checkRowsWithServer('t.ndjson', '')).not.toThrow();
    expect(serverArgs('')).toEqual([]);
    expect(serverArgs('/a/t.ndjson')).toEqual(['--rows', '/a/t.ndjson']);
  });
});
