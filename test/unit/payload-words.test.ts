/** The run's events in words: the report header's fields (web/report/views.ts payloadFields) and the advice's Events line (results/advice-words.ts). */
import { describe, expect, it } from 'vitest';
import type { PayloadDescription } from '../../protocol/payload.js';
import { payloadWords } from '../../results/advice-words.js';
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

  it("the advice's Events line says which events the answer holds for", () => {
    expect(payloadWords(FILE)).toBe('/data/trades.ndjson (ndjson, 1,028,598 objects, nesting depth 3, 97 bytes of JSON each)');
    expect(payloadWords(CARS)).toBe("the lab's car rows (10,000 arrays, nesting depth 1, 133 bytes of JSON each)");
  });
});
