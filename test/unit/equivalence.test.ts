/** Practical margins (results/equivalence.ts): the four readings, their symmetry, and `--margin`. */
import { describe, expect, it } from 'vitest';
import { bothKeptUp, judgeRatio, marginText } from '../../results/equivalence.js';
import { DEFAULT_MARGINS, marginsText, parseMargins } from '../../protocol/margins.js';
import type { PushlabError } from '../../protocol/errors.js';
import { commandLineFlags } from '../../cli/command.js';
import { checkSweepFlags, SWEEP_FLAGS } from '../../puppeteer/options.js';
import { pairedRatio } from '../../results/stats.js';

const ci = (ratio: number, ciLow: number | null, ciHigh: number | null) => ({ ratio, ciLow, ciHigh });

describe('judgeRatio', () => {
  it('both kept up: EPS where both delivered what was offered is no race, whatever the CI', () => {
    expect(bothKeptUp(0.995, 1.01)).toBe(true);
    expect(bothKeptUp(0.995, 0.985)).toBe(false);
    // The matrix's "sse faster than ws by 0.1% (CI 0.0–0.1%)": a CI that excludes 1.
    expect(judgeRatio(ci(1.001, 1.0003, 1.0012), 0.03, true, true)).toEqual({ kind: 'both-kept-up', better: 'none', margin: 0.03 });
  });

  it('inside the margin: equivalent', () => {
    expect(judgeRatio(ci(1.01, 0.985, 1.029), 0.03, true)).toEqual({ kind: 'equivalent', better: 'none', margin: 0.03 });
    // Significant (CI excludes 1) yet wholly inside ±3%: still equivalent, not a finding.
    expect(judgeRatio(ci(1.005, 1.001, 1.009), 0.03, true).kind).toBe('equivalent');
  });

  it('straddling the margin: no clear difference, even where the CI excludes 1', () => {
    expect(judgeRatio(ci(1.04, 1.01, 1.07), 0.03, true)).toEqual({ kind: 'unclear', better: 'none', margin: 0.03 });
    expect(judgeRatio(ci(1.0, 0.9, 1.1), 0.03, true).kind).toBe('unclear');
    expect(judgeRatio(ci(1.2, null, null), 0.03, true).kind).toBe('unclear');
  });

  it('beyond the margin: different, with the better side by direction', () => {
    expect(judgeRatio(ci(1.2, 1.1, 1.3), 0.03, true)).toEqual({ kind: 'different', better: 'b', margin: 0.03 });
    // CPU per event: lower is better, so B ÷ A above the margin makes A better.
    expect(judgeRatio(ci(1.2, 1.1, 1.3), 0.05, false).better).toBe('a');
    expect(judgeRatio(ci(0.8, 0.7, 0.9), 0.05, false).better).toBe('b');
  });

  it('reads the same with A and B swapped (the margin is symmetric on the log scale)', () => {
    const a = [100, 104, 98, 101];
    const b = [103.5, 107, 101.2, 104.6];
    const ab = pairedRatio(a, b);
    const ba = pairedRatio(b, a);
    for (const m of [0.01, 0.03, 0.035, 0.05]) {
      const x = judgeRatio(ab, m, true);
      const y = judgeRatio(ba, m, true);
      expect(y.kind, `margin ${m}`).toBe(x.kind);
      expect(y.better, `margin ${m}`).toBe(x.better === 'a' ? 'b' : x.better === 'b' ? 'a' : 'none');
    }
  });

  it('with a margin of 0 is the plain significance call', () => {
    expect(judgeRatio(ci(1.0, 1.0, 1.0), 0, true).kind).toBe('unclear');
    expect(judgeRatio(ci(1.02, 1.001, 1.04), 0, true)).toMatchObject({ kind: 'different', better: 'b' });
  });
});

describe('parseMargins', () => {
  it('reads eps and cpu in percent, either or both, the other keeping its default', () => {
    expect(parseMargins('eps=3%,cpu=5%')).toEqual({ ok: true, value: { eventsPerSec: 0.03, cpuPerEvent: 0.05 } });
    expect(parseMargins('cpu=2.5%')).toEqual({ ok: true, value: { eventsPerSec: 0.03, cpuPerEvent: 0.025 } });
    expect(parseMargins(' EPS = 1 , cpu=0% ')).toEqual({ ok: true, value: { eventsPerSec: 0.01, cpuPerEvent: 0 } });
    expect(marginsText(DEFAULT_MARGINS)).toBe('eps=3%,cpu=5%');
    expect(marginText(0.025)).toBe('±2.5%');
  });

  it('refuses with the flag, the value as given and what is allowed', () => {
    const refused = (text: string) => {
      const r = parseMargins(text);
      if (r.ok) throw new Error(`'${text}' was accepted`);
      expect(r.error.param).toBe('--margin');
      expect(r.error.value).toBe(text);
      expect(r.error.allowed).toBe('eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to 50, e.g. eps=3%,cpu=5%');
      return r.error.message;
    };
    expect(refused('lat=3%')).toBe(
      "--margin has no key 'lat' (keys: eps, cpu); it takes eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to 50, e.g. eps=3%,cpu=5%; got 'lat=3%'",
    );
    expect(refused('eps=60%')).toMatch(/^--margin eps must be from 0 to 50%;/);
    expect(refused('eps=-1%')).toMatch(/^--margin cannot read 'eps=-1%'/);
    expect(refused('eps=3%,eps=4%')).toMatch(/^--margin gives eps twice/);
    expect(refused('')).toMatch(/^--margin needs key=value pairs/);
    expect(refused('eps=3%,')).toMatch(/^--margin needs key=value pairs/);
    expect(refused('eps=0x10')).toMatch(/^--margin cannot read/);
  });
});

describe('--margin on the sweep', () => {
  const flags = (argv: string[]) => checkSweepFlags(commandLineFlags(SWEEP_FLAGS, 'sweep', argv));
  it("is the run's margins when given (else the file's, recorded by the sweep), refused when bad or with --resume", () => {
    expect(flags([]).margins).toBeNull();
    expect(flags(['--margin', 'eps=1%']).margins).toEqual({ eventsPerSec: 0.01, cpuPerEvent: 0.05 });
    const bad = (argv: string[]) => {
      try {
        flags(argv);
      } catch (e) {
        return e as PushlabError;
      }
      throw new Error(`accepted ${argv.join(' ')}`);
    };
    expect(bad(['--margin', 'lat=3%']).code).toBe('PUSHLAB_BAD_FLAG');
    expect(bad(['--margin', 'lat=3%']).message).toBe(
      "--margin has no key 'lat' (keys: eps, cpu); it takes eps=<p>%,cpu=<p>% (either or both, each once), p a number from 0 to 50, e.g. eps=3%,cpu=5%; got 'lat=3%'",
    );
    expect(bad(['--resume', '20261125-040638', '--margin', 'eps=1%']).message).toMatch(/--resume finishes the recorded sweep with its own plan; drop --margin/);
  });
});
