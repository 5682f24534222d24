/**
 * Network links (protocol/link.ts): the settings a scenario or `--link` may give, the point ids
 * and words they make, the scenario file's check of their numbers, and the verdict a capped link
 * gets (results/verdict.ts findLimit: network-bound).
 */
import { describe, expect, it } from 'vitest';
import { canonicalLink, linkTag, linkWords, parseLink } from '../../protocol/link.js';
import { expandScenario, parseScenarioText } from '../../protocol/scenario.js';
import { findLimit, type LimitInput } from '../../results/verdict.js';
import { checkLinkFlag } from '../../puppeteer/options.js';
import { ADVISE_FLAGS, checkAdviseFlags } from '../../puppeteer/advise/options.js';
import { parseFlags } from '../../protocol/flags.js';
import { targetText } from '../../protocol/target.js';
import { candidatePoint } from '../../puppeteer/advise/candidates.js';
import { conditionsOf, probePoint } from '../../puppeteer/advise/measurer.js';
import type { Candidate } from '../../protocol/advice.js';
import { checkLinkConditions } from '../../puppeteer/link/link.js';
import { netnsMissing } from '../../puppeteer/link/netns.js';
import { PushlabError } from '../../protocol/errors.js';

describe('link settings', () => {
  it('reads rtt, jitter and rate, canonically, and off', () => {
    expect(parseLink('off')).toEqual({ ok: true, value: null });
    expect(parseLink('80ms,20mbit')).toEqual({ ok: true, value: { via: 'netns', rttMs: 80, jitterMs: 0, mbit: 20 } });
    expect(parseLink('50ms±10ms')).toEqual({ ok: true, value: { via: 'netns', rttMs: 50, jitterMs: 10, mbit: null } });
    expect(parseLink('50ms+-10ms,0.5mbit')).toEqual({ ok: true, value: { via: 'netns', rttMs: 50, jitterMs: 10, mbit: 0.5 } });
    expect(parseLink('5mbit')).toEqual({ ok: true, value: { via: 'netns', rttMs: 0, jitterMs: 0, mbit: 5 } });
    expect(parseLink('cdp:80ms,20mbit')).toEqual({ ok: true, value: { via: 'cdp', rttMs: 80, jitterMs: 0, mbit: 20 } });
    expect(canonicalLink('50ms+-10ms,5mbit')).toBe('50ms±10ms,5mbit');
    expect(canonicalLink('5mbit')).toBe('0ms,5mbit');
    expect(canonicalLink('off')).toBeUndefined();
  });

  it('refuses what cannot be made, naming the value and what is allowed', () => {
    const cases: [string, RegExp][] = [
      ['', /must be off \(loopback\), or <rtt>ms/],
      ['80', /must be off/],
      ['1001ms', /rtt must be a number from 0 to 1000 ms; got 1001/],
      ['50ms±30ms', /jitter must be at most half the rtt \(25 ms for 50ms\).*got 30/],
      ['0ms,0.05mbit', /rate must be a number from 0.1 to 10000 mbit.*got 0.05/],
      ['0ms,20000mbit', /rate must be/],
      ['cdp:50ms±10ms', /cdp: emulation has no jitter/],
    ];
    for (const [text, message] of cases) {
      const r = parseLink(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error, text).toMatch(message);
    }
    expect(() => checkLinkFlag('50ms±30ms')).toThrow(/--link jitter must be at most half/);
    expect(checkLinkFlag('50ms+-10ms')).toBe('50ms±10ms');
    expect(checkLinkFlag('off')).toBe('off');
  });

  it('adds to the point id and the words only when set', () => {
    expect(linkTag('80ms±10ms,20mbit')).toBe('-l80ms10j20mbit');
    expect(linkTag('0ms')).toBe('-l0ms');
    expect(linkTag('cdp:80ms,20mbit')).toBe('-cdp80ms20mbit');
    expect(linkWords('50ms±10ms,5mbit')).toBe('a 50 ms ± 10 ms round trip, 5 Mbit/s link');
    const file = parseScenarioText(
      JSON.stringify({ scenarios: [{ id: 's', transport: 'ws', batch: 10, concurrency: 1, link: ['off', '50ms+-10ms', '0ms,5mbit'] }] }),
      'test',
    );
    const points = expandScenario(file.scenarios[0], file.defaults);
    expect(points.map((p) => p.id)).toEqual(['s/ws-b10-c1-i1-full', 's/ws-b10-c1-i1-full-l50ms10j', 's/ws-b10-c1-i1-full-l0ms5mbit']);
    expect(points[0]).not.toHaveProperty('link');
    expect(points[1].link).toBe('50ms±10ms');
  });

  it('refuses a link the file cannot have, naming the scenario and the field', () => {
    const file = (link: unknown, more = {}) => JSON.stringify({ scenarios: [{ id: 's', transport: 'ws', batch: 1, concurrency: 1, link, ...more }] });
    expect(() => parseScenarioText(file('50ms±30ms'), 'f.json')).toThrow(/f\.json: scenarios\[0\] \('s'\)\.link jitter must be at most half/);
    expect(() => parseScenarioText(file('fast'), 'f.json')).toThrow(/link/);
    // A link runs a Chrome in a namespace: Firefox is refused when the file is read.
    expect(() => parseScenarioText(file('50ms', { engine: 'firefox' }), 'f.json')).toThrow(/link/);
  });
});

