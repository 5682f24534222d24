/** Which Last-Event-ID an SSE reconnect may resume from (server/transports/sse.ts resumeSeq). */
import { describe, expect, it } from 'vitest';
import { resumeSeq } from '../../server/transports/sse.js';

describe('resumeSeq', () => {
  it('continues after a plain non-negative integer whose successor is safe', () => {
    expect(resumeSeq('0')).toBe(1);
    expect(resumeSeq('41')).toBe(42);
    expect(resumeSeq(String(Number.MAX_SAFE_INTEGER - 1))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('starts a first connect (no header) from 0', () => {
    expect(resumeSeq(undefined)).toBe(0);
  });

  it.each([
    '99999999999999999999', // beyond the safe range: a schedule that never falls due
    '9007199254740991', // MAX_SAFE_INTEGER: n + 1 === n + 2, every event the same id
    '1e3',
    '0x10',
    ' 5',
    '5 ',
    '\t5',
    '-1',
    '',
    '1.5',
    '+5',
    '５', // a full-width digit
    '7, 8', // two headers joined
  ])("refuses '%s'", (bad) => {
    expect(resumeSeq(bad)).toBe('bad');
  });

  it('refuses a header given twice', () => {
    expect(resumeSeq(['1', '2'])).toBe('bad');
  });
});
