/**
 * The run's events in words: the report header's fields (web/report/views.ts payloadFields), and
 * the advice's conditions line (results/advice-words.ts conditionsLine): its events and its page.
 */
import { describe, expect, it } from 'vitest';
import type { PayloadDescription } from '../../protocol/payload.js';
import type { Advice } from '../../protocol/advice.js';
import type { Target } from '../../protocol/target.js';
import { adviceText, conditionsLine, pageWords, payloadWords, printedAnswer } from '../../results/advice-words.js';
import { adviceBeforeSearch } from '../../puppeteer/advise/search.js';
import { adviceView } from '../../web/report/views.js';
import { parseReportText } from '../../protocol/report-check.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { payloadFields } from '../../web/report/views.js';

const FILE: PayloadDescription = {
  source: '/data/trades.ndjson',
  sha256: 'ab'.repeat(32),
  format: 'ndjson',
  shape: 'object',
  events: 1_028_598,
  bytesPerEvent: { json: 97.2, msgpack: 59.87, arrow: 58.28 },
  fields: Array.from({ length: 14 }, (_, i) => `f${i}`),
  nestingDepth: 3,
};

const CARS: PayloadDescription = {
  source: null,
  sha256: null,
  format: null,
  shape: 'array',
  events: 10_000,
  bytesPerEvent: { json: 133.4, msgpack: 80.1, arrow: 52.6 },
  fields: ['id', 'time'],
  nestingDepth: 1,
};

describe('payload words', () => {
  it("the header names the file, its hash, its events and shape, its fields (cut at 12) and each encoding's bytes per event", () => {
    expect(payloadFields(FILE)).toEqual([
      { label: 'Events', value: '/data/trades.ndjson (ndjson, sha256 abababababab…) · 1,028,598 objects · nesting depth 3' },
      { label: 'Fields', value: 'f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11 and 2 more' },
      { label: 'Bytes per event', value: 'JSON 97.2 · MessagePack 59.9 · Arrow IPC 58.3 (Arrow at batch 400)' },
    ]);
    expect(payloadFields(CARS)[0].value).toBe("the lab's car rows · 10,000 arrays · nesting depth 1");
  });

  it('the events in words: the file or the car rows, with the bytes per event in the encoding asked (JSON unless told)', () => {
    expect(payloadWords(FILE)).toBe('/data/trades.ndjson (ndjson, 1,028,598 objects, nesting depth 3, 97 bytes of JSON each)');
    expect(payloadWords(CARS)).toBe("the lab's car rows (10,000 arrays, nesting depth 1, 133 bytes of JSON each)");
    expect(payloadWords(FILE, 'msgpack')).toBe('/data/trades.ndjson (ndjson, 1,028,598 objects, nesting depth 3, 60 bytes of MessagePack each)');
    expect(payloadWords(CARS, 'arrow')).toContain('53 bytes of Arrow IPC each');
  });
});

describe('the conditions an answer was measured under', () => {
  const MODULE = { path: 'examples/react-table/rows-table.tsx', sha256: '9f'.repeat(32) };
  const target: Target = { eventsPerSec: 300_000, p99BoundMs: 100, render: 'full' };
  const asked = (t: Target): Advice => adviceBeforeSearch({ target: t, transports: ['ws'], budgetSec: 60 });
  /** The same answer with a winner of this encoding (only its candidate is read here). */
  const won = (a: Advice, encoding: 'json' | 'msgpack' | 'arrow'): Advice => {
    const candidate = { ...a.notTried[0].candidate, encoding };
    return { ...a, winner: { candidate, figures: null as unknown as NonNullable<Advice['winner']>['figures'] } };
  };

  it("the page: the module's path and version, or pushlab's own views in the render mode asked", () => {
    expect(pageWords({ render: 'full', renderModule: MODULE })).toBe('examples/react-table/rows-table.tsx (render module, sha256 9f9f9f9f9f9f…)');
    expect(pageWords({ render: 'full' })).toBe("pushlab's table and charts");
    expect(pageWords({ render: 'chart' })).toBe("pushlab's charts only (render chart)");
    expect(pageWords({ render: 'none' })).toBe('nothing drawn (render none)');
  });

  it("names the rows file with its bytes in the advised setup's encoding (JSON without a winner), and the page", () => {
    const mine = asked({ ...target, renderModule: MODULE });
    expect(conditionsLine(mine, FILE)).toBe(
      'Measured with: events /data/trades.ndjson (ndjson, 1,028,598 objects, nesting depth 3, 97 bytes of JSON each); page examples/react-table/rows-table.tsx (render module, sha256 9f9f9f9f9f9f…). The answer holds for events and a page like these.',
    );
    expect(conditionsLine(won(mine, 'msgpack'), FILE)).toContain('60 bytes of MessagePack each');
    expect(conditionsLine(won(mine, 'arrow'), FILE)).toContain('58 bytes of Arrow IPC each');
  });

  it("the lab's car rows and pushlab's table and charts, with or without a payload in the report", () => {
    const own = asked(target);
    expect(conditionsLine(own, CARS)).toBe(
      "Measured with: events the lab's car rows (10,000 arrays, nesting depth 1, 133 bytes of JSON each); page pushlab's table and charts. The answer holds for events and a page like these.",
    );
    expect(conditionsLine(own)).toBe(
      "Measured with: events the lab's car rows; page pushlab's table and charts. The answer holds for events and a page like these.",
    );
  });

  it('the terminal and the viewer say it with the same words, once each', () => {
    const file = path.join(import.meta.dirname, '..', 'fixtures', 'advise-report.json');
    const report = parseReportText(readFileSync(file, 'utf8'), file);
    const advice = { ...report.advice!, target: { ...report.advice!.target, render: 'full' as const, renderModule: MODULE } };
    const withPage = { ...report, advice, payload: FILE };
    // The recorded target with its module is a report the reader takes (its shape: protocol/report-shape.ts).
    expect(parseReportText(JSON.stringify(withPage), 'r.json').advice!.target.renderModule).toEqual(MODULE);
    expect(() =>
      parseReportText(JSON.stringify({ ...withPage, advice: { ...advice, target: { ...advice.target, renderModule: { ...MODULE, sha256: 'x' } } } }), 'r.json'),
    ).toThrow(/renderModule\.sha256/);
    const line = conditionsLine(advice, FILE);
    const printed = printedAnswer(withPage, advice);
    expect(printed.filter((l) => l.startsWith('Measured with: '))).toEqual([line]);
    // Just before the machine line, the last.
    expect(printed.at(-2)).toBe(line);
    const view = adviceView(withPage)!;
    expect(view.conditions).toBe(line);
    expect(view.details.some((l) => l.startsWith('Measured with: '))).toBe(false);
    // Left out on request (the viewer's own field shows it).
    expect(adviceText(advice, undefined, undefined, { conditions: false }).some((l) => l.startsWith('Measured with: '))).toBe(false);
  });
});