describe('network-bound', () => {
  const input = (o: Partial<LimitInput> = {}): LimitInput => ({
    deliveredRatio: 0.4,
    parse: 'main',
    workers: 0,
    cores: 2,
    server: { pacingRatio: 1, batchesBehind: 0, slipped: false, shed: 500, cpu: 10 },
    cpu: { tabMainThread: 20, tabProcess: 25, tabThreads: null, host: 60, network: 5, browser: 3 },
    ...o,
  });

  it('is a capped link at its rate while the server shed and nothing saturated', () => {
    const limit = findLimit(input({ linkAtRate: 0.97 }));
    expect(limit.verdict).toBe('network-bound');
    expect(limit.note).toMatch(/the link carried 97% of its cap while the server shed 500 batches/);
  });

  it('is not the link below its rate, without shedding, or with a saturated main thread', () => {
    expect(findLimit(input({ linkAtRate: 0.5 })).verdict).toBe('client-bound');
    expect(findLimit(input({ linkAtRate: 0.97, server: { pacingRatio: 1, batchesBehind: 0, slipped: false, shed: 0, cpu: 10 } })).verdict).toBe('client-bound');
    expect(
      findLimit(input({ linkAtRate: 0.97, cpu: { tabMainThread: 99, tabProcess: 99, tabThreads: null, host: 120, network: 5, browser: 3 } })).verdict,
    ).toBe('client-bound');
    // Unlimited: no cap to be at.
    expect(findLimit(input({ linkAtRate: null })).verdict).toBe('client-bound');
    expect(findLimit(input()).verdict).toBe('client-bound');
  });
});

describe('advise --link', () => {
  const check = (...argv: string[]) => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--rate', '300k', '--p99', '100ms', ...argv], 'npm run advise --'));

  it('puts the canonical link in the target, names it, and runs every candidate across it', () => {
    const target = check('--link', '80ms+-10ms,20mbit').target!;
    expect(target.link).toBe('80ms±10ms,20mbit');
    expect(targetText(target)).toMatch(/across a 80 ms ± 10 ms round trip, 20 Mbit\/s link$/);
    const c: Candidate = {
      id: 'ws-b100-c1-i10',
      transport: 'ws',
      batch: 100,
      concurrency: 1,
      intervalMs: 10,
      parse: 'main',
      workers: 0,
      origins: 1,
      encoding: 'json',
      offeredEventsPerSec: 10_000,
    };
    const p = candidatePoint(c, 'full', { warmupSec: 1, measureSec: 2, repeats: 1 }, 'advise', target);
    expect(p.link).toBe('80ms±10ms,20mbit');
    expect(p.id).toMatch(/-l80ms10j20mbit$/);
    // What the command's measurer runs each candidate under is read from the target in one place:
    // every condition set reaches the probe's point (the link once reached the words, not the points).
    const all = check('--link', '80ms,20mbit', '--tab', 'hidden-long', '--hidden-long-grace', '30', '--device', 'mid-tier', '--render', 'chart').target!;
    const on = conditionsOf(all);
    expect(on).toEqual({ render: 'chart', device: 'mid-tier', tab: 'hidden-long', hiddenLongGraceSec: 30, link: '80ms,20mbit' });
    const probe = probePoint(c, on);
    expect([probe.link, probe.tab, probe.hiddenLongGraceSec, probe.device, probe.render]).toEqual(['80ms,20mbit', 'hidden-long', 30, 'mid-tier', 'chart']);
    expect(probe.id).toMatch(/-chart-mid-hidl-l80ms20mbit$/);
    expect(check('--link', 'off').target).not.toHaveProperty('link');
    expect(() => check('--link', '2000ms')).toThrow(/--link rtt must be a number from 0 to 1000 ms; got 2000/);
    expect(() => checkAdviseFlags(parseFlags(ADVISE_FLAGS, ['--resume', 'advise-20261125-101500', '--link', '80ms'], ''))).toThrow(/--link/);
  });
});

describe('a run whose link cannot be made is refused up front', () => {
  const refusal = (points: Parameters<typeof checkLinkConditions>[0], o: Parameters<typeof checkLinkConditions>[1]): string => {
    try {
      checkLinkConditions(points, o);
    } catch (err) {
      expect(err).toBeInstanceOf(PushlabError);
      expect((err as PushlabError).code).toBe('PUSHLAB_NO_NETNS');
      return (err as PushlabError).message;
    }
    return '';
  };
  const local = { browsers: 'local' as const, server: '' };
  // Without root the first reason is root's; as root (CI here) each one's own.
  const root = netnsMissing() === null;

  it('names the link and why: remote browsers, a running server, loopback beside a link, a display', () => {
    expect(refusal([{ id: 's/a', link: '50ms' }], { browsers: 'remote', server: '' })).toMatch(
      root ? /link 50ms: .*this run's browsers are elsewhere/ : /link 50ms: .*root/,
    );
    expect(refusal([{ id: 's/a', link: '50ms' }], { browsers: 'local', server: 'https://127.0.0.1:8443/' })).toMatch(
      root ? /--server https:\/\/127\.0\.0\.1:8443\/ is already running/ : /root/,
    );
    expect(refusal([{ id: 's/a', link: '50ms' }, { id: 's/b' }], local)).toMatch(root ? /s\/b is on loopback.*give it link 0ms/ : /root/);
    expect(refusal([{ id: 's/a', link: '50ms', display: 'headful' }], local)).toMatch(root ? /s\/a names a display/ : /root/);
  });

  it('lets loopback, and cdp: anywhere, through', () => {
    expect(refusal([{ id: 's/a' }], local)).toBe('');
    expect(refusal([{ id: 's/a', link: 'cdp:50ms' }, { id: 's/b' }], { browsers: 'remote', server: 'https://x:1/' })).toBe('');
    if (root)
      expect(
        refusal(
          [
            { id: 's/a', link: '50ms' },
            { id: 's/b', link: '0ms' },
          ],
          local,
        ),
      ).toBe('');
  });
});
