/** The lab page's per-message parts, which must stay exact: counters, the row ring, the throttle. */
import { describe, expect, it } from 'vitest';
import { makeRow, TRANSPORTS, type Row } from '../../protocol/wire.js';
import { sampleMessages } from '../../web/lab/ceiling.js';
import { validatePageConfig } from '../../web/lab/config.js';
import { Counters } from '../../web/lab/counters.js';
import { fitCell, formatCell, formatLine, formatRow } from '../../web/lab/row-format.js';
import { RowRing } from '../../web/lab/table.js';
import { Throttle, type Clock } from '../../web/lab/throttle.js';

describe('Counters', () => {
  it('counts events, batches and bytes exactly', () => {
    const c = new Counters(2);
    c.batch(0, 0, 50, 6000, 1000, 1000, 50_000, 0, 0);
    c.batch(1, 0, 50, 6100, 2000, 2000, 51_000, 0, 0);
    c.batch(0, 1, 50, 6000, 3000, 3000, 52_000, 0, 0);
    expect(c.totals()).toEqual({ events: 150, batches: 3, bytes: 18100, gaps: 0, duplicates: 0, reconnects: 0, errors: 0, closedMs: 0, stalledMs: 0 });
    expect(Array.from(c.batchesPerConnection)).toEqual([2, 1]);
    // Event age counts every event, transit every batch.
    expect(c.latency.count).toBe(150);
    expect(c.latency.min).toBe(1000);
    expect(c.latency.max).toBe(52_000);
    expect(c.transit.count).toBe(3);
    expect(c.transit.max).toBe(3000);
  });

  it('counts each missing seq once, per connection', () => {
    const c = new Counters(2);
    for (const seq of [0, 1, 4, 5, 9]) c.batch(0, seq, 1, 10, 0, 0, 0, 0, 0); // 2,3 and 6,7,8 missing
    for (const seq of [0, 1, 2]) c.batch(1, seq, 1, 10, 0, 0, 0, 0, 0);
    expect(c.gaps).toBe(5);
    expect(c.duplicates).toBe(0);
    expect(Array.from(c.nextSeq)).toEqual([10, 3]);
  });

  it('a gap at the start counts too (the first seq expected is 0)', () => {
    const c = new Counters(1);
    c.batch(0, 3, 1, 10, 0, 0, 0, 0, 0);
    expect(c.gaps).toBe(3);
  });

  it('counts a repeated or older seq as a duplicate without un-counting gaps', () => {
    const c = new Counters(1);
    for (const seq of [0, 1, 1, 3, 2]) c.batch(0, seq, 1, 10, 0, 0, 0, 0, 0);
    expect(c.duplicates).toBe(2);
    expect(c.gaps).toBe(1);
    expect(c.nextSeq[0]).toBe(4);
  });
});

describe('RowRing', () => {
  const rows = (from: number, n: number): Row[] => Array.from({ length: n }, (_, i) => makeRow(from + i, 0));

  it('holds the newest rows, newest first', () => {
    const ring = new RowRing(5);
    ring.push(rows(0, 3));
    expect(ring.size).toBe(3);
    expect([0, 1, 2].map((i) => ring.newest(i)?.[0])).toEqual([2, 1, 0]);
    ring.push(rows(3, 4));
    expect(ring.size).toBe(5);
    expect([0, 1, 2, 3, 4].map((i) => ring.newest(i)?.[0])).toEqual([6, 5, 4, 3, 2]);
    expect(ring.newest(5)).toBeUndefined();
    expect(ring.total).toBe(7);
  });

  it('takes only the tail of a batch larger than the ring', () => {
    const ring = new RowRing(4);
    const batch = rows(100, 10);
    ring.push(batch);
    expect(ring.total).toBe(10);
    expect([0, 1, 2, 3].map((i) => ring.newest(i)?.[0])).toEqual([109, 108, 107, 106]);
    // Keeps references, never copies: the ring points at the batch's own rows.
    expect(ring.newest(0)).toBe(batch[9]);
  });

  it('clears', () => {
    const ring = new RowRing(3);
    ring.push(rows(0, 2));
    ring.clear();
    expect(ring.size).toBe(0);
    expect(ring.newest(0)).toBeUndefined();
  });
});

describe('formatCell', () => {
  it('formats numbers and ids and leaves text alone', () => {
    const row = makeRow(4745, Date.UTC(2022, 2, 29));
    expect(formatCell(11, row[11])).toBe('another field');
    expect(formatCell(6, row[6])).toBe('c14745');
    expect(formatCell(3, 116.9232297)).toBe('116.92323');
    expect(formatCell(1, '2022-03-29T20:35:56.581Z')).toBe('20:35:56.581');
  });
});

describe('formatRow', () => {
  it('fits every column to its width, so rows and the heading line up', () => {
    const rows = [makeRow(0, Date.UTC(2022, 2, 29)), makeRow(9999, Date.UTC(2022, 2, 29))];
    const headings = ['id', 'time (UTC)', 'lane', 'lon', 'lat', 'gas', 'device', 'speed km/h', 'temperature', 'since (UTC)', 'note', 'extra'];
    const heading = formatLine((c) => headings[c]);
    const lines = rows.map(formatRow);
    for (const line of lines) expect(line).toHaveLength(heading.length);
    // Each column starts where its heading does.
    expect(lines[1].indexOf('c19999')).toBe(heading.indexOf('device'));
    expect(lines[1].indexOf('another field')).toBe(heading.indexOf('extra'));
    expect(lines[1].startsWith('9999  ')).toBe(true);
    // Nothing the row pool writes is cut.
    for (const line of lines) expect(line).not.toContain('…');
  });

  it('cuts a value longer than its column and marks the cut', () => {
    expect(fitCell('abcdefgh', 5)).toBe('abcd…');
    expect(fitCell('ab', 5)).toBe('ab   ');
    expect(fitCell('abcde', 5)).toBe('abcde');
  });
});

