import { describe, expect, it } from 'vitest';
import {
  type BatchMessage,
  MESSAGE_TAIL,
  ROW_COLUMNS,
  SPEED_COLUMN,
  STREAM_DEFAULTS,
  makeRow,
  messageHead,
  SentAtFormatter,
  offeredEventsPerSec,
  opensIn,
  parseStreamParams,
  streamPath,
  TRANSPORT_INFO,
  TRANSPORTS,
} from '../../protocol/wire.js';

describe('parseStreamParams', () => {
  it('parses batch and defaults interval to 1 ms', () => {
    expect(STREAM_DEFAULTS.interval).toBe(1);
    expect(parseStreamParams({ batch: '100' })).toEqual({ ok: true, value: { batch: 100, interval: 1 } });
    expect(parseStreamParams({ batch: '100', interval: '' })).toEqual({ ok: true, value: { batch: 100, interval: 1 } });
  });

  it('takes an optional client tag, and refuses one that is not a plain name', () => {
    expect(parseStreamParams({ batch: '5', client: 'lab-1a2b_3' })).toEqual({ ok: true, value: { batch: 5, interval: 1, client: 'lab-1a2b_3' } });
    const bad = parseStreamParams({ batch: '5', client: 'a b' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatchObject({ param: 'client', value: 'a b' });
    expect(parseStreamParams({ batch: '5', client: 'x'.repeat(65) }).ok).toBe(false);
  });

  it('accepts the limits themselves', () => {
    expect(parseStreamParams({ batch: '1', interval: '0.05' })).toEqual({ ok: true, value: { batch: 1, interval: 0.05 } });
    expect(parseStreamParams({ batch: '10000', interval: '60000' })).toEqual({
      ok: true,
      value: { batch: 10000, interval: 60000 },
    });
  });

  it('accepts exponents, surrounding spaces and numbers', () => {
    expect(parseStreamParams({ batch: '1e3', interval: '.5' })).toEqual({ ok: true, value: { batch: 1000, interval: 0.5 } });
    expect(parseStreamParams({ batch: ' 5 ' })).toEqual({ ok: true, value: { batch: 5, interval: 1 } });
    expect(parseStreamParams({ batch: 7, interval: 2.5 })).toEqual({ ok: true, value: { batch: 7, interval: 2.5 } });
  });

  it('refuses a repeated parameter, naming it and echoing both values', () => {
    const r = parseStreamParams({ batch: ['7', '8'] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ param: 'batch', value: '7,8', message: 'batch is given 2 times (7,8); give it once' });
  });

  it('cuts a long echoed value to 64 characters and says how long it was', () => {
    const r = parseStreamParams({ batch: 'x'.repeat(5000) });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.value).toBe(`${'x'.repeat(64)}… (5000 characters)`);
      expect(r.error.message.length).toBeLessThan(200);
    }
  });

  it('requires batch', () => {
    const required = {
      ok: false,
      error: {
        param: 'batch',
        value: null,
        allowed: 'an integer from 1 to 100000',
        message: 'batch is required: an integer from 1 to 100000',
      },
    };
    expect(parseStreamParams({})).toEqual(required);
    expect(parseStreamParams({ batch: '', interval: '5' })).toEqual(required);
  });

  it.each(['0', '100001', '1.5', '-5', 'abc', '0x10', 'Infinity', 'NaN', '+5', ' ', '5 rows'])("rejects batch '%s' naming the value and the range", (text) => {
    expect(parseStreamParams({ batch: text })).toEqual({
      ok: false,
      error: {
        param: 'batch',
        value: text,
        allowed: 'an integer from 1 to 100000',
        message: `batch must be an integer from 1 to 100000; got '${text}'`,
      },
    });
  });

  it.each(['0', '0.04', '1e-2', '60001', '-1', 'fast'])("rejects interval '%s'", (text) => {
    expect(parseStreamParams({ batch: '10', interval: text })).toEqual({
      ok: false,
      error: {
        param: 'interval',
        value: text,
        allowed: 'a number from 0.05 to 60000',
        message: `interval must be a number from 0.05 to 60000; got '${text}'`,
      },
    });
  });

  it('reports batch first when both parameters are bad', () => {
    const r = parseStreamParams({ batch: '0', interval: '0' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.param).toBe('batch');
  });
});

describe('parseStreamParams edge forms', () => {
  it('takes a signed exponent', () => {
    expect(parseStreamParams({ batch: '5', interval: '1e+1' })).toEqual({ ok: true, value: { batch: 5, interval: 10 } });
  });
});

describe('streamPath', () => {
  it('builds the path the server routes, and parses back to the same parameters', () => {
    const p = { batch: 250, interval: 0.5 };
    const path = streamPath('sse', p);
    expect(path).toBe('/sse?batch=250&interval=0.5');
    const query = Object.fromEntries(new URL(path, 'https://localhost').searchParams);
    expect(parseStreamParams(query)).toEqual({ ok: true, value: p });
    expect(streamPath('ws', { batch: 1, interval: 1 })).toBe('/ws?batch=1&interval=1');
  });
});

describe('offeredEventsPerSec', () => {
  it('is batch × 1000 / interval', () => {
    expect(offeredEventsPerSec({ batch: 100, interval: 1 })).toBe(100_000);
    expect(offeredEventsPerSec({ batch: 1, interval: 50 })).toBe(20);
    expect(offeredEventsPerSec({ batch: 10, interval: 0.5 })).toBe(20_000);
    expect(offeredEventsPerSec({ batch: 10_000, interval: 0.05 })).toBe(200_000_000);
  });
});

describe('makeRow', () => {
  it('builds the 12-column reference row, deterministically', () => {
    expect(makeRow(0, 0)).toEqual([
      0,
      '1970-01-01T00:00:00.000Z',
      1,
      116.618034,
      40.309017,
      1000,
      'c10000',
      20,
      '32.36',
      '1970-01-01T00:00:00Z',
      'column 1',
      'another field',
    ]);
    expect(makeRow(3, 0)).toEqual([
      3,
      '1970-01-01T00:00:00.003Z',
      4,
      116.4721359,
      40.236068,
      1111,
      'c10003',
      59,
      '29.44',
      '1970-01-01T00:00:00Z',
      'column 1',
      'another field',
    ]);
    expect(makeRow(1234, 5)).toEqual(makeRow(1234, 5));
  });

  it('has one value per declared column, with speed where the chart reads it', () => {
    expect(ROW_COLUMNS[SPEED_COLUMN]).toBe('speed');
    const row = makeRow(42, Date.UTC(2022, 2, 29));
    expect(row).toHaveLength(ROW_COLUMNS.length);
    expect(row[SPEED_COLUMN]).toBe(20 + ((42 * 13) % 100));
  });

  it('offsets time by i ms and cycles lane 1..4', () => {
    const epoch = Date.UTC(2022, 2, 29, 20, 35, 56, 581);
    expect(makeRow(9999, epoch)[1]).toBe('2022-03-29T20:36:06.580Z');
    expect([0, 1, 2, 3, 4, 5].map((i) => makeRow(i, epoch)[2])).toEqual([1, 2, 3, 4, 1, 2]);
  });

  it('serialises to about 120 bytes of ASCII', () => {
    const epoch = Date.UTC(2022, 2, 29, 20, 35, 56, 581);
    for (const i of [0, 1, 999, 5000, 9999]) {
      const text = JSON.stringify(makeRow(i, epoch));
      expect(text.length).toBeGreaterThanOrEqual(120);
      expect(text.length).toBeLessThanOrEqual(140);
      expect(Buffer.byteLength(text, 'utf8')).toBe(text.length);
    }
  });
});

describe('messageHead and MESSAGE_TAIL', () => {
  it('wrap rows into one JSON batch message', () => {
    expect(messageHead(7, 1711745756581.125, 1711745756580.5)).toBe('{"seq":7,"sentAt":1711745756581.125,"dueAt":1711745756580.5,"rows":[');
    expect(MESSAGE_TAIL).toBe(']}');
    const rows = [makeRow(0, 0), makeRow(1, 0)];
    const text = messageHead(7, 1.5, 1) + rows.map((r) => JSON.stringify(r)).join(',') + MESSAGE_TAIL;
    const message: BatchMessage = JSON.parse(text) as BatchMessage;
    expect(message).toEqual({ seq: 7, sentAt: 1.5, dueAt: 1, rows });
  });
});

describe('SentAtFormatter', () => {
  it('prints epoch ms to the µs exactly as String(Math.round(ms · 1000) / 1000) does', () => {
    const f = new SentAtFormatter();
    const base = 1_763_843_212_345;
    // Whole ms, trailing zeros, ms boundaries and rounding up into the next ms, in and out of order.
    const cases = [0, 0.001, 0.01, 0.1, 0.12, 0.125, 0.5, 0.999, 0.9994, 0.9996, 1, 1.0004, 2.3456, 0.25, 7.77];
    for (let i = 0; i < 2000; i++) cases.push(Math.random() * 5000);
    for (const c of cases) {
      const ms = base + c;
      expect(f.format(ms), String(ms)).toBe(String(Math.round(ms * 1000) / 1000));
    }
  });

  it('is valid JSON inside a message head', () => {
    const text = messageHead(3, new SentAtFormatter().format(1711745756581.1), new SentAtFormatter().format(1711745756580.1)) + MESSAGE_TAIL;
    expect(JSON.parse(text)).toEqual({ seq: 3, sentAt: 1711745756581.1, dueAt: 1711745756580.1, rows: [] });
  });
});

describe('TRANSPORT_INFO', () => {
  it('gives every transport its own label and its own colours, so a person and a chart can tell them apart', () => {
    const labels = TRANSPORTS.map((t) => TRANSPORT_INFO[t].label);
    expect(new Set(labels).size).toBe(TRANSPORTS.length);
    const colours = TRANSPORTS.flatMap((t) => TRANSPORT_INFO[t].shades.map((c) => c.toLowerCase()));
    expect(colours.every((c) => /^#[0-9a-f]{6}$/.test(c))).toBe(true);
    expect(new Set(colours).size).toBe(colours.length);
  });

  it('ws-stream: the ws endpoint and wire (frames, deflate, HTTP/1.1), opened only where the page has WebSocketStream', () => {
    const wire = (t: 'ws' | 'ws-stream') => {
      const { origin, path, http, carriage, compression, perHostCap } = TRANSPORT_INFO[t];
      return { origin, path, http, carriage, compression, perHostCap };
    };
    expect(wire('ws-stream')).toEqual(wire('ws'));
    expect(streamPath('ws-stream', { batch: 20, interval: 1, compression: 'deflate' })).toBe(
      streamPath('ws', { batch: 20, interval: 1, compression: 'deflate' }),
    );
    expect(TRANSPORT_INFO['ws-stream'].label).toBe('WebSocketStream');
    expect([opensIn('ws-stream', 'chrome'), opensIn('ws-stream', 'firefox')]).toEqual([true, false]);
    // Every other transport opens in both engines.
    expect(TRANSPORTS.filter((t) => !opensIn(t, 'firefox'))).toEqual(['ws-stream']);
  });

  it('TRANSPORTS are its keys, in its order', () => {
    expect(TRANSPORTS).toEqual(Object.keys(TRANSPORT_INFO));
    expect(TRANSPORTS[0]).toBe('ws');
  });
});
