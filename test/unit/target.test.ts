/** The advisor's target parsers (protocol/target.ts): `--rate 300k`, `--p99 100ms`, and their refusals. */
import { describe, expect, it } from 'vitest';
import { LIMITS, P99_BOUND_MS } from '../../protocol/limits.js';
import { ADVISE_CONNECTIONS, parseP99, parseRate, RATE_EVENTS_PER_SEC, rateText } from '../../protocol/target.js';

const value = (r: ReturnType<typeof parseRate>) => (r.ok ? r.value : r.error.message);
const refusal = (r: ReturnType<typeof parseRate>) => {
  if (r.ok) throw new Error(`accepted as ${r.value}`);
  return r.error;
};

describe('parseRate', () => {
  it('reads events/s with k and M suffixes', () => {
    expect(value(parseRate('300k'))).toBe(300_000);
    expect(value(parseRate('300K'))).toBe(300_000);
    expect(value(parseRate('1.5M'))).toBe(1_500_000);
    expect(value(parseRate('2500'))).toBe(2500);
    expect(value(parseRate(' 300 k '))).toBe(300_000);
    expect(value(parseRate('300k/s'))).toBe(300_000);
  });

  it('refuses 0, negatives, junk, a lower-case m and rates above what the server can send, naming flag, value and what is allowed', () => {
    const allowed = 'events per second from 1 to 800M: a number with an optional k (thousands) or M (millions), e.g. 300k, 1.5M, 2500';
    expect(refusal(parseRate('0'))).toEqual({ param: '--rate', value: '0', allowed, message: `--rate must be above 0; it takes ${allowed}; got '0'` });
    expect(refusal(parseRate('-300k')).message).toMatch(/^--rate must be above 0;/);
    expect(refusal(parseRate('0.5')).message).toMatch(/^--rate must be at least 1 event\/s;/);
    expect(refusal(parseRate('3m')).message).toMatch(/^--rate uses m, which could mean milli: write M for millions;/);
    expect(refusal(parseRate('fast')).message).toMatch(/^--rate is not a number;/);
    expect(refusal(parseRate('0x10')).message).toMatch(/^--rate is not a number;/);
    expect(refusal(parseRate('300 kk')).message).toMatch(/^--rate is not a rate;/);
    expect(refusal(parseRate('801M')).message).toBe(
      `--rate is above what the server can send (100000 rows every 1 ms on 8 connections); it takes ${allowed}; got '801M'`,
    );
    // The bound follows the server's batch limit and the most connections searched, not a number of its own.
    expect(RATE_EVENTS_PER_SEC.max).toBe(LIMITS.batch.max * Math.max(...ADVISE_CONNECTIONS) * 1000);
    expect(value(parseRate('800M'))).toBe(800e6);
  });
});

describe('parseP99', () => {
  it('reads ms or s; a bare number is ms', () => {
    expect(value(parseP99('100ms'))).toBe(100);
    expect(value(parseP99('0.5s'))).toBe(500);
    expect(value(parseP99('100'))).toBe(100);
    expect(value(parseP99(' 2.5 ms'))).toBe(2.5);
  });

  it('refuses 0, negatives, below 1 ms and above 60 s, naming flag, value and what is allowed', () => {
    const allowed = 'a latency from 1 ms to 60 s: a number with ms or s (a bare number is ms), e.g. 100ms, 0.5s';
    expect(refusal(parseP99('0ms'))).toEqual({ param: '--p99', value: '0ms', allowed, message: `--p99 must be above 0; it takes ${allowed}; got '0ms'` });
    expect(refusal(parseP99('-5ms')).message).toMatch(/^--p99 must be above 0;/);
    expect(refusal(parseP99('0.5ms')).message).toMatch(/^--p99 must be at least 1 ms/);
    expect(refusal(parseP99('61s')).message).toMatch(/^--p99 must be at most 60 s;/);
    expect(refusal(parseP99('100us')).message).toMatch(/^--p99 is not a latency;/);
    expect(P99_BOUND_MS).toMatchObject({ min: 1, max: 60_000 });
  });
});

describe('rateText', () => {
  it('says a rate with three significant figures', () => {
    expect(rateText(300_000)).toBe('300 k events/s');
    expect(rateText(1_100_000)).toBe('1.1 M events/s');
    expect(rateText(1234)).toBe('1.23 k events/s');
    expect(rateText(500)).toBe('500 events/s');
  });
});
