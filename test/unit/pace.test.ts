/** `--pace recorded`'s arithmetic (protocol/pace.ts) and the times a rows file carries (protocol/rows-file.ts). */
import { describe, expect, it } from 'vitest';
import { batchesDue, recordedEventsPerSec, recordedSchedule, recordingOf, steadySchedule, type Recording } from '../../protocol/pace.js';
import { parseRowsFile } from '../../protocol/rows-file.js';

const place = (i: number) => `line ${i + 1}`;

function recording(times: number[]): Recording {
  const r = recordingOf(times, place);
  if ('why' in r) throw new Error(r.why);
  return r.recording;
}

describe('recordingOf', () => {
  it('makes a cycle of offsets from the first event, the seam one mean gap between distinct instants', () => {
    // Bursts at 0, 50 and 100 ms: the seam is 50 ms, as the bursts are apart, not the 20 ms mean gap of events.
    const r = recording([1000, 1000, 1000, 1050, 1050, 1100]);
    expect([...r.offsetsMs]).toEqual([0, 0, 0, 50, 50, 100]);
    expect(r.periodMs).toBe(150);
    expect(recordedEventsPerSec(r)).toBe(40);
  });

  it('refuses an event with no time, times that go backwards, one instant, and fewer than two events, naming where', () => {
    const why = (times: (number | null)[]) => {
      const r = recordingOf(times, place);
      return 'why' in r ? r.why : null;
    };
    expect(why([1, null, 3])).toMatch(/^line 2 has no time: a HAR message's time, or a 't' field/);
    expect(why([1, 5, 4])).toBe('line 3 was recorded 1 ms before line 2, which comes before it: times must not go backwards');
    expect(why([7, 7, 7])).toMatch(/all 3 events were recorded at the same instant/);
    expect(why([7])).toMatch(/it has 1 event; a recorded pace needs 2 or more/);
  });
});

describe('recordedSchedule', () => {
  const r = recording([0, 0, 0, 0, 30, 30, 110, 120, 120, 200]);

  it('keeps the offered rate: every whole cycle of batches is due exactly as the steady tick would have it', () => {
    for (const [batch, interval] of [
      [1, 1],
      [2, 20],
      [5, 3],
      [10, 50],
    ]) {
      const s = recordedSchedule(r, batch, interval);
      const steady = steadySchedule(interval);
      // 10 events a cycle: after 10 batches, `batch` whole cycles went by.
      for (const seq of [10, 20, 100]) expect(s.dueMs(seq)).toBeCloseTo(steady.dueMs(seq), 9);
    }
  });

  it('makes a burst of events recorded in one instant a burst of batches due together', () => {
    // batch 2: batches 0 and 1 hold the four events at 0 ms; batch 2 the two at 30 ms.
    const s = recordedSchedule(r, 2, 10);
    // Scale: 10 events per 250 ms recorded (span 200 + the mean gap of its 5 instants, 50), offered 2 per 10 ms.
    const period = 200 + 200 / 4;
    const scale = (10 * 10) / (period * 2);
    expect(s.dueMs(0)).toBe(0);
    expect(s.dueMs(1)).toBe(0);
    expect(s.dueMs(2)).toBeCloseTo(30 * scale, 9);
    expect(s.dueMs(3)).toBeCloseTo(120 * scale, 9);
    expect(s.dueMs(4)).toBeCloseTo(200 * scale, 9);
    // The next cycle starts one seam gap after the last event.
    expect(s.dueMs(5)).toBeCloseTo(period * scale, 9);
    expect(s.dueBy(0)).toBe(2);
    expect(s.dueBy(30 * scale - 1e-6)).toBe(2);
    expect(s.dueBy(30 * scale)).toBe(3);
  });

  it('dueBy counts exactly the batches due by then, at any elapsed time', () => {
    for (const [batch, interval] of [
      [1, 1],
      [3, 7],
      [4, 0.5],
    ]) {
      const s = recordedSchedule(r, batch, interval);
      for (let seq = 0; seq < 300; seq++) {
        const at = s.dueMs(seq);
        expect(s.dueBy(at)).toBeGreaterThan(seq);
        if (seq > 0 && s.dueMs(seq - 1) < at) expect(s.dueBy(at - 1e-6)).toBe(seq);
      }
      expect(s.dueBy(-1)).toBe(0);
    }
  });

  it('the steady schedule is the tick batchesDue counts', () => {
    const s = steadySchedule(7);
    for (const e of [-1, 0, 6.99, 7, 700]) expect(s.dueBy(e)).toBe(batchesDue(e, 7));
    expect(s.dueMs(3)).toBe(21);
  });
});

describe('times in a rows file', () => {
  it("reads an object's t as ms or an ISO date, and none from an array or a t that is neither", () => {
    const text = ['{"t":1000,"a":1}', '{"t":"1970-01-01T00:00:02.500Z","a":2}', '{"t":"soon","a":3}', '{"a":4}'].join('\n');
    expect(parseRowsFile(text, 'f.ndjson').times).toEqual([1000, 2500, null, null]);
    expect(parseRowsFile('[1,2]\n[3,4]', 'f.ndjson').times).toEqual([null, null]);
  });

  it("gives every event of a HAR message the message's time, in ms", () => {
    const har = {
      log: {
        entries: [
          {
            _webSocketMessages: [
              { type: 'receive', time: 1700000000.25, opcode: 1, data: '[{"a":1},{"a":2}]' },
              { type: 'send', time: 1700000000.3, opcode: 1, data: '{"sub":1}' },
              { type: 'receive', time: 1700000000.5, opcode: 1, data: '{"a":3,"t":5}' },
            ],
          },
        ],
      },
    };
    expect(parseRowsFile(JSON.stringify(har), 'f.har').times).toEqual([1700000000250, 1700000000250, 1700000000500]);
  });
});
