/**
 * The viewer's Advice section as data (web/src/report/views.ts `adviceView`): an advise run's
 * report opens with the answer in the same words the command printed, says when the search did
 * not finish, and lists every candidate measured; a report without advice has no such section.
 * And the machine line's words from a report's environment.
 */
import { describe, expect, it } from 'vitest';
import type { Advice, Candidate } from '../protocol/advice.js';
import type { Report } from '../protocol/report.js';
import type { Target } from '../protocol/target.js';
import { candidatePoint } from '../puppeteer/advise/candidates.js';
import { advise, adviceBeforeSearch } from '../puppeteer/advise/search.js';
import { adviceText, machineWordsOf } from '../results/advice-words.js';
import { adviceView } from '../web/src/report/views.js';
import { measured, report as reportOf } from './v2-fixture.js';

const TARGET: Target = { eventsPerSec: 20_000, p99BoundMs: 200, render: 'none' };

/** A machine on which everything sustains, sse a little cheaper than ws. */
async function answer(): Promise<Advice> {
  let clock = 0;
  const window = (c: Candidate, round: number) => {
    const tab = (c.transport === 'sse' ? 5 : 5.5) * (1 + 0.01 * (round % 3));
    return measured(candidatePoint(c, TARGET.render, { warmupSec: 1, measureSec: 2, repeats: 1 }), { round, eps: c.offeredEventsPerSec, tab, p99: 10 + (c.transport === 'sse' ? 0 : 2) });
  };
  return advise({
    target: TARGET,
    transports: ['sse', 'ws'],
    space: { ticksMs: [10], connections: [1], workers: [], origins: [1], encodings: ['json'] },
    budgetSec: 200,
    now: () => clock,
    estimate: { probeSec: () => 6, repeatSec: () => 9 },
    measurer: {
      probe: async (c) => ((clock += 6), window(c, -1)),
      confirm: async (cs, round) => ((clock += 9 * cs.length), cs.map((c) => window(c, round))),
    },
  });
}

const ENV = { chromeVersion: 'HeadlessChrome/156.0.8078.79', chromePath: '/usr/bin/chromium', cpuModel: 'AMD EPYC 7B13', cores: 2, headless: true };

function withAdvice(advice: Advice, extra: Partial<Report> = {}): Report {
  const r = reportOf([], { runId: 'advise-20261125-101500', scenarios: [], ...extra });
  r.environment = { ...r.environment, ...ENV };
  r.advice = advice;
  return r;
}

describe('the Advice section', () => {
  it('opens a finished run with the words the command printed, and every candidate measured', async () => {
    const a = await answer();
    const v = adviceView(withAdvice(a))!;
    const words = adviceText(a, machineWordsOf(withAdvice(a).environment));
    expect(v.state).toBe('finished');
    expect(v.caveat).toBeNull();
    expect(v.headline).toBe(words[0]);
    expect(v.headline).toMatch(/^Use sse over HTTP\/2, 200 rows every 10 ms per connection on 1 connection, parsing on the main thread\.$/);
    expect(v.details).toEqual(words.slice(1, -1).map((l) => l.trim()));
    expect(v.details[0]).toMatch(/^Sustains 20 k events\/s: p99 10 ms/);
    expect(v.machine).toBe('Machine: 2 cores AMD EPYC 7B13, Chromium 156 headless; these figures hold for this machine and browser.');
    expect(v.tried.map((t) => t.outcome).sort()).toEqual(['runner-up', 'winner']);
    for (const t of v.tried) expect(t.why).not.toBe('');
  });

  it('says when the search was interrupted, with the command that goes on', async () => {
    const v = adviceView(withAdvice(await answer(), { interrupted: true, finishedAt: null, resumeCommand: 'npm run advise -- --resume advise-20261125-101500' }))!;
    expect(v.state).toBe('interrupted');
    expect(v.caveat).toBe('The search was stopped before it finished: this is its answer so far. Go on with: npm run advise -- --resume advise-20261125-101500');
  });

  it('says when the report was saved mid-search, and that nothing was measured yet', () => {
    const v = adviceView(withAdvice(adviceBeforeSearch({ target: TARGET, transports: ['sse'], budgetSec: 60 }), { finishedAt: null }))!;
    expect(v.state).toBe('unfinished');
    expect(v.caveat).toMatch(/^The search had not finished when this report was saved/);
    expect(v.headline).toBe('No answer for 20 k events/s with p99 ≤ 200 ms (render none): interrupted before anything was measured.');
    expect(v.tried).toEqual([]);
  });

  it('is absent from a sweep', () => {
    expect(adviceView(reportOf([]))).toBeNull();
  });
});

describe('machineWordsOf', () => {
  it('names the browser, headless or not, and leaves out what is unknown', () => {
    expect(machineWordsOf(ENV)).toEqual({ cores: 2, cpuModel: 'AMD EPYC 7B13', browser: 'Chromium 156 headless' });
    expect(machineWordsOf({ ...ENV, chromeVersion: 'Chrome/155.0.1.2', chromePath: '/opt/google/chrome/chrome', headless: false, cpuModel: 'unknown' })).toEqual({ cores: 2, cpuModel: null, browser: 'Chrome 155' });
  });
});