describe('Throttle', () => {
  class FakeClock implements Clock {
    t = 0;
    timers: { at: number; fn: () => void }[] = [];
    now = () => this.t;
    setTimeout = (fn: () => void, ms: number) => {
      const timer = { at: this.t + ms, fn };
      this.timers.push(timer);
      return timer;
    };
    clearTimeout = (h: unknown) => {
      this.timers = this.timers.filter((t) => t !== h);
    };
    advance(ms: number) {
      const end = this.t + ms;
      for (;;) {
        this.timers.sort((a, b) => a.at - b.at);
        const next = this.timers[0];
        if (!next || next.at > end) break;
        this.timers.shift();
        this.t = next.at;
        next.fn();
      }
      this.t = end;
    }
  }

  it('draws at most once per interval under a flood of requests', () => {
    const clock = new FakeClock();
    const drawnAt: number[] = [];
    const t = new Throttle(200, () => drawnAt.push(clock.t), clock);
    // 10 requests per ms for 2 s: 20,000 requests.
    for (let ms = 0; ms < 2000; ms++) {
      for (let k = 0; k < 10; k++) t.request();
      clock.advance(1);
    }
    // The first draw is at 0, then one every 200 ms up to and including t = 2000.
    expect(drawnAt).toEqual([0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000]);
    for (let i = 1; i < drawnAt.length; i++) expect(drawnAt[i] - drawnAt[i - 1]).toBeGreaterThanOrEqual(200);
  });

  it('draws the first request after a quiet spell at once, and never without a request', () => {
    const clock = new FakeClock();
    let draws = 0;
    const t = new Throttle(200, () => draws++, clock);
    clock.advance(1000);
    expect(draws).toBe(0);
    t.request();
    clock.advance(0);
    expect(draws).toBe(1);
    t.request();
    clock.advance(199);
    expect(draws).toBe(1);
    clock.advance(1);
    expect(draws).toBe(2);
    t.request();
    t.cancel();
    clock.advance(1000);
    expect(draws).toBe(2);
  });
});

describe('validatePageConfig', () => {
  it('fills defaults', () => {
    expect(validatePageConfig({ transport: 'sse', batch: 50 })).toEqual({
      transport: 'sse',
      batch: 50,
      intervalMs: 1,
      concurrency: 1,
      render: 'full',
      parse: 'main',
      workers: 1,
      tableRows: 1000,
      renderEveryMs: 200,
      openTimeoutMs: 30000,
      pollMs: 50,
      origins: 1,
      encoding: 'json',
      inputProbe: true,
    });
  });

  it('takes the input probe on or off (a boolean, or a URL string), and names a bad value', () => {
    expect(validatePageConfig({ transport: 'ws', batch: 1, inputProbe: false }).inputProbe).toBe(false);
    expect(validatePageConfig({ transport: 'ws', batch: 1, inputProbe: 'false' }).inputProbe).toBe(false);
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, inputProbe: 'no' })).toThrow('inputProbe must be true or false; got "no"');
  });

  it('takes a render module by its built URL only, with the settings it replaces (render full, parse main)', () => {
    const url = `./render-modules/${'0'.repeat(64)}/module.js`;
    expect(validatePageConfig({ transport: 'ws', batch: 1, renderModule: url }).renderModule).toBe(url);
    expect(validatePageConfig({ transport: 'ws', batch: 1, renderModule: '' }).renderModule).toBeUndefined();
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, renderModule: 'https://example.com/m.js' })).toThrow(
      "renderModule must be a built module's URL, ./render-modules/<sha256>/module.js",
    );
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, renderModule: url, render: 'chart' })).toThrow('render must be full; got "chart"');
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, renderModule: url, parse: 'worker' })).toThrow('renderModule needs parse main');
  });

  it('accepts form strings and names the bad field, value and range', () => {
    expect(validatePageConfig({ transport: 'ws', batch: '10', concurrency: '3' }).concurrency).toBe(3);
    expect(() => validatePageConfig({ transport: 'wss', batch: 1 })).toThrow(`transport must be one of ${TRANSPORTS.join(', ')}; got "wss"`);
    expect(() => validatePageConfig({ transport: 'ws', batch: 0 })).toThrow('batch must be an integer from 1 to 100000; got 0');
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, concurrency: 1.5 })).toThrow('concurrency must be an integer from 1 to 500; got 1.5');
    expect(() => validatePageConfig({ transport: 'ws', batch: 1, render: 'table' })).toThrow('render must be one of full, chart, none; got "table"');
  });

  it('reads strings as plain decimals only, like the flags and the stream query', () => {
    expect(validatePageConfig({ transport: 'ws', batch: ' 16 ', intervalMs: '2.5e-1' })).toMatchObject({ batch: 16, intervalMs: 0.25 });
    for (const bad of ['0x10', '0b10', 'Infinity', '', '1e']) {
      expect(() => validatePageConfig({ transport: 'ws', batch: bad }), bad).toThrow(`batch must be an integer from 1 to 100000; got ${JSON.stringify(bad)}`);
    }
  });
});

describe("sampleMessages (the decoding ceiling's sample)", () => {
  it("takes 200 messages up to batch 10,000, and 2 M rows' worth past it: 20 messages of the largest batch, not 2.6 GB", () => {
    expect([1, 400, 10_000].map(sampleMessages)).toEqual([200, 200, 200]);
    expect([10_001, 40_000, 100_000].map(sampleMessages)).toEqual([199, 50, 20]);
  });
});
